#' Random sign projection
#'
#' `x %*% sign_matrix(ncol(x), dims, seed)`, the random projection of
#' Algorithm 2 of Boutsidis et al. (2015), computed without ever storing the
#' sign matrix as doubles: only its bits (one byte per feature and block of 8
#' output columns) exist. The `"mailman"` algorithm (Liberty and Zucker 2009)
#' sums, for a panel of 8 rows and each block of 8 output columns, the row
#' values into 256 buckets by the features' 8-bit sign patterns, then reads
#' the 8 outputs off the buckets by folding (510 additions instead of 8
#' multiply-adds per feature); AVX-512 or AVX2 code is chosen at run time.
#' `"gemm"` generates the signs in column panels and multiplies with a
#' BLAS-independent kernel.
#'
#' @param x A numeric matrix, data frame or sparse `Matrix`.
#' @param dims Number of output columns.
#' @param seed `NULL` or a whole number: the sign matrix is a function of
#'   `(seed, dims)` (see [sign_matrix()]).
#' @param algorithm `"auto"` (the mailman kernel for dense `x` with at least
#'   64 columns, `"gemm"` otherwise: with few columns, or sparse rows, the
#'   direct product is cheaper than the 256-bucket fold), `"mailman"` or
#'   `"gemm"`. All give the same result up to rounding.
#' @inheritParams kmeans_reduced
#' @return The `nrow(x) x dims` projected matrix.
#' @references Liberty, E. and Zucker, S. W. (2009). The mailman algorithm: a
#'   note on matrix-vector multiplication. *Information Processing Letters*
#'   109(3), 179--182.
#'
#'   Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P. (2015).
#'   Randomized dimensionality reduction for k-means clustering. *IEEE
#'   Transactions on Information Theory* 61(2), 1045--1062.
#' @seealso [sign_matrix()]; `method = "sign"` of [kmeans_reduced()] and
#'   [reduce_dims()] uses this function with `algorithm = "auto"`.
#' @examples
#' x <- fashion_mnist$x[1:100, ] / 255
#' p <- sign_project(x, 16, seed = 1)
#' all.equal(p, x %*% sign_matrix(784, 16, seed = 1), check.attributes = FALSE)
#' @export
sign_project <- function(x, dims, seed = NULL, algorithm = c("auto", "mailman", "gemm"),
                         n_threads = NULL) {
  x <- check_data(x, "x")
  dims <- check_whole(dims, "dims", 1, max_dims(nrow(x)))
  check_reduced_memory(nrow(x), dims)
  if (!is.character(algorithm) || length(algorithm) < 1L) {
    stop_arg(sprintf("`algorithm` must be one of \"auto\", \"mailman\", \"gemm\", not %s.",
                     describe(algorithm)))
  }
  algorithm <- check_choice(algorithm[1L], "algorithm", c("auto", "mailman", "gemm"))
  n_threads <- check_n_threads(n_threads)
  seed <- resolve_seed(seed)
  project_cpp(x, reduce_options("sign", dims, seed, n_threads,
                                more = list(algorithm = sign_algorithm(algorithm, x))))
}
