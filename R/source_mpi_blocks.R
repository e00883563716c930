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
  src$sparse <- isTRUE(x$x$sparse)
  src
}

n_cols.source_mpi_blocks <- function(src) n_cols(src$local)
dim_names.source_mpi_blocks <- function(src) dim_names(src$local)
describe_source.source_mpi_blocks <- function(src) {
  sprintf("distributed rows (on rank %d: %s)", src$mpi$rank, describe_source(src$local))
}

# (rows read in blocks: local rows 1..n_local; the statistics in one pass
# where it keeps the digits, whatever the local source)
to_cpp_source.source_mpi_blocks <- function(src, block_rows = NULL) {
  cpp <- to_cpp_source(src$local, block_rows)
  cpp$mpi <- mpi_info(src$mpi)
  cpp$one_pass <- TRUE
  cpp
}

