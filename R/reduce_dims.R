#' Reduce the number of features with a method of the papers
#'
#' The reduction step of [kmeans_reduced()] on its own: a randomized
#' projection, a feature selection or an SVD extraction (see the Methods
#' section of [kmeans_reduced()]). The fitted map is kept, so
#' `predict(reducer, newdata)` maps new rows in exactly the same way.
#'
#' The reduced data are the map of the papers, `C = A R` (or the selected
#' columns, or `A V`), not centred; the singular vectors of the SVD-based
#' methods are those of the centred data, as in [kmeans_reduced()] (see the
#' section Data far from the origin of [reduction_methods]), whose reducer
#' also subtracts a point among the rows of `C` (its `shift`, the medians of
#' a sample of them).
#'
#' @inheritParams kmeans_reduced
#' @param method Reduction method (see [reduction_methods]); `"auto"` is
#'   `"sparse_embedding"` for sparse `x` and `"sign"` for dense `x`.
#' @param dims Number of dimensions of the reduced data; when `NULL`,
#'   `min(ncol(x), 10 * k)` (`min(ncol(x), 30 * k)` for `"leverage"`, `k`
#'   for `"svd"` and `"rsvd"`).
#' @param k Number of clusters: the rank of the singular subspace used by
#'   `"leverage"` (required there) and the default of `dims`. Not needed when
#'   `dims` is given for the other methods.
#' @param control A [kmeans_control()] object, or a named list of some of its options.
#' @return An object of class `"kmreduce_reducer"`: a list with `reduced`
#'   (the `nrow(x) x dims` reduced data), `method`, `dims`, `seed` (the seed
#'   used), `n_features`, `feature_names` and, depending on the method,
#'   `features` (selected columns: `index`, `name`, `scale`), `scores`
#'   (leverage scores, or the probabilities of eqn (5) for `"cssp"`),
#'   `singular_values`, `rotation` (`ncol(x) x dims`, for `"svd"` and
#'   `"rsvd"`) and `residual` (`"cssp"`).
#' @seealso [predict.kmreduce_reducer()], [kmeans_reduced()].
#' @examples
#' x <- fashion_mnist$x[1:500, ] / 255
#' r <- reduce_dims(x, "sparse_embedding", dims = 40, seed = 1)
#' dim(r$reduced)
#' lev <- reduce_dims(x, "leverage", dims = 30, k = 10, seed = 1)
#' head(lev$features)
#' all.equal(predict(lev, x), lev$reduced)
#' @export
reduce_dims <- function(x, method = "auto", dims = NULL, k = NULL, seed = NULL,
                        n_threads = NULL, control = list()) {
  hold_sources()  # (memory sources take outside R's heap: freed on return)
  on.exit(leave_sources(), add = TRUE)
  control <- check_control(control)
  x <- check_data(x, "x", big = TRUE, block_rows = control$block_rows)
  method <- resolve_method(check_method(method), x)
  if (!is.null(k)) {
    k <- check_whole(k, "k", 1, nrow(x))
  } else if (isTRUE(method_info(method)$needs_k)) {
    stop_arg(sprintf("`k` (the number of clusters) is needed for method \"%s\", not NULL.", method))
  }
  dims <- check_dims(dims, method, k, nrow(x), ncol(x))
  n_threads <- check_n_threads(n_threads)
  use_reading_threads(n_threads)  # (a 10x file's chunks decompressed on them)
  src <- as_row_source(x)
  check_source_method(src, method, control)
  seed <- resolve_seed(seed)
  reducer <- fit_reducer(src, method, dims, k, seed, n_threads, control)
  reducer$reduced <- apply_reducer(reducer, x, n_threads, control$block_rows)
  reducer
}
