# Mini-batch k-means against the default pipeline on simulated single-cell
# counts (a SingleCellExperiment, clustered with the cells' defaults: log1p
# of size-factor-normalized counts, 150 principal components): for each
# seed, the objective over the default's and the smallest cluster. More
# clusters than cell types is where a reassigned centre can keep a single
# cell. Prints side by side; asserts nothing.
# Run: R_LIBS=.Rlib Rscript bench/quality/minibatch_small_clusters.R [genes cells types k seeds]
#   (default 1000 20000 5 20 6)
suppressPackageStartupMessages({
  library(kmreduce)
  library(SingleCellExperiment)
})
args <- as.integer(commandArgs(TRUE))
if (length(args) == 0L) args <- c(1000L, 20000L, 5L, 20L, 6L)
genes <- args[1]; cells <- args[2]; types <- args[3]; k <- args[4]; seeds <- args[5]
# (the simulation of tests/testthat/helper-hdf5.R::sim_counts())
counts <- withr::with_seed(1, {
  type <- sample(types, cells, replace = TRUE)
  base <- stats::rgamma(genes, 0.3, 1)
  mu <- vapply(seq_len(types), function(t) {
    b <- base
    up <- sample(genes, genes %/% 10)
    b[up] <- b[up] * 6
    b
  }, numeric(genes))
  lib <- stats::rlnorm(cells, 0, 0.3)
  m <- matrix(stats::rpois(genes * cells, mu[, type] * rep(lib, each = genes)), genes, cells)
  methods::as(m, "CsparseMatrix")
})
sce <- SingleCellExperiment(list(counts = counts))
cat(sprintf("# %d genes x %d cells, %d types, k = %d; SIMD %s, 1 thread\n", genes, cells, types,
            k, kmreduce:::simd_level_cpp()))
ref <- suppressMessages(kmeans_reduced(sce, k, seed = 1))
cat(sprintf("default pipeline: objective %.7g, smallest cluster %d\n", ref$tot.withinss,
            min(ref$size)))
cat("seed  minibatch/default  smallest cluster  seconds\n")
for (s in seq_len(seeds)) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(kmeans_reduced(sce, k, seed = s,
                                                          algorithm = "minibatch")))
  cat(sprintf("%4d  %17.4f  %16d  %7.1f\n", s, fit$tot.withinss / ref$tot.withinss,
              min(fit$size), proc.time()[["elapsed"]] - t0))
}
