# The routes from a 10x-layout (TENx) HDF5 file to a partition of its cells,
# one route per process (routes.sh runs them side by side under
# /usr/bin/time -v, so each route's peak resident memory is its own, then
# scores every saved partition in one pass with target.R's `score` part and
# prints the table):
#
#   Rscript bench/atlas/routes.R FILE ROUTE k out_dir
#
# ROUTE (each timed from opening the file to the labels, in its process):
#   default        kmeans_reduced(sce, k, seed = 1, n_threads = 2), sce a
#                  SingleCellExperiment whose "counts" are TENxMatrix(FILE,
#                  "mm10"): the package's defaults for counts (log1p of
#                  counts / size factors; the randomized SVD, eps 1 and one
#                  power iteration, of 20000 cells drawn in the library
#                  sizes' pass, to 150 PCs; every cell projected; n_init 10).
#   no_cache       the default with control = list(file_cache = 0): every
#                  pass reads the file (three), where the default keeps the
#                  file's counts in memory after the first when they fit.
#   svd_rows_50k   the default with control = list(svd_rows = 50000): the
#                  SVD of a sample of 50000 cells instead of 20000.
#   power0         the default with control = list(power_iters = 0).
#   dims100        the default with dims = 100 (fewer principal components:
#                  a cheaper SVD, projection and k-means).
#   svd_rows_10k   the default with control = list(svd_rows = 10000): the
#                  SVD of a sample of 10000 cells instead of 20000.
#   cpm_embedding  the previous documented call: kmeans_reduced(sce, k,
#                  assay = "counts", normalize = "log1p_cpm", method =
#                  "sparse_embedding", seed = 1, n_threads = 2).
#   osca           Bioconductor's route of the OSCA book: the file loaded into
#                  memory as a dgCMatrix (rhdf5, the fastest load), then
#                  scuttle::logNormCounts(), scran::modelGeneVar(), the top
#                  2000 genes (getTopHVGs()), scater::runPCA(ncomponents = 50,
#                  BSPARAM = IrlbaParam()) and stats::kmeans(nstart = 10,
#                  iter.max = 100) on the PCs. Serial BiocParallel (the
#                  defaults); the BLAS may use its own threads.
#   mbkmeans       mbkmeans at its documented defaults on the delayed
#                  log1p-size-factor data of the TENxMatrix (library sizes by
#                  colSums() in the time); only where mbkmeans is installed.
#
# ROUTE_SEED (default 1): the seed of every route (kmeans_reduced()'s
# `seed`; set.seed() before runPCA() and kmeans() of osca, mbkmeans()), to
# see how much a route's ARI moves with its random start.
#
# Labels go to out_dir/ROUTE.labels.rds (for target.R's score part). Each
# route prints one line "RESULT ROUTE key=value ..." for the driver.
suppressPackageStartupMessages({
  library(rhdf5)
  library(Matrix)
})
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 4L) stop("usage: routes.R FILE ROUTE k out_dir", call. = FALSE)
file <- normalizePath(args[[1L]], mustWork = TRUE)
route <- args[[2L]]
k <- as.integer(args[[3L]])
out_dir <- args[[4L]]
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
group <- "mm10"
n_threads <- 2L
seed <- as.integer(Sys.getenv("ROUTE_SEED", "1"))
dsn <- function(x) paste0(group, "/", x)
el <- function() proc.time()[["elapsed"]]
cpu <- function() sum(proc.time()[c("user.self", "sys.self", "user.child", "sys.child")],
                      na.rm = TRUE)
result <- function(...) {
  kv <- list(...)
  cat("RESULT", route, paste0(names(kv), "=", vapply(kv, function(v)
    if (is.numeric(v)) format(signif(v, 6), scientific = FALSE) else as.character(v), ""),
    collapse = " "), "\n")
}
save_labels <- function(cl) saveRDS(as.integer(cl), file.path(out_dir, paste0(route, ".labels.rds")))

# The kmreduce routes: the call on a SingleCellExperiment of the TENxMatrix,
# with the arguments of the route added to kmeans_reduced(sce, k, seed = 1,
# n_threads = 2).
kmreduce_route <- function(...) {
  suppressPackageStartupMessages({
    library(kmreduce)
    library(HDF5Array)
    library(SingleCellExperiment)
  })
  t0 <- el(); c0 <- cpu()
  sce <- SingleCellExperiment(list(counts = TENxMatrix(file, group)))
  fit <- kmeans_reduced(sce, k, ..., seed = seed, n_threads = n_threads)
  sec <- el() - t0; cpu_s <- cpu() - c0
  save_labels(fit$cluster)
  tm <- fit$timing
  pick <- function(x) if (is.null(x)) NA else x
  result(seconds = sec, cpu_s = cpu_s, seed = seed, method = pick(fit$method), dims = pick(fit$dims),
         normalize = pick(fit$input$normalize), target = pick(fit$input$target),
         iter = sum(fit$iter), wcss_fit = fit$tot.withinss, reduce_s = pick(tm[["reduce"]]), cluster_s = pick(tm[["cluster"]]),
         n = length(fit$cluster))
}

# The file's counts in memory, genes x cells (rhdf5: each dataset in one call).
load_counts <- function() {
  fid <- H5Fopen(file, flags = "H5F_ACC_RDONLY")
  on.exit(H5Fclose(fid))
  indptr <- h5read(fid, dsn("indptr"), bit64conversion = "double")
  shape <- h5read(fid, dsn("shape"))
  x <- h5read(fid, dsn("data"))
  i <- h5read(fid, dsn("indices"), bit64conversion = "int")
  new("dgCMatrix", i = as.integer(i), p = as.integer(indptr), x = as.double(x),
      Dim = c(as.integer(shape[[1L]]), as.integer(shape[[2L]])))
}

switch(route,
  default = kmreduce_route(),
  no_cache = kmreduce_route(control = list(file_cache = 0)),
  svd_rows_50k = kmreduce_route(control = list(svd_rows = 50000)),
  power0 = kmreduce_route(control = list(power_iters = 0)),
  dims100 = kmreduce_route(dims = 100),
  svd_rows_10k = kmreduce_route(control = list(svd_rows = 10000)),
  cpm_embedding = kmreduce_route(assay = "counts", normalize = "log1p_cpm",
                                 method = "sparse_embedding"),
  osca = {
    suppressPackageStartupMessages({
      library(SingleCellExperiment)
      library(scuttle)
      library(scran)
      library(scater)
      library(BiocSingular)
    })
    t0 <- el(); c0 <- cpu()
    sce <- SingleCellExperiment(list(counts = load_counts()))
    t_load <- el() - t0
    sce <- logNormCounts(sce)
    dec <- modelGeneVar(sce)
    hvg <- getTopHVGs(dec, n = 2000)
    t_hvg <- el() - t0
    set.seed(seed)
    sce <- runPCA(sce, ncomponents = 50, subset_row = hvg, BSPARAM = IrlbaParam())
    t_pca <- el() - t0
    set.seed(seed)
    n_warn <- 0L
    km <- withCallingHandlers(
      stats::kmeans(reducedDim(sce, "PCA"), centers = k, nstart = 10, iter.max = 100),
      warning = function(w) { n_warn <<- n_warn + 1L; invokeRestart("muffleWarning") })
    sec <- el() - t0; cpu_s <- cpu() - c0
    save_labels(km$cluster)
    result(seconds = sec, cpu_s = cpu_s, seed = seed, load_s = t_load, norm_hvg_s = t_hvg - t_load,
           pca_s = t_pca - t_hvg, kmeans_s = sec - t_pca, hvgs = length(hvg),
           iter = km$iter, kmeans_warnings = n_warn, n = length(km$cluster))
  },
  mbkmeans = {
    suppressPackageStartupMessages({ library(HDF5Array); library(mbkmeans) })
    t0 <- el(); c0 <- cpu()
    X <- TENxMatrix(file, group)
    lib <- DelayedArray::colSums(X)
    Y <- log1p(t(t(X) / lib) * mean(lib))      # log1p size factors, cells as columns
    set.seed(seed)
    fit <- mbkmeans(Y, clusters = k)           # documented defaults otherwise
    sec <- el() - t0; cpu_s <- cpu() - c0
    save_labels(fit$Clusters)
    result(seconds = sec, cpu_s = cpu_s, seed = seed, n = length(fit$Clusters))
  },
  stop("unknown route: ", route, call. = FALSE)
)
