# Choosing k: kmreduce::k_path() against cluster::clusGap() and
# factoextra::fviz_nbclust(method = "gap_stat"), on the same data.
#
#   R_LIBS=.Rlib Rscript bench/quality/kpath.R [ours|peers|all] [fashion|mixture|all|large]
#
# Data: the shipped Fashion-MNIST subset (3000 x 784) and a 5000 x 500
# Gaussian mixture with 8 clusters, where the peers finish; and, for k_path
# alone, Fashion-MNIST 20000 x 784 (Debian dataset-fashion-mnist, see
# install-peers.sh) and a 50000 x 500 mixture ("large"). clusGap() computes
# W_k from all pairwise distances within each cluster, O(n^2 d) per k and
# reference set: on 20000 x 784 one clusGap(B = 20) did not finish in 35
# minutes.
# Peers with their defaults (stats::kmeans: nstart = 1, iter.max = 10;
# clusGap: d.power = 1, spaceH0 = "scaledPCA"), B = 20 reference sets and
# k = 1..12 for all (fviz_nbclust's own default is nboot = 100, k.max = 10).
# Times: kmreduce best of 3, the peers one run each (they take minutes: run
# them with "peers", ours with "ours" on a quiet machine, and divide).
source("bench/common.R")
suppressPackageStartupMessages({
  library(cluster)
  library(factoextra)
})
args <- commandArgs(trailingOnly = TRUE)
part <- if (length(args) >= 1L) args[1] else "all"
which_data <- if (length(args) >= 2L) args[2] else "all"
cat(machine_info(), "\n\n")

mixture <- function(n) {
  d <- 500L; k <- 8L
  set.seed(1)
  centres <- matrix(rnorm(k * d, sd = 0.3), k, d)
  truth <- sample(k, n, TRUE)
  list(name = sprintf("mixture %d x 500, 8 clusters", n), k = k, truth = truth,
       x = centres[truth, ] + matrix(rnorm(n * d), n, d))
}


data_sets <- list(
  fashion = function() list(name = "Fashion-MNIST 3000 x 784 (shipped)", k = 10L,
                            x = fashion_mnist$x / 255),
  mixture = function() mixture(5000L),
  fashion_large = function() load_fashion_full(20000L),
  mixture_large = function() mixture(50000L))
data_sets <- switch(which_data,
                    all = data_sets[c("fashion", "mixture")],
                    large = data_sets[c("fashion_large", "mixture_large")],
                    data_sets[which_data])
rows <- list()
for (ds in lapply(data_sets, function(f) f())) {
  x <- ds$x
  cat(sprintf("== %s (true classes: %d)\n", ds$name, ds$k))
  if (part %in% c("ours", "all")) {
    for (th in c(1L, 2L)) {
      kp <- best_of(function() k_path(x, k = 1:12, B = 20, seed = 1, n_threads = th,
                                      verbose = FALSE), reps = 3L)
      cat(sprintf("k_path, %d thread(s): %.1f s, chosen k: gap %d (firstSEmax), %d (Tibs2001SEmax), silhouette %d\n",
                  th, kp$t, kp$out$chosen[["gap_firstSEmax"]], kp$out$chosen[["gap_Tibs2001SEmax"]],
                  kp$out$chosen[["silhouette"]]))
      rows[[length(rows) + 1L]] <- data.frame(data = ds$name, run = sprintf("k_path (%d thr)", th),
                                              seconds = kp$t,
                                              k_gap = kp$out$chosen[["gap_firstSEmax"]])
    }
    print(kp$out)
  }
  if (part %in% c("peers", "all")) {
    set.seed(1)
    cg <- best_of(reps = 1L,
                  function() clusGap(x, kmeans, K.max = 12, B = 20, verbose = FALSE))
    k_cg <- maxSE(cg$out$Tab[, "gap"], cg$out$Tab[, "SE.sim"], "firstSEmax")
    cat(sprintf("clusGap(x, kmeans, K.max = 12, B = 20): %.1f s, chosen k %d\n", cg$t, k_cg))
    print(cg$out, method = "firstSEmax")
    rows[[length(rows) + 1L]] <- data.frame(data = ds$name, run = "cluster::clusGap",
                                            seconds = cg$t, k_gap = k_cg)
    set.seed(1)
    fz <- best_of(reps = 1L,
                  function() fviz_nbclust(x, kmeans, method = "gap_stat", k.max = 12, nboot = 20,
                                          verbose = FALSE))
    gap_tab <- fz$out$data
    k_fz <- maxSE(gap_tab$gap, gap_tab$SE.sim, "firstSEmax")
    cat(sprintf("fviz_nbclust(x, kmeans, \"gap_stat\", k.max = 12, nboot = 20): %.1f s, chosen k %d\n\n",
                fz$t, k_fz))
    rows[[length(rows) + 1L]] <- data.frame(data = ds$name, run = "factoextra::fviz_nbclust",
                                            seconds = fz$t, k_gap = k_fz)
  }
}
print(format(do.call(rbind, rows), digits = 3), row.names = FALSE)
