# Row source: mpi_rows() of rows read from files: each MPI rank holds an
# out-of-core row source (`local`) of its OWN rows (a range of the cells of a
# 10x file, read with rhdf5 by source_tenx; any DelayedMatrix, by
# source_delayed; a big.matrix, by source_big), and the ranks' rows stacked
# in rank order form the matrix. It is a source_mpi (R/source_mpi.R): the
# checks, the agreement of the ranks, k-means on the reduced rows (which are
# in memory on each rank) and the fields of the fit are the same; the steps
# that read rows read the local source block by block, as one process does
# (R/row_source.R), and combine the ranks' partial sums through pbdMPI's
# allreduce (mpi_info(), the RCombine of src/sources.h):
#
#   reduction   projections: each rank reduces its blocks with the shared
#               seed (no communication; the numbers of one process), then
#               one allreduce of a sample of the reduced rows for the shift;
#               leverage / rsvd: the randomized SVD with the products taken
#               block by block and summed over the ranks (rsvd.hpp)
#   k-means     on the reduced rows, in memory (as source_mpi)
#   statistics  one pass over the blocks (cluster sums, sizes and sums of
#               squares; one allreduce), or two when one pass would lose
#               digits (cluster_stats.hpp, two allreduces); the choice is
#               made on the summed values, the same on every rank
#   refine      Lloyd of lloyd.hpp, one pass over the blocks and one
#               allreduce per iteration
#
# Every method here is collective: all ranks call it in the same order.

new_source_mpi_blocks <- function(x) {
  src <- new_row_source(x$x$data, c("source_mpi_blocks", "source_mpi"), mpi = x)
  src$local <- x$x
  src
}

n_local_rows.source_mpi_blocks <- function(src) n_rows(src$local)
n_cols.source_mpi_blocks <- function(src) n_cols(src$local)
dim_names.source_mpi_blocks <- function(src) dim_names(src$local)
describe_source.source_mpi_blocks <- function(src) {
  sprintf("distributed rows (on rank %d: %s)", src$mpi$rank, describe_source(src$local))
}
sparse_rows.source_mpi_blocks <- function(src) sparse_rows(src$local)
none_shift.source_mpi_blocks <- function(src, n_threads = 1L) NULL
set_progress.source_mpi_blocks <- function(src, on) {
  src$local <- set_progress(src$local, on)
  src
}
auto_method.source_mpi_blocks <- function(src, method, k) auto_method(src$local, method, k)

local_rows_at.source_mpi_blocks <- function(src, index, block_rows) {
  rows_at(src$local, index, block_rows)
}

check_rows.source_mpi_blocks <- function(src, arg, big, block_rows, small) {
  stop_arg(sprintf(paste0("`%s` is a set of distributed rows (mpi_rows()); only kmeans_reduced() ",
                          "takes them. Give this function a matrix, data frame, sparse Matrix or ",
                          "out-of-core matrix instead."), arg))
}

# (rows read in blocks: local rows 1..n_local; the statistics in one pass
# where it keeps the digits, whatever the local source)
to_cpp_source.source_mpi_blocks <- function(src, block_rows = NULL) {
  cpp <- to_cpp_source(src$local, block_rows)
  cpp$mpi <- mpi_info(src$mpi)
  cpp$one_pass <- TRUE
  cpp
}

# The methods of rows read in blocks ("row_source" in the registry).
check_source_method.source_mpi_blocks <- function(src, method, control) {
  ok <- registered_methods(source = "row_source")
  if (!(method %in% ok)) {
    stop_arg(sprintf("`method` \"%s\" is not available on distributed rows read in blocks; use one of %s.",
                     method, paste0("\"", ok, "\"", collapse = ", ")))
  }
  check_exact_svd(method, control, describe_source(src))
}

source_apply_reducer.source_mpi_blocks <- function(src, reducer, n_threads, block_rows, limit) {
  stream_reduce(reducer, src$local, source_block_rows(src$local, block_rows), n_threads)
}

# The reduced rows minus the shift of all the ranks' reduced rows
# (mpi_robust_shift()).
reduce_source.source_mpi_blocks <- function(src, reducer, n_threads, block_rows, limit) {
  # (one rank: the numbers of one process)
  if (src$mpi$size == 1L) return(reduce_source(src$local, reducer, n_threads, block_rows, limit))
  # (the local step may fail on one rank only, e.g. for memory: the ranks
  # agree before the collective sum)
  failed <- mpi_try(TRUE, {
    method_info(reducer$method)$memory(n_local_rows(src), reducer)
    reducer$shift <- NULL
    raw <- stream_reduce(reducer, src$local, source_block_rows(src$local, block_rows),
                         n_threads)
  })
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  reducer$shift <- mpi_robust_shift(raw, src$mpi, n_threads)
  for_row_blocks_index(nrow(raw), source_block_rows(src$local, block_rows), function(rows) {
    raw[rows, ] <<- raw[rows, , drop = FALSE] - rep(reducer$shift, each = length(rows))
  })
  list(reducer = reducer, reduced = raw)
}
