# Row source: mpi_rows(): each MPI rank holds some rows (`data`, dense or a
# dgCMatrix), and the ranks stacked in rank order form the matrix. Every
# step runs the C++ algorithm of one process on the rank's rows and combines
# the ranks' partial sums through pbdMPI's allreduce (to_cpp_source():
# mpi_info(), the RCombine of src/sources.h); see R/mpi.R. Every method
# here is collective: all ranks call it in the same order.

new_source_mpi <- function(x) {
  # (each rank's rows read in blocks: R/source_mpi_blocks.R)
  if (inherits(x$x, "row_source")) return(new_source_mpi_blocks(x))
  new_row_source(x$x, "source_mpi", mpi = x, sparse = methods::is(x$x, "sparseMatrix"))
}

n_rows.source_mpi <- function(src) src$mpi$n
describe_source.source_mpi <- function(src) "distributed rows"
to_cpp_source.source_mpi <- function(src, block_rows = NULL) {
  cpp_source(rows = src$data, mpi = mpi_info(src$mpi))
}
