# dims = "auto" against method = "none" (k-means on all features), same
# n_init, side by side in one run: objective ratio and time ratio.
#
#   R_LIBS=.Rlib Rscript bench/dims_auto.R [threads]
#
# Data: USPS (8800 x 256) and ORL (400 x 4096) from CRAN RnavGraphImageData,
# Fashion-MNIST 20000 x 784 (Debian dataset-fashion-mnist). Best of 3 runs.
source("bench/common.R")
args <- commandArgs(trailingOnly = TRUE)
threads <- if (length(args)) as.integer(args[1]) else 1L
cat(machine_info(), sprintf("; %d thread(s)\n\n", threads))

rows <- list()
for (ds in list(load_usps(), load_orl(), load_fashion_full(20000L))) {
  x <- ds$x
  k <- ds$k
  none <- best_of(function() kmeans_reduced(x, k, method = "none", n_init = 10, seed = 1,
                                            n_threads = threads))
  auto <- best_of(function() kmeans_reduced(x, k, dims = "auto", n_init = 10, seed = 1,
                                            n_threads = threads))
  d10 <- best_of(function() kmeans_reduced(x, k, n_init = 10, seed = 1, n_threads = threads))
  rows[[length(rows) + 1L]] <- data.frame(
    data = ds$name, k = k,
    auto_dims = auto$out$dims,
    tried = paste(auto$out$dims_auto$dims, collapse = "/"),
    obj_auto_vs_none = auto$out$tot.withinss / none$out$tot.withinss,
    obj_10k_vs_none = d10$out$tot.withinss / none$out$tot.withinss,
    t_none = none$t, t_auto = auto$t, t_10k = d10$t,
    time_auto_vs_none = auto$t / none$t)
}
print(format(do.call(rbind, rows), digits = 4), row.names = FALSE)
