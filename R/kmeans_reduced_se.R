#' k-means of the cells of a SingleCellExperiment
#'
#' The method of [kmeans_reduced()] for Bioconductor's
#' `SummarizedExperiment` and `SingleCellExperiment`: it clusters the
#' **columns** (the cells, or samples), following Bioconductor's orientation
#' of features (genes) as rows and cells as columns, from an assay or from a
#' reduced dimension. Everything else is [kmeans_reduced()]'s: the result is
#' the usual `kmeans_reduced` object with one label per cell, in the order of
#' `colnames(x)`.
#'
#' An assay held in memory (a matrix or a sparse `Matrix`) is transposed to
#' cells as rows once. A `DelayedMatrix` assay (an `HDF5Matrix`, a delayed
#' normalisation, ...) is read in blocks of cells and never held whole, and a
#' `TENxMatrix` assay (a 10x Genomics HDF5 file) is read straight from its
#' file with rhdf5, in blocks of whole cells kept sparse. So an atlas of a
#' million cells is clustered in the memory of its reduced data (cells x
#' `dims`) plus one block. The projections read each block once; with
#' `refine` the statistics and Lloyd's iterations on the original rows read
#' the file again.
#'
#' `normalize = "log1p_cpm"` normalizes counts on the fly, block by block,
#' without a second matrix: each cell's counts become
#' \eqn{\log(1 + 10^6 x / s)}{log(1 + 1e6 x / s)}, where `s` is the cell's
#' library size (the sum of its counts over all genes; a cell without counts
#' stays zero). The statistics of the fit (`centers`, `withinss`, ...) are
#' then those of the normalized data. The counts must be finite numbers >= 0.
#'
#' To store the result back the way Bioconductor users do:
#' `sce$cluster <- factor(fit$cluster)` (or `colLabels(sce) <-`), and
#' `reducedDim(sce, "kmreduce") <- fit$reduced` for the reduced data the
#' clusters were found in.
#'
#' @param x A `SummarizedExperiment` or `SingleCellExperiment`: features as
#'   rows, the cells (or samples) to cluster as columns.
#' @param k Number of clusters, or a matrix of initial centres (one row per
#'   cluster, one column per feature of the data clustered).
#' @param ... Arguments of [kmeans_reduced()]: `method`, `dims`, `n_init`,
#'   `seed`, `n_threads`, `control`, `verbose`, ... (`weights`: one per cell).
#' @param assay The assay to cluster: a name or a number. Default: `"counts"`
#'   with `normalize = "log1p_cpm"`, otherwise `"logcounts"` when there is
#'   one, otherwise the first assay.
#' @param use_reduced_dim `NULL`, or the name of a reduced dimension of a
#'   `SingleCellExperiment` (e.g. `"PCA"`, cells x components) to cluster
#'   instead of an assay.
#' @param normalize `"none"` (cluster the assay's values) or `"log1p_cpm"`
#'   (counts normalized on the fly, see Details).
#' @return A `kmeans_reduced` object (see [kmeans_reduced()]); its `input`
#'   records `assay`, `use_reduced_dim` and `normalize`, which [predict()]
#'   applies to a new `SummarizedExperiment`.
#' @seealso [kmeans_reduced()], [predict.kmeans_reduced()].
#' @examples
#' if (requireNamespace("SummarizedExperiment", quietly = TRUE)) {
#'   set.seed(1)
#'   counts <- matrix(rpois(200 * 60, rep(c(1, 8), each = 100 * 30)), 200, 60)
#'   se <- SummarizedExperiment::SummarizedExperiment(list(counts = counts))
#'   fit <- kmeans_reduced(se, 2, normalize = "log1p_cpm", seed = 1)
#'   table(fit$cluster)
#' }
#' @export
kmeans_reduced.SummarizedExperiment <- function(x, k, ..., assay = NULL, use_reduced_dim = NULL,
                                                normalize = "none") {
  call <- match.call()
  call[[1L]] <- as.name("kmeans_reduced")
  input <- check_se_input(x, assay, use_reduced_dim, normalize)
  fit <- kmeans_reduced.default(se_rows(x, input), k, ...)
  fit$call <- call
  fit$input <- input
  fit
}

# The checked choice of what to cluster: list(assay, use_reduced_dim,
# normalize), assay a name or number.
check_se_input <- function(x, assay, use_reduced_dim, normalize) {
  normalize <- check_normalize(normalize)
  if (!is.null(use_reduced_dim)) {
    if (!is.null(assay) || normalize != "none") {
      stop_arg("`use_reduced_dim` clusters a reduced dimension: give it without `assay` and with normalize = \"none\".")
    }
    if (!methods::is(x, "SingleCellExperiment")) {
      stop_arg(sprintf("`use_reduced_dim` needs a SingleCellExperiment `x`, not %s.",
                       describe_se(x)))
    }
    have <- SingleCellExperiment::reducedDimNames(x)
    if (!is.character(use_reduced_dim) || length(use_reduced_dim) != 1L ||
        !(use_reduced_dim %in% have)) {
      stop_arg(sprintf("`use_reduced_dim` must be the name of one of the reduced dimensions of `x` (%s), not %s.",
                       if (length(have)) paste0("\"", have, "\"", collapse = ", ") else "it has none",
                       describe(use_reduced_dim)))
    }
    return(list(assay = NULL, use_reduced_dim = use_reduced_dim, normalize = "none"))
  }
  have <- SummarizedExperiment::assayNames(x)
  n_assays <- length(SummarizedExperiment::assays(x, withDimnames = FALSE))
  if (n_assays == 0L) stop_arg("`x` has no assay to cluster.")
  if (is.null(assay)) {
    assay <- if (normalize != "none" && "counts" %in% have) "counts" else
      if (normalize == "none" && "logcounts" %in% have) "logcounts" else 1L
  }
  ok <- if (is.character(assay)) length(assay) == 1L && assay %in% have else
    is_whole(assay) && assay >= 1 && assay <= n_assays
  if (!ok) {
    stop_arg(sprintf("`assay` must be the name or number of an assay of `x` (%s), not %s.",
                     if (length(have)) paste0("\"", have, "\"", collapse = ", ") else
                       sprintf("%d unnamed", n_assays), describe(assay)))
  }
  # (recorded by name where the assay has one: predict() then finds it in a
  # new object whatever the order of its assays)
  if (!is.character(assay) && length(have) >= assay && !is.na(have[assay]) &&
      nzchar(have[assay])) {
    assay <- have[assay]
  }
  list(assay = assay, use_reduced_dim = NULL, normalize = normalize)
}

is_se <- function(x) isS4(x) && methods::is(x, "SummarizedExperiment")

# What predict() takes of a new SummarizedExperiment: the fit's choice
# (`input`, NULL for a fit to a matrix: the defaults).
se_input_of <- function(x, input) {
  if (is.null(input)) return(check_se_input(x, NULL, NULL, "none"))
  if (is.character(input$assay) &&
      !(input$assay %in% SummarizedExperiment::assayNames(x))) {
    have <- SummarizedExperiment::assayNames(x)
    stop_arg(sprintf("`newdata` has no assay \"%s\", the assay the fit clustered (it has %s).",
                     input$assay, if (length(have)) paste0("\"", have, "\"", collapse = ", ") else
                       "no named assay"))
  }
  if (!is.null(input$use_reduced_dim) &&
      !(methods::is(x, "SingleCellExperiment") &&
        input$use_reduced_dim %in% SingleCellExperiment::reducedDimNames(x))) {
    stop_arg(sprintf("`newdata` has no reduced dimension \"%s\", which the fit clustered.",
                     input$use_reduced_dim))
  }
  check_se_input(x, input$assay, input$use_reduced_dim, input$normalize)
}

describe_se <- function(x) sprintf("a %s", class(x)[1L])

# The cells of the SummarizedExperiment `x` as rows, chosen by `input`
# (check_se_input()): a reduced dimension or an assay in memory as a matrix
# (normalized here), a DelayedMatrix assay as a row source read in blocks.
se_rows <- function(x, input) {
  if (!is.null(input$use_reduced_dim)) {
    return(SingleCellExperiment::reducedDim(x, input$use_reduced_dim, withDimnames = TRUE))
  }
  # (without the SummarizedExperiment's dimnames, which would be a delayed
  # operation on a DelayedMatrix: the names are the cells' and features')
  a <- SummarizedExperiment::assay(x, input$assay, withDimnames = FALSE)
  names <- list(colnames(x), rownames(x))
  name <- if (is.character(input$assay)) input$assay else
    SummarizedExperiment::assayNames(x)[input$assay]
  what <- sprintf("the assay %s", if (length(name) == 1L && !is.na(name) && nzchar(name))
    paste0("\"", name, "\"") else input$assay)
  type <- tryCatch(DelayedArray::type(a), error = function(e) typeof(a))
  if (!(type %in% c("double", "integer", "logical")) || (is.matrix(a) && !is.numeric(a))) {
    stop_arg(sprintf("%s of `x` must hold numbers, not values of type %s.", what, type))
  }
  if (is_delayed(a)) {
    seed <- tenx_seed(a, transposed = FALSE)
    if (!is.null(seed)) {
      src <- new_source_tenx(a, seed, cells_first = FALSE, input$normalize,
                             what = sprintf("%s (the 10x file '%s')", what, seed@filepath))
    } else {
      src <- new_source_delayed(a, by_columns = TRUE, normalize = input$normalize, what = what)
    }
    src$names <- names
    return(src)
  }
  # in memory: cells as rows, once
  rows <- if (methods::is(a, "sparseMatrix")) Matrix::t(methods::as(a, "CsparseMatrix")) else
    t(as.matrix(a))
  if (methods::is(rows, "sparseMatrix") && !methods::is(rows, "dgCMatrix")) {
    rows <- methods::as(methods::as(rows, "generalMatrix"), "dMatrix")
  }
  if (!methods::is(rows, "dgCMatrix") && !is.double(rows)) storage.mode(rows) <- "double"
  dimnames(rows) <- names
  normalize_rows(rows, input$normalize, what)
}
