# broom-style tidiers of a kmeans_reduced fit (generics: tidy, glance, augment).

# ---- tidiers (generics) -----------------------------------------------------

#' Tidy a kmeans_reduced fit
#'
#' The tidiers of broom's `kmeans` methods, for `kmeans_reduced` fits (they
#' are generics of the `generics` package, so they work with and without
#' broom loaded). As in broom, they return tibbles when the tibble package is
#' installed, data frames otherwise.
#'
#' * `tidy()`: one row per cluster: `cluster`, `size`, `withinss`, then the
#'   original-space centre, one column per feature. The summary columns come
#'   first and keep their names: a feature called `cluster`, `size` or
#'   `withinss` (a word of a document-term matrix, say) is renamed by
#'   [make.unique()] (`size.1`), so `tidy(fit)$size` is always the cluster
#'   size.
#' * `glance()`: one row with `totss`, `tot.withinss`, `betweenss`, `iter`,
#'   and kmreduce's `method`, `dims` and `normalized_objective`.
#' * `augment()`: the data (or `newdata`) with a `.cluster` factor column.
#'   Sparse data (a `Matrix`, such as a `dgCMatrix` document-term matrix)
#'   stay sparse: the result is in long form, one row per non-zero entry
#'   with `.row`, `.column`, `value` and the row's `.cluster` (row and column
#'   names when the matrix has them, indices otherwise), as tidytext tidies a
#'   document-term matrix, so its size follows the non-zeros, not rows x
#'   columns.
#'   A `SummarizedExperiment` (or `SingleCellExperiment`) clusters its
#'   cells, which are its columns: the result has one row per cell, its
#'   `colData()` with the cell names as `.cell` and the `.cluster` (the
#'   assay is not copied into the table).
#'
#' @param x A `kmeans_reduced` object.
#' @param col.names Names of the centre columns in `tidy()`.
#' @param data The data of the fit, for `augment()`.
#' @param newdata New rows for `augment()`, assigned with [predict()].
#' @param ... Ignored.
#' @return A tibble (a data frame without the tibble package).
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, dims = 40, seed = 1)
#' glance(fit)
#' tidy(fit)[, c("cluster", "size", "withinss")]
#' head(augment(fit, fashion_mnist$x)$.cluster)
#'
#' # A sparse matrix stays sparse: one row per non-zero entry
#' s <- Matrix::rsparsematrix(200, 50, density = 0.05)
#' sfit <- kmeans_reduced(s, 3, method = "sparse_embedding", dims = 10, seed = 1)
#' head(augment(sfit, s))
#' @name tidiers
NULL

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

# broom's convention: a tibble when tibble is installed.
as_tidy_frame <- function(df) {
  rownames(df) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df
}

#' @rdname tidiers
#' @method tidy kmeans_reduced
#' @export
tidy.kmeans_reduced <- function(x, col.names = colnames(x$centers), ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  k <- length(x$size)
  if (is.null(col.names)) col.names <- paste0("x", seq_len(ncol(x$centers)))
  if (!is.character(col.names) || length(col.names) != ncol(x$centers) || anyNA(col.names)) {
    stop_arg(sprintf("`col.names` must be %d names (one per column of the centres), not %s.",
                     ncol(x$centers), describe(col.names)))
  }
  summary_cols <- c("cluster", "size", "withinss")
  names <- make.unique(c(summary_cols, col.names))
  out <- data.frame(cluster = factor(seq_len(k)), size = as.integer(x$size),
                    withinss = x$withinss)
  centres <- as.data.frame(unname(x$centers))
  names(centres) <- names[-seq_along(summary_cols)]
  as_tidy_frame(cbind(out, centres))
}

#' @rdname tidiers
#' @method glance kmeans_reduced
#' @export
glance.kmeans_reduced <- function(x, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  as_tidy_frame(data.frame(totss = x$totss, tot.withinss = x$tot.withinss,
                           betweenss = x$betweenss, iter = as.integer(x$iter),
                           method = x$method, dims = as.integer(x$dims),
                           normalized_objective = x$tot.withinss / x$sumsq,
                           stringsAsFactors = FALSE))
}

#' @rdname tidiers
#' @method augment kmeans_reduced
#' @export
augment.kmeans_reduced <- function(x, data = NULL, newdata = NULL, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  if (!is.null(newdata)) {
    cluster <- predict(x, newdata)
    data <- newdata
  } else {
    if (is.null(data)) {
      stop_arg("`data` must be given: augment(fit, data = x) adds the clusters to the data of the fit.")
    }
    n <- if (is_se(data) || is_seurat(data)) ncol(data) else NROW(data)
    if (n != length(x$cluster)) {
      stop_arg(sprintf("`data` must have the %d %s of the fit, not %d.", length(x$cluster),
                       if (is_se(data)) "cells (columns of a SummarizedExperiment)" else "rows",
                       n))
    }
    cluster <- x$cluster
  }
  cluster <- factor(cluster, levels = seq_along(x$size))
  if (is_se(data)) return(augment_se(data, cluster))
  if (is_seurat(data)) return(as_tidy_frame(augment_seurat(data, cluster)))
  # (rows read in blocks: read into memory, the data frame holds them all)
  data <- rows_in_memory(as_row_source(data), if (is.null(newdata)) "data" else "newdata")
  if (methods::is(data, "Matrix")) return(augment_sparse(data, cluster))
  out <- as.data.frame(data, stringsAsFactors = FALSE)
  out$.cluster <- cluster
  as_tidy_frame(out)
}

# The cells of a SummarizedExperiment: its colData, one row per cell, with
# the cells' names and clusters.
augment_se <- function(data, cluster) {
  out <- as.data.frame(SummarizedExperiment::colData(data), optional = TRUE)
  cells <- colnames(data)
  out <- cbind(data.frame(.cell = if (is.null(cells)) seq_len(ncol(data)) else cells,
                          stringsAsFactors = FALSE), out)
  out$.cluster <- cluster
  as_tidy_frame(out)
}

# Long form of a Matrix: one row per stored non-zero entry with its row's
# cluster (never rows x columns).
augment_sparse <- function(data, cluster) {
  t <- methods::as(methods::as(data, "generalMatrix"), "TsparseMatrix")
  has_x <- methods::.hasSlot(t, "x")
  keep <- if (has_x) t@x != 0 else rep(TRUE, length(t@i))
  i <- t@i[keep] + 1L
  j <- t@j[keep] + 1L
  o <- order(i, j)
  i <- i[o]
  j <- j[o]
  rn <- rownames(data)
  cn <- colnames(data)
  value <- if (has_x) t@x[keep][o] else rep(TRUE, length(i))
  as_tidy_frame(data.frame(.row = if (is.null(rn)) i else rn[i],
                           .column = if (is.null(cn)) j else cn[j],
                           value = value, .cluster = cluster[i],
                           stringsAsFactors = FALSE))
}
