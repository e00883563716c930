#' The Synth data set of Boutsidis et al. (2015)
#'
#' Generates the synthetic data of section 7 of Boutsidis, Zouzias, Mahoney
#' and Drineas (2015): "we generated a dataset of m = 1000 points in n = 2000
#' dimensions as follows. We chose k = 5 centers uniformly at random from
#' the n-dimensional hypercube of side length 2000 as the ground truth
#' centers. We then generated points from a Gaussian distribution of variance
#' one, centered at each of the real centers. To each of the 5 centers we
#' generated 200 points (we did not include the centers in the dataset)."
#' The hypercube is taken as `[0, side]^d`; the rows are in centre order.
#'
#' @param n_per Points per centre.
#' @param k Number of centres.
#' @param d Number of dimensions (the paper's `n`).
#' @param side Side length of the hypercube the centres are drawn from.
#' @param seed Seed, a whole number with `|seed| <= 2^31 - 1` (the seeds
#'   [set.seed()] takes; distinct seeds give distinct data), or `NULL` to use
#'   R's random number generator as it is. With a seed, R's random number state is left as it
#'   was.
#' @return A list with `x` (`(k * n_per) x d` matrix), `truth` (the centre
#'   of each row, an integer vector) and `centers` (`k x d`).
#' @references Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P.
#'   (2015). Randomized dimensionality reduction for k-means clustering.
#'   *IEEE Transactions on Information Theory* 61(2), 1045--1062.
#' @examples
#' s <- synth_data(seed = 1)
#' dim(s$x)
#' fit <- kmeans_reduced(s$x, 5, dims = 20, seed = 1)
#' cluster_accuracy(fit$cluster, s$truth)
#' @export
synth_data <- function(n_per = 200L, k = 5L, d = 2000L, side = 2000, seed = NULL) {
  n_per <- check_whole(n_per, "n_per", 1)
  k <- check_whole(k, "k", 1)
  d <- check_whole(d, "d", 1)
  if (!is.numeric(side) || length(side) != 1L || !is.finite(side) || side <= 0) {
    stop_arg(sprintf("`side` must be a positive number, not %s.", describe(side)))
  }
  check_memory(8 * as.numeric(k) * n_per * d, "The Synth data", "Use fewer points or dimensions.")
  draw <- function() {
    centers <- matrix(stats::runif(k * d, 0, side), k, d)
    truth <- rep(seq_len(k), each = n_per)
    x <- centers[truth, , drop = FALSE] + matrix(stats::rnorm(k * n_per * d), k * n_per, d)
    list(x = x, truth = truth, centers = centers)
  }
  if (is.null(seed)) return(draw())
  imax <- .Machine$integer.max
  if (!is_whole(seed) || abs(seed) > imax) {
    stop_arg(sprintf(paste0("`seed` must be NULL or a whole number in [-%d, %d] (the seeds ",
                            "set.seed() takes), not %s."), imax, imax, describe(seed)))
  }
  # Leave the user's random number state as it was.
  had <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  old <- if (had) get(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (had) assign(".Random.seed", old, envir = globalenv())
          else rm(".Random.seed", envir = globalenv()))
  set.seed(as.integer(seed))
  draw()
}
