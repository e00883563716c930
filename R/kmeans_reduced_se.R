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
#' file in blocks of whole cells kept sparse: by the package's own reader,
#' which decompresses the file on the `n_threads` threads, where it was
#' installed with HDF5 (1.10.3 or later) and zlib, else with rhdf5 (its
#' datasets in a named group or in the file's root group; counts stored as
#' integers wider than R's, such as 64-bit ones, are read as doubles, which
#' hold them exactly below 2^53). So an atlas of a
#' million cells is clustered in the memory of its reduced data (cells x
#' `dims`) plus one block. The projections read each block once; with
#' `refine` the statistics and Lloyd's iterations on the original rows read
#' the file again.
#'
#' **Defaults for cells.** Counts are normalized: when the assay clustered
#' is `"counts"` (the default assay of an object without `"logcounts"`) and
#' `normalize` is not given, the counts are normalized with
#' `normalize = "log1p_size_factors"`, and a message says so
#' (`normalize = "none"` clusters the counts as they are). Cells are reduced
#' to their principal components: unless `method` is given, the method is
#' `"rsvd"` (the randomized SVD of the centred cells, whose centring is
#' implicit: sparse cells stay sparse) with `dims = 150` (or fewer, for
#' smaller data), computed from 20000 cells drawn at random
#' (`control$svd_rows`; `Inf` for all cells) with `2 dims + 1` test vectors
#' (`control$eps = 1`) and one power iteration, in memory; every cell is
#' then projected on them. From a file, the sample is drawn in the pass that
#' sums the library sizes: with the projection and the statistics of the
#' clusters, three passes in all, of which the last two read from memory
#' the counts the first kept: all of them when they fit, else the first
#' blocks (`control$file_cache`). Random projections of all the genes (the default of
#' [kmeans_reduced()] for other data) keep the noise of every gene and find
#' cell types less well.
#'
#' **Normalizations.** Each is applied on the fly, block by block, without a
#' second matrix: each cell's counts x become \eqn{\log(1 + x / s \cdot t)}{log(1 + x / s * t)}:
#' * `"log1p_size_factors"`: `s` the cell's size factor, from `sizeFactors(x)`
#'   when a `SingleCellExperiment` has them (`t = 1`), else its library size
#'   (the sum of its counts over all genes) with `t` the mean library size of
#'   all cells: scuttle's `logNormCounts()` up to the base of the log. For a
#'   file, the library sizes take one more pass over the counts (which also
#'   draws the sample of cells of the default reduction).
#' * `"log1p_cp10k"`: `s` the library size, `t = 10^4` (Seurat's
#'   `NormalizeData()`, scanpy's `normalize_total()` and `log1p()`).
#' * `"log1p_cpm"`: `s` the library size, `t = 10^6` (counts per million).
#'
#' A cell without counts stays zero. The statistics of the fit (`centers`,
#' `withinss`, ...) are then those of the normalized data. The counts must be
#' finite numbers >= 0.
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
#' @param assay The assay to cluster: a name or a number. Default:
#'   `"logcounts"` when there is one (unless `normalize` asks for counts to
#'   be normalized), otherwise `"counts"`, otherwise the first assay.
#' @param use_reduced_dim `NULL`, or the name of a reduced dimension of a
#'   `SingleCellExperiment` (e.g. `"PCA"`, cells x components) to cluster
#'   instead of an assay.
#' @param normalize `NULL` (the default: `"log1p_size_factors"` for an assay
#'   named `"counts"`, `"none"` for any other), `"none"` (cluster the assay's
#'   values), or one of the normalizations of counts `"log1p_size_factors"`,
#'   `"log1p_cp10k"`, `"log1p_cpm"` (see Details).
#' @return A `kmeans_reduced` object (see [kmeans_reduced()]); its `input`
#'   records `assay`, `use_reduced_dim` and `normalize` (and, for
#'   `"log1p_size_factors"` from library sizes, the mean library size
#'   `target`), which [predict()] applies to a new `SummarizedExperiment`
#'   (with its own size factors when it has them).
#' @seealso [kmeans_reduced()], [predict.kmeans_reduced()].
#' @examples
#' if (requireNamespace("SummarizedExperiment", quietly = TRUE)) {
#'   set.seed(1)
#'   counts <- matrix(rpois(200 * 60, rep(c(1, 8), each = 100 * 30)), 200, 60)
#'   se <- SummarizedExperiment::SummarizedExperiment(list(counts = counts))
#'   fit <- kmeans_reduced(se, 2, seed = 1)  # counts normalized, principal components
#'   table(fit$cluster)
#' }
#' @export
kmeans_reduced.SummarizedExperiment <- function(x, k, ..., assay = NULL, use_reduced_dim = NULL,
                                                normalize = NULL) {
  call <- match.call()
  call[[1L]] <- as.name("kmeans_reduced")
  input <- check_se_input(x, assay, use_reduced_dim, normalize)
  if (is.null(normalize) && input$normalize != "none") {
    message(sprintf(paste0("kmeans_reduced(): the assay \"%s\" is normalized with normalize = \"%s\" ",
                           "(%s); give normalize = \"none\" to cluster it as it is."),
                    input$assay, input$normalize, describe_normalization(input$normalize)))
  }
  args <- cell_defaults(list(...), is.null(input$use_reduced_dim), c(ncol(x), nrow(x)))
  # (the seed drawn here when not given, as kmeans_reduced() would: the
  # sample of cells of the randomized SVD is then drawn in the pass that
  # sums the library sizes)
  args$seed <- resolve_seed(args$seed)
  # (the library sizes' pass reads the file here: its chunks are
  # decompressed on the fit's threads, and what it holds is freed on return)
  hold_sources()
  on.exit(leave_sources(), add = TRUE)
  args$n_threads <- check_n_threads(args$n_threads)
  use_reading_threads(args$n_threads)
  cells <- se_rows(x, input, with_normalization = TRUE,
                   sample = cell_sample_plan(args, ncol(x)), file_cache = cell_file_cache(args))
  rows <- cells$rows
  # (the rows and k by name: the call holds no copy of the data)
  fit <- do.call(kmeans_reduced.default,
                 c(list(quote(rows)), if (!missing(k)) list(quote(k)), args))
  fit$call <- call
  fit$input <- c(input, normalization_record(cells$normalization))
  fit
}

# The defaults of the method for cells, where the call leaves them: an
# assay's cells are reduced to their principal components (method "rsvd",
# the centred randomized SVD, `dims = cell_pca_dims()`), which find cell
# types where random projections of all the genes keep the noise of every
# gene. `size`: the numbers of cells and genes.
cell_defaults <- function(args, assay, size) {
  if (!assay) return(args)
  given <- names(args)
  if (!("method" %in% given) || identical(args$method, "auto")) {
    args$method <- "rsvd"
    if (!("dims" %in% given)) args$dims <- as.integer(min(cell_pca_dims(), size))
    # (the components of a sample of the cells: one pass over a file
    # instead of the SVD's passes over every cell)
    control <- if (is.null(args$control)) list() else args$control
    if (is.list(control)) {
      if (is.null(control$svd_rows)) control$svd_rows <- cell_svd_rows()
      if (is.null(control$eps)) control$eps <- cell_svd_eps()
      args$control <- control
    }
  }
  args
}

# control$file_cache of `args` (checked), for the pass over a file that
# sums the library sizes, before kmeans_reduced() checks the rest.
cell_file_cache <- function(args) {
  given <- if (is.list(args$control)) args$control$file_cache
  if (is.null(given)) "auto" else check_file_cache(given, "control$file_cache")
}

# The sample of cells of the randomized SVD (`control$svd_rows` of
# `args`, fewer than the n cells), drawn from `args$seed` as sample_rows()
# draws it: list(m, seed), or NULL.
cell_sample_plan <- function(args, n) {
  if (!identical(args$method, "rsvd") || !is.list(args$control)) return(NULL)
  m <- args$control$svd_rows
  if (!is.numeric(m) || length(m) != 1L || is.na(m) || m < 1 || m >= n) return(NULL)
  list(m = m, seed = args$seed)
}

# The principal components of cells by default, and the number of cells
# they are computed from (chosen from the measurements in bench/RESULTS.md,
# "Single-cell defaults: normalization, reduction, a sample of cells" and
# "Single-cell default: the stored cells, and 150 components").
cell_pca_dims <- function() 150L
cell_svd_rows <- function() 20000
# (the sample's SVD is in memory: dims + dims + 1 test vectors and one power
# iteration found the same cell types as 3 dims + 1)
cell_svd_eps <- function() 1

# The checked choice of what to cluster: list(assay, use_reduced_dim,
# normalize), assay a name or number.
check_se_input <- function(x, assay, use_reduced_dim, normalize) {
  if (!is.null(normalize)) normalize <- check_normalize(normalize)
  if (!is.null(use_reduced_dim)) {
    if (!is.null(assay) || !(is.null(normalize) || normalize == "none")) {
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
    assay <- if (!identical(normalize, "none") && "counts" %in% have &&
                 !(is.null(normalize) && "logcounts" %in% have)) "counts" else
      if ("logcounts" %in% have) "logcounts" else 1L
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
  # (counts are normalized unless told otherwise: clustering raw counts
  # groups cells by their library sizes)
  if (is.null(normalize)) {
    normalize <- if (identical(assay, "counts")) default_cell_normalization() else "none"
  }
  list(assay = assay, use_reduced_dim = NULL, normalize = normalize)
}

is_se <- function(x) isS4(x) && methods::is(x, "SummarizedExperiment")

# What predict() takes of a new SummarizedExperiment: the fit's choice
# (`input`, NULL for a fit to a matrix: the defaults).
se_input_of <- function(x, input) {
  if (is.null(input)) return(check_se_input(x, NULL, NULL, "none"))
  # (the fit's normalization: its choice, and the mean library size of its
  # "log1p_size_factors" without size factors)
  keep <- input[intersect(names(input), "target")]
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
  c(check_se_input(x, input$assay, input$use_reduced_dim, input$normalize), keep)
}

describe_se <- function(x) sprintf("a %s", class(x)[1L])

# The cells of the SummarizedExperiment `x` as rows, chosen by `input`
# (check_se_input()): a reduced dimension or an assay in memory as a matrix
# (normalized here), a DelayedMatrix assay as a row source read in blocks.
# `input$target`: the mean library size of a fit's "log1p_size_factors"
# (predict()). With `with_normalization`: list(rows, normalization), the
# normalization as applied (as_normalization()). `sample`: NULL or
# cell_sample_plan(): the pass over a file that sums the library sizes also
# keeps those cells (source_library_sizes()).
se_rows <- function(x, input, with_normalization = FALSE, sample = NULL, file_cache = 0) {
  if (!is.null(input$use_reduced_dim)) {
    rows <- SingleCellExperiment::reducedDim(x, input$use_reduced_dim, withDimnames = TRUE)
    return(if (with_normalization) list(rows = rows, normalization = as_normalization("none"))
           else rows)
  }
  # (without the SummarizedExperiment's dimnames, which would be a delayed
  # operation on a DelayedMatrix: the names are the cells' and features')
  a <- SummarizedExperiment::assay(x, input$assay, withDimnames = FALSE)
  names <- list(colnames(x), rownames(x))
  name <- if (is.character(input$assay)) input$assay else
    SummarizedExperiment::assayNames(x)[input$assay]
  what <- sprintf("the assay %s", if (length(name) == 1L && !is.na(name) && nzchar(name))
    paste0("\"", name, "\"") else input$assay)
  # (the files behind a DelayedMatrix first: a removed or damaged one is
  # named, not reported as a type)
  check_delayed_files(a)
  type <- tryCatch(DelayedArray::type(a), error = function(e) {
    if (!is_delayed(a)) return(typeof(a))
    stop_arg(sprintf("%s of `x` could not be read: %s", what, conditionMessage(e)))
  })
  if (!(type %in% c("double", "integer", "logical")) || (is.matrix(a) && !is.numeric(a))) {
    stop_arg(sprintf("%s of `x` must hold numbers, not values of type %s.", what, type))
  }
  sf <- if (input$normalize == "log1p_size_factors") se_size_factors(x)
  if (is_delayed(a)) {
    seed <- tenx_seed(a, transposed = FALSE)
    if (!is.null(seed)) {
      src <- new_source_tenx(a, seed, cells_first = FALSE, input$normalize,
                             what = sprintf("%s (the 10x file '%s')", what, seed@filepath))
    } else {
      src <- new_source_delayed(a, by_columns = TRUE, normalize = input$normalize, what = what)
    }
    src$names <- names
    keep_in_memory(src, file_cache_budget(file_cache))
    if (!is.null(input$target) && is.null(sf)) {
      # (predict(): the fit's mean library size, no pass of its own)
      src$normalize <- list(how = input$normalize, target = input$target, size_factors = NULL)
    } else {
      src$normalize <- complete_normalization(input$normalize, sf, function() {
        source_library_sizes(src, if (!is.null(sample)) {
          list(index = sample_index(n_rows(src), sample$m, sample$seed))
        })
      })
    }
    return(if (with_normalization) list(rows = src, normalization = src$normalize) else src)
  }
  # in memory: cells as rows, once
  rows <- if (methods::is(a, "sparseMatrix")) Matrix::t(methods::as(a, "CsparseMatrix")) else
    t(as.matrix(a))
  if (methods::is(rows, "sparseMatrix") && !methods::is(rows, "dgCMatrix")) {
    rows <- methods::as(methods::as(rows, "generalMatrix"), "dMatrix")
  }
  if (!methods::is(rows, "dgCMatrix") && !is.double(rows)) storage.mode(rows) <- "double"
  dimnames(rows) <- names
  norm <- complete_normalization(input$normalize, sf, function() Matrix::rowSums(rows))
  if (!is.null(input$target) && is.null(sf)) norm$target <- input$target
  rows <- normalize_rows(rows, norm, what)
  if (with_normalization) list(rows = rows, normalization = norm) else rows
}

# The size factors of the cells of `x` for "log1p_size_factors": its
# sizeFactors() when it has them (checked), else NULL (library sizes).
se_size_factors <- function(x) {
  # (where a SingleCellExperiment keeps them, sizeFactors())
  sf <- if (methods::is(x, "SingleCellExperiment")) {
    SummarizedExperiment::colData(x)[["sizeFactor"]]
  }
  check_size_factors(sf, ncol(x), sprintf("`x` (%s)", describe_se(x)))
}
