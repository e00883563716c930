#' k-means of the cells of a Seurat object
#'
#' The method of [kmeans_reduced()] for Seurat objects (SeuratObject's
#' `Seurat` class): it clusters the cells of an assay (the default assay
#' unless `assay` is given) or of an existing reduction, with the defaults
#' for cells of [kmeans_reduced.SummarizedExperiment()]: the same cells give
#' the same labels, with the same `seed`, as a `SingleCellExperiment` of the
#' same counts. The data are read through SeuratObject's accessors
#' (`LayerData()` where SeuratObject 5 has it, else `GetAssayData()`;
#' `Embeddings()`), so the layers of SeuratObject 5 work as the slots of
#' SeuratObject 4.
#'
#' **What is clustered.** The `"counts"` layer (slot) of the assay, normalized
#' (`normalize = "log1p_size_factors"` unless given, with a message) and
#' reduced to principal components; when the assay has no counts, its
#' `"data"` layer, clustered as it is (said in a message). `layer = "data"`
#' clusters the normalized data as they are (Seurat's `NormalizeData()`
#' gives log1p of counts per 10^4; `normalize = "log1p_cp10k"` on the counts
#' gives the same values). `reduction = "pca"` clusters an existing reduction
#' (`Embeddings()`, cells x components) as it is, as `use_reduced_dim` does
#' for a `SingleCellExperiment`.
#'
#' To store the result back the way Seurat users do:
#' `x$kmeans <- factor(fit$cluster)` (a column of `meta.data`), and
#' `x[["kmreduce"]] <- SeuratObject::CreateDimReducObject(embeddings = fit$reduced,
#' key = "KMR_", assay = SeuratObject::DefaultAssay(x))` for the reduced
#' data the clusters were found in (add `rownames(fit$reduced) <- colnames(x)` first).
#'
#' @param x A `Seurat` object.
#' @param k Number of clusters, or a matrix of initial centres.
#' @param ... Arguments of [kmeans_reduced()]: `method`, `dims`, `n_init`,
#'   `seed`, `n_threads`, `control`, `verbose`, ...
#' @param assay The assay (a name): default `DefaultAssay(x)`.
#' @param layer `NULL` (the default: `"counts"` when the assay has counts,
#'   else `"data"`), `"counts"` or `"data"` (a layer of SeuratObject 5, or a
#'   slot of SeuratObject 4).
#' @param reduction `NULL`, or the name of a reduction of `x` (e.g. `"pca"`)
#'   to cluster instead of an assay.
#' @param normalize As for [kmeans_reduced.SummarizedExperiment()]: `NULL`
#'   (the default: `"log1p_size_factors"` for counts, `"none"` for data),
#'   `"none"`, `"log1p_size_factors"`, `"log1p_cp10k"` or `"log1p_cpm"`.
#' @return A `kmeans_reduced` object (see [kmeans_reduced()]), one label per
#'   cell in the order of `colnames(x)`; its `input` records `seurat_assay`,
#'   `layer` and `reduction` besides what
#'   [kmeans_reduced.SummarizedExperiment()] records, for [predict()] and
#'   `augment()` on Seurat objects.
#' @seealso [kmeans_reduced.SummarizedExperiment()] for the defaults for
#'   cells and the normalizations.
#' @examples
#' if (requireNamespace("SeuratObject", quietly = TRUE) &&
#'     requireNamespace("SummarizedExperiment", quietly = TRUE)) {
#'   set.seed(1)
#'   counts <- matrix(rpois(200 * 60, rep(c(1, 8), each = 100 * 30)), 200, 60,
#'                    dimnames = list(paste0("g", 1:200), paste0("c", 1:60)))
#'   so <- SeuratObject::CreateSeuratObject(methods::as(counts, "CsparseMatrix"))
#'   fit <- kmeans_reduced(so, 2, seed = 1)
#'   so$kmeans <- factor(fit$cluster)
#'   table(so$kmeans)
#' }
#' @export
kmeans_reduced.Seurat <- function(x, k, ..., assay = NULL, layer = NULL, reduction = NULL,
                                  normalize = NULL) {
  call <- match.call()
  call[[1L]] <- as.name("kmeans_reduced")
  if ("use_reduced_dim" %in% ...names()) {
    stop_arg("`use_reduced_dim` names a reduced dimension of a SingleCellExperiment; give `reduction` for a Seurat object.")
  }
  input <- check_seurat_input(x, assay, layer, reduction, normalize)
  if (is.null(input$reduction) && input$layer == "data" && is.null(normalize)) {
    message(sprintf(paste0("kmeans_reduced(): the layer \"data\" of the assay \"%s\" is clustered ",
                           "as it is (normalized values); give layer = \"counts\" to cluster the ",
                           "counts with the defaults for cells."), input$assay))
  }
  fit <- cluster_cells(seurat_cells(x, input), k, ...,
                       use_reduced_dim = if (!is.null(input$reduction)) input$reduction,
                       normalize = normalize,
                       subject = sprintf("the counts of the assay \"%s\" of `x` (a Seurat object) are",
                                         input$assay))
  fit$call <- call
  fit$input <- c(fit$input, list(seurat_assay = input$assay, layer = input$layer,
                                 reduction = input$reduction))
  fit
}

is_seurat <- function(x) isS4(x) && methods::is(x, "Seurat")

# The checked choice of what to cluster of the Seurat object `x`:
# list(assay, layer, reduction).
check_seurat_input <- function(x, assay, layer, reduction, normalize, arg = "x") {
  for (p in c("SeuratObject", "SummarizedExperiment")) {
    requireNamespace(p, quietly = TRUE) || stop_arg(sprintf(
      "Clustering the cells of a Seurat object needs the %s package; install it.", p))
  }
  if (!is.null(reduction)) {
    have <- SeuratObject::Reductions(x)
    if (!is.character(reduction) || length(reduction) != 1L || !(reduction %in% have)) {
      stop_arg(sprintf("`reduction` must be the name of a reduction of `%s` (%s), not %s.", arg,
                       if (length(have)) paste0("\"", have, "\"", collapse = ", ") else "it has none",
                       describe(reduction)))
    }
    if (!is.null(assay) || !is.null(layer)) {
      stop_arg("`reduction` clusters a reduction: give it without `assay` and `layer`.")
    }
    requireNamespace("SingleCellExperiment", quietly = TRUE) || stop_arg(
      "Clustering a reduction of a Seurat object needs the SingleCellExperiment package; install it.")
    return(list(assay = NULL, layer = NULL, reduction = reduction))
  }
  have <- SeuratObject::Assays(x)
  if (is.null(assay)) assay <- SeuratObject::DefaultAssay(x)
  if (!is.character(assay) || length(assay) != 1L || !(assay %in% have)) {
    stop_arg(sprintf("`assay` must be the name of an assay of `%s` (%s), not %s.", arg,
                     paste0("\"", have, "\"", collapse = ", "), describe(assay)))
  }
  if (is.null(layer)) {
    # (counts, unless the assay has none: an object made from normalized data)
    counts <- seurat_layer(x, assay, "counts")
    layer <- if (!is.null(counts) && all(dim(counts) > 0)) "counts" else "data"
  }
  if (!is.character(layer) || length(layer) != 1L || !(layer %in% c("counts", "data"))) {
    stop_arg(sprintf("`layer` must be \"counts\" or \"data\", not %s.", describe(layer)))
  }
  list(assay = assay, layer = layer, reduction = NULL)
}

# The layer (SeuratObject 5) or slot (SeuratObject 4) `layer` of the assay
# `assay`: genes x cells, or NULL when it has none.
seurat_layer <- function(x, assay, layer) {
  ns <- asNamespace("SeuratObject")
  tryCatch(if (exists("LayerData", envir = ns)) {
    getExportedValue("SeuratObject", "LayerData")(x, assay = assay, layer = layer)
  } else {
    SeuratObject::GetAssayData(x, slot = layer, assay = assay)
  }, error = function(e) NULL)
}

# The cells of the Seurat object `x` as the SummarizedExperiment the
# method for cells clusters (`input`: check_seurat_input()): the chosen
# layer as its one assay, "counts" for counts, "logcounts" for data (so
# that its defaults apply: counts normalized, data as they are); a
# reduction as the reduced dimension of a SingleCellExperiment.
seurat_cells <- function(x, input) {
  cells <- colnames(x)
  if (!is.null(input$reduction)) {
    emb <- SeuratObject::Embeddings(x, reduction = input$reduction)
    return(SingleCellExperiment::SingleCellExperiment(
      list(), colData = data.frame(row.names = cells),
      reducedDims = stats::setNames(list(emb[cells, , drop = FALSE]), input$reduction)))
  }
  a <- seurat_layer(x, input$assay, input$layer)
  if (is.null(a) || !all(dim(a) > 0)) {
    stop_arg(sprintf("The assay \"%s\" of the Seurat object has no layer \"%s\" to cluster.",
                     input$assay, input$layer))
  }
  assays <- stats::setNames(list(a), if (input$layer == "counts") "counts" else "logcounts")
  SummarizedExperiment::SummarizedExperiment(assays)
}

# The new cells `x` (a Seurat object) for predict(), as the fit with
# `input` took its cells: the same assay and layer, or reduction (a fit of
# other cells: the counts of the default assay).
seurat_new_cells <- function(x, input) {
  chosen <- if (!is.null(input$seurat_assay) || !is.null(input$reduction)) {
    list(assay = input$seurat_assay, layer = input$layer, reduction = input$reduction)
  } else {
    check_seurat_input(x, NULL, "counts", NULL, NULL, "newdata")
  }
  if (!is.null(chosen$reduction) && !(chosen$reduction %in% SeuratObject::Reductions(x))) {
    stop_arg(sprintf("`newdata` has no reduction \"%s\", which the fit clustered.", chosen$reduction))
  }
  if (is.null(chosen$reduction) && !(chosen$assay %in% SeuratObject::Assays(x))) {
    stop_arg(sprintf("`newdata` has no assay \"%s\", the assay the fit clustered.", chosen$assay))
  }
  seurat_cells(x, chosen)
}

# The cells of a Seurat object for augment(): its meta.data, one row per
# cell, with the cells' names and clusters.
augment_seurat <- function(data, cluster) {
  out <- data[[]]
  out <- cbind(data.frame(.cell = colnames(data), stringsAsFactors = FALSE), out)
  rownames(out) <- NULL
  out$.cluster <- cluster
  out
}
