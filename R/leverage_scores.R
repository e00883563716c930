#' Leverage scores of the features
#'
#' The rank-`k` leverage scores of the columns of `x`,
#' \eqn{p_i = \|(V_k)_{(i)}\|^2 / k}{p_i = ||V_k[i, ]||^2 / k} with `V_k` the top
#' `k` right singular vectors: they sum to 1, and are the sampling
#' probabilities of feature selection for k-means (Boutsidis, Mahoney and
#' Drineas 2009; Algorithm 1 of Boutsidis et al. 2015).
#'
#' By default the singular vectors are those of the centred data (each column
#' minus its mean, as [prcomp()]): k-means does not see the column means, and
#' on data far from the origin the top singular vector of `x` itself would
#' only point at them. These are the scores `kmeans_reduced(method =
#' "leverage")` uses. `center = FALSE` gives the scores of `x` itself.
#'
#' @param x A numeric matrix, data frame or sparse `Matrix`.
#' @param k Rank, in `[1, min(dim(x))]`.
#' @param method `"randomized"` ([randomized_svd()] with `3k + 1` extra test
#'   vectors, the FastFrobeniusSVD of the 2015 paper with `eps = 1/3`, and
#'   `power_iters` power iterations) or `"exact"` (the exact SVD, see
#'   [reduction_methods]).
#' @param power_iters Power iterations of the randomized SVD: `"auto"` (the
#'   default, what `kmeans_reduced(method = "leverage")` uses through
#'   `control$power_iters`, so that the same seed gives the same scores) is
#'   one, or none when the `4k + 1` test vectors are at least `min(dim(x))`
#'   (the SVD is then exact); `0` is the paper's FastFrobeniusSVD; more
#'   iterations give scores closer to the exact ones.
#' @param center `TRUE` (the default) for the scores of the centred data,
#'   `FALSE` for those of `x` itself. A sparse `x` is centred implicitly
#'   (it stays sparse).
#' @inheritParams kmeans_reduced
#' @return A numeric vector of length `ncol(x)`, named by the columns of `x`.
#' @examples
#' x <- fashion_mnist$x[1:500, ] / 255
#' s <- leverage_scores(x, 10, seed = 1)
#' head(sort(s, decreasing = TRUE))
#' @export
leverage_scores <- function(x, k, method = c("randomized", "exact"), seed = NULL,
                            power_iters = "auto", n_threads = NULL, center = TRUE) {
  x <- check_data(x, "x")
  k <- check_whole(k, "k", 1, min(dim(x)))
  if (!is.character(method) || length(method) < 1L) {
    stop_arg(sprintf("`method` must be \"randomized\" or \"exact\", not %s.", describe(method)))
  }
  method <- check_choice(method[1L], "method", c("randomized", "exact"))
  power_iters <- check_power_iters(power_iters, "power_iters")
  n_threads <- check_n_threads(n_threads)
  center <- check_flag(center, "center")
  seed <- resolve_seed(seed)
  sv <- top_right_vectors(x, k, method, 1 / 3, power_iters, seed, n_threads, center = center)
  scores <- rowSums(sv$v^2) / k
  names(scores) <- colnames(x)
  scores
}
