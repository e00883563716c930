# Do two builds of kmreduce give the same bits? A set of fits (every method,
# both seedings, the polish, single precision, sparse and big.matrix rows,
# refine, given centres, dims = "auto", k_path) and the other exported
# computations, run once in a fresh Rscript per build; every field compared
# with identical() (timings and calls left out). Prints one line per case
# and the number that differ; asserts nothing.
# Run: Rscript bench/builds/same_fits.R LIB_A LIB_B
#   e.g. a library with the branch's starting commit installed, and .Rlib
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/builds/same_fits.R LIB_A LIB_B")
libs <- normalizePath(args[1:2])

child <- '
suppressPackageStartupMessages(library(kmreduce))
a <- commandArgs(TRUE)
set.seed(1)
n <- 3000L; d <- 40L; k <- 6L
centres <- matrix(rnorm(k * d, sd = 2), k, d)
x <- centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
far <- x + 1e6
sp <- Matrix::rsparsematrix(2000, 300, 0.05)
strip <- function(f) {
  f$timing <- NULL; f$call <- NULL
  f$passes <- NULL; f$sketch <- NULL  # (fields older builds do not have)
  if (!is.null(f$dims_auto)) f$dims_auto$seconds <- NULL  # (timings)
  f
}
fits <- list(
  default = kmeans_reduced(x, k, seed = 1, n_threads = 2),
  none = kmeans_reduced(x, k, method = "none", seed = 2, n_threads = 2),
  none_one = kmeans_reduced(x, k, method = "none", n_init = 1, seed = 3),
  far_none = kmeans_reduced(far, k, method = "none", n_init = 3, seed = 3),
  parallel = kmeans_reduced(x, k, method = "none", seed = 4, control = list(seeding = "k-means||")),
  hartigan = kmeans_reduced(x, k, method = "none", n_init = 4, seed = 5, control = list(polish = "hartigan")),
  single = kmeans_reduced(x, k, method = "none", n_init = 3, seed = 6, control = list(precision = "single")),
  gaussian = kmeans_reduced(x, k, method = "gaussian", dims = 12, seed = 7, refine = 3),
  srht = kmeans_reduced(x, k, method = "srht", dims = 12, seed = 7),
  fjlt = kmeans_reduced(x, k, method = "fjlt", dims = 12, seed = 7),
  sparse_embedding = kmeans_reduced(x, k, method = "sparse_embedding", dims = 12, seed = 8),
  leverage = kmeans_reduced(x, k, method = "leverage", dims = 15, seed = 9),
  cssp = kmeans_reduced(x, k, method = "cssp", dims = 10, seed = 10),
  svd = kmeans_reduced(x, k, method = "svd", seed = 11),
  rsvd = kmeans_reduced(x, k, method = "rsvd", seed = 12, control = list(power_iters = 1)),
  centres = kmeans_reduced(x, x[1:k, ], method = "sign", dims = 10),
  auto_dims = kmeans_reduced(x, k, method = "sign", dims = "auto", n_init = 2, seed = 13),
  reductions = kmeans_reduced(x, k, method = "sign", dims = 8, n_reductions = 3, seed = 14),
  sparse_none = kmeans_reduced(sp, 5, method = "none", n_init = 3, seed = 15),
  sparse_auto = kmeans_reduced(sp, 5, seed = 16),
  sparse_rsvd = kmeans_reduced(sp, 5, method = "rsvd", seed = 17),
  big = if (requireNamespace("bigmemory", quietly = TRUE)) {
    kmeans_reduced(bigmemory::as.big.matrix(x), k, method = "rsvd", seed = 18, refine = 2,
                   control = list(block_rows = 700))
  })
fits <- lapply(fits, function(f) if (!is.null(f)) strip(f))
path <- kmreduce::k_path(x, 2:5, method = "sign", dims = 10, seed = 19, n_init = 2)
other <- list(
  k_path = path$summary,
  predict = predict(fits$leverage, x[1:100, ]),
  objective = kmeans_objective(x, fits$none$cluster),
  rsvd = randomized_svd(x, 5, seed = 20),
  reduce = reduce_dims(x, 10, method = "achlioptas", seed = 21)$reduced)
saveRDS(c(fits, other), a[1])
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
run <- function(lib) {
  out <- tempfile(fileext = ".rds")
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script, out),
                    env = c(paste0("R_LIBS=", lib), "OMP_NUM_THREADS=2"))
  if (status != 0) stop("the fits failed with ", lib)
  readRDS(out)
}
a <- run(libs[1])
b <- run(libs[2])
cat(sprintf("# bench/builds/same_fits.R: A = %s, B = %s\n\n", libs[1], libs[2]))
differ <- 0L
for (nm in union(names(a), names(b))) {
  same <- identical(a[[nm]], b[[nm]])
  if (!same) {
    differ <- differ + 1L
    fields <- if (is.list(a[[nm]]) && is.list(b[[nm]])) {
      nms <- union(names(a[[nm]]), names(b[[nm]]))
      nms[!vapply(nms, function(f) identical(a[[nm]][[f]], b[[nm]][[f]]), TRUE)]
    }
    cat(sprintf("%-18s DIFFERENT %s\n", nm, paste(fields, collapse = ", ")))
  } else {
    cat(sprintf("%-18s identical\n", nm))
  }
}
cat(sprintf("\n%d of %d cases differ\n", differ, length(union(names(a), names(b)))))
