#' Randomized singular value decomposition
#'
#' The top `k` singular values and vectors of `x` by the randomized range
#' finder of Halko, Martinsson and Tropp (2011): a Gaussian test matrix with
#' `k + oversample` columns (generated from `seed`), `power_iters` power
#' iterations with QR re-orthonormalisation, then the SVD of the small
#' projected matrix (LAPACK). Dense and sparse (`dgCMatrix`) `x`; the sparse
#' matrix is never densified.
#'
#' @param x A numeric matrix, data frame, sparse `Matrix` or file-backed
#'   `bigmemory::big.matrix`.
#' @param k Number of singular triplets, in `[1, min(dim(x))]`.
#' @param oversample Extra test vectors (accuracy grows with it).
#' @param power_iters Power iterations (accuracy grows with them when the
#'   singular values decay slowly).
#' @param block_rows For a `bigmemory::big.matrix` `x` (read in blocks of
#'   rows, never whole): rows per block (default: about 64 MB).
#' @param center `FALSE` (the default): the SVD of `x`. `TRUE`: of the
#'   centred `x` (each column minus its mean; the principal components, as
#'   [prcomp()]), computed through products with `x`, so a sparse `x` stays
#'   sparse.
#' @inheritParams kmeans_reduced
#' @return A list like [svd()]: `d` (the `k` singular values, decreasing),
#'   `u` (`nrow(x) x k`), `v` (`ncol(x) x k`). Signs of singular vectors are
#'   arbitrary, as with [svd()].
#' @references Halko, N., Martinsson, P.-G. and Tropp, J. A. (2011). Finding
#'   structure with randomness: probabilistic algorithms for constructing
#'   approximate matrix decompositions. *SIAM Review* 53(2), 217--288.
#' @examples
#' x <- fashion_mnist$x[1:500, ] / 255
#' s <- randomized_svd(x, 5, seed = 1)
#' rbind(randomized = s$d, exact = svd(x, 0, 0)$d[1:5])
#' @export
randomized_svd <- function(x, k, oversample = 10L, power_iters = 2L, seed = NULL,
                           n_threads = NULL, block_rows = NULL, center = FALSE) {
  hold_sources()  # (memory sources take outside R's heap: freed on return)
  on.exit(leave_sources(), add = TRUE)
  if (!is.null(block_rows)) block_rows <- check_whole(block_rows, "block_rows", 1)
  x <- check_data(x, "x", big = TRUE, block_rows = block_rows)
  k <- check_whole(k, "k", 1, min(dim(x)))
  oversample <- check_whole(oversample, "oversample", 0, 1e6)
  power_iters <- check_whole(power_iters, "power_iters", 0, 100)
  n_threads <- check_n_threads(n_threads)
  use_reading_threads(n_threads)  # (a 10x file's chunks decompressed on them)
  center <- check_flag(center, "center")
  seed <- resolve_seed(seed)
  n <- as.numeric(nrow(x))
  d <- as.numeric(ncol(x))
  check_rsvd_memory(n, d, min(k + oversample, n, d), "Use a smaller `k` or `oversample`.")
  source_rsvd(as_row_source(x), k, oversample, power_iters, seed, n_threads,
              block_rows, center)
}
