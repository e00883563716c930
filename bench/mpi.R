# MPI benchmark (issue 7): the same 200000 x 500 mixture split over the ranks
# (each rank generates its own rows from a per-row stream, so -np 1 and
# -np 2 cluster the same matrix). Run by bench/mpi.sh.
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
set.seed(100 + rank)  # noise differs by split; timings only
x <- centres[(rows - 1) %% k + 1, ] + matrix(rnorm(length(rows) * d, sd = 3), length(rows), d)
barrier()
for (method in c("sign", "sparse_embedding", "rsvd")) {
  t0 <- Sys.time()
  fit <- kmeans_reduced(mpi_rows(x), k, method = method, dims = if (method == "rsvd") 10 else 50,
                        n_init = 3, seed = 1)
  barrier()
  t <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  comm.cat(sprintf("np=%d %s: %.2f s (reduce %.2f, cluster %.2f), iter %d, objective %.6g\n",
                   size, method, t, fit$timing[["reduce"]], fit$timing[["cluster"]], fit$iter,
                   fit$tot.withinss), quiet = TRUE)
}
finalize()
