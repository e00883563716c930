# Rows spread over MPI ranks (see ?mpi_rows and R/source_mpi.R). Every function
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

# The shift of `rows` (this rank's rows, in memory) that one process would
# take from the rows of all ranks stacked (robust_shift_cpp(): the medians
# of the 256 rows whose values hash lowest): each rank puts its own lowest
# (shift_candidates_cpp()) with their hashes and global rows in its 256
# slots, one allreduce gathers them (adding zeros is exact), and every rank
# takes the medians of the same 256 lowest of all.
mpi_robust_shift <- function(rows, x, n_threads = 1L) {
  slots <- 256L  # (kShiftSample of row_shift.hpp)
  cand <- shift_candidates_cpp(rows, n_threads)
  all <- matrix(0, x$size * slots, 4L + ncol(rows))
  at <- x$rank * slots + seq_along(cand$row)
  all[at, 1:4] <- cbind(cand$hi, cand$lo, x$offset + cand$row, 1)
  all[at, -(1:4)] <- rows[cand$row, , drop = FALSE]
  all <- matrix(mpi_sum(all), nrow(all))
  all <- all[all[, 4L] == 1, , drop = FALSE]
  keep <- order(all[, 1L], all[, 2L], all[, 3L])[seq_len(min(nrow(all), slots))]
  robust_shift_cpp(all[keep, -(1:4), drop = FALSE])
}

# Evaluates `expr` (the argument checks of a collective call, in the
# caller's frame); on MPI ranks an error is caught and its message returned
# for mpi_agree(), elsewhere it is raised at once. NULL: no error.
mpi_try <- function(on_ranks, expr) {
  if (!on_ranks) {
    force(expr)
    return(NULL)
  }
  tryCatch({
    force(expr)
    NULL
  }, error = function(e) conditionMessage(e))
}

# The agreement before the collective steps of `what`: every rank sends
# whether its checks failed (the message) and the arguments it will run
# with (`args`, a named list, NULL after a failure); every rank then stops
# with the same error if one failed or if they differ, instead of some ranks
# waiting forever in a collective step the others never reach.
mpi_agree <- function(x, failed, what, args) {
  all <- pbdMPI::allgather(list(failed = failed, args = args))
  bad <- which(!vapply(all, function(a) is.null(a$failed), TRUE))
  if (length(bad) > 0L) {
    stop_arg(sprintf("%s stopped on every MPI rank: %s on rank %s: %s", what,
                     if (length(bad) > 1L) "the checks failed first" else "the checks failed",
                     bad[1L] - 1L, all[[bad[1L]]]$failed))
  }
  for (name in names(args)) {
    vals <- lapply(all, function(a) a$args[[name]])
    differ <- !vapply(vals, identical, TRUE, vals[[1L]])
    if (any(differ)) {
      r <- which(differ)[1L]
      stop_arg(sprintf(paste0("%s stopped on every MPI rank: the ranks must call it with the same ",
                              "arguments, but `%s` is %s on rank 0 and %s on rank %d."),
                       what, name, describe(vals[[1L]]), describe(vals[[r]]), r - 1L))
    }
  }
  invisible(TRUE)
}

# The ranks of a collective call: one process has nothing to agree; rows
# on MPI ranks (R/source_mpi.R) have their ranks agree.
