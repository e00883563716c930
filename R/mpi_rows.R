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
#' @section Rows read from files:
#' A rank's rows need not be in memory: `x_local` may be an out-of-core
#' matrix of its rows, which [kmeans_reduced()] then reads in blocks, as one
#' process does, with every step combined across the ranks as above
#' (`refine` reads the blocks once per iteration, with one allreduce each).
#' For the cells of a 10x Genomics HDF5 file (cells as rows), give each
#' rank a range of consecutive cells of the transposed `TENxMatrix`:
#' that range is read straight from the file (as by [kmeans_reduced()]'s
#' `SummarizedExperiment` method), in blocks of whole
#' cells kept sparse, never through DelayedArray, and `normalize =
#' "log1p_cp10k"` normalizes the counts of each cell as they are read (as
#' [kmeans_reduced()]'s `SummarizedExperiment` method does). Any other
#' `DelayedMatrix` (an `HDF5Matrix`, cells not consecutive, a delayed
#' operation) is read through DelayedArray, and a `big.matrix` (e.g. one
#' `bigmemory::sub.big.matrix()` of a file-backed matrix per rank) through
#' bigmemory. The projections, `"leverage"` and `"rsvd"` run on such rows;
#' `"none"` (Lloyd on rows held in memory) does not. A `SummarizedExperiment`
#' or `SingleCellExperiment` of the rank's cells, `sce[, cells]`, works the
#' same way, its cells (columns) clustered, with `assay` and `normalize` as in
#' [kmeans_reduced()]'s method for it.
#'
#' The expression giving `x_local` is evaluated inside `mpi_rows()`, so an
#' error there on one rank (a missing or unreadable file, a range out of
#' bounds) stops every rank with that rank's message. An error while a block
#' is read later in the fit (a file changed or damaged during the fit) stops
#' that rank alone with its message: the script it runs exits, and `mpirun`
#' then ends the whole job.
#'
#' With the same `seed` the labels of all ranks stacked in rank order are
#' those of one process on the whole file (for example
#' `kmeans_reduced(sce, k, normalize = "log1p_cpm")` on a
#' `SingleCellExperiment` whose `"counts"` assay is the `TENxMatrix`), and the
#' centres and statistics equal it to rounding.
#'
#' @param x_local This rank's rows: a numeric matrix or `dgCMatrix` (the
#'   same class, number of columns and column names on every rank; at least
#'   one row), or rows read in blocks (see "Rows read from files"): a
#'   `DelayedMatrix` such as `t(HDF5Array::TENxMatrix(file, group))[cells, ]`
#'   with `cells` this rank's consecutive range of the file's cells, or a
#'   `big.matrix`; or a `SummarizedExperiment` of this rank's cells (as
#'   columns, Bioconductor's orientation), e.g. `sce[, cells]`, whose
#'   `TENxMatrix` assay is read from the file the same way. Every rank gives
#'   the same kind (in memory, or read in blocks).
#' @param assay For a `SummarizedExperiment` `x_local` (this rank's cells as
#'   columns, e.g. `sce[, cells]`): the assay to cluster, chosen as
#'   [kmeans_reduced()]'s method for it does (`NULL`: `"counts"` with
#'   a normalization, else `"logcounts"` or the first).
#' @param normalize `"none"` (cluster the values as they are),
#'   `"log1p_cp10k"` or `"log1p_cpm"`: counts (finite numbers >= 0, cells as
#'   rows) normalized cell by cell to
#'   \eqn{\log(1 + t x / s)}{log(1 + t x / s)}, `s` the cell's library size
#'   and `t` 10^4 or 10^6, as the `SummarizedExperiment` method of
#'   [kmeans_reduced()] does; without a second matrix when the rows are read
#'   in blocks. The same on every rank. (`"log1p_size_factors"` needs the
#'   mean library size of all cells, which no rank has: not available here.)
#' @return An object of class `kmreduce_mpi`: `x` (the local rows, or the
#'   reader of rows read in blocks), `rank`, `size`, `n` (rows of the whole
#'   matrix), `offset` (rows on lower ranks) and `n_local`.
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
#'
#' # the cells of a 10x file: each rank reads its own range of cells
#' tenx <- HDF5Array::TENxMatrix("atlas.h5", "mm10")
#' cells <- get.jid(ncol(tenx))  # this rank's consecutive cells
#' x <- mpi_rows(t(tenx)[cells, ], normalize = "log1p_cpm")
#' fit <- kmeans_reduced(x, k = 30, seed = 1)
#' comm.print(table(fit$cluster))
#' finalize()
#' }
#' @export
mpi_rows <- function(x_local, normalize = "none", assay = NULL) {
  if (!requireNamespace("pbdMPI", quietly = TRUE)) {
    stop_arg("mpi_rows() needs the pbdMPI package (and MPI); install it, then run the script with mpirun.")
  }
  # Every rank checks its rows, then all agree (one allgather) before
  # anything else: a rank whose rows fail the checks stops every rank with
  # its message instead of leaving the others waiting in the allgather.
  # (x_local is evaluated here: an error in the expression that gives it,
  # e.g. a missing file, is caught too.)
  failed <- mpi_try(TRUE, {
    normalize <- check_normalize(normalize)
    if (normalize == "log1p_size_factors") {
      stop_arg("`normalize = \"log1p_size_factors\"` is not available for MPI rows (each rank holds only its own cells); use \"log1p_cp10k\" or \"log1p_cpm\".")
    }
    x_local <- mpi_local_rows(x_local, normalize, assay)
  })
  rank <- pbdMPI::comm.rank()
  size <- pbdMPI::comm.size()
  mine <- if (is.null(failed)) {
    if (inherits(x_local, "row_source")) {
      list(n = n_rows(x_local), d = n_cols(x_local), sparse = sparse_rows(x_local),
           names = col_names(x_local), maxabs = 0, blocks = TRUE, normalize = normalize,
           assay = assay)
    } else {
      list(n = nrow(x_local), d = ncol(x_local), sparse = methods::is(x_local, "dgCMatrix"),
           names = colnames(x_local),
           maxabs = scan_values_cpp(if (methods::is(x_local, "dgCMatrix")) x_local@x else x_local)$maxabs,
           blocks = FALSE, normalize = normalize, assay = assay)
    }
  }
  info <- pbdMPI::allgather(list(failed = failed, info = mine))
  bad <- which(!vapply(info, function(a) is.null(a$failed), TRUE))
  if (length(bad) > 0L) {
    stop_arg(sprintf("mpi_rows() stopped on every MPI rank: the rows of rank %d failed the checks: %s",
                     bad[1L] - 1L, info[[bad[1L]]]$failed))
  }
  blocks_all <- vapply(info, function(a) a$info$blocks, TRUE)
  if (any(blocks_all != blocks_all[1L])) {
    stop_arg(sprintf(paste0("`x_local` must be in memory on every rank or read in blocks (a ",
                            "DelayedMatrix, a big.matrix) on every rank, not a mix; rank 0 has %s ",
                            "and rank %d %s."),
                     if (blocks_all[1L]) "rows read in blocks" else "rows in memory",
                     which(blocks_all != blocks_all[1L])[1L] - 1L,
                     if (blocks_all[1L]) "rows in memory" else "rows read in blocks"))
  }
  for (arg in c("normalize", "assay")) {
    vals <- lapply(info, function(a) a$info[[arg]])
    differ <- !vapply(vals, identical, TRUE, vals[[1L]])
    if (any(differ)) {
      r <- which(differ)[1L]
      stop_arg(sprintf("`%s` must be the same on every rank; it is %s on rank 0 and %s on rank %d.",
                       arg, describe(vals[[1L]]), describe(vals[[r]]), r - 1L))
    }
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
  n_all <- vapply(info, `[[`, 0, "n")
  # (the smallest and the largest accepted values: of all the ranks' rows
  # together, whose sums of squares the statistics add up; rows read in
  # blocks are checked as each block is read)
  if (!blocks_all[1L]) {
    top <- max(vapply(info, `[[`, 0, "maxabs"))
    check_small_values(top, "x_local")
    limit <- max_abs_value(sum(n_all) * d_all[1L])
    if (top > limit) {
      stop_arg(sprintf(paste0("`x_local` has values as large as %s in absolute value; squared ",
                              "distances and sums of squares over the rows of all ranks would ",
                              "overflow. Rescale the data (values up to %s are supported for ",
                              "data of this size)."),
                       format(top, digits = 3), format(limit, digits = 3)))
    }
  }
  structure(list(x = x_local, rank = rank, size = size, n = sum(n_all),
                 offset = sum(n_all[seq_len(rank)]), n_local = if (blocks_all[1L]) n_rows(x_local) else nrow(x_local)),
            class = "kmreduce_mpi")
}

# This rank's rows, checked (on this rank alone): rows in memory as
# check_data() gives them (normalized), or, for a DelayedMatrix or a
# big.matrix, the row source that reads them in blocks: a range of a 10x
# file's cells (`t(tenx)[cells, ]`) straight from the file (source_tenx).
mpi_local_rows <- function(x, normalize, assay = NULL) {
  if (is_se(x)) return(mpi_local_se(x, normalize, assay))
  if (!is.null(assay)) {
    stop_arg(sprintf("`assay` is for a SummarizedExperiment `x_local`, not %s.",
                     describe(x)))
  }
  if (is_delayed(x)) {
    window <- tenx_window(x, transposed = TRUE)
    seed <- if (is.null(window)) tenx_seed(x, transposed = TRUE)
    src <- if (!is.null(window)) {
      new_source_tenx(x, window$seed, cells_first = TRUE, normalize, window = window)
    } else if (!is.null(seed)) {
      new_source_tenx(x, seed, cells_first = TRUE, normalize)
    } else {
      new_source_delayed(x, normalize = normalize, what = sprintf("a %s", class(x)[1L]))
    }
    if (n_rows(src) == 0L || n_cols(src) == 0L) {
      stop_arg(sprintf("`x_local` must have at least one row and one column, not %d x %d.",
                       n_rows(src), n_cols(src)))
    }
    return(src)
  }
  if (is_big(x)) {
    if (normalize != "none") {
      stop_arg("`normalize` must be \"none\" for a big.matrix `x_local` (normalize the counts as they are written).")
    }
    if (nrow(x) == 0L || ncol(x) == 0L) {
      stop_arg(sprintf("`x_local` must have at least one row and one column, not %d x %d.",
                       nrow(x), ncol(x)))
    }
    return(new_source_big(x))
  }
  x <- check_data(x, "x_local", small = FALSE)
  normalize_rows(x, normalize, "`x_local`")
}

#' @rdname mpi_rows
#' @param x A `kmreduce_mpi` object.
#' @param ... Ignored.
#' @export
print.kmreduce_mpi <- function(x, ...) {
  blocks <- inherits(x$x, "row_source")
  cat(sprintf("kmreduce MPI rows: rank %d of %d holds rows %d-%d of %d (%d columns, %s)\n",
              x$rank, x$size, x$offset + 1, x$offset + x$n_local, x$n,
              if (blocks) n_cols(x$x) else ncol(x$x),
              if (blocks) sprintf("read in blocks from %s", describe_source(x$x)) else
                if (methods::is(x$x, "dgCMatrix")) "sparse" else "dense"))
  invisible(x)
}

# The cells (columns) of a SummarizedExperiment as this rank's rows: its
# assay chosen as kmeans_reduced() does; a TENxMatrix assay of a range of
# the file's cells (`sce[, cells]`) read straight from the file.
mpi_local_se <- function(x, normalize, assay) {
  input <- check_se_input(x, assay, NULL, normalize)
  a <- SummarizedExperiment::assay(x, input$assay, withDimnames = FALSE)
  window <- tenx_window(a, transposed = FALSE)
  rows <- if (!is.null(window)) {
    src <- new_source_tenx(a, window$seed, cells_first = FALSE, normalize, window = window)
    src$names <- list(colnames(x), rownames(x))
    src
  } else {
    se_rows(x, input)
  }
  if (inherits(rows, "row_source")) {
    if (n_rows(rows) == 0L || n_cols(rows) == 0L) {
      stop_arg(sprintf("`x_local` must have at least one cell and one feature, not %d x %d.",
                       n_cols(rows), n_rows(rows)))
    }
    return(rows)
  }
  # (in memory: cells as rows, normalized)
  check_data(rows, "x_local", small = FALSE)
}
