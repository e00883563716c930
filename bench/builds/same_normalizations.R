# Do two builds of kmreduce normalize counts to the same bits? Every
# normalization on every reader of cells: in memory (sparse and dense rows,
# and the stored genes x cells layout), a SummarizedExperiment's assay in
# memory, as a DelayedMatrix, an HDF5Matrix and a 10x file (with and
# without size factors, the sample of cells of the default SVD), predict()
# of new cells (all the genes, other genes, a fit recorded by an older
# version), whole counts and fractional ones (whose library sizes depend on
# the order and precision of the sums), and the messages of values that are
# not counts; run once in a fresh Rscript per build, each result compared
# with identical() (timings and calls left out). Prints one line per case
# and the number that differ; asserts nothing. (MPI ranks:
# tests/testthat/test-mpi_rows.R.) Needs SingleCellExperiment, HDF5Array
# and rhdf5.
# Run: Rscript bench/builds/same_normalizations.R LIB_A LIB_B
#   e.g. a library with the branch's starting commit installed, and .Rlib
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/builds/same_normalizations.R LIB_A LIB_B")
libs <- normalizePath(args[1:2])

child <- '
suppressPackageStartupMessages({
  library(kmreduce)
  library(SingleCellExperiment)
})
out <- commandArgs(TRUE)[1]
ns <- asNamespace("kmreduce")
set.seed(1)
n_genes <- 150L; n_cells <- 400L
type <- sample(3, n_cells, TRUE)
mu <- matrix(rgamma(n_genes * 3, 0.4, 1), n_genes) * 6
counts <- matrix(rpois(n_genes * n_cells, mu[, type] * rep(rlnorm(n_cells, 0, 0.4), each = n_genes)),
                 n_genes)
counts[, 7] <- 0  # (a cell without counts)
dimnames(counts) <- list(sprintf("g%d", seq_len(n_genes)), sprintf("c%d-1", seq_len(n_cells)))
sparse <- methods::as(counts, "CsparseMatrix")
# fractional counts of several magnitudes (sums that depend on their order)
frac <- counts * runif(length(counts), 0.1, 3) + (counts > 0) * 1e-9 * rexp(length(counts))
frac[1:3, 11] <- c(1e12, 1, 1e-5)
frac_sparse <- methods::as(frac, "CsparseMatrix")
sf <- runif(n_cells, 0.3, 3)
hows <- c("log1p_cpm", "log1p_cp10k", "log1p_size_factors")
strip <- function(f) {
  f$timing <- NULL; f$call <- NULL; f$passes <- NULL; f$sketch <- NULL
  if (!is.null(f$dims_auto)) f$dims_auto$seconds <- NULL
  f
}
err <- function(expr) tryCatch({ expr; "no error" }, error = function(e) conditionMessage(e))
file_n <- 0L
tenx <- function(m) {
  file_n <<- file_n + 1L
  f <- file.path(tempdir(), sprintf("n%d.h5", file_n))
  m <- methods::as(m, "CsparseMatrix")
  rhdf5::h5createFile(f)
  rhdf5::h5createGroup(f, "mm10")
  ds <- function(name, value, type) {
    rhdf5::h5createDataset(f, paste0("mm10/", name), dims = length(value), H5type = type,
                           chunk = min(length(value), 4096L), level = 4)
    rhdf5::h5write(value, f, paste0("mm10/", name))
  }
  ds("data", as.integer(m@x), "H5T_STD_I32LE")
  ds("indices", as.numeric(m@i), "H5T_STD_I64LE")
  ds("indptr", as.numeric(m@p), "H5T_STD_I64LE")
  rhdf5::h5write(as.integer(dim(m)), f, "mm10/shape")
  rhdf5::h5write(colnames(m), f, "mm10/barcodes")
  rhdf5::h5write(rownames(m), f, "mm10/genes")
  rhdf5::h5closeAll()
  rhdf5::h5errorHandling("normal")
  HDF5Array::TENxMatrix(f, "mm10")
}
sce <- function(a, size_factors = NULL) {
  x <- SingleCellExperiment(list(counts = a))
  if (!is.null(size_factors)) sizeFactors(x) <- size_factors
  x
}
res <- list()
# the transform in memory, every layout
rows <- Matrix::t(sparse); frows <- Matrix::t(frac_sparse)
for (how in c("none", hows)) {
  res[[paste0("rows/", how)]] <- ns$normalize_rows(rows, how, "x")
  res[[paste0("dense/", how)]] <- ns$normalize_rows(as.matrix(rows), how, "x")
  res[[paste0("columns/", how)]] <- ns$normalize_columns(sparse, list(how = how,
    target = if (how == "none") 0 else 1e4, size_factors = NULL), "x")
  res[[paste0("frac_rows/", how)]] <- ns$normalize_rows(frows, how, "x")
  res[[paste0("frac_dense/", how)]] <- ns$normalize_rows(as.matrix(frows), how, "x")
  res[[paste0("frac_columns/", how)]] <- ns$normalize_columns(frac_sparse, list(how = how,
    target = if (how == "none") 0 else 1e6, size_factors = NULL), "x")
}
with_sf <- list(how = "log1p_size_factors", target = mean(sf), size_factors = sf, from = "sizeFactors")
res$rows_sf_block <- ns$normalize_rows(frows[51:90, ], with_sf, "x", 51L)
res$dense_sf_block <- ns$normalize_rows(as.matrix(frows[51:90, ]), with_sf, "x", 51L)
res$columns_sf_block <- ns$normalize_columns(frac_sparse[, 51:90], with_sf, "x", 51L)
res$cells_to_rows <- ns$cells_to_rows_cpp(frac_sparse@x, frac_sparse@i, as.numeric(frac_sparse@p),
                                          n_genes, 1e4, NULL, 1)
res$cells_to_rows_sf <- ns$cells_to_rows_cpp(frac_sparse@x, frac_sparse@i,
                                             as.numeric(frac_sparse@p), n_genes, 3.5, sf, 1)
res$integer_dense <- ns$normalize_rows(t(counts), "log1p_cpm", "x")
# values that are not counts: the messages
for (v in list(NA, NaN, -1.5, Inf, -Inf, -123456.75)) {
  b <- frows; b@x[77] <- v
  d <- as.matrix(frows); d[95, 33] <- v
  s <- frac_sparse; s@x[310] <- v
  res[[paste0("error/", format(v))]] <- c(err(ns$normalize_rows(b, "log1p_cp10k", "the x", 1001L)),
    err(ns$normalize_rows(d, "log1p_size_factors", "the x", 101L)),
    err(ns$normalize_columns(s, "log1p_cpm", "the x", 7L)),
    err(ns$normalize_rows(b, list(how = "log1p_cpm", check_only = TRUE), "the x")))
}
res$error_in_se <- err(kmeans_reduced(sce(replace(counts, 1234, -3)), 3, normalize = "log1p_cpm",
                                      seed = 1))
more <- rbind(sparse, methods::as(matrix(rpois(5 * n_cells, 2), 5,
                                         dimnames = list(paste0("new", 1:5), NULL)), "CsparseMatrix"))
# fits, every reader
args <- list(k = 3, method = "sparse_embedding", dims = 20, n_init = 2, seed = 4)
for (how in hows) {
  for (with in c("lib", "sf")) {
    s <- if (with == "sf") sf
    inputs <- list(sparse = sparse, dense = counts, delayed = DelayedArray::DelayedArray(sparse),
                   hdf5 = HDF5Array::writeHDF5Array(counts, tempfile(fileext = ".h5"), "counts"),
                   tenx = tenx(sparse))
    for (name in names(inputs)) {
      msgs <- character()
      fit <- withCallingHandlers(
        do.call(kmeans_reduced, c(list(sce(inputs[[name]], s), normalize = if (how != "log1p_size_factors") how,
                                       control = list(block_rows = 53L)), args)),
        message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
      res[[sprintf("fit/%s/%s/%s", how, with, name)]] <- list(strip(fit), msgs)
    }
  }
}
# the default fit (rsvd from a sample of cells kept by the library sizes pass)
for (name in c("memory", "delayed", "tenx")) {
  a <- switch(name, memory = sparse, delayed = DelayedArray::DelayedArray(sparse), tenx = tenx(sparse))
  fit <- suppressMessages(kmeans_reduced(sce(a), 3, seed = 9, dims = 10,
                                         control = list(svd_rows = 150, block_rows = 61L)))
  res[[paste0("default/", name)]] <- strip(fit)
  res[[paste0("predict/", name)]] <- list(predict(fit, sce(a)), predict(fit, sce(sparse[, 1:33])),
    predict(fit, sce(sparse[rev(seq_len(n_genes)), ])), predict(fit, sce(more)),
    err(predict(fit, sce(sparse[-1, ]))))
}
# predict(): size factors, other genes, fits recorded by older versions
fit <- suppressMessages(do.call(kmeans_reduced, c(list(sce(sparse, sf)), args)))
res$predict_sf <- list(predict(fit, sce(sparse, sf)), predict(fit, sce(more, sf)),
                       err(predict(fit, sce(sparse))), predict(fit, sce(sparse[, 5:9], sf[5:9] * 2)))
old <- fit; old$input$size_factors_from <- NULL
res$predict_old_sf <- list(predict(old, sce(sparse, sf)))
old$input$target <- NULL
res$predict_old_none <- list(predict(old, sce(sparse, sf)), err(predict(old, sce(sparse))))
fit_lib <- suppressMessages(do.call(kmeans_reduced, c(list(sce(sparse)), args)))
old <- fit_lib; old$input$size_factors_from <- NULL
res$predict_old_lib <- list(predict(fit_lib, sce(sparse, sf)), predict(old, sce(more)),
                            predict(old, sce(sparse[, 1:50], sf[1:50])))
saveRDS(res, out)
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
run <- function(lib) {
  out <- tempfile(fileext = ".rds")
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script, out),
                    env = c(paste0("R_LIBS=", lib), "OMP_NUM_THREADS=2"))
  if (status != 0) stop("the normalizations failed with ", lib)
  readRDS(out)
}
a <- run(libs[1])
b <- run(libs[2])
cat(sprintf("# bench/builds/same_normalizations.R: A = %s, B = %s\n\n", libs[1], libs[2]))
differ <- 0L
for (nm in union(names(a), names(b))) {
  same <- identical(a[[nm]], b[[nm]])
  if (!same) differ <- differ + 1L
  cat(sprintf("%-34s %s\n", nm, if (same) "identical" else "DIFFERENT"))
}
cat(sprintf("\n%d of %d cases differ\n", differ, length(union(names(a), names(b)))))
