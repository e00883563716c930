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
#' **The cells of a 10x file as rows.** `t()` of a `TENxMatrix` (the counts
#' of a 10x Genomics HDF5 file, cells as rows once transposed) given as `x`
#' is clustered as the `"counts"` assay of a `SummarizedExperiment`: with
#' the defaults for cells below (its counts normalized, with a message, and
#' its cells reduced to their principal components) and the same result as
#' `kmeans_reduced(SingleCellExperiment(list(counts = tenx)), k)`. Give
#' `normalize = "none"` to cluster the counts as they are. Any other
#' `DelayedMatrix` is clustered by rows, as it is ([kmeans_reduced()]).
#' The cells of an AnnData `.h5ad` file ([h5ad_rows()], or `t()` of an
#' `HDF5Array::H5ADMatrix`) are clustered the same way when they hold
#' counts, and as they are otherwise; a Seurat object by
#' [kmeans_reduced.Seurat()].
#'
#' **What is clustered.** Unless `assay` is given, the assay is
#' `"logcounts"`, else `"counts"`, else the first assay, whether `normalize`
#' is left `NULL` or given as `"none"`. A normalization of counts given as
#' `normalize` clusters `"counts"` instead (else the first assay, which must
#' then not be `"logcounts"`). Counts are normalized by default: when the
#' assay clustered is named `"counts"` and `normalize` is not given, they
#' are normalized with `normalize = "log1p_size_factors"`, and a message
#' says so; `normalize = "none"` clusters the same assay as it is.
#'
#' **Defaults for cells.** Cells are reduced to their principal components:
#' unless `method` is given, the method is `"rsvd"` (the randomized SVD of
#' the centred cells, whose centring is implicit: sparse cells stay sparse)
#' with `dims = 150` (or fewer, for smaller data), computed from 20000 cells
#' drawn at random (`control$svd_rows`; `Inf` for all cells) with
#' `2 dims + 1` test vectors (`control$eps = 1`) and one power iteration, in
#' memory; every cell is then projected on them. `method = "rsvd"` given
#' has the same settings: each of `dims`, `control$svd_rows` and
#' `control$eps` keeps the default for cells unless it is given. From a
#' file, the sample is drawn in the pass that sums the library sizes: with
#' the projection and the statistics of the clusters, three passes in all,
#' of which the last two read from memory the counts the first kept: all of
#' them when they fit, else the first blocks (`control$file_cache`). Random
#' projections of all the genes (the default of [kmeans_reduced()] for
#' other data) keep the noise of every gene and find cell types less well.
#'
#' **Normalizations.** Each is applied on the fly, block by block, without a
#' second matrix: each cell's counts x become \eqn{\log(1 + x / s \cdot t)}{log(1 + x / s * t)}:
#' * `"log1p_size_factors"`: scuttle's `logNormCounts()`, with the natural
#'   log instead of `log2`: `s` the cell's size factor, from `sizeFactors(x)`
#'   when a `SingleCellExperiment` has them, else its library size (the sum
#'   of its counts over all genes), and `t` the mean of `s` over the cells,
#'   so that the size factors are centred at 1 (scuttle's
#'   `center.size.factors = TRUE`: multiplying them all by a constant
#'   changes nothing). The values are scuttle's `logcounts` times `log(2)`.
#'   For a file without size factors, the library sizes take one more pass
#'   over the counts (which also draws the sample of cells of the default
#'   reduction).
#' * `"log1p_cp10k"`: `s` the library size, `t = 10^4` (Seurat's
#'   `NormalizeData()`, scanpy's `normalize_total()` and `log1p()`).
#' * `"log1p_cpm"`: `s` the library size, `t = 10^6` (counts per million).
#'
#' A cell without counts stays zero. The statistics of the fit (`centers`,
#' `withinss`, ...) are then those of the normalized data. The counts must be
#' finite numbers >= 0.
#'
#' **New cells.** [predict()] takes new cells as a `SummarizedExperiment`
#' (or `t()` of a `TENxMatrix`) and treats them as the fit treated its
#' cells: the same assay, the genes matched by name (new genes are left
#' out, also of the library sizes), and the same normalization, with the
#' `t` of the fit: for `"log1p_size_factors"` each new cell is divided by
#' its own size factor of the kind the fit used (its `sizeFactors()` for a
#' fit on size factors, which must then be on the scale of the fitted
#' cells'; its library size for a fit on library sizes). A cell is then
#' assigned the same alone or with any other cells.
#'
#' To store the result back the way Bioconductor users do:
#' `sce$cluster <- factor(fit$cluster)` (or `colLabels(sce) <-`), and
#' `reducedDim(sce, "kmreduce") <- fit$reduced` for the reduced data the
#' clusters were found in.
#'
#' @param x A `SummarizedExperiment` or `SingleCellExperiment`: features as
#'   rows, the cells (or samples) to cluster as columns. Or (the
#'   `DelayedMatrix` method) `t()` of a `TENxMatrix`: the cells of a 10x
#'   file as rows.
#' @param k Number of clusters, or a matrix of initial centres (one row per
#'   cluster, one column per feature of the data clustered).
#' @param ... Arguments of [kmeans_reduced()]: `method`, `dims`, `n_init`,
#'   `seed`, `n_threads`, `control`, `verbose`, ... (`weights`: one per cell).
#' @param assay The assay to cluster: a name or a number. Default
#'   `"logcounts"` when there is one, otherwise `"counts"`, otherwise the
#'   first assay; with a normalization of counts as `normalize`,
#'   `"counts"`, otherwise the first assay (see Details).
#' @param use_reduced_dim `NULL`, or the name of a reduced dimension of a
#'   `SingleCellExperiment` (e.g. `"PCA"`, cells x components) to cluster
#'   instead of an assay.
#' @param normalize `NULL` (the default: `"log1p_size_factors"` for an assay
#'   named `"counts"`, `"none"` for any other), `"none"` (cluster the assay's
#'   values), or one of the normalizations of counts `"log1p_size_factors"`,
#'   `"log1p_cp10k"`, `"log1p_cpm"` (see Details).
#' @return A `kmeans_reduced` object (see [kmeans_reduced()]); its `input`
#'   records `assay`, `use_reduced_dim` and `normalize`, and for
#'   `"log1p_size_factors"` `size_factors_from` (`"sizeFactors"` or
#'   `"library_sizes"`) and `target` (`t`, the mean size factor or library
#'   size of the fitted cells): what [predict()] needs to normalize new
#'   cells as it normalized these.
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
  fit <- cluster_cells(x, k, ..., assay = assay, use_reduced_dim = use_reduced_dim,
                       normalize = normalize)
  fit$call <- call
  fit
}

#' @rdname kmeans_reduced.SummarizedExperiment
#' @export
kmeans_reduced.DelayedMatrix <- function(x, k, ..., normalize = NULL) {
  call <- match.call()
  call[[1L]] <- as.name("kmeans_reduced")
  cells <- delayed_cells(x, normalize)
  if (is.null(cells)) {
    # (any other DelayedMatrix: its rows, as they are)
    fit <- kmeans_reduced.default(x, k, ...)
    fit$call <- call
    return(fit)
  }
  fit <- cluster_cells(cells$se, k, ..., normalize = normalize, subject = cells$subject)
  fit$call <- call
  fit
}

# The cells of a file as a DelayedMatrix (kmeans_reduced(), k_path()):
# list(se, subject). A 10x file's counts, clustered as the "counts" assay of
# a SummarizedExperiment (the file itself, genes x cells, read straight
# from the file); an .h5ad file's assay "counts" when it holds counts, else
# "values" (h5ad_cells()). NULL for any other DelayedMatrix, whose rows are
# clustered as they are (then `normalize` is an error).
delayed_cells <- function(x, normalize) {
  seed <- tenx_seed(x, transposed = TRUE)
  if (!is.null(seed)) {
    return(list(se = tenx_cells_se(seed, "counts"),
                subject = sprintf("the counts of the 10x file '%s' (t() of a TENxMatrix) are",
                                  seed@filepath)))
  }
  h5ad <- h5ad_seed(x, transposed = TRUE)
  if (!is.null(h5ad)) {
    how <- h5ad_cells(h5ad, normalize)
    return(list(se = tenx_cells_se(h5ad, how$assay), subject = how$subject))
  }
  check_rows_not_normalized(normalize, x)
  NULL
}

# `normalize` given for a DelayedMatrix that is not a 10x file's cells (its
# rows are clustered as they are): an error.
check_rows_not_normalized <- function(normalize, x) {
  if (!is.null(normalize)) {
    stop_arg(sprintf(paste0("`normalize` applies to counts: the cells of a SummarizedExperiment, ",
                            "t() of a TENxMatrix or h5ad_rows(); `x` (a %s) is clustered as it is."),
                     class(x)[1L]))
  }
  invisible(TRUE)
}

# A SummarizedExperiment whose one assay, `name` (or unnamed: NULL), is the
# TENxMatrix of the seed `seed` (genes x cells).
tenx_cells_se <- function(seed, name) {
  requireNamespace("SummarizedExperiment", quietly = TRUE) || stop_arg(paste0(
    "Clustering the cells of t() of a TENxMatrix needs the SummarizedExperiment package; ",
    "install it from Bioconductor."))
  assays <- list(DelayedArray::DelayedArray(seed))
  if (!is.null(name)) names(assays) <- name
  SummarizedExperiment::SummarizedExperiment(assays)
}

# The fit of the cells of the SummarizedExperiment `x` (its method's
# arguments); `subject`: what the message on the default normalization
# says is normalized, with its verb (NULL: the assay). `fun`: what runs on
# the cells as rows with `k` and the other arguments (kmeans_reduced()'s
# default method, or k_path()'s), and `record(result, input)` stores in its
# result what new cells need (fit$input); `caller` names it in messages.
cluster_cells <- function(x, k, ..., assay = NULL, use_reduced_dim = NULL, normalize = NULL,
                          subject = NULL, fun = kmeans_reduced.default, record = record_input,
                          caller = "kmeans_reduced()") {
  input <- check_se_input(x, assay, use_reduced_dim, normalize)
  sf <- if (uses_size_factors(input$normalize)) se_size_factors(x)
  if (is.null(normalize) && normalizes(input$normalize)) {
    if (is.null(subject)) subject <- sprintf("the assay \"%s\" is", input$assay)
    message(default_normalization_message(subject, input$normalize,
                                          if (!is.null(sf)) "sizeFactors" else "library_sizes",
                                          caller))
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
  fit <- do.call(fun, c(list(quote(rows)), if (!missing(k)) list(quote(k)), args))
  record(fit, c(input, normalization_record(cells$normalization)))
}

# A fit's record of what it clustered (cluster_cells()).
record_input <- function(fit, input) {
  fit$input <- input
  fit
}

# The defaults of the method for cells, where the call leaves them: an
# assay's cells are reduced to their principal components (method "rsvd",
# the centred randomized SVD, `dims = cell_pca_dims()`, from a sample of
# cells), which find cell types where random projections of all the genes
# keep the noise of every gene. They apply whenever the method is "rsvd",
# given or by default, each only where the call does not give it: naming
# the default method does not change its settings. `size`: the numbers of
# cells and genes.
cell_defaults <- function(args, assay, size) {
  if (!assay) return(args)
  given <- names(args)
  if ("method" %in% given && !identical(args$method, "auto") && !identical(args$method, "rsvd")) {
    return(args)
  }
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
  args
}

# control$file_cache of `args` (checked), for the pass over a file that
# sums the library sizes, before kmeans_reduced() checks the rest.
cell_file_cache <- function(args) {
  given <- if (is.list(args$control)) args$control$file_cache
  if (is.null(given)) "auto" else option_check(option_table()$file_cache)(given, "control$file_cache")
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
# they are computed from (chosen from the measurements in bench/HISTORY.md,
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
    if (!is.null(assay) || !(is.null(normalize) || !normalizes(normalize))) {
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
  if (is.null(assay)) assay <- default_assay(have, normalize)
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

# The assay clustered when `assay` is not given (`have`: the assays'
# names). Whether `normalize` is left NULL or given as "none" does not
# change it: "logcounts", else "counts", else the first assay. A
# normalization of counts asks for "counts", else the first assay, which
# must not be "logcounts" (log-counts are not counts).
default_assay <- function(have, normalize) {
  if (is.null(normalize) || !normalizes(normalize)) {
    return(if ("logcounts" %in% have) "logcounts" else if ("counts" %in% have) "counts" else 1L)
  }
  if ("counts" %in% have) return("counts")
  if (length(have) && identical(have[1L], "logcounts")) {
    stop_arg(sprintf(paste0("`normalize = \"%s\"` normalizes counts, but `x` has no assay \"counts\" ",
                            "and its first assay is \"logcounts\": give the assay of counts as `assay` ",
                            "(it has %s)."), normalize, paste0("\"", have, "\"", collapse = ", ")))
  }
  1L
}

# What predict() takes of a new SummarizedExperiment: the fit's choice
# (`input`, NULL for a fit to a matrix: the defaults).
se_input_of <- function(x, input) {
  if (is.null(input)) return(check_se_input(x, NULL, NULL, "none"))
  # (the fit's normalization: its choice, and what the fit recorded of it,
  # normalization_record(): e.g. the source of its size factors and its
  # target)
  keep <- input[setdiff(names(input), c("assay", "use_reduced_dim", "normalize"))]
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
# With `with_normalization`: list(rows, normalization), the normalization
# as applied (as_normalization()); `normalization`: the one to apply
# (predict(): new_cells_normalization()), else the object's own. `sample`: NULL or cell_sample_plan():
# the pass over a file that sums the library sizes also keeps those cells
# (source_library_sizes()).
se_rows <- function(x, input, with_normalization = FALSE, sample = NULL, file_cache = 0,
                    normalization = NULL) {
  if (!is.null(input$use_reduced_dim)) {
    rows <- SingleCellExperiment::reducedDim(x, input$use_reduced_dim, withDimnames = TRUE)
    return(if (with_normalization) list(rows = rows, normalization = as_normalization("none"))
           else rows)
  }
  # (without the SummarizedExperiment's dimnames, which would be a delayed
  # operation on a DelayedMatrix: the names are the cells' and features')
  a <- SummarizedExperiment::assay(x, input$assay, withDimnames = FALSE)
  names <- list(colnames(x), rownames(x))
  what <- assay_label(x, input$assay)
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
  sf <- if (is.null(normalization) && uses_size_factors(input$normalize)) se_size_factors(x)
  if (is_delayed(a)) {
    seed <- tenx_seed(a, transposed = FALSE)
    h5ad <- if (is.null(seed)) h5ad_seed(a, transposed = FALSE)
    if (!is.null(seed)) {
      src <- new_source_tenx(a, seed, cells_first = FALSE, input$normalize,
                             what = sprintf("%s (the 10x file '%s')", what, seed@filepath))
    } else if (!is.null(h5ad)) {
      src <- new_source_h5ad(a, h5ad, cells_first = FALSE, input$normalize,
                             what = sprintf("%s (%s)", what, h5ad_label(h5ad)))
    } else {
      src <- new_source_delayed(a, by_columns = TRUE, normalize = input$normalize, what = what)
    }
    src$names <- names
    keep_in_memory(src, file_cache_budget(file_cache))
    src$normalize <- if (!is.null(normalization)) normalization else {
      complete_normalization(input$normalize, sf, function() {
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
  norm <- if (!is.null(normalization)) normalization else {
    complete_normalization(input$normalize, sf, function() Matrix::rowSums(rows))
  }
  rows <- normalize_rows(rows, norm, what)
  if (with_normalization) list(rows = rows, normalization = norm) else rows
}

# "the assay \"counts\"" (or its number), for messages.
assay_label <- function(x, assay) {
  name <- if (is.character(assay)) assay else SummarizedExperiment::assayNames(x)[assay]
  sprintf("the assay %s", if (length(name) == 1L && !is.na(name) && nzchar(name))
    paste0("\"", name, "\"") else assay)
}

# The size factors of the cells of `x` for a normalization that takes them
# (uses_size_factors(), e.g. "log1p_size_factors"): its
# sizeFactors() when it has them (checked), else NULL (library sizes).
# `arg`: the argument `x` is, in messages.
se_size_factors <- function(x, arg = "x") {
  # (where a SingleCellExperiment keeps them, sizeFactors())
  sf <- if (methods::is(x, "SingleCellExperiment")) {
    SummarizedExperiment::colData(x)[["sizeFactor"]]
  }
  check_size_factors(sf, ncol(x), sprintf("`%s` (%s)", arg, describe_se(x)))
}

## New cells (predict()) -----------------------------------------------------

# Is `newdata` cells that predict() takes as the fit took its cells: a
# SummarizedExperiment, or t() of a TENxMatrix (a 10x file's counts) for a
# fit of cells from an assay?
is_new_cells <- function(newdata, input) {
  is_se(newdata) || is_seurat(newdata) ||
    (!is.null(input$assay) && !is.null(file_cells_seed(newdata)))
}

# The seed of t() of a TENxMatrix or of an H5ADMatrix (h5ad_rows()), else
# NULL.
file_cells_seed <- function(x) {
  seed <- tenx_seed(x, transposed = TRUE)
  if (is.null(seed)) h5ad_seed(x, transposed = TRUE) else seed
}

# The new cells `x` (is_new_cells()) for predict(): list(rows, prepare).
# `rows`: the cells of the fit's assay (or reduced dimension) as rows, in
# memory or a row source read in blocks, normalized as the fit normalized
# its cells (new_cells_normalization(): each cell by its own library size
# or size factor and the fit's target, so a cell gets the same numbers
# alone or in any batch). The library sizes are those over the fit's genes:
# when `x` has genes the fit did not have, `rows` are the counts as they
# are and `prepare(rows, first)` gives rows first, first + 1, ... of them
# with the fit's genes, matched by name, then normalized; otherwise
# `prepare` is NULL (the genes are matched by name as any rows' columns).
new_cells <- function(x, object) {
  input <- object$input
  if (is_seurat(x)) {
    x <- seurat_new_cells(x, input)
  } else if (!is_se(x)) {
    x <- tenx_cells_se(file_cells_seed(x), if (is.character(input$assay)) input$assay)
  }
  input <- se_input_of(x, input)
  if (!is.null(input$use_reduced_dim) || !normalizes(input$normalize)) {
    return(list(rows = se_rows(x, input), prepare = NULL))
  }
  # (the genes, by name, before anything is read)
  genes <- newdata_columns(rownames(x), nrow(x), object$reducer, "newdata",
                           features = c("genes (rows)", "gene"))
  what <- assay_label(x, input$assay)
  norm <- new_cells_normalization(input, function() se_size_factors(x, "newdata"),
                                  sprintf("%s, %s", describe_se(x), what))
  if (is.null(genes) || length(genes) == nrow(x)) {
    # (the fit's genes, in any order: normalized as read)
    return(list(rows = se_rows(x, input, normalization = norm), prepare = NULL))
  }
  rows <- se_rows(x, utils::modifyList(input, list(normalize = "none")))
  list(rows = rows, prepare = function(rows, first = 1L) {
    rows <- check_newdata(rows, object$reducer, "newdata")
    normalize_rows(rows, norm, what, first)
  })
}
