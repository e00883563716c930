#' A proven lower bound on the optimal k-means objective
#'
#' Certifies how far a clustering can be from the optimal one. For every
#' partition of the rows of `x` into `k` clusters, the matrix of cluster means
#' (one row per point) minus the grand mean has rank at most `k - 1`, so by
#' the Eckart--Young theorem the objective of the *optimal* partition is at
#' least
#' \deqn{F_{opt} \ge \|A_c\|_F^2 - \sum_{i < k} \sigma_i^2(A_c),}{F_opt >= ||A_c||_F^2 - sum_{i < k} sigma_i(A_c)^2,}
#' where \eqn{A_c}{A_c} is `x` with its column means removed. `lower` is this
#' bound and `ratio = fit$tot.withinss / lower` bounds how many times larger
#' than the optimum the fit's objective can be (1 means certified optimal).
#'
#' @section How the singular values are bounded:
#' The bound needs an *upper* bound on \eqn{s = \sum_{i<k}\sigma_i^2(A_c)}{s = sum_{i < k} sigma_i(A_c)^2};
#' an approximation from below (as any randomized SVD gives) would make the
#' "bound" invalid, so neither method uses one.
#'
#' * `"gram"`: the Gram matrix of the smaller side (`crossprod(x)` or
#'   `tcrossprod(x)`, sparse products for sparse `x`; the column means are
#'   removed in closed form, so sparse `x` is never densified) and its
#'   eigenvalues by LAPACK. The rounding errors of the products, of the
#'   centring and of the symmetric eigensolver are bounded by Weyl's theorem
#'   and added to \eqn{s}{s} (see `margin`); this costs
#'   `min(n, d)^2 * max(n, d)` flops and `8 * min(n, d)^2` bytes.
#' * `"krylov"`: for large inputs. A block Krylov subspace spanned by an
#'   orthonormal `V` (`d x p`, `p = k - 1 + 10`, `power_iters` iterations on
#'   the implicitly centred matrix) splits \eqn{G = A_c^T A_c}{G = t(A_c) A_c} into the
#'   Ritz block \eqn{H = V^T G V}{H = t(V) G V}, its complement \eqn{E}{E} and the
#'   coupling \eqn{B}{B}. Ky Fan's inequality gives, for `m = k - 1`,
#'   \deqn{s \le \max\left(\sum_{i\le m}\theta_i,\; \sum_{i<m}\theta_i +
#'   \mathrm{tr}(E)\right) + \sqrt{m}\,\|GV - VH\|_F,}{s <= max(sum_{i <= m} theta_i,
#'   sum_{i < m} theta_i + tr(E)) + sqrt(m) ||G V - V H||_F,}
#'   with \eqn{\theta}{theta} the eigenvalues of \eqn{H}{H} and
#'   \eqn{\mathrm{tr}(E) = \|A_c\|_F^2 - \mathrm{tr}(H)}{tr(E) = ||A_c||_F^2 - tr(H)}: valid whatever the
#'   quality of `V`, but loose (even 0) when the variance left outside the
#'   subspace exceeds the `(k-1)`-th Ritz value, as on noisy data.
#'
#' `"auto"` uses `"gram"` when `min(n, d) <= max_gram` and `"krylov"`
#' otherwise.
#'
#' @param fit A `kmeans_reduced` or `stats::kmeans` fit of `x` (its
#'   `tot.withinss` and number of clusters are used).
#' @param x The data the fit was computed on: numeric matrix, data frame or
#'   sparse `Matrix`.
#' @param method `"auto"`, `"gram"` or `"krylov"`.
#' @param max_gram Largest `min(nrow(x), ncol(x))` for which `"auto"` forms
#'   the Gram matrix.
#' @param power_iters Power iterations of the `"krylov"` method.
#' @inheritParams kmeans_reduced
#' @return An object of class `kmreduce_bound`, a list with `lower` (the
#'   lower bound on the optimal objective, `>= 0`), `ratio`
#'   (`tot.withinss / lower`, `Inf` when `lower` is 0), `objective`
#'   (`fit$tot.withinss`), `totss` (\eqn{\|A_c\|_F^2}{||A_c||_F^2}), `top` (the upper
#'   bound on \eqn{\sum_{i<k}\sigma_i^2(A_c)}{sum_{i < k} sigma_i(A_c)^2}, margin included), `margin`
#'   (the rounding allowance), `k` and `method`.
#' @references Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P.
#'   (2015). Randomized dimensionality reduction for k-means clustering.
#'   *IEEE Transactions on Information Theory* 61(2), 1045--1062 (the
#'   rank-`k` view of k-means used here).
#'
#'   Ding, C. and He, X. (2004). K-means clustering via principal component
#'   analysis. *Proceedings of ICML 2004* (the same lower bound).
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, k = 10, dims = 50, seed = 1)
#' optimality_bound(fit, x)
#' @export
optimality_bound <- function(fit, x, method = c("auto", "gram", "krylov"),
                             max_gram = 5000L, power_iters = 4L, seed = NULL,
                             n_threads = NULL) {
  check_fit(fit, "fit")
  if (!is.null(fit$weight)) {
    stop_arg(paste0("`fit` was fitted with observation weights; optimality_bound() bounds the ",
                    "unweighted objective only (fit without `weights`, or repeat the rows)."))
  }
  x <- check_data(x, "x")
  if (missing(method)) method <- "auto"
  method <- check_choice(method, "method", c("auto", "gram", "krylov"))
  max_gram <- check_whole(max_gram, "max_gram", 1, 1e6)
  power_iters <- check_whole(power_iters, "power_iters", 0, 100)
  n_threads <- check_n_threads(n_threads)
  seed <- check_seed(seed)
  k <- length(fit$size)
  if (length(fit$cluster) != nrow(x) || ncol(fit$centers) != ncol(x)) {
    stop_arg(sprintf(paste0("`x` must be the data of `fit`: %d rows x %d columns, ",
                            "not %d x %d."), length(fit$cluster), ncol(fit$centers),
                     nrow(x), ncol(x)))
  }
  # (other data of the fit's shape would give a meaningless ratio, even < 1:
  # the fit's partition of `x` must have the fit's objective)
  st <- cpp_stats(x, as.integer(fit$cluster), k, n_threads)
  if (!isTRUE(abs(sum(st$withinss) - fit$tot.withinss) <=
              1e-6 * max(sum(st$withinss), fit$tot.withinss) + 1e-300)) {
    stop_arg(sprintf(paste0("`x` must be the data of `fit`: the fit's clusters of `x` have the ",
                            "objective %s, the fit %s."), format(sum(st$withinss), digits = 7),
                     format(fit$tot.withinss, digits = 7)))
  }
  tb <- bound_tops(x, k - 1L, method, max_gram, power_iters, seed, n_threads)
  bound_of(tb, fit$tot.withinss, k)
}

# Upper bounds, margins included, on the sums of the j largest squared
# singular values of the centred x, top[j + 1] for j = 0, ..., m (m at most
# min(n - 1, d)), from one Gram matrix or one Krylov subspace: k_path() asks
# for every k at the price of one.
bound_tops <- function(x, m, method, max_gram, power_iters, seed, n_threads) {
  n <- nrow(x)
  d <- ncol(x)
  st <- cpp_stats(x, rep.int(1L, n), 1L, n_threads)
  totss <- st$totss
  mu <- as.numeric(st$centers)
  m <- min(m, n - 1L, d)
  if (method == "auto") method <- if (min(n, d) <= max_gram) "gram" else "krylov"
  eps <- .Machine$double.eps
  gamma <- function(j) j * eps / (1 - j * eps)
  j <- seq_len(m)
  if (m == 0L) {
    return(list(totss = totss, top = 0, margin = 0, method = "exact"))
  } else if (method == "gram") {
    g <- centred_gram(x, mu, n_threads)
    ev <- sym_eigenvalues_cpp(g)
    # Products: |error| <= gamma(inner + 3) * (|A|^T |A|) entrywise, whose
    # 2-norm is at most ||A||_F^2; the eigensolver is backward stable with an
    # error of order size * eps * ||G||_2, ||G||_2 <= ||A||_F^2; Weyl's theorem
    # moves each eigenvalue by at most the sum. Totss: summation error.
    inner <- max(n, d)
    margin <- (j * (gamma(inner + 3) + 10 * nrow(g) * eps) + gamma(n + d + 2)) * st$sumsq
    top <- cumsum(pmax(ev[j], 0)) + margin
  } else {
    kr <- krylov_top_bound(x, mu, totss, m, power_iters, resolve_seed(seed), n_threads)
    margin <- (j * 10 * (n + d + kr$p) * eps + gamma(n + d + 2)) * st$sumsq
    top <- kr$top + margin
  }
  list(totss = totss, top = c(0, top), margin = c(0, margin), method = method)
}

# The certificate of an objective for k clusters from bound_tops().
bound_of <- function(tb, objective, k) {
  m <- min(k - 1L, length(tb$top) - 1L)
  top <- tb$top[m + 1L]
  lower <- if (m == 0L) tb$totss else max(0, tb$totss - top)
  structure(list(lower = lower,
                 ratio = if (lower > 0) objective / lower else Inf,
                 objective = objective, totss = tb$totss, top = top,
                 margin = tb$margin[m + 1L], k = k,
                 method = if (m == 0L) "exact" else tb$method),
            class = "kmreduce_bound")
}

# G = A_c^T A_c (d <= n) or A_c A_c^T (n < d), the centring in closed form so
# that a sparse x stays sparse.
# A dense x goes through the threaded (and interruptible) product kernels.
centred_gram <- function(x, mu, n_threads = 1L) {
  n <- nrow(x)
  sparse <- inherits(x, "dgCMatrix")
  if (ncol(x) <= n) {
    g <- if (sparse) as.matrix(Matrix::crossprod(x)) else gram_cpp(x, n_threads)
    g <- g - n * tcrossprod(mu)
  } else {
    g <- if (sparse) as.matrix(Matrix::tcrossprod(x)) else gram_cpp(x, n_threads)
    s <- as.numeric(x %*% mu)
    g <- g - outer(s, rep(1, n)) - outer(rep(1, n), s) + sum(mu^2)
  }
  (g + t(g)) / 2
}

# Upper bound on the sum of the m largest eigenvalues of G = A_c^T A_c from
# an orthonormal basis V of a block Krylov subspace (see ?optimality_bound).
krylov_top_bound <- function(x, mu, totss, m, power_iters, seed, n_threads) {
  n <- nrow(x)
  d <- ncol(x)
  p <- min(m + 10L, n - 1L, d)
  ac <- function(v) {                       # A_c v, v is d x p
    y <- multiply_cpp(x, v, n_threads)
    y - matrix(colSums(mu * v), n, ncol(v), byrow = TRUE)
  }
  act <- function(u) {                      # A_c^T u, u is n x p
    z <- as.matrix(Matrix::crossprod(x, u))
    z - outer(mu, colSums(u))
  }
  orth <- function(y) qr.Q(qr(y))
  y <- project_cpp(x, reduce_options("gaussian", p, seed, n_threads))
  y <- y - matrix(colMeans(y), n, p, byrow = TRUE)
  q <- orth(y)
  for (it in seq_len(power_iters)) q <- orth(ac(orth(act(q))))
  v <- orth(act(q))
  w <- ac(v)
  h <- crossprod(w)
  h <- (h + t(h)) / 2
  theta <- sort(pmax(sym_eigenvalues_cpp(h), 0), decreasing = TRUE)
  r <- act(w) - v %*% h
  trace_e <- max(0, totss - sum(diag(h)))
  # The bound for every j <= m (the Ky Fan argument holds for each j <= p).
  j <- seq_len(m)
  mm <- pmin(j, p)
  cs <- c(0, cumsum(theta))
  ritz <- pmax(cs[mm + 1L], cs[mm] + trace_e)
  list(top = ritz + sqrt(mm) * sqrt(sum(r^2)), p = p)
}

#' @rdname optimality_bound
#' @param ... Ignored.
#' @export
print.kmreduce_bound <- function(x, ...) {
  cat(sprintf("k-means optimality certificate (k = %d, method \"%s\")\n", x$k, x$method))
  cat(sprintf("  objective of the fit:      %s\n", format(x$objective, digits = 7)))
  cat(sprintf("  lower bound on optimum:    %s\n", format(x$lower, digits = 7)))
  cat(sprintf("  objective / lower bound:   %s (the fit is at most this far from optimal)\n",
              format(x$ratio, digits = 4)))
  invisible(x)
}
