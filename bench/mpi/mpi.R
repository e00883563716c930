# MPI benchmark: the same 200000 x 500 mixture split over the ranks (rows
# are generated in blocks of 1000, each from its own seed, so -np 1 and
# -np 2 cluster the very same matrix). Run by bench/mpi/mpi.sh.
suppressPackageStartupMessages({
  library(pbdMPI)
  library(kmreduce)
})
init()
n <- 200000L; d <- 500L; k <- 10L
size <- comm.size(); rank <- comm.rank()
per <- ceiling(n / size)
rows <- (rank * per + 1):min(n, (rank + 1) * per)
set.seed(1)
centres <- matrix(rnorm(k * d), k, d)
blocks <- unique((rows - 1L) %/% 1000L)
noise <- do.call(rbind, lapply(blocks, function(b) {
  set.seed(1000L + b)
  matrix(rnorm(1000L * d, sd = 3), 1000L, d)
}))
x <- centres[(rows - 1) %% k + 1, ] + noise
rm(noise)
barrier()
# Best of 3 (the 2-core machines are noisy). With one rank, the in-memory
# call on the same rows too: the MPI pipeline on one rank should cost no
# more than 1.2 times it.
# The fit returned is that of the best run, so its phase timings match.
best_of <- function(f) {
  best <- list(time = Inf)
  for (r in 1:3) {
    barrier()
    t0 <- Sys.time()
    fit <- f()
    barrier()
    t <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
    if (t < best$time) best <- list(time = t, fit = fit)
  }
  best
}
for (method in c("sign", "sparse_embedding", "rsvd")) {
  dims <- if (method == "rsvd") 10 else 50
  m <- best_of(function() kmeans_reduced(mpi_rows(x), k, method = method, dims = dims,
                                         n_init = 3, seed = 1, n_threads = 1))
  comm.cat(sprintf("np=%d %s: %.2f s (reduce %.2f, cluster %.2f), iter %d, objective %.6g\n",
                   size, method, m$time, m$fit$timing[["reduce"]], m$fit$timing[["cluster"]],
                   m$fit$iter, m$fit$tot.withinss), quiet = TRUE)
  if (size == 1L) {
    one <- best_of(function() kmeans_reduced(x, k, method = method, dims = dims, n_init = 3,
                                             seed = 1, n_threads = 1))
    comm.cat(sprintf("      in memory: %.2f s; MPI on one rank / in memory = %.2f; same labels: %s\n",
                     one$time, m$time / one$time, identical(unname(m$fit$cluster),
                                                            unname(one$fit$cluster))),
             quiet = TRUE)
  }
}
finalize()
