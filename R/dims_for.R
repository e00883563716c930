#' The number of dimensions the papers' theorems ask for
#'
#' For each reduction method, the dimension `r` that the theorem behind it
#' requires for its approximation guarantee, with the constants the papers
#' state, so that the dimensions used in practice (by default `10 k`) can be
#' compared with the theory. The constants come from the proofs and are, as
#' the authors say, artifacts of the analysis: far larger than what works.
#'
#' | method | paper, result | r | guarantee (gamma = 1) | probability |
#' |---|---|---|---|---|
#' | `"leverage"` | Boutsidis et al. (2015), Theorem 11 (Algorithm 1) | \eqn{c_1 4k\ln(2k/\delta)/\varepsilon^2}{c1 4 k ln(2k / delta) / eps^2}, \eqn{c_1 = 16 \cdot 10^6}{c1 = 16e6}, \eqn{\delta = 0.01}{delta = 0.01} in the theorem | 3 + eps | 0.2 |
#' | `"leverage"` | Boutsidis, Mahoney and Drineas (2009), Theorem 1 | \eqn{\Theta(k\log(k/\varepsilon)/\varepsilon^2)}{Theta(k log(k / eps) / eps^2)}, no constant | 3 + eps (the 2009 paper states 2 + eps; its proof has a bug, see the 2015 paper's footnote 3) | 0.5 |
#' | `"sign"` | Boutsidis et al. (2015), Theorem 12 (Algorithm 2) | \eqn{c_2 k/\varepsilon^2}{c2 k / eps^2}, \eqn{c_2 = 3330 \cdot 15^2}{c2 = 3330 * 15^2} | 2 + eps | 0.96 |
#' | `"rsvd"` | Boutsidis et al. (2015), Theorem 13 (Algorithm 3) | `k` (the sketch has `k + ceiling(k / eps + 1)` columns) | 2 + eps | 0.99 |
#' | `"svd"` | exact SVD (Table 1 of the 2015 paper) | `k` | 2 | 1 |
#' | `"gaussian"`, `"achlioptas"` | Boutsidis et al. (2015), Theorem 16 (Johnson--Lindenstrauss) | \eqn{36\log(n)\log(1/\delta)/\varepsilon^2}{36 log(n) log(1/delta) / eps^2} (natural logarithms) | 1 + eps (all pairwise distances) | 1 - delta |
#' | `"sparse_embedding"` | Liu, Shen and Tsang (2017), Theorem 1 and Lemma 1 | \eqn{O(\max((k + \log(1/\delta))/\varepsilon'^2, 6/(\varepsilon'^2\delta)))}{O(max((k + log2(1/delta)) / eps'^2, 6 / (eps'^2 delta)))}, \eqn{\varepsilon' = \varepsilon/(2+\varepsilon)}{eps' = eps / (2 + eps)}; the O() constant is not stated | 1 + eps | 1 - O(delta) |
#' | `"cssp"` | Boutsidis, Mahoney and Drineas (2008), Theorem 1 | `k` columns kept, after sampling \eqn{c = \Theta(k\log k)}{c = Theta(k log k)} (no constant) | Frobenius residual of the centred data within \eqn{O(k\sqrt{\log k})}{O(k sqrt(log k))} of the best rank k (not a k-means bound), with `control = list(svd = "exact", qr = "strong")` | 1 - 1e-20 (40 repeats) |
#' | `"srht"` | no k-means theorem in these papers | -- | -- | -- |
#' | `"fjlt"` | Ailon and Chazelle (2009), Lemma 1 (FJLT), via Theorem 16's Johnson--Lindenstrauss argument | \eqn{O(\log(n)/\varepsilon^2)}{O(log(n) / eps^2)}, no constant stated | 1 + eps (all pairwise distances) | 2/3 |
#'
#' Where the constants come from: \eqn{c_1 = 16 \cdot 10^6}{c1 = 16e6} is the
#' rescaling of `eps` at the end of the proof of Theorem 11 of Boutsidis et
#' al. (2015), applied to the `r` of their Lemmas 6 and 8; \eqn{c_2 = 3330
#' \cdot 15^2}{c2 = 3330 * 15^2} is the \eqn{c_0 = 3330}{c0 = 3330} of their Lemma 10 with `eps`
#' rescaled by 15 in the proof of Theorem 12; 36 in the
#' Johnson--Lindenstrauss row is the constant of their Theorem 16. The
#' constants come from the proofs and are not tight: the experiments of
#' the same papers use a few times `k` dimensions.
#'
#' Where the numbers extrapolate (no theorem covers them, the formula is
#' only evaluated): `eps >= 1/3` for `"leverage"` and `"sign"` (their
#' theorems require `0 < eps < 1/3`); any `delta` other than 0.01 for
#' `"leverage"` (the theorem fixes \eqn{\delta = 0.01}{delta = 0.01} in Lemmas 6 and 8 and
#' holds with probability 0.2; another `delta` is put into the form of
#' Lemma 6, which the theorem instantiates, without a proof of the
#' resulting probability); the sparse embedding's O() constant, taken as 1
#' (`constant_stated = FALSE`). `dims` is `NA` where the paper gives no
#' constant (`constant_stated = FALSE`). Rounding up is our choice (the
#' theorems do not round). For `"cssp"` the guarantee is on the residual of
#' the centred data in Frobenius norm (the spectral-norm bound of the
#' conference paper was withdrawn in arXiv:0812.4293v2), not on k-means.
#'
#' @param method Reduction methods (default: all of them).
#' @param k Number of clusters.
#' @param eps Accuracy parameter \eqn{\varepsilon}{eps}; the 2015 theorems
#'   for `"leverage"` and `"sign"` require `eps < 1/3` (larger values give
#'   their formulas' numbers, outside the theorems).
#' @param delta Failure probability where the result takes one (see above).
#' @param n Number of rows, for the Johnson--Lindenstrauss bound of
#'   `"gaussian"` and `"achlioptas"` (without it, all methods but these).
#' @return A data frame, one row per method and result: `method`, `paper`,
#'   `result`, `dims` (`NA` without a stated constant), `constant_stated`,
#'   `formula`, `guarantee`, `probability`.
#' @references Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P.
#'   (2015). Randomized dimensionality reduction for k-means clustering.
#'   *IEEE Transactions on Information Theory* 61(2), 1045--1062.
#'
#'   Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009). Unsupervised
#'   feature selection for the k-means clustering problem. *NIPS* 22.
#'
#'   Boutsidis, C., Mahoney, M. W. and Drineas, P. (2008). Unsupervised
#'   feature selection for principal components analysis. *KDD 2008*.
#'
#'   Liu, W., Shen, X. and Tsang, I. (2017). Sparse embedded k-means
#'   clustering. *NIPS* 30.
#'
#'   Ailon, N. and Chazelle, B. (2009). The fast Johnson-Lindenstrauss
#'   transform and approximate nearest neighbors. *SIAM Journal on Computing*
#'   39(1), 302--322.
#' @examples
#' # What the theorems ask for 10 clusters at eps = 0.3, against 10 k = 100:
#' dims_for(k = 10, eps = 0.3, n = 70000)[, c("method", "result", "dims", "guarantee")]
#' @export
dims_for <- function(method = NULL, k, eps = 1 / 3, delta = 0.01, n = NULL) {
  known <- setdiff(names(method_registry()), "none")
  asked <- method
  if (is.null(method)) method <- known
  if (!is.character(method) || length(method) == 0L || anyNA(method) ||
      !all(method %in% known)) {
    stop_arg(sprintf("`method` must be NULL or some of %s, not %s.",
                     paste0("\"", known, "\"", collapse = ", "), describe(method)))
  }
  k <- check_whole(k, "k", 1)
  if (!is.numeric(eps) || length(eps) != 1L || is.na(eps) || eps <= 0 || eps >= 1) {
    stop_arg(sprintf("`eps` must be a number in (0, 1), not %s.", describe(eps)))
  }
  if (!is.numeric(delta) || length(delta) != 1L || is.na(delta) || delta <= 0 || delta >= 1) {
    stop_arg(sprintf("`delta` must be a number in (0, 1), not %s.", describe(delta)))
  }
  if (!is.null(n)) n <- check_whole(n, "n", 2)
  bzmd <- "Boutsidis, Zouzias, Mahoney, Drineas (2015)"
  row <- function(method, paper, result, dims, formula, guarantee, probability) {
    data.frame(method = method, paper = paper, result = result,
               dims = if (is.na(dims)) NA_real_ else ceiling(dims),
               constant_stated = !is.na(dims), formula = formula, guarantee = guarantee,
               probability = probability, stringsAsFactors = FALSE)
  }
  eps_p <- eps / (2 + eps)  # Liu et al.'s Lemma 1: eps = 2 eps' / (1 - eps')
  jl <- function(m) {
    if (is.null(n)) return(NULL)
    list(row(m, bzmd, "Theorem 16 (Johnson-Lindenstrauss)",
             36 * log(n) * log(1 / delta) / eps^2, "36 ln(n) ln(1 / delta) / eps^2",
             "1 + eps (all pairwise distances)", "1 - delta"))
  }
  rows <- list(
    leverage = list(
      row("leverage", bzmd, "Theorem 11 (Algorithm 1)",
          16e6 * 4 * k * log(2 * k / delta) / eps^2,
          "c1 4 k ln(2k / delta) / eps^2, c1 = 16e6 (delta = 0.01 in the theorem)",
          "3 + eps", "0.2"),
      row("leverage", "Boutsidis, Mahoney, Drineas (2009)", "Theorem 1", NA,
          "Theta(k log(k / eps) / eps^2), no constant stated",
          "3 + eps (stated 2 + eps; corrected in the 2015 paper)", "0.5")),
    sign = list(row("sign", bzmd, "Theorem 12 (Algorithm 2)", 3330 * 15^2 * k / eps^2,
                    "c2 k / eps^2, c2 = 3330 * 15^2", "2 + eps", "0.96")),
    rsvd = list(row("rsvd", bzmd, "Theorem 13 (Algorithm 3)", k,
                    sprintf("k (sketch of k + ceiling(k / eps + 1) = %s columns)",
                            format_count(k + ceiling(k / eps + 1))), "2 + eps", "0.99")),
    svd = list(row("svd", bzmd, "Table 1 (exact SVD)", k, "k", "2", "1")),
    sparse_embedding = list(row("sparse_embedding", "Liu, Shen, Tsang (2017)",
                                "Theorem 1 with Lemma 1",
                                max((k + log2(1 / delta)) / eps_p^2, 6 / (eps_p^2 * delta)),
                                "O(max((k + log2(1/delta)) / eps'^2, 6 / (eps'^2 delta))), eps' = eps / (2 + eps); O() constant taken as 1",
                                "1 + eps", "1 - O(delta)")),
    cssp = list(row("cssp", "Boutsidis, Mahoney, Drineas (2008)", "Theorem 1", k,
                    "k columns kept (c = Theta(k log k) sampled, no constant stated)",
                    "Frobenius residual of the centred data O(k sqrt(log k)) x best rank k (not a k-means bound; exact SVD and strong RRQR)",
                    "1 - 1e-20 (40 repeats)")),
    srht = list(row("srht", "none of these papers", "no k-means theorem", NA, "--", "--", "--")),
    fjlt = list(row("fjlt", "Ailon, Chazelle (2009)", "Lemma 1 (FJLT)", NA,
                    "O(log(n) / eps^2), no constant stated",
                    "1 + eps (all pairwise distances)", "2/3")),
    gaussian = jl("gaussian"),
    achlioptas = jl("achlioptas")
  )
  # (the Johnson-Lindenstrauss rows need n: NULL without it)
  needs_n <- names(rows)[vapply(rows, is.null, logical(1))]
  if (any(asked %in% needs_n)) {
    stop_arg(sprintf("`n` (the number of rows) is needed for the Johnson-Lindenstrauss bound of %s.",
                     paste0("\"", needs_n, "\"", collapse = " and ")))
  }
  out <- do.call(rbind, unlist(rows[intersect(method, names(rows))], recursive = FALSE))
  # The O() constant of the sparse embedding is not stated: marked so.
  out$constant_stated[out$method == "sparse_embedding"] <- FALSE
  rownames(out) <- NULL
  out
}

# A whole number for a message: all digits while doubles hold them exactly,
# else 6 significant digits ("Inf" beyond the doubles).
format_count <- function(x) {
  if (is.finite(x) && x < 2^53) sprintf("%.0f", x) else format(x, digits = 6)
}
