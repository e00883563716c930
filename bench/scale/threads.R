# Threads on a quiet and on a busy machine: n_threads = 2 against
# n_threads = 1 for `none`, `sign` and `sparse_embedding` (dims 100) on
# 20000 x 100 and 20000 x 2000 mixtures, k = 10, n_init = 1, plus a small
# fit (2000 x 20, dims 20). "busy" runs one busy-loop process beside the benchmark
# for the whole measurement. Every time is the best of `reps` runs; the
# ratio t(2 threads) / t(1 thread) is printed (below 1: threads help).
# Run: R_LIBS=.Rlib Rscript bench/scale/threads.R [reps]
source("bench/common.R")
reps <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 5L

mixture <- function(n, d, k = 10L) {
  set.seed(1)
  centres <- matrix(rnorm(k * d), k, d)
  truth <- sample(k, n, TRUE)
  centres[truth, ] + matrix(rnorm(n * d, sd = 3), n, d)
}

# Best of `reps` timings of `inner` back-to-back calls, per call.
best_of <- function(f, inner = 1L) {
  t <- Inf
  for (r in seq_len(reps)) {
    t <- min(t, system.time(for (i in seq_len(inner)) f())[["elapsed"]] / inner)
  }
  t
}

cases <- list(
  list(n = 20000L, d = 100L, inner = 5L), list(n = 20000L, d = 2000L, inner = 1L),
  list(n = 2000L, d = 20L, inner = 300L)
)
methods <- c("none", "sign", "sparse_embedding")

cat("# bench/scale/threads.R\n\n", machine_info(), "; best of ", reps, " runs\n\n", sep = "")
cat("| data | method | load | 1 thread (s) | 2 threads (s) | ratio 2/1 |\n")
cat("|---|---|---|---|---|---|\n")
worst <- 0
for (cs in cases) {
  x <- mixture(cs$n, cs$d)
  for (load in c("quiet", "busy")) {
    pid <- if (load == "busy") busy_start() else NULL
    for (m in methods) {
      # dims 100, or all the columns of the small case (a projection to more
      # dimensions than the data have is refused)
      run <- function(t) function() kmeans_reduced(x, 10L, method = m, dims = min(100L, cs$d),
                                                   n_init = 1L, seed = 1, n_threads = t)
      run(1L)()  # warm
      t1 <- best_of(run(1L), cs$inner)
      t2 <- best_of(run(2L), cs$inner)
      if (load == "busy") worst <- max(worst, t2 / t1)
      cat(sprintf("| %d x %d | %s | %s | %.4f | %.4f | %.2f |\n", cs$n, cs$d, m, load,
                  t1, t2, t2 / t1))
    }
    if (!is.null(pid)) busy_stop(pid)
  }
}
cat(sprintf("\nWorst ratio 2/1 with a busy neighbour: %.2f\n", worst))
