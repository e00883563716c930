#' Mark this MPI rank's rows of a distributed matrix
#'
#' For SPMD programs run with `mpirun` (one R process per rank, pbdMPI):
#' every rank calls `mpi_rows()` on its own block of rows; the blocks of
#' ranks 0, 1, ... stacked in rank order form one matrix. The result is
#' given to [kmeans_reduced()] on all ranks (a collective call), which then
#' runs the same pipeline and the same C++ algorithms as for in-memory data,
#' on each rank's rows, without gathering the data anywhere (the core
#' combines the ranks' partial results with pbdMPI's allreduce):
#'
#' * the projections (`"sign"`, `"gaussian"`, `"achlioptas"`, `"srht"`, `"fjlt"`,
#'   `"sparse_embedding"`) reduce each rank's rows locally with the shared
#'   seed, no communication (exactly the numbers of one process);
#' * `"leverage"` and `"rsvd"` run the randomized SVD with the tall factors
#'   kept distributed: Cholesky-QR twice (CholQR2) with an allreduce of the
#'   `l x l` Gram matrix, and an allreduce of `A^T Q` (`d x l`);
#' * k-means++ and Lloyd on the reduced rows: per iteration an allreduce of
#'   the `k x dims` cluster sums and the `k` counts; k-means++ draws from the
#'   same random stream as one process (the `D^2` draw is located across
#'   ranks from their totals); an emptied cluster takes the farthest row of
#'   all ranks, as on one process;
#' * the original-space statistics: two allreduces of `k x d` values;
#'   `refine` one allreduce per iteration.
#'
#' User errors stop every rank with the same message: each rank checks its
#' rows (and [kmeans_reduced()] its arguments) and the ranks agree that all
#' passed, with the same arguments (`k`, `method`, `dims`, counts, the seed
#' or `NULL`, `control`), before any collective step; a rank with no rows or
#' an `NA`, or ranks called with different arguments, do not leave the others
#' waiting.
#'
#' Every rank gets the same centres and statistics; `$cluster` holds the
#' labels of the local rows. With the same `seed` the partition is the one
#' of one process on the stacked matrix, and the centres equal it to
#' rounding (sums are added in another order). `"none"` (Lloyd on the
#' original rows) and `n_reductions` are supported too; `"cssp"`, `"svd"`
#' and initial centres are not.
#'
#' @param x_local This rank's rows: a numeric matrix or `dgCMatrix` (the
#'   same class, number of columns and column names on every rank; at least
#'   one row).
#' @return An object of class `kmreduce_mpi`: `x` (the local rows), `rank`,
#'   `size`, `n` (rows of the whole matrix), `offset` (rows on lower ranks)
#'   and `n_local`.
#' @seealso `vignettes/articles/scale.Rmd` in the package sources: a job
#'   script for a cluster, the communication volumes and a scaling model.
#' @examples
#' \dontrun{
#' # run with: mpirun -np 4 Rscript this_script.R
#' library(pbdMPI)
#' init()
#' x_local <- my_rows_of_the_data(comm.rank())
#' fit <- kmeans_reduced(mpi_rows(x_local), k = 10, dims = 50, seed = 1)
#' comm.print(fit$size)
#' finalize()
#' }
#' @export
mpi_rows <- function(x_local) {
  if (!requireNamespace("pbdMPI", quietly = TRUE)) {
    stop_arg("mpi_rows() needs the pbdMPI package (and MPI); install it, then run the script with mpirun.")
  }
  # Every rank checks its rows, then all agree (one allgather) before
  # anything else: a rank whose rows fail the checks stops every rank with
  # its message instead of leaving the others waiting in the allgather.
  failed <- mpi_try(TRUE, x_local <- check_data(x_local, "x_local", small = FALSE))
  rank <- pbdMPI::comm.rank()
  size <- pbdMPI::comm.size()
  mine <- if (is.null(failed)) {
    list(n = nrow(x_local), d = ncol(x_local), sparse = methods::is(x_local, "dgCMatrix"),
         names = colnames(x_local),
         maxabs = scan_values_cpp(if (methods::is(x_local, "dgCMatrix")) x_local@x else x_local)$maxabs)
  }
  info <- pbdMPI::allgather(list(failed = failed, info = mine))
  bad <- which(!vapply(info, function(a) is.null(a$failed), TRUE))
  if (length(bad) > 0L) {
    stop_arg(sprintf("mpi_rows() stopped on every MPI rank: the rows of rank %d failed the checks: %s",
                     bad[1L] - 1L, info[[bad[1L]]]$failed))
  }
  info <- lapply(info, `[[`, "info")
  d_all <- vapply(info, `[[`, 0, "d")
  sparse_all <- vapply(info, `[[`, TRUE, "sparse")
  if (any(d_all != d_all[1L])) {
    stop_arg(sprintf("`x_local` must have the same number of columns on every rank; ranks have %s.",
                     paste(d_all, collapse = ", ")))
  }
  if (any(sparse_all != sparse_all[1L])) {
    stop_arg("`x_local` must be dense on every rank or a dgCMatrix on every rank, not a mix.")
  }
  names_all <- lapply(info, `[[`, "names")
  differ <- !vapply(names_all, identical, TRUE, names_all[[1L]])
  if (any(differ)) {
    stop_arg(sprintf(paste0("`x_local` must have the same column names on every rank (or none), ",
                            "in the same order; rank 0 and rank %d differ."), which(differ)[1L] - 1L))
  }
  # (the smallest accepted values: of all the ranks' rows together)
  check_small_values(max(vapply(info, `[[`, 0, "maxabs")), "x_local")
  n_all <- vapply(info, `[[`, 0, "n")
  structure(list(x = x_local, rank = rank, size = size, n = sum(n_all),
                 offset = sum(n_all[seq_len(rank)]), n_local = nrow(x_local)),
            class = "kmreduce_mpi")
}

#' @rdname mpi_rows
#' @param x A `kmreduce_mpi` object.
#' @param ... Ignored.
#' @export
print.kmreduce_mpi <- function(x, ...) {
  cat(sprintf("kmreduce MPI rows: rank %d of %d holds rows %d-%d of %d (%d columns, %s)\n",
              x$rank, x$size, x$offset + 1, x$offset + x$n_local, x$n, ncol(x$x),
              if (methods::is(x$x, "dgCMatrix")) "sparse" else "dense"))
  invisible(x)
}
