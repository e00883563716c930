# Whether two builds of kmreduce give the same bits: a handful of fits
# (default, method "none", "sign", sparse input, precision "single",
# k-means|| seeding, 2 threads, predict, randomized SVD) run in a fresh
# Rscript per build, compared with identical() (the call and the timing
# fields left out). With a SIMD level (portable, avx2, avx512) each child
# runs with KMREDUCE_SIMD set to it (a build that does not know the variable
# must be one capped at that level at compile time).
# Run: Rscript bench/builds/identical_fits.R LIB_A LIB_B [level]
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/builds/identical_fits.R LIB_A LIB_B [level]")
libs <- normalizePath(args[1:2])
level <- if (length(args) >= 3L) args[3] else ""

child <- '
suppressPackageStartupMessages(library(kmreduce))
out <- commandArgs(TRUE)[1]
set.seed(1)
x <- matrix(rnorm(3000 * 40), 3000) + rep(rnorm(6 * 40, sd = 4), each = 500)
sp <- Matrix::rsparsematrix(2000, 300, 0.05)
strip <- function(f) {
  f$call <- NULL; f$timing <- NULL; f$elapsed <- NULL
  if (is.list(f)) { f$passes <- NULL; f$sketch <- NULL }  # (fields older builds do not have)
  f
}
fits <- list(
  default = kmeans_reduced(x, 6, seed = 1, n_threads = 2),
  none = kmeans_reduced(x, 6, method = "none", seed = 2, n_threads = 2),
  sign = kmeans_reduced(x, 6, method = "sign", dims = 20, seed = 3, n_threads = 1),
  sparse = kmeans_reduced(sp, 5, method = "sparse_embedding", dims = 30, seed = 4, n_threads = 2),
  single = kmeans_reduced(x, 6, method = "none", seed = 5, n_threads = 2,
                          control = list(precision = "single")),
  parallel = kmeans_reduced(x, 6, method = "none", seed = 6, n_threads = 2,
                            control = list(seeding = "k-means||")),
  far = kmeans_reduced(x + 1e6, 6, method = "none", seed = 7, n_threads = 2, n_init = 3))
fits <- lapply(fits, strip)
fits$predict <- predict(fits$sign, x[1:500, ])
fits$rsvd <- randomized_svd(x, 5, seed = 8, n_threads = 2)
fits$level <- kmreduce:::simd_level_cpp()
saveRDS(fits, out)
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
res <- lapply(libs, function(lib) {
  out <- tempfile(fileext = ".rds")
  env <- c(paste0("R_LIBS=", lib), if (nzchar(level)) paste0("KMREDUCE_SIMD=", level))
  log <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script, out),
                 env = env, stdout = TRUE, stderr = TRUE)
  if (!file.exists(out)) stop(paste(c("the child failed:", log), collapse = "\n"))
  readRDS(out)
})
cat(sprintf("SIMD level: A %s, B %s\n", res[[1]]$level, res[[2]]$level))
same <- vapply(setdiff(names(res[[1]]), "level"),
               function(nm) identical(res[[1]][[nm]], res[[2]][[nm]]), TRUE)
for (nm in names(same)) cat(sprintf("  %-9s %s\n", nm, if (same[[nm]]) "identical" else "DIFFERENT"))
cat(sprintf("%d of %d identical\n", sum(same), length(same)))
