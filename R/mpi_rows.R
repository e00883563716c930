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
#' * with `control$svd_rows`, `"rsvd"` computes its SVD from the sample of
#'   rows one process would draw from the stacked rows: every rank draws the
#'   same global rows, reads those it holds, and gets the whole sample (one
#'   allgather of `svd_rows x ncol` values);
#' * k-means++ and Lloyd on the reduced rows: per iteration an allreduce of
#'   the `k x dims` cluster sums and the `k` counts; k-means++ draws from the
#'   same random stream as one process (the `D^2` draw is located across
#'   ranks from their totals); an emptied cluster takes the farthest row of
#'   all ranks, as on one process. On many rows (see `sketch_rows` in
#'   [kmeans_control()]) the replicates run on the weighted sketches of the
#'   rows one process would draw: every rank draws the same uniforms and keeps
#'   those that fall in its rows, the drawn rows are gathered in rank order
#'   (one allreduce of `m x dims` values per sketch), and every rank runs the
#'   same replicates on them; the lifts, Lloyd and the polish then run on all
#'   the rows across the ranks;
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
#' cells kept sparse, never through DelayedArray, and its counts are
#' normalized cell by cell as they are read. Any other
#' `DelayedMatrix` (an `HDF5Matrix`, cells not consecutive, a delayed
#' operation) is read through DelayedArray, and a `big.matrix` (e.g. one
#' `bigmemory::sub.big.matrix()` of a file-backed matrix per rank) through
#' bigmemory. The projections, `"leverage"` and `"rsvd"` run on such rows;
#' `"none"` (Lloyd on rows held in memory) does not. A `SummarizedExperiment`
#' or `SingleCellExperiment` of the rank's cells, `sce[, cells]`, works the
#' same way, its cells (columns) clustered, with `assay` and `normalize` as in
#' [kmeans_reduced()]'s method for it.
#'
#' @section Cells:
#' The cells of a `SummarizedExperiment` (`sce[, cells]`) or of a 10x file
#' (`t(tenx)[cells, ]`) are clustered as [kmeans_reduced()] clusters the
#' cells of the whole object in one process: their counts normalized by
#' default (`"log1p_size_factors"`, the size factors or library sizes
#' centred over the cells of ALL the ranks: one allgather of one number per
#' cell; a message on rank 0 says so), and, unless `method` is given, reduced
#' to 150 principal components computed from 20000 cells drawn at random
#' over all the ranks (see [kmeans_reduced.SummarizedExperiment()]). The fit
#' records the normalization, so [predict()] treats new cells as one
#' process's fit does. With the same `seed` the labels of all ranks stacked
#' in rank order are those of one process on all the cells, for example
#' `kmeans_reduced(sce, k, seed = 1)` on a `SingleCellExperiment` whose
#' `"counts"` assay is the `TENxMatrix`, or `kmeans_reduced(t(tenx), k, seed =
#' 1)`, and the centres and statistics equal it to rounding.
#'
#' The expression giving `x_local` is evaluated inside `mpi_rows()`, so an
#' error there on one rank (a missing or unreadable file, a range out of
#' bounds) stops every rank with that rank's message. An error while a block
#' is read later in the fit (a file changed or damaged during the fit) stops
#' that rank alone with its message: the script it runs exits, and `mpirun`
#' then ends the whole job.
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
#'   a normalization, else `"logcounts"`, `"counts"` or the first).
#' @param normalize `NULL` (the default: for cells, the default of
#'   [kmeans_reduced.SummarizedExperiment()], `"log1p_size_factors"` for
#'   counts; `"none"` for other rows), `"none"` (cluster the values as they
#'   are), or a normalization of counts (finite numbers >= 0, cells as rows):
#'   `"log1p_size_factors"`, `"log1p_cp10k"` or `"log1p_cpm"`, as
#'   [kmeans_reduced.SummarizedExperiment()] applies them (see "Cells"); without
#'   a second matrix when the rows are read in blocks. The same on every rank.
#' @return An object of class `kmreduce_mpi`: `x` (the local rows, or the
#'   reader of rows read in blocks), `rank`, `size`, `n` (rows of the whole
#'   matrix), `offset` (rows on lower ranks), `n_local`, `d` (columns) and
#'   `cells` (for cells: what the fit records of them, else `NULL`).
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
#' x <- mpi_rows(t(tenx)[cells, ])  # counts normalized, as in one process
#' fit <- kmeans_reduced(x, k = 30, seed = 1)
#' comm.print(table(fit$cluster))
#' finalize()
#' }
#' @export
mpi_rows <- function(x_local, normalize = NULL, assay = NULL) {
  if (!requireNamespace("pbdMPI", quietly = TRUE)) {
    stop_arg("mpi_rows() needs the pbdMPI package (and MPI); install it, then run the script with mpirun.")
  }
  # Every rank checks its rows, then all agree (one allgather) before
  # anything else: a rank whose rows fail the checks stops every rank with
  # its message instead of leaving the others waiting in the allgather.
  # (x_local is evaluated here: an error in the expression that gives it,
  # e.g. a missing file, is caught too.)
  failed <- mpi_try(TRUE, {
    if (!is.null(normalize)) normalize <- check_normalize(normalize)
    local <- mpi_local_rows(x_local, normalize, assay)
    x_local <- local$rows
  })
  rank <- pbdMPI::comm.rank()
  size <- pbdMPI::comm.size()
  mine <- if (is.null(failed)) mpi_rank_info(x_local, local, assay)
  # (`local` is read only once every rank has its rows)
  info <- mpi_agreed_info(pbdMPI::allgather(list(failed = failed, info = mine)), local$how)
  blocks <- info[[1L]]$blocks
  # (counts normalized by size factors centred over the cells of all the
  # ranks: those of one process on all the cells)
  norm <- if (needs_cell_scales(local$how)) {
    mpi_size_factors(local, unlist(pbdMPI::allgather(local$scale)))
  } else {
    as_normalization(local$how)
  }
  if (normalizes(local$how)) {
    failed <- mpi_try(TRUE, x_local <- mpi_normalize_rows(x_local, norm))
    mpi_agree(NULL, failed, "mpi_rows()", NULL)
  }
  if (rank == 0L && !is.null(local$message)) message(local$message(norm))
  n_all <- vapply(info, `[[`, 0, "n")
  # (rows read in blocks are checked as each block is read)
  if (!blocks) mpi_check_range(x_local, info, local$how, sum(n_all) * info[[1L]]$d)
  structure(list(x = x_local, rank = rank, size = size, n = sum(n_all),
                 offset = sum(n_all[seq_len(rank)]),
                 n_local = if (blocks) n_rows(x_local) else nrow(x_local),
                 d = info[[1L]]$d,
                 # (cells: what the fit records for predict(), and the
                 # defaults of kmeans_reduced() for cells)
                 cells = if (!is.null(local$input)) list(input = local$input, normalization = norm)),
            class = "kmreduce_mpi")
}

# What this rank tells the others of its rows `x_local` (mpi_local_rows():
# `local`), for mpi_agreed_info().
mpi_rank_info <- function(x_local, local, assay) {
  # (`normalize` as resolved, and where the size factors come from)
  common <- list(normalize = local$how, assay = assay, from = local$from)
  if (inherits(x_local, "row_source")) {
    return(c(list(n = n_rows(x_local), d = n_cols(x_local), sparse = isTRUE(x_local$sparse),
                  names = col_names(x_local), maxabs = 0, blocks = TRUE), common))
  }
  c(list(n = nrow(x_local), d = ncol(x_local), sparse = methods::is(x_local, "dgCMatrix"),
         names = colnames(x_local),
         maxabs = if (!normalizes(local$how)) scan_values_cpp(
           if (methods::is(x_local, "dgCMatrix")) x_local@x else x_local)$maxabs else 0,
         blocks = FALSE), common)
}

# The ranks' infos (`all`: allgather() of list(failed, info)), checked to
# agree: the same error on every rank when one failed or when they differ.
# `how`: the normalization (the same on every rank once they agree).
mpi_agreed_info <- function(all, how) {
  bad <- which(!vapply(all, function(a) is.null(a$failed), TRUE))
  if (length(bad) > 0L) {
    stop_arg(sprintf("mpi_rows() stopped on every MPI rank: the rows of rank %d failed the checks: %s",
                     bad[1L] - 1L, all[[bad[1L]]]$failed))
  }
  info <- lapply(all, `[[`, "info")
  blocks_all <- vapply(info, function(a) a$blocks, TRUE)
  if (any(blocks_all != blocks_all[1L])) {
    stop_arg(sprintf(paste0("`x_local` must be in memory on every rank or read in blocks (a ",
                            "DelayedMatrix, a big.matrix) on every rank, not a mix; rank 0 has %s ",
                            "and rank %d %s."),
                     if (blocks_all[1L]) "rows read in blocks" else "rows in memory",
                     which(blocks_all != blocks_all[1L])[1L] - 1L,
                     if (blocks_all[1L]) "rows in memory" else "rows read in blocks"))
  }
  for (arg in c("normalize", "assay", "from")) {
    vals <- lapply(info, function(a) a[[arg]])
    differ <- !vapply(vals, identical, TRUE, vals[[1L]])
    if (any(differ)) {
      r <- which(differ)[1L]
      if (arg == "from") {
        stop_arg(sprintf(paste0("`x_local` must have size factors (sizeFactors()) on every rank or on ",
                                "none for normalize = \"%s\"; rank 0 %s and rank %d %s."),
                         how, mpi_has_size_factors(vals[[1L]]), r - 1L,
                         mpi_has_size_factors(vals[[r]])))
      }
      stop_arg(sprintf("`%s` must be the same on every rank; it is %s on rank 0 and %s on rank %d.",
                       arg, describe(vals[[1L]]), describe(vals[[r]]), r - 1L))
    }
  }
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
  info
}

# The smallest and the largest accepted values of the rows in memory of all
# the ranks together (normalized by `how`: their values now), whose sums of
# squares the statistics add up; `size`: the number of values of all the
# ranks.
mpi_check_range <- function(x_local, info, how, size) {
  top <- if (!normalizes(how)) max(vapply(info, `[[`, 0, "maxabs")) else
    pbdMPI::allreduce(scan_values_cpp(if (methods::is(x_local, "dgCMatrix")) x_local@x else
                                        x_local)$maxabs, op = "max")
  check_small_values(top, "x_local")
  limit <- max_abs_value(size)
  if (top > limit) {
    stop_arg(sprintf(paste0("`x_local` has values as large as %s in absolute value; squared ",
                            "distances and sums of squares over the rows of all ranks would ",
                            "overflow. Rescale the data (values up to %s are supported for ",
                            "data of this size)."),
                     format(top, digits = 3), format(limit, digits = 3)))
  }
  invisible(NULL)
}

mpi_has_size_factors <- function(from) {
  if (identical(from, "sizeFactors")) "has them" else "has none"
}

# The normalization of this rank's cells by their scales (needs_cell_scales(),
# e.g. "log1p_size_factors"): their size factors (or library sizes,
# `local$scale`), a target left to the cells completed over the cells of all
# the ranks (`all`, in rank order: the mean of one process).
mpi_size_factors <- function(local, all) {
  norm <- complete_normalization(local$how,
                                 if (local$from == "sizeFactors") all,
                                 function() all)
  if (local$from == "sizeFactors") norm$size_factors <- local$scale
  norm
}

# This rank's rows normalized by `norm`: in memory, now; rows read in
# blocks, as each block is read.
mpi_normalize_rows <- function(rows, norm) {
  if (inherits(rows, "row_source")) {
    rows$normalize <- norm
    return(rows)
  }
  normalize_rows(rows, norm, "`x_local`")
}

# This rank's rows, checked (on this rank alone): list(rows, how, scale,
# from, input, message). `rows`: in memory as check_data() gives them, or,
# for a DelayedMatrix or a big.matrix, the row source that reads them in
# blocks (a range of a 10x file's cells, `t(tenx)[cells, ]`, straight from
# the file: source_tenx); not yet normalized. `how`: the normalization
# (`normalize`, or the default for counts of cells); for one by the cells'
# scales (needs_cell_scales(), e.g. "log1p_size_factors"), `scale` holds the
# cells' size factors (`from`
# "sizeFactors") or library sizes (`from` "library_sizes", one pass over
# rows read in blocks), centred over all the ranks by mpi_rows(). Cells (an
# assay of a SummarizedExperiment, or a 10x file's) have `input`, what the
# fit records of them, and `message`, the default normalization's.
mpi_local_rows <- function(x, normalize, assay = NULL) {
  if (is_se(x)) return(mpi_local_se(x, normalize, assay))
  if (!is.null(assay)) {
    stop_arg(sprintf("`assay` is for a SummarizedExperiment `x_local`, not %s.",
                     describe(x)))
  }
  if (is_delayed(x)) {
    window <- tenx_window(x, transposed = TRUE)
    seed <- if (is.null(window)) tenx_seed(x, transposed = TRUE)
    tenx <- if (!is.null(window)) window$seed else seed
    # (a 10x file holds counts of cells: clustered as cells, its counts
    # normalized by default)
    how <- if (!is.null(normalize)) normalize else if (!is.null(tenx)) default_cell_normalization() else "none"
    src <- if (!is.null(window)) {
      new_source_tenx(x, window$seed, cells_first = TRUE, how, window = window)
    } else if (!is.null(seed)) {
      new_source_tenx(x, seed, cells_first = TRUE, how)
    } else {
      new_source_delayed(x, normalize = how, what = sprintf("a %s", class(x)[1L]))
    }
    if (n_rows(src) == 0L || n_cols(src) == 0L) {
      stop_arg(sprintf("`x_local` must have at least one row and one column, not %d x %d.",
                       n_rows(src), n_cols(src)))
    }
    out <- mpi_local_counts(src, how, NULL)
    if (!is.null(tenx)) {
      out$input <- list(assay = "counts", use_reduced_dim = NULL, normalize = how)
      if (is.null(normalize)) {
        out$message <- normalization_message(
          sprintf("the counts of the 10x file '%s' (t() of a TENxMatrix) are", tenx@filepath), how)
      }
    }
    return(out)
  }
  if (is.null(normalize)) normalize <- "none"
  if (is_big(x)) {
    if (normalizes(normalize)) {
      stop_arg("`normalize` must be \"none\" for a big.matrix `x_local` (normalize the counts as they are written).")
    }
    if (nrow(x) == 0L || ncol(x) == 0L) {
      stop_arg(sprintf("`x_local` must have at least one row and one column, not %d x %d.",
                       nrow(x), ncol(x)))
    }
    return(list(rows = new_source_big(x), how = "none"))
  }
  x <- check_data(x, "x_local", small = FALSE)
  mpi_local_counts(x, normalize, NULL)
}

# Rows of counts (in memory or a row source) with the normalization `how`:
# for one by the cells' scales (needs_cell_scales()) their size factors `sf`
# or their library sizes.
mpi_local_counts <- function(rows, how, sf) {
  out <- list(rows = rows, how = how)
  if (!needs_cell_scales(how)) return(out)
  out$from <- if (is.null(sf)) "library_sizes" else "sizeFactors"
  out$scale <- if (!is.null(sf)) sf else if (inherits(rows, "row_source")) {
    source_library_sizes(rows)
  } else {
    # (the counts checked first, as normalize_rows() does)
    normalize_rows(rows, list(how = how, check_only = TRUE), "`x_local`")
    unname(Matrix::rowSums(rows))
  }
  out
}
#' @rdname mpi_rows
#' @param x A `kmreduce_mpi` object.
#' @param ... For `print()`, ignored; for `kmeans_reduced()`, its arguments
#'   (see [kmeans_reduced()]).
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

# The cells (columns) of a SummarizedExperiment as this rank's rows
# (mpi_local_rows()): its assay chosen as kmeans_reduced() does, with its
# default normalization; a TENxMatrix assay of a range of the file's cells
# (`sce[, cells]`) read straight from the file.
mpi_local_se <- function(x, normalize, assay) {
  input <- check_se_input(x, assay, NULL, normalize)
  how <- input$normalize
  sf <- if (uses_size_factors(how)) se_size_factors(x)
  a <- SummarizedExperiment::assay(x, input$assay, withDimnames = FALSE)
  window <- tenx_window(a, transposed = FALSE)
  # (the rows as they are: normalized once the ranks agree, mpi_rows())
  plain <- input
  plain$normalize <- "none"
  rows <- if (!is.null(window)) {
    src <- new_source_tenx(a, window$seed, cells_first = FALSE, how, window = window)
    src$names <- list(colnames(x), rownames(x))
    src
  } else if (is_delayed(a)) {
    se_rows(x, input, normalization = as_normalization(how))
  } else {
    se_rows(x, plain)
  }
  if (inherits(rows, "row_source")) {
    if (n_rows(rows) == 0L || n_cols(rows) == 0L) {
      stop_arg(sprintf("`x_local` must have at least one cell and one feature, not %d x %d.",
                       n_cols(rows), n_rows(rows)))
    }
  } else {
    rows <- check_data(rows, "x_local", small = FALSE)
  }
  out <- mpi_local_counts(rows, how, sf)
  out$input <- input
  if (is.null(normalize) && normalizes(how)) {
    out$message <- normalization_message(sprintf("the assay \"%s\" is", input$assay), how)
  }
  out
}

# The message of the default normalization of cells: `subject` (what is
# normalized, with its verb), the normalization `how`; a function of the
# normalization as applied.
normalization_message <- function(subject, how) {
  function(norm) default_normalization_message(subject, how, norm$from)
}

#' @rdname mpi_rows
#' @param k The number of clusters (see [kmeans_reduced()]).
#' @export
kmeans_reduced.kmreduce_mpi <- function(x, k, ...) {
  call <- match.call()
  call[[1L]] <- as.name("kmeans_reduced")
  # (cells: the defaults of one process for cells, cell_defaults())
  args <- if (is.null(x$cells)) list(...) else cell_defaults(list(...), TRUE, c(x$n, x$d))
  fit <- do.call(kmeans_reduced.default, c(list(quote(x)), if (!missing(k)) list(quote(k)), args))
  if (!is.null(x$cells)) fit$input <- c(x$cells$input, normalization_record(x$cells$normalization))
  fit$call <- call
  fit
}
