# Row source: mpi_rows(): each MPI rank holds some rows (`data`, dense or a
# dgCMatrix), and the ranks stacked in rank order form the matrix. Every
# step runs the C++ algorithm of one process on the rank's rows and combines
# the ranks' partial sums through pbdMPI's allreduce (to_cpp_source():
# mpi_info(), the RCombine of src/sources.h); see R/mpi.R. Every method
# here is collective: all ranks call it in the same order.

new_source_mpi <- function(x) {
  # (each rank's rows read in blocks: R/source_mpi_blocks.R)
  if (inherits(x$x, "row_source")) return(new_source_mpi_blocks(x))
  new_row_source(x$x, "source_mpi", mpi = x)
}

n_rows.source_mpi <- function(src) src$mpi$n
n_local_rows.source_mpi <- function(src) nrow(src$data)
describe_source.source_mpi <- function(src) "distributed rows"
to_cpp_source.source_mpi <- function(src, block_rows = NULL) {
  cpp_source(rows = src$data, mpi = mpi_info(src$mpi))
}
sparse_rows.source_mpi <- function(src) methods::is(src$data, "sparseMatrix")
# ("auto" as for the stacked rows in memory: narrow rows as they are)
auto_method.source_mpi <- function(src, method, k) resolve_method(method, src$data, k)

check_rows.source_mpi <- function(src, arg, big, block_rows, small) {
  stop_arg(sprintf(paste0("`%s` is a set of distributed rows (mpi_rows()); only kmeans_reduced() ",
                          "takes them. Give this function a matrix, data frame or sparse Matrix ",
                          "in memory (for example `%s$x`, this rank's rows)."), arg, arg))
}

# (checked by mpi_rows())
checked_source.source_mpi <- function(src, block_rows, values) src

check_source_k.source_mpi <- function(src, k, arg = "k") {
  n <- n_rows(src)
  if (!is_whole(k) || k < 1 || k > n) {
    stop_arg(sprintf("`%s` must be a whole number in [1, %s] (the rows of the distributed matrix), not %s.",
                     arg, format(n), describe(k)))
  }
  as.integer(k)
}

check_source_centers.source_mpi <- function(src, centers, arg = "k") {
  stop_arg(sprintf("`%s` must be a number of clusters on distributed rows, not initial centres.", arg))
}

set_weights.source_mpi <- function(src, weights, control) {
  if (!is.null(weights)) {
    stop_arg(paste0("`weights` are not supported on distributed rows (mpi_rows()); ",
                    "give NULL, or cluster the rows in one process."))
  }
  if (identical(control$algorithm, "MacQueen")) {
    stop_arg("`algorithm` \"MacQueen\" (online updates, row after row) is not available on distributed rows; use \"Lloyd\" or \"Hartigan-Wong\".")
  }
  if (identical(control$algorithm, "minibatch")) {
    stop_arg("`algorithm` \"minibatch\" (batches drawn from all the rows) is not available on distributed rows; use \"Lloyd\" or \"Hartigan-Wong\".")
  }
  src
}

check_source_method.source_mpi <- function(src, method, control) {
  method_unavailable(src, method, "is not available on distributed rows; use one of")
  check_exact_svd(method, control, describe_source(src))
}

# The sample of one process on the stacked rows (control$svd_rows): the
# same global rows drawn on every rank (sample_index() of all the rows, a
# stream that does not depend on the rank), each rank reads those it holds,
# and every rank gets all of them in rank order (= row order).
sample_rows.source_mpi <- function(src, m, seed, block_rows = NULL) {
  index <- sample_index(n_rows(src), m, seed)
  failed <- mpi_try(TRUE, part <- local_rows_at(src, held_rows(src, index), block_rows))
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  list(rows = bind_blocks(pbdMPI::allgather(part)), index = index)
}

# This rank's rows `index` (local, increasing).
local_rows_at <- function(src, index, block_rows) UseMethod("local_rows_at")
local_rows_at.source_mpi <- function(src, index, block_rows) {
  rows <- src$data[index, , drop = FALSE]
  if (!methods::is(rows, "dgCMatrix") && !is.double(rows)) storage.mode(rows) <- "double"
  rows
}

try_checks.source_mpi <- function(src, expr) mpi_try(TRUE, expr)

# Every rank's checks passed with the same arguments (mpi_agree()); the
# seed of rank 0 for all.
agree_ranks.source_mpi <- function(src, failed, args, seed, seed_arg) {
  mpi_agree(src$mpi, failed, "kmeans_reduced()", if (is.null(failed)) args())
  mpi_sum(if (src$mpi$rank == 0L) seed else 0)
}

is_lead.source_mpi <- function(src) src$mpi$rank == 0L

fit_fields.source_mpi <- function(src) {
  list(mpi = unclass(src$mpi)[c("rank", "size", "n", "offset")])
}

# (robust_shift_cpp() of all the ranks' rows, mpi_robust_shift())
none_shift.source_mpi <- function(src, n_threads = 1L) {
  if (is.matrix(src$data)) mpi_robust_shift(src$data, src$mpi, n_threads)
}

# The rows of `index` (global, increasing) this rank holds, as local rows.
held_rows <- function(src, index) {
  first <- src$mpi$offset
  index[index > first & index <= first + n_local_rows(src)] - first
}

source_apply_reducer.source_mpi <- function(src, reducer, n_threads, block_rows, limit) {
  map_rows(reducer, src$data, n_threads, limit)
}

# The reduced rows minus the shift of all the ranks' reduced rows
# (mpi_robust_shift(); one rank: its own).
reduce_source.source_mpi <- function(src, reducer, n_threads, block_rows, limit) {
  if (reducer$method == "none" || src$mpi$size == 1L) return(NextMethod())
  # (the local step may fail on one rank only, e.g. for memory: the ranks
  # agree before the collective sum)
  failed <- mpi_try(TRUE, raw <- apply_reducer(reducer, src$data, n_threads))
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  reducer$shift <- mpi_robust_shift(raw, src$mpi, n_threads)
  list(reducer = reducer, reduced = raw - rep(reducer$shift, each = nrow(raw)))
}

# (as one process on the stacked reduced rows: a rank with k distinct rows
# answers for all; otherwise the union of every rank's distinct rows, fewer
# than k each)
reduced_collapsed.source_mpi <- function(src, reduced, k) {
  if (k <= 1L) return(FALSE)
  if (mpi_sum(as.numeric(has_distinct_rows_cpp(reduced, k))) > 0) return(FALSE)
  !has_distinct_rows_cpp(do.call(rbind, pbdMPI::allgather(unique(as.matrix(reduced)))), k)
}

# No messages per replicate on every rank, no value limit (each rank would
# stop alone); from given centres (dims = "auto": Lloyd from the best
# partition so far, as one process), no Hartigan's moves, which run on one
# process only.
source_kmeans.source_mpi <- function(src, reduced, k, centers0, n_init, iter_max, tol, seed,
                                     n_threads, verbose, limit, shift, settings) {
  settings$centres_polish <- "none"
  source_kmeans.row_source(src, reduced, k, centers0, n_init, iter_max, tol, seed, n_threads,
                           verbose = FALSE, limit = 0, shift, settings)
}

# (not read here: check_newdata() says only kmeans_reduced() takes them)
source_predict.source_mpi <- function(src, object, n_threads, type, k, one) one(src$mpi)
rows_in_memory.source_mpi <- function(src, what) src$mpi
