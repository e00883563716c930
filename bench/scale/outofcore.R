# Out-of-core benchmark (issue 7), run by bench/scale/outofcore.sh inside a memory
# cgroup smaller than the data. Usage:
#   Rscript bench/scale/outofcore.R make DIR N D   (writes the file-backed matrix)
#   Rscript bench/scale/outofcore.R fit DIR        (clusters it, prints a line)
#   Rscript bench/scale/outofcore.R inmemory DIR   (tries to read it whole)
suppressPackageStartupMessages({
  library(bigmemory)
  library(kmreduce)
})
args <- commandArgs(TRUE)
dir <- args[2]
if (args[1] == "make") {
  n <- as.numeric(args[3]); d <- as.numeric(args[4]); k <- 10
  x <- filebacked.big.matrix(n, d, type = "double", backingfile = "x.bin",
                             descriptorfile = "x.desc", backingpath = dir)
  set.seed(1)
  centres <- matrix(rnorm(k * d), k, d)
  step <- 20000
  for (s in seq(1, n, by = step)) {
    rows <- s:min(n, s + step - 1)
    cl <- (rows - 1) %% k + 1
    x[rows, ] <- centres[cl, ] + matrix(rnorm(length(rows) * d, sd = 3), length(rows), d)
  }
  flush(x)
  cat(sprintf("wrote %.0f x %.0f (%.2f GB) to %s\n", n, d, n * d * 8 / 2^30, dir))
} else if (args[1] == "fit") {
  x <- attach.big.matrix(file.path(dir, "x.desc"))
  t <- system.time(fit <- kmeans_reduced(x, 10, method = "sign", dims = 50, n_init = 1,
                                         seed = 1, control = list(keep_reduced = FALSE)))
  truth <- (seq_len(nrow(x)) - 1) %% 10 + 1
  cat(sprintf("fit: %d x %d, sign dims = 50, %.1f s (reduce %.1f, cluster + stats %.1f), accuracy %.4f\n",
              nrow(x), ncol(x), t[["elapsed"]], fit$timing[["reduce"]], fit$timing[["cluster"]],
              cluster_accuracy(fit$cluster, truth)))
  # The randomized SVD and Lloyd of the C++ core on blocks of the file
  # (about 15 passes over the file: long under the limit).
  if (Sys.getenv("KMR_BENCH_REFINE") != "1") quit(save = "no")
  t <- system.time(fit <- kmeans_reduced(x, 10, method = "rsvd", n_init = 1, refine = 2,
                                         seed = 1, control = list(keep_reduced = FALSE)))
  cat(sprintf("fit: rsvd + refine = 2, %.1f s (reduce %.1f, cluster + stats + refine %.1f), accuracy %.4f\n",
              t[["elapsed"]], fit$timing[["reduce"]], fit$timing[["cluster"]],
              cluster_accuracy(fit$cluster, truth)))
} else if (args[1] == "inmemory") {
  x <- attach.big.matrix(file.path(dir, "x.desc"))
  y <- x[, ]
  cat("read whole:", object.size(y) / 2^30, "GB\n")
}
