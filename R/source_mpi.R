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

# The sample of one process on the stacked rows (control$svd_rows): the
# same global rows drawn on every rank (sample_index() of all the rows, a
# stream that does not depend on the rank), each rank reads those it holds,
# and every rank gets all of them in rank order (= row order)
# (sample_rows()).
mpi_sample_rows <- function(src, index, block_rows) {
  failed <- mpi_try(TRUE, part <- local_rows_at(src, held_rows(src, index), block_rows))
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  list(rows = bind_blocks(pbdMPI::allgather(part)), index = index)
}

# This rank's rows `index` (local, increasing): read in one pass from the
# rank's source of blocks, or taken from its rows in memory.
local_rows_at <- function(src, index, block_rows) {
  if (!is.null(src$local)) return(rows_at(src$local, index, block_rows))
  rows <- src$data[index, , drop = FALSE]
  if (!methods::is(rows, "dgCMatrix") && !is.double(rows)) storage.mode(rows) <- "double"
  rows
}

# The rows of `index` (global, increasing) this rank holds, as local rows.
held_rows <- function(src, index) {
  first <- src$mpi$offset
  index[index > first & index <= first + n_local_rows(src)] - first
}

# The reduced rows minus the shift of all the ranks' reduced rows
# (mpi_robust_shift(); reduce_source() on several ranks): each rank's rows
# in memory mapped at once, or its rows read in blocks mapped block by
# block and shifted block by block.
mpi_reduce_source <- function(src, reducer, n_threads, block_rows) {
  local <- src$local
  # (the local step may fail on one rank only, e.g. for memory: the ranks
  # agree before the collective sum)
  failed <- mpi_try(TRUE, if (is.null(local)) {
    raw <- apply_reducer(reducer, src$data, n_threads)
  } else {
    method_info(reducer$method)$memory(n_local_rows(src), reducer)
    reducer$shift <- NULL
    raw <- stream_reduce(reducer, local, source_block_rows(local, block_rows), n_threads)
  })
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  reducer$shift <- mpi_robust_shift(raw, src$mpi, n_threads)
  if (is.null(local)) {
    return(list(reducer = reducer, reduced = raw - rep(reducer$shift, each = nrow(raw))))
  }
  for_row_blocks_index(nrow(raw), source_block_rows(local, block_rows), function(rows) {
    raw[rows, ] <<- raw[rows, , drop = FALSE] - rep(reducer$shift, each = length(rows))
  })
  list(reducer = reducer, reduced = raw)
}

# (as one process on the stacked reduced rows: a rank with k distinct rows
# answers for all; otherwise the union of every rank's distinct rows, fewer
# than k each; reduced_collapsed())
mpi_collapsed <- function(reduced, k) {
  if (mpi_sum(as.numeric(has_distinct_rows_cpp(reduced, k))) > 0) return(FALSE)
  !has_distinct_rows_cpp(do.call(rbind, pbdMPI::allgather(unique(as.matrix(reduced)))), k)
}

