# Choosing k: kmreduce::k_path() against cluster::clusGap() and
# factoextra::fviz_nbclust(method = "gap_stat"), side by side in one run.
#
#   R_LIBS=.Rlib Rscript bench/kpath.R
#
# Data: Fashion-MNIST 20000 x 784 (Debian dataset-fashion-mnist, see
# install-peers.sh) and a 50000 x 500 Gaussian mixture with 8 clusters.
# Peers with their defaults (stats::kmeans: nstart = 1, iter.max = 10;
# clusGap: d.power = 1, spaceH0 = "scaledPCA"), B = 20 reference sets and
# k = 1..12 for all (fviz_nbclust's own default is nboot = 100, k.max = 10).
# Times: kmreduce best of 3, the peers one run each (minutes).
source("bench/common.R")
suppressPackageStartupMessages({
  library(cluster)
  library(factoextra)
})
cat(machine_info(), "\n\n")

mixture <- function() {
  n <- 50000L; d <- 500L; k <- 8L
  set.seed(1)
  centres <- matrix(rnorm(k * d, sd = 0.3), k, d)
  truth <- sample(k, n, TRUE)
  list(name = "mixture 50000 x 500, 8 clusters", k = k, truth = truth,
       x = centres[truth, ] + matrix(rnorm(n * d), n, d))
}

timed <- function(f, reps = 1L) {
  best <- Inf
  for (r in seq_len(reps)) {
    t <- system.time(out <- f())[["elapsed"]]
    best <- min(best, t)
  }
  list(t = best, out = out)
}

rows <- list()
for (ds in list(load_fashion_full(20000L), mixture())) {
  x <- ds$x
  cat(sprintf("== %s (true classes: %d)\n", ds$name, ds$k))
  for (th in c(1L, 2L)) {
    kp <- timed(function() k_path(x, k = 1:12, B = 20, seed = 1, n_threads = th,
                                  verbose = FALSE), reps = 3L)
    cat(sprintf("k_path, %d thread(s): %.1f s, chosen k: gap %d (firstSEmax), %d (Tibs2001SEmax), silhouette %d\n",
                th, kp$t, kp$out$chosen[["gap_firstSEmax"]], kp$out$chosen[["gap_Tibs2001SEmax"]],
                kp$out$chosen[["silhouette"]]))
    rows[[length(rows) + 1L]] <- data.frame(data = ds$name, run = sprintf("k_path (%d thr)", th),
                                            seconds = kp$t,
                                            k_gap = kp$out$chosen[["gap_firstSEmax"]])
  }
  print(kp$out)
  set.seed(1)
  cg <- timed(function() clusGap(x, kmeans, K.max = 12, B = 20, verbose = FALSE))
  k_cg <- maxSE(cg$out$Tab[, "gap"], cg$out$Tab[, "SE.sim"], "firstSEmax")
  cat(sprintf("clusGap(x, kmeans, K.max = 12, B = 20): %.1f s, chosen k %d\n", cg$t, k_cg))
  rows[[length(rows) + 1L]] <- data.frame(data = ds$name, run = "cluster::clusGap", seconds = cg$t,
                                          k_gap = k_cg)
  set.seed(1)
  fz <- timed(function() fviz_nbclust(x, kmeans, method = "gap_stat", k.max = 12, nboot = 20,
                                      verbose = FALSE))
  gap_tab <- fz$out$data
  k_fz <- maxSE(gap_tab$gap, gap_tab$SE.sim, "firstSEmax")
  cat(sprintf("fviz_nbclust(x, kmeans, \"gap_stat\", k.max = 12, nboot = 20): %.1f s, chosen k %d\n\n",
              fz$t, k_fz))
  rows[[length(rows) + 1L]] <- data.frame(data = ds$name, run = "factoextra::fviz_nbclust",
                                          seconds = fz$t, k_gap = k_fz)
}
res <- do.call(rbind, rows)
res$speedup_of_k_path_2thr <- NA_real_
for (d in unique(res$data)) {
  ours <- res$seconds[res$data == d & res$run == "k_path (2 thr)"]
  sel <- res$data == d
  res$speedup_of_k_path_2thr[sel] <- res$seconds[sel] / ours
}
print(format(res, digits = 3), row.names = FALSE)
