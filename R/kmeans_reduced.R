#' k-means on reduced data, evaluated on the original data
#'
#' Reduces the number of features of `x` with a randomized method that has a
#' guarantee for the k-means objective, clusters the reduced rows with Lloyd's
#' algorithm (greedy k-means++ seeding, `n_init` replicates, multi-threaded),
#' and evaluates the partition on the ORIGINAL data: `centers`, `withinss`,
#' `totss` and the other fields of [stats::kmeans()] are all computed in the
#' original feature space.
#'
#' @section Methods:
#' * `"none"`: no reduction, k-means on `x` itself.
#' * `"sign"`: random projection `C = A R` with `R` a `d x dims` matrix of
#'   independent \eqn{\pm 1/\sqrt{dims}}{+-1/sqrt(dims)} entries (Algorithm 2 of
#'   Boutsidis et al. 2015); with `dims` of order `k / eps^2` the optimal
#'   partition of `C` is a `(2 + eps)`-approximation on `A`. `R` is generated
#'   from `seed`, never stored.
#' * `"leverage"`: feature selection (Algorithm 1 of Boutsidis et al. 2015,
#'   Boutsidis, Mahoney and Drineas 2009): leverage scores
#'   \eqn{p_i = \|(V_k)_{(i)}\|^2 / k}{p_i = ||V_k[i, ]||^2 / k} from the exact
#'   top-`k` right singular vectors, `dims` columns drawn with replacement with
#'   probabilities `p`, column `i` rescaled by `1 / sqrt(dims * p_i)`;
#'   a `(3 + eps)`-approximation with `dims` of order `k log(k) / eps^2`.
#' * `"svd"`: `C = A V_dims` with the exact top right singular vectors
#'   (`dims = k` by default: a 2-approximation, Drineas et al. 1999).
#' * `"auto"`: `"sign"` (the fastest method with a guarantee).
#'
#' The exact SVD of `"leverage"` and `"svd"` is computed by LAPACK on a dense
#' copy of `x` (a sparse `x` is densified for that step only).
#'
#' @param x Data: a numeric matrix, a data frame of numeric columns, or a
#'   sparse `Matrix` (kept as a `dgCMatrix`; other sparse classes are
#'   converted). One row per observation. No `NA`, `NaN` or `Inf`.
#' @param k Number of clusters, a whole number between 1 and the number of
#'   distinct rows of `x`; or, as `centers` of [stats::kmeans()], a matrix of
#'   initial centres (one row per cluster, the columns of `x`): they are mapped
#'   by the reduction and Lloyd starts from them (`n_init` is then ignored).
#' @param method Reduction method: `"auto"`, `"none"`, `"sign"`,
#'   `"leverage"` or `"svd"` (see Methods).
#' @param dims Number of dimensions of the reduced data. Default
#'   `min(ncol(x), 10 * k)`, and `k` for `"svd"`. Ignored for `"none"`.
#' @param n_init Number of k-means++ replicates; the one with the lowest
#'   objective on the reduced data is kept.
#' @param iter_max Maximum number of Lloyd iterations per replicate.
#' @param seed `NULL` or a whole number. With a number, results are
#'   reproducible and R's random number generator is neither used nor changed.
#'   With `NULL`, one integer is drawn from R's generator (so [set.seed()]
#'   makes the call reproducible). The seed used is returned.
#' @param n_threads Number of threads (OpenMP). Results are identical for
#'   every number of threads.
#' @param control A named list of tuning parameters:
#'   * `tol` (default `1e-6`): Lloyd also stops when the objective decreases
#'     by less than this fraction in one iteration (`0`: only when no label
#'     changes).
#'   * `keep_reduced` (default `TRUE`): keep the reduced data in the result
#'     (used by [plot()]; not kept for `"none"`).
#' @return An object of class `c("kmeans_reduced", "kmeans")`: a list with
#'   the components of [stats::kmeans()], all in the original feature space,
#'   \item{cluster}{integer vector of the cluster (1 to `k`) of each row.}
#'   \item{centers}{`k x ncol(x)` matrix of cluster means of the original data.}
#'   \item{totss}{total sum of squares about the grand mean.}
#'   \item{withinss}{within-cluster sums of squares, one per cluster.}
#'   \item{tot.withinss}{`sum(withinss)`: the k-means objective.}
#'   \item{betweenss}{`totss - tot.withinss`.}
#'   \item{size}{number of rows in each cluster.}
#'   \item{iter}{Lloyd iterations of the kept replicate.}
#'   \item{ifault}{0, or 2 if Lloyd did not converge in `iter_max` iterations.}
#'
#'   and also
#'   \item{method, dims, seed, call}{the method and dimension used, the seed
#'     used and the call.}
#'   \item{reducer}{the fitted reduction (class `"kmreduce_reducer"`): the
#'     seed of a projection, the selected columns (`features`: index, name,
#'     scale factor) and leverage `scores`, or the SVD `rotation`.}
#'   \item{reduced_centers}{`k x dims` centres in the reduced space: every row
#'     is assigned to the nearest of them.}
#'   \item{reduced}{the reduced data (`nrow(x) x dims`), or `NULL`.}
#'   \item{sumsq}{\eqn{\|A\|_F^2}{||A||_F^2}, the sum of squares of `x`
#'     (the papers report the objective divided by it).}
#'   \item{timing}{elapsed seconds: `reduce`, `cluster`, `total`.}
#' @references
#' Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P. (2015).
#' Randomized dimensionality reduction for k-means clustering.
#' *IEEE Transactions on Information Theory* 61(2), 1045--1062.
#' arXiv:1110.2897.
#'
#' Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009). Unsupervised feature
#' selection for the k-means clustering problem. *NIPS 22*, 153--161.
#'
#' Drineas, P., Frieze, A., Kannan, R., Vempala, S. and Vinay, V. (1999).
#' Clustering in large graphs and matrices. *SODA*, 291--299.
#'
#' Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of
#' careful seeding. *SODA*, 1027--1035.
#' @seealso [stats::kmeans()], [predict.kmeans_reduced()],
#'   [summary.kmeans_reduced()], [plot.kmeans_reduced()].
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, k = 10, method = "sign", dims = 50, n_init = 3,
#'                       seed = 1)
#' fit
#' summary(fit)
#' table(fit$cluster, fashion_mnist$label)
#' @export
kmeans_reduced <- function(x, k, method = "auto", dims = NULL, n_init = 10L,
                           iter_max = 100L, seed = NULL, n_threads = 1L,
                           control = list()) {
  call <- match.call()
  t_start <- elapsed()
  x <- check_data(x, "x")
  method <- check_method(method)
  centers0 <- NULL
  if (is.matrix(k) || is.data.frame(k)) {
    centers0 <- check_centers(k, x)
    k <- nrow(centers0)
  } else {
    k <- check_k(k, x)
  }
  if (method == "auto") method <- "sign"
  dims <- check_dims(dims, method, k, x)
  n_init <- check_whole(n_init, "n_init", 1, 1e6)
  iter_max <- check_whole(iter_max, "iter_max", 1, 1e8)
  n_threads <- check_n_threads(n_threads)
  control <- check_control(control, list(tol = 1e-6, keep_reduced = TRUE))
  seed <- resolve_seed(seed)

  t_reduce <- elapsed()
  reducer <- fit_reducer(x, method, dims, k, seed, n_threads)
  reduced <- apply_reducer(reducer, x, n_threads)
  t_cluster <- elapsed()
  km <- if (is.null(centers0)) {
    kmeans_cpp(reduced, k, n_init, iter_max, control$tol, seed, n_threads)
  } else {
    start <- as.matrix(apply_reducer(reducer, centers0, n_threads))
    lloyd_from_cpp(reduced, start, iter_max, control$tol, n_threads)
  }
  t_eval <- elapsed()
  st <- cluster_stats_cpp(x, km$cluster, k, n_threads)
  t_end <- elapsed()

  cluster <- km$cluster
  names(cluster) <- rownames(x)
  centers <- st$centers
  dimnames(centers) <- list(seq_len(k), colnames(x))
  reduced_centers <- km$centers
  dimnames(reduced_centers) <- list(seq_len(k), colnames(reduced))
  ifault <- if (km$converged) 0L else 2L
  if (!km$converged) {
    warning(sprintf("Lloyd did not converge in %d iterations; increase `iter_max`.",
                    iter_max), call. = FALSE)
  }
  tot_within <- sum(st$withinss)
  structure(list(
    cluster = cluster,
    centers = centers,
    totss = st$totss,
    withinss = st$withinss,
    tot.withinss = tot_within,
    betweenss = st$totss - tot_within,
    size = st$size,
    iter = km$iter,
    ifault = ifault,
    method = method,
    dims = dims,
    seed = seed,
    call = call,
    reducer = reducer,
    reduced_centers = reduced_centers,
    reduced = if (control$keep_reduced && method != "none") reduced else NULL,
    sumsq = st$sumsq,
    timing = c(reduce = t_cluster - t_reduce,
               cluster = t_eval - t_cluster,
               total = t_end - t_start)
  ), class = c("kmeans_reduced", "kmeans"))
}

elapsed <- function() proc.time()[["elapsed"]]
