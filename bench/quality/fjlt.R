# The FJLT against the other projections: time of the reduction alone (best
# of 5, side by side in one run) and the quality of k-means on the reduced
# data (objective on the original data / full k-means's, accuracy; mean of
# 3 seeds, n_init = 10). Run: R_LIBS=.Rlib Rscript bench/quality/fjlt.R [threads]
# (needs RnavGraphImageData and clue).
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args)) as.integer(args[1]) else 1L

cat("#", machine_info(), "; threads:", threads, "\n\n")
methods <- c("sign", "gaussian", "achlioptas", "srht", "fjlt")

cat("## Time of the reduction (seconds, best of 5)\n\n")
set.seed(1)
wide <- list(x = matrix(rnorm(2000 * 50000), 2000), name = "Gaussian 2000 x 50000")
shapes <- list(list(ds = load_orl(), dims = c(100, 400)),
               list(ds = list(x = load_fashion_full(20000)$x, name = "Fashion-MNIST 20000 x 784"),
                    dims = c(100, 400)),
               list(ds = wide, dims = c(100, 400)))
rows <- list()
for (s in shapes) for (dims in s$dims) {
  t <- vapply(methods, function(m) {
    best_of(function() reduce_dims(s$ds$x, m, dims = dims, seed = 1, n_threads = threads), 5L)$t
  }, numeric(1))
  rows[[length(rows) + 1L]] <- data.frame(data = s$ds$name, dims = dims, t(round(t, 3)),
                                          fjlt_vs_srht = round(t[["fjlt"]] / t[["srht"]], 2),
                                          check.names = FALSE)
}
print(knitr::kable(do.call(rbind, rows)))
rm(wide)

cat("\n## Quality (objective / full k-means, accuracy; mean of 3 seeds)\n\n")
rows <- list()
for (ds in list(load_usps(), load_orl())) {
  full <- min(vapply(1:3, function(s) {
    kmeans_reduced(ds$x, ds$k, method = "none", n_init = 10, seed = s,
                   n_threads = threads)$tot.withinss
  }, numeric(1)))
  for (m in methods) for (mult in c(5L, 10L)) {
    dims <- min(mult * ds$k, ncol(ds$x))
    fits <- lapply(1:3, function(s) kmeans_reduced(ds$x, ds$k, method = m, dims = dims,
                                                   n_init = 10, seed = s, n_threads = threads))
    rows[[length(rows) + 1L]] <- data.frame(
      data = ds$name, method = m, dims = dims,
      rel_objective = round(mean(vapply(fits, `[[`, 0, "tot.withinss")) / full, 4),
      accuracy = round(mean(vapply(fits, function(f) cluster_accuracy(f$cluster, ds$truth), 0)), 3))
  }
}
print(knitr::kable(do.call(rbind, rows)))
