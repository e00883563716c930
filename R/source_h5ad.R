# Row source: the cells of an AnnData `.h5ad` file (the format of scanpy
# and of CELLxGENE's downloads). A matrix of the file (`X`, a layer
# `layers/<name>`, or `raw/X`) is cells x genes, stored
#   - CSR: a group holding `data`, `indices`, `indptr` (the cells
#     compressed, the 10x layout with the cells first), its attributes
#     `encoding-type` = "csr_matrix" and `shape` = (cells, genes);
#   - CSC: the same with `encoding-type` = "csc_matrix" (the genes
#     compressed);
#   - dense: a two-dimensional dataset, one cell after another;
# with the cells' names in `obs` and the genes' in `var` (`raw/var` for
# `raw/X`), each a group whose attribute `_index` names its index dataset
# (anndata before 0.7: a compound dataset with a field `index`).
#
# h5ad_rows() opens one as HDF5Array's H5ADMatrix would (an H5ADMatrixSeed,
# the seed HDF5Array::H5ADMatrix() makes, genes x cells), transposed: the
# cells as rows. A CSR matrix is then read as a 10x file is, by the
# package's own reader (R/source_tenx.R: whole cells, never densified);
# a CSC or dense one through DelayedArray's blocks of cells, as any
# DelayedMatrix (R/source_delayed.R). The same holds for an H5ADMatrix made
# by HDF5Array, given transposed as `x` or as an assay of a
# SummarizedExperiment (R/kmeans_reduced_se.R).

#' The cells of an AnnData .h5ad file, as rows
#'
#' Opens a matrix of an AnnData `.h5ad` file (the format scanpy writes and
#' CELLxGENE distributes) without reading it: the result is a
#' `DelayedMatrix` of cells x genes, named by the file's `obs` and `var`
#' indexes, that [kmeans_reduced()], [k_path()] and [predict()] take, and
#' whose `t()` can be the assay of a `SingleCellExperiment`.
#'
#' A matrix stored as CSR (anndata's default for sparse `X`) is read by the
#' package's own reader of 10x HDF5 files, whose layout it shares: blocks of
#' whole cells, kept sparse, decompressed on the fit's threads where the
#' package was built with HDF5 (otherwise with rhdf5). A CSC or dense matrix
#' is read through HDF5Array in blocks of cells; a CSC matrix is stored gene
#' after gene, so each block reads the non-zero values of every gene: for a
#' large file, rewrite it as CSR. The result is an
#' `HDF5Array::H5ADMatrix` transposed; one made by `HDF5Array::H5ADMatrix()`
#' is read the same way.
#'
#' **Single-cell defaults.** `kmeans_reduced(h5ad_rows(file), k)` clusters
#' the cells as `kmeans_reduced()` clusters the `"counts"` assay of a
#' `SingleCellExperiment` when the matrix holds counts (its first stored
#' values are whole numbers >= 0): normalized (`normalize =
#' "log1p_size_factors"`, with a message), then reduced to principal
#' components. Values that are not counts (scanpy's normalized `X`) are
#' clustered as they are, also reduced to principal components, with a
#' message. Give `normalize = "none"` to cluster counts as they are; the
#' counts of an AnnData object are often in a layer (`layer =
#' "layers/counts"`) or in `raw/X`.
#'
#' @param file Path of the `.h5ad` file.
#' @param layer The matrix: `"X"` (default), `"raw/X"`, or a layer,
#'   `"layers/<name>"` or just its name (`"counts"`).
#' @return A `DelayedMatrix` (`t()` of an `HDF5Array::H5ADMatrix`), cells
#'   x genes, with the cells' and genes' names of the file.
#' @seealso [kmeans_reduced.SummarizedExperiment()] for the single-cell
#'   defaults and the normalizations.
#' @examples
#' \dontrun{
#' cells <- h5ad_rows("pbmc.h5ad", layer = "counts")
#' fit <- kmeans_reduced(cells, 10, seed = 1, n_threads = 2)
#' sce <- SingleCellExperiment::SingleCellExperiment(list(counts = t(cells)))
#' sce$cluster <- factor(fit$cluster)
#' }
#' @export
h5ad_rows <- function(file, layer = "X") {
  for (p in c("rhdf5", "HDF5Array", "DelayedArray")) {
    requireNamespace(p, quietly = TRUE) || stop_arg(sprintf(
      "Reading an .h5ad file needs the %s package; install it from Bioconductor.", p))
  }
  if (!is.character(file) || length(file) != 1L || is.na(file) || !nzchar(file)) {
    stop_arg(sprintf("`file` must be the path of an .h5ad file, not %s.", describe(file)))
  }
  file <- normalizePath(file, mustWork = FALSE)
  check_h5_file(file, sprintf("The .h5ad file '%s'", file))
  listing <- tryCatch(rhdf5::h5ls(file, recursive = TRUE, all = TRUE, datasetinfo = TRUE),
                      error = function(e) stop_arg(sprintf(
                        "The .h5ad file '%s' cannot be read as HDF5: %s", file, conditionMessage(e))))
  path <- h5ad_layer_path(file, layer, listing)
  seed <- h5ad_matrix_seed(file, path, listing)
  t(DelayedArray::DelayedArray(seed))
}

# The path of the matrix `layer` in the file ("/X", "/raw/X",
# "/layers/<name>"), or an error listing the file's matrices.
h5ad_layer_path <- function(file, layer, listing) {
  full <- paste0(sub("/$", "", listing$group), "/", listing$name)
  layers <- full[listing$group == "/layers"]
  have <- c(intersect(c("/X", "/raw/X"), full), layers)
  ok <- is.character(layer) && length(layer) == 1L && !is.na(layer)
  if (ok) {
    path <- paste0("/", sub("^/+", "", layer))
    if (!(path %in% have) && !grepl("/", sub("^/", "", path))) path <- paste0("/layers", path)
    if (path %in% have) return(path)
  }
  stop_arg(sprintf("`layer` must name a matrix of the .h5ad file '%s' (it has %s), not %s.",
                   file, if (length(have)) paste0("\"", sub("^/", "", have), "\"", collapse = ", ")
                   else "none", describe(layer)))
}

# The H5ADMatrixSeed of the matrix `path` (genes x cells, as
# HDF5Array::H5ADMatrix() makes it), its layout and names checked first.
h5ad_matrix_seed <- function(file, path, listing) {
  label <- sprintf("The .h5ad file '%s' (matrix \"%s\")", file, sub("^/", "", path))
  bad <- function(fmt, ...) stop_arg(sprintf(paste0(label, " ", fmt), ...))
  row <- listing[paste0(sub("/$", "", listing$group), "/", listing$name) == path, , drop = FALSE]
  frames <- if (path == "/raw/X") c("/obs", "/raw/var") else c("/obs", "/var")
  if (row$otype == "H5I_DATASET") {
    if (!grepl("INTEGER|FLOAT", row$dclass)) bad("holds values of class %s; numbers were expected.", row$dclass)
    dims <- as.numeric(strsplit(row$dim, " x ", fixed = TRUE)[[1L]])
    if (length(dims) != 2L) bad("is a dataset of %d dimensions; a matrix of cells x genes was expected.", length(dims))
    shape <- rev(dims)  # (h5ls() gives R's order, genes x cells; the file's is cells, genes)
    format <- "dense"
  } else {
    attrs <- rhdf5::h5readAttributes(file, path)
    format <- h5ad_sparse_format(attrs)
    if (is.null(format)) {
      bad("is a group with encoding-type %s; \"csr_matrix\" or \"csc_matrix\" was expected.",
          describe(attrs[["encoding-type"]]))
    }
    shape <- attrs[["shape"]]
    if (is.null(shape)) shape <- attrs[["h5sparse_shape"]]
    shape <- suppressWarnings(as.numeric(shape))
    if (length(shape) != 2L || anyNA(shape) || any(shape < 0 | shape != floor(shape))) {
      bad("has no attribute `shape` of two whole numbers (cells, genes).")
    }
    # (the offsets: of the cells for CSR, of the genes for CSC)
    csr <- format == "csr"
    read_tenx_layout(file, path, n_cells = shape[if (csr) 1L else 2L],
                     n_genes = shape[if (csr) 2L else 1L], kind = ".h5ad file",
                     major = if (csr) "cells" else "genes")
  }
  cells <- h5ad_index(file, frames[1L], listing, shape[1L], label, "cells")
  genes <- h5ad_index(file, frames[2L], listing, shape[2L], label, "genes")
  h5ad_new_seed(file, path, format, list(genes, cells), label)
}

# "csr" or "csc" from a sparse group's attributes (anndata's
# `encoding-type`, or the older `h5sparse_format`), else NULL.
h5ad_sparse_format <- function(attrs) {
  enc <- attrs[["encoding-type"]]
  if (is.null(enc)) enc <- attrs[["h5sparse_format"]]
  enc <- tolower(as.character(enc))
  if (length(enc) != 1L || !(substr(enc, 1L, 3L) %in% c("csr", "csc"))) return(NULL)
  substr(enc, 1L, 3L)
}

# The names in the index of the data frame `frame` ("/obs", "/var",
# "/raw/var") of the file, `n` of them, or NULL when it has none. `what`:
# "cells" or "genes", in messages.
h5ad_index <- function(file, frame, listing, n, label, what) {
  full <- paste0(sub("/$", "", listing$group), "/", listing$name)
  at <- match(frame, full)
  if (is.na(at)) return(NULL)
  names <- tryCatch({
    if (listing$otype[at] == "H5I_DATASET") {
      # (anndata before 0.7: a compound dataset with the field `index`)
      as.character(rhdf5::h5read(file, frame)$index)
    } else {
      index <- rhdf5::h5readAttributes(file, frame)[["_index"]]
      if (is.null(index)) index <- "_index"
      if (!(paste0(frame, "/", index) %in% full)) NULL else
        as.character(rhdf5::h5read(file, paste0(frame, "/", index)))
    }
  }, error = function(e) stop_arg(sprintf("%s has an index `%s` that cannot be read: %s", label,
                                          sub("^/", "", frame), conditionMessage(e))))
  if (length(names) == 0L && n > 0) return(NULL)
  if (length(names) != n) {
    stop_arg(sprintf("%s has %s %s but its index `%s` names %s.", label, format(n), what,
                     sub("^/", "", frame), format(length(names))))
  }
  names
}

# The seed HDF5Array::H5ADMatrix() would make of the matrix `path`
# (H5ADMatrixSeed() itself reads the names in a way that fails with
# HDF5Array 1.26 and rhdf5 2.42 on files in anndata's current layout).
h5ad_new_seed <- function(file, path, format, dimnames, label) {
  # (rhdf5's errors back to its default: after HDF5Array's TENxMatrix() or
  # H5ADMatrix(), rhdf5 may answer FALSE instead, and the next seed fails)
  rhdf5::h5errorHandling("normal")
  tryCatch({
    if (format == "dense") {
      methods::new("Dense_H5ADMatrixSeed", HDF5Array::HDF5ArraySeed(file, path),
                   dimnames = dimnames)
    } else {
      methods::new(if (format == "csr") "CSC_H5ADMatrixSeed" else "CSR_H5ADMatrixSeed",
                   HDF5Array::H5SparseMatrixSeed(file, path), dimnames = dimnames)
    }
  }, error = function(e) stop_arg(sprintf("%s cannot be opened by HDF5Array: %s", label,
                                          conditionMessage(e))))
}

## The sources --------------------------------------------------------------

# The H5ADMatrixSeed under `x` (`transposed`: x is t() of an H5ADMatrix),
# without delayed operations, else NULL.
h5ad_seed <- function(x, transposed) {
  s <- seed_under(x, transposed)
  if (!methods::is(s, "H5ADMatrixSeed")) return(NULL)
  if (methods::.hasSlot(s, "subdata") && !is.null(s@subdata)) return(NULL)
  s
}

is_h5ad_rows <- function(x) is_delayed(x) && !is.null(h5ad_seed(x, transposed = TRUE))

# The row source of h5ad_rows() given as `x`: the cells as rows, as they
# are (kmeans_reduced() sets the single-cell defaults before, R/kmeans_reduced_se.R).
new_source_h5ad_rows <- function(x) {
  new_source_h5ad(x, h5ad_seed(x, transposed = TRUE), cells_first = TRUE)
}

# The cells of the .h5ad matrix `x` of seed `seed` (cells_first: x is t()
# of the seed's matrix, else the matrix, genes x cells): a CSR matrix read
# by the 10x reader, any other through DelayedArray's blocks of cells.
new_source_h5ad <- function(x, seed, cells_first, normalize = "none", what = NULL) {
  if (is.null(what)) what <- h5ad_label(seed)
  if (methods::is(seed, "CSC_H5ADMatrixSeed")) {
    return(new_source_tenx(x, seed, cells_first = cells_first, normalize = normalize,
                           what = what))
  }
  new_source_delayed(x, by_columns = !cells_first, normalize = normalize, what = what)
}

# "the .h5ad file 'F' (matrix \"X\")", for messages.
h5ad_label <- function(seed) {
  cells_file_label(".h5ad file", seed@filepath, h5ad_matrix_name(seed))
}

h5ad_matrix_name <- function(seed) {
  sub("^/+", "", if (methods::.hasSlot(seed, "group")) seed@group else seed@name)
}

## Counts or not --------------------------------------------------------------

# How the single-cell method takes the cells of an .h5ad matrix given as
# `x` (seed `seed`): list(assay, subject), the name of the one assay of its
# SummarizedExperiment, "counts" when the matrix holds counts
# (h5ad_holds_counts()), else "values", and what the message on the
# default normalization names. `normalize` NULL: a matrix that is not
# counts is said to be clustered as it is.
h5ad_cells <- function(seed, normalize) {
  counts <- h5ad_holds_counts(seed)
  if (is.null(normalize) && !isTRUE(counts)) {
    message(sprintf(paste0("kmeans_reduced(): %s holds values that are not counts (%s): they are ",
                           "clustered as they are; its counts may be in a layer (h5ad_rows(file, ",
                           "layer = \"counts\")) or in \"raw/X\"."),
                    h5ad_label(seed), attr(counts, "example")))
  }
  list(assay = if (isTRUE(counts)) "counts" else "values",
       subject = sprintf("the counts of %s are", h5ad_label(seed)))
}

# Whether the matrix of the seed holds counts, from its first stored values
# (up to 2^16): all of them whole numbers >= 0. FALSE has the attribute
# "example", the first value that is not a count. (Normalizing checks every
# count as it is read: a file that only starts with counts is an error
# then, naming the cell.)
h5ad_holds_counts <- function(seed, most = 65536) {
  values <- tryCatch(if (methods::is(seed, "H5SparseMatrixSeed")) {
    n <- sum(as.numeric(seed@indptr_ranges$width))  # (the stored values)
    if (n == 0) numeric(0) else
      as.numeric(rhdf5::h5read(seed@filepath, paste0(seed@group, "/data"),
                               index = list(seq_len(min(n, most))), bit64conversion = "double"))
  } else {
    cells <- seq_len(min(dim(seed)[2L], max(1, floor(most / max(1, dim(seed)[1L])))))
    as.numeric(DelayedArray::extract_array(seed, list(NULL, cells)))
  }, error = function(e) stop_arg(sprintf("%s could not be read: %s", h5ad_label(seed),
                                          conditionMessage(e))))
  wrong <- which(!is.finite(values) | values < 0 | values != floor(values))
  if (length(wrong) == 0L) return(TRUE)
  structure(FALSE, example = sprintf("e.g. %s", format(values[wrong[1L]], digits = 7)))
}
