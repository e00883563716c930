# Rows spread over MPI ranks (see ?mpi_rows and R/sources.R). Every function
# here is collective: all ranks call it in the same order. The C++ core does
# the work on each rank's rows and combines through mpi_sum() (pbdMPI's
# allreduce of small objects: k x dims, k x d, l x l, d x l); the rows never
# move.

mpi_sum <- function(v) pbdMPI::allreduce(v, op = "sum")

# What the C++ core needs to combine the ranks' work (its Combine, see
# row_source.hpp): an allreduce-sum, this rank, the ranks, the global index
# of this rank's first row and the total number of rows.
mpi_info <- function(x) {
  list(allreduce = mpi_sum, rank = x$rank, size = x$size, offset = x$offset, n = x$n)
}

# Top right singular vectors (randomized_svd_blocks() of rsvd.hpp on every
# rank's rows, centred as top_right_vectors() centres), then the reducer of
# "leverage" or "rsvd".
mpi_fit_svd_reducer <- function(x, method, dims, k, seed, n_threads, control) {
  xl <- x$x
  k_svd <- if (method == "leverage") min(k, x$n, ncol(xl)) else dims
  sv <- mpi_rsvd_cpp(xl, k_svd, oversample_for(k_svd, control$eps), control$power_iters, seed,
                     n_threads, TRUE, mpi_info(x))
  if (method == "rsvd") return(rotation_reducer(xl, "rsvd", dims, sv, seed))
  leverage_reducer(xl, sv, k_svd, dims, seed, control)
}
