#' Choose the number of clusters: objective, certificate, silhouette and gap for a range of k
#'
#' Reduces `x` once (with the dimensions the method asks for the largest
#' `k`), clusters the reduced rows for every `k`, and reports per `k` what
#' is used to choose it:
#'
#' * the objective on the original data and the share of the total sum of
#'   squares between clusters (the "elbow");
#' * the proven lower bound of [optimality_bound()] on the optimal objective
#'   and the ratio objective / bound (computed once for all `k`);
#' * the mean silhouette width (Rousseeuw 1987) of the partition of the
#'   reduced rows, with Euclidean distances: exact when `n <=
#'   silhouette_max`, otherwise on `silhouette_max` rows drawn at random
#'   (the same rows for every `k`; distances among the drawn rows, as
#'   scikit-learn's `silhouette_score(sample_size =)`);
#' * the gap statistic of Tibshirani, Walther and Hastie (2001),
#'   \eqn{Gap(k) = E^*[\log W^*_k] - \log W_k}{Gap(k) = E*[log W*_k] - log W_k},
#'   with \eqn{W_k}{W_k} the within-cluster sum of squares of the reduced rows
#'   (the paper's \eqn{W_k}{W_k}, `cluster::clusGap(d.power = 2)`) and
#'   \eqn{E^*}{E*} the mean over `B` reference sets drawn uniformly in the
#'   box of the principal axes of the reduced rows (the paper's reference
#'   "(b)", `clusGap(spaceH0 = "scaledPCA")`), each clustered exactly as the
#'   data are (the same `n_init`, seeding, polish, `iter_max` and `control`),
#'   so that the gap has no bias from a weaker search on the reference sets; its
#'   standard error is \eqn{s_k = sd_k \sqrt{1 + 1/B}}{s_k = sd_k sqrt(1 + 1/B)}.
#'   The sets are drawn and clustered in the reduced rows' own frame scaled
#'   by a power of two (exact), so the gap does not depend on the data's
#'   units, up to the largest values the package accepts.
#'
#' Values that are not defined are `NA`, with a line in `notes` saying why:
#' \eqn{\log W_k}{log W_k} and the gap when every cluster's rows are equal
#' (\eqn{W_k = 0}{W_k = 0}, e.g. `k` as large as the number of distinct rows),
#' `between_total` when all rows are equal, the silhouette for `k = 1`. The
#' rules that choose `k` skip them.
#'
#' Because the reduction is done once and every reference set is k-means on
#' `n x dims` rows, the whole path costs about `(B + 1) * length(k)` k-means
#' runs on the reduced rows, not as many runs of the full pipeline.
#'
#' **Many rows.** When the reduced rows are many (by default at least
#' `10 m` of them, `m = max(2000, 100 max(k))`; see `path_rows`), the path
#' runs on a uniform sample of `m` of them, drawn from `seed`: each `k`'s
#' k-means, the reference sets (`m` rows each, in the box of the sample's
#' principal axes, as wide as all the rows are on them), the silhouettes
#' and the rules all see the sample, and
#' \eqn{W_k}{W_k} is estimated by `n / m` times the sample's (an unbiased
#' estimate for given centres, as is `n / m` times a reference set's of
#' \eqn{W^*_k}{W*_k}). The path then costs `(B + 1) * length(k)`
#' k-means runs on `m x dims` rows, whatever `n`, plus the reduction (one
#' pass over the data, as [kmeans_reduced()]) and, for each `k` chosen by a
#' rule, one fit to every row: `path$fits[[k]]`, a `kmeans_reduced` object
#' for every row, the same as `kmeans_reduced()` gives at that `k` (the
#' statistics of each chosen `k` read the data once more). What the sample
#' costs in accuracy: the sampling error of \eqn{\log W_k}{log W_k} (a
#' relative error of \eqn{W_k}{W_k}) is of order
#' \eqn{\sqrt{v_k / m}}{sqrt(v_k / m)}, \eqn{v_k}{v_k} the squared coefficient
#' of variation of the rows' squared distances to their centres (about
#' `2 / dims` for round clusters: a few parts in a thousand for 150 dims and
#' 4000 rows), and it is about the same at neighbouring `k`, where the rules
#' compare; so the gap moves by up to a few of its standard errors, most
#' where `k` is far from the number of clusters, and a rule's choice by at
#' most a neighbour where two `k` are within a standard error.
#' A cluster with fewer than about `10 / m` of the rows (ten rows of the
#' sample) is not seen. Use `path_rows = Inf` for the exact path on every
#' row.
#'
#' The chosen `k`: by the gap statistic with the rules of
#' [cluster::maxSE()] (`"firstSEmax"`, the default of `clusGap()`, and
#' `"Tibs2001SEmax"`, the paper's: the smallest `k` with \eqn{Gap(k) \ge
#' Gap(k+1) - s_{k+1}}{Gap(k) >= Gap(k + 1) - s_(k + 1)}), applied to the
#' values of `k` in increasing order, and by the largest mean silhouette.
#'
#' @inheritParams kmeans_reduced
#' @param method Reduction method (see [reduction_methods]); `"auto"` is
#'   `"rsvd"` here, for dense and sparse `x` alike (where
#'   [kmeans_reduced()] picks `"sign"` or `"sparse_embedding"`): the top
#'   principal axes (as many as the largest `k`), where the gap statistic's
#'   reference sets live. Random projections keep the noise directions,
#'   which flattens the gap at small `k` on noisy data (on a 5000 x 500
#'   mixture of 8 clusters the gap chose 1 after `"sign"` and 8, as
#'   `clusGap()` on the data, after `"rsvd"`). `"none"` clusters `x`
#'   itself (a sparse `x` is then made dense for the silhouettes and the
#'   reference sets).
#' @param x Data, one row per observation, as [kmeans_reduced()] takes
#'   them: a numeric matrix (a numeric vector is one column), a data frame of
#'   numeric columns, a sparse `Matrix`, a file-backed
#'   `bigmemory::big.matrix` or a `DelayedMatrix` (read in blocks, reduced
#'   once); no `NA`, `NaN` or `Inf`. The cells of a `SummarizedExperiment`,
#'   `SingleCellExperiment` or of `t()` of a `TENxMatrix`:
#'   [k_path.SummarizedExperiment()]. Rows on MPI ranks ([mpi_rows()]) are
#'   not taken: the path is one process's work.
#' @param k The numbers of clusters to compare, whole numbers >= 1 (the gap
#'   rules compare neighbours in increasing `k`, so use consecutive values;
#'   `k = 1`, where the gap can say "no clusters", has no silhouette). The
#'   default `1:10` stops at the number of distinct rows of `x` when that is
#'   smaller.
#' @param dims Dimensions of the reduction, by default the method's default
#'   for the largest `k`.
#' @param n_init k-means++ replicates for each `k` on the data.
#' @param B Number of reference sets of the gap statistic: 0 (no gap) or at
#'   least 2 (its standard error needs two).
#' @param n_init_reference Replicates for each `k` on each reference set; by
#'   default `n_init`, as on the data. Fewer cost less but leave the
#'   reference sets in worse local optima than the data, which raises the
#'   gap: a bias towards more clusters.
#' @param silhouette_max Largest number of rows for the exact silhouette.
#' @param bound Compute the optimality certificate: `NULL` (the default)
#'   computes it for rows in memory (it needs their spectrum), not for rows
#'   read in blocks.
#' @param path_rows The rows the path runs on: `"auto"` (a uniform sample of
#'   `m = max(2000, 100 max(k))` reduced rows when there are at least `10 m`,
#'   else all of them), a whole number `m` (a sample of `m` rows when there
#'   are more; at least the largest `k`) or `Inf` (every row). See "Many
#'   rows" above.
#' @param trace `TRUE` prints one line per `k` on the data (its objective and
#'   \eqn{\log W_k}{log W_k}) and one per reference set, with the step and
#'   the seconds so far (instead of `verbose`'s progress bar); it never
#'   changes the result.
#' @param ... Passed to the methods; the default method takes none beyond
#'   those named here (a misspelt argument is an error).
#' @param verbose Show a progress bar.
#' @return An object of class `kmreduce_kpath`: a list with `results` (one
#'   row per `k`: `k`, `objective`, `between_total`, `lower` and `ratio` (the
#'   certificate, `NA` without `bound`), `silhouette`, `logW`, `E_logW`,
#'   `gap`, `gap_se`), `chosen` (the `k` of the rules `gap_firstSEmax`,
#'   `gap_Tibs2001SEmax` and `silhouette`; `NA` when no value is defined),
#'   `notes` (why values are `NA`), `fits` (the `kmeans_reduced`
#'   fit of each `k`, `path$fits[[k]]`; on a sample of the rows, of each `k`
#'   chosen by a rule only), `fit` (the fit at the `k` chosen by the gap
#'   statistic's `"firstSEmax"`, else by the silhouette; `NULL` when neither
#'   chose one), `method`, `dims`, `seed`, `B`,
#'   `silhouette_n` (rows used) and `silhouette_rows` (which, when a
#'   sample of the path's rows), `n`, `d`, `path_rows` (the rows the path
#'   ran on: `n`, or the sample's `m`) and `path_index` (which rows, when a
#'   sample; `NULL` otherwise) and `timing`. On a sample, `objective` is
#'   the estimate of the within-cluster sum of squares of all the reduced
#'   rows (`n / m` times the sample's, in the reduced space) and
#'   `between_total` that of the sample. `logW` is the logarithm of the
#'   paper's \eqn{W_k}{W_k}, the within-cluster sum of squares; `clusGap()`'s
#'   `logW` with `d.power = 2` is that of half of it (the gap is the same). Each fit uses the
#'   path's reduction and `seed`; for the projections (whose reduction does
#'   not depend on `k`) `kmeans_reduced(x, k, method, dims = path$dims,
#'   seed = path$seed, n_init = n_init)` gives the same fit.
#' @references Tibshirani, R., Walther, G. and Hastie, T. (2001). Estimating
#'   the number of clusters in a data set via the gap statistic. *Journal of
#'   the Royal Statistical Society B* 63(2), 411--423.
#'
#'   Rousseeuw, P. J. (1987). Silhouettes: a graphical aid to the
#'   interpretation and validation of cluster analysis. *Journal of
#'   Computational and Applied Mathematics* 20, 53--65.
#' @seealso [optimality_bound()], [dims_path()].
#' @examples
#' x <- fashion_mnist$x[1:1000, ] / 255
#' path <- k_path(x, k = 1:8, B = 5, seed = 1)
#' path
#' plot(path)
#' path$chosen
#' path$fits[[5]]
#' @export
k_path <- function(x, ...) UseMethod("k_path")

#' @rdname k_path
#' @export
k_path.default <- function(x, k = 1:10, method = "auto", dims = NULL, n_init = 10L, B = 20L,
                           n_init_reference = n_init, seed = NULL, silhouette_max = 4000L,
                           bound = NULL, iter_max = 100L, n_threads = NULL, control = list(),
                           verbose = interactive(), path_rows = "auto", trace = FALSE, ...) {
  hold_sources()  # (memory sources take outside R's heap: freed on return)
  on.exit(leave_sources(), add = TRUE)
  call <- match.call()
  check_dots_empty(..., fun = "k_path")
  t_start <- elapsed()
  control <- check_control(control)
  src <- path_source(x, control)
  a <- path_args(src, k, missing(k), method, dims, n_init, B, n_init_reference, silhouette_max,
                 bound, iter_max, n_threads, verbose, control, path_rows, trace)
  seed <- resolve_seed(seed)
  use_source(src, file_cache_budget(control$file_cache), a$n_threads)
  x <- src$data
  k <- a$k
  method <- a$method
  n_threads <- a$n_threads

  # One reduction for every k.
  t0 <- elapsed()
  fitted <- reduce_source(src, fit_source_reducer(src, method, a$dims, max(k), seed, n_threads,
                                                  control),
                          n_threads, control$block_rows, 0)
  t_reduce <- elapsed() - t0
  space <- path_space(x, method, fitted, n_threads)
  # (many rows: the path on a uniform sample of the reduced rows)
  drawn <- path_sample(n_rows(src), a$path_rows, max(k), seed)

  steps <- length(k) * (1L + a$B) + 1L
  bar <- if (a$verbose && !a$trace) utils::txtProgressBar(max = steps, style = 3) else NULL
  tick <- path_progress(bar, a$trace, steps)
  if (is.null(drawn)) {
    rows <- space$rows
    log_w <- path_log_w(rows, space$unit, n_threads)
    path <- path_fits(src, x, call$x, fitted, k, method, a$n_init, a$iter_max, seed, n_threads,
                      control, t0, t_reduce, rows, log_w, tick)
  } else {
    rows <- space$rows[drawn, , drop = FALSE]
    # (the sample's sums of squares times n / m: estimates of all rows')
    log_w <- path_log_w(rows, space$unit * sqrt(n_rows(src) / length(drawn)), n_threads)
    path <- path_sample_fits(rows, k, method, a$n_init, a$iter_max, seed, n_threads, control,
                             log_w, tick)
  }
  sil <- path_silhouettes(rows, path$labels, k, a$silhouette_max, seed, n_threads)
  gap <- path_gap(rows, k, a$B, seed, a$n_init_reference, a$iter_max, control, method,
                  n_threads, log_w, tick, space$rows)
  chosen <- path_chosen(k, gap$e_logw - path$logw, gap$gap_se, sil$sil)
  if (!is.null(drawn)) {
    # (only the chosen k fitted to every row, as kmeans_reduced() fits it)
    lift <- sort(unique(chosen[!is.na(chosen)]))
    if (length(lift) > 0L) {
      path$fits <- path_fits(src, x, call$x, fitted, lift, method, a$n_init, a$iter_max, seed,
                             n_threads, control, t0, t_reduce, NULL, NULL,
                             function(i, text) tick(steps, sub("on the data", "on every row", text)))$fits
    }
  }
  cert <- path_bound(x, path$fits, k, max(k), a$bound, seed, n_threads)
  tick(steps)
  if (!is.null(bar)) close(bar)

  path_result(src, k, path, sil, gap, cert, chosen, method, fitted$reducer$dims, seed, a$B,
              a$n_init, a$n_init_reference, t_reduce, t_start, drawn)
}

# The row source of k_path()'s `x`: data in memory checked as before
# (check_data()), rows read in blocks (a big.matrix, a DelayedMatrix, a 10x
# file's cells) as kmeans_reduced() checks them (checked_source()). Rows on
# MPI ranks are not taken: the reference sets and silhouettes are one
# process's work.
path_source <- function(x, control) {
  src <- as_row_source(x)
  if (!is.null(src$mpi)) {
    stop_arg(paste0("`x` is a set of distributed rows (mpi_rows()); k_path() runs in one process ",
                    "(its reference sets and silhouettes are one process's work). Run it on one ",
                    "process: on a sample of the rows, or on a file-backed source (a big.matrix, ",
                    "a DelayedMatrix or a 10x file) that it reads in blocks."))
  }
  if (isTRUE(src$in_memory)) {
    return(as_row_source(check_data(x, "x", vector_column = TRUE)))
  }
  checked_source(src, control$block_rows, TRUE)
}

# The checked arguments of k_path() for the rows of `src` (`default_k`: k
# was not given).
path_args <- function(src, k, default_k, method, dims, n_init, B, n_init_reference,
                      silhouette_max, bound, iter_max, n_threads, verbose, control, path_rows,
                      trace) {
  if (!is.numeric(k) || length(k) == 0L || anyNA(k) || any(k < 1) || any(k != round(k)) ||
      anyDuplicated(k)) {
    stop_arg(sprintf("`k` must be distinct whole numbers >= 1, not %s.", describe(k)))
  }
  k <- as.integer(sort(k))
  x <- src$data
  if (default_k && isTRUE(src$in_memory) && max(k) > 1L && !has_distinct_rows_cpp(x, max(k))) {
    k <- k[k <= distinct_rows_cpp(x)]  # the default stops at the distinct rows
  }
  k_max <- check_source_k(src, max(k))
  method <- check_method(method)
  # "auto": the randomized SVD, the data's top k_max principal axes. The gap
  # statistic compares the data with uniform sets in the box of their
  # principal axes; a random projection keeps the noise directions too, which
  # flattens the gap at small k on noisy data (a 5000 x 500 mixture of 8:
  # the gap chose 1 after "sign", 8 after "rsvd" as clusGap() on the data).
  if (method == "auto") method <- "rsvd"
  check_source_method(src, method, control)
  n <- n_rows(src)
  dims <- check_dims(dims, method, k_max, n, n_cols(src))
  B <- check_whole(B, "B", 0, 1e4)
  if (B == 1L) {
    stop_arg("`B` must be 0 (no gap statistic) or at least 2 (its standard error needs two reference sets), not 1.")
  }
  # (the certificate needs the rows in memory: by default computed there)
  bound <- if (is.null(bound)) isTRUE(src$in_memory) else check_flag(bound, "bound")
  if (bound && !isTRUE(src$in_memory)) {
    stop_arg(sprintf(paste0("`bound = TRUE` needs the rows in memory (its spectrum is that of `x`), ",
                            "not %s: give bound = FALSE."), describe_source(src)))
  }
  check_memory(8 * as.numeric(n) * (dims + 8),
               sprintf("k_path() on the %s x %s reduced data", format(n), format(dims)),
               "Use fewer dimensions (`dims`), or a sample of the rows.")
  list(k = k, method = method, dims = dims, B = B, bound = bound,
       n_init = check_whole(n_init, "n_init", 1, 1e6),
       n_init_reference = check_whole(n_init_reference, "n_init_reference", 1, 1e6),
       silhouette_max = check_whole(silhouette_max, "silhouette_max", 2, 1e5),
       iter_max = check_whole(iter_max, "iter_max", 1, 1e8),
       n_threads = check_n_threads(n_threads), verbose = check_flag(verbose, "verbose"),
       path_rows = check_path_rows(path_rows, k_max), trace = check_flag(trace, "trace"))
}

# The progress of the path, step `i` of `steps` (each k on the data, then
# each k on each reference set): the progress bar `bar` (NULL: none), and
# with `trace` the line `text` of a step that has one, with the seconds
# since the start.
path_progress <- function(bar, trace, steps) {
  t0 <- elapsed()
  function(i, text = NULL) {
    if (!is.null(bar)) utils::setTxtProgressBar(bar, i)
    if (trace && !is.null(text)) {
      cat(sprintf("k_path: %s [step %d of %d, %.1f s]\n", text, i, steps, elapsed() - t0))
    }
  }
}

# `path_rows`: "auto", Inf or a whole number of rows, at least the largest k.
check_path_rows <- function(path_rows, k_max) {
  if (identical(path_rows, "auto") || identical(path_rows, Inf)) return(path_rows)
  if (!is_whole(path_rows) || path_rows < max(2, k_max)) {
    stop_arg(sprintf(paste0("`path_rows` must be \"auto\", Inf or a whole number of rows >= %d ",
                            "(at least the largest k), not %s."), max(2L, k_max), describe(path_rows)))
  }
  path_rows
}

# The rows the path runs on: NULL for all n rows, else the m rows of a
# uniform sample, increasing. `path_rows` "auto": m = max(2000, 100 k_max),
# as the replicates' sketches of kmeans_reduced() (control$sketch_rows),
# drawn when there are at least 10 m rows; a number m: drawn when there
# are more. From its own stream of `seed` (not that of the silhouettes' or
# of the randomized SVD's sample of rows).
path_sample <- function(n, path_rows, k_max, seed) {
  if (identical(path_rows, Inf)) return(NULL)
  m <- if (identical(path_rows, "auto")) max(2000, 100 * k_max) else path_rows
  if (if (identical(path_rows, "auto")) n < 10 * m else n <= m) return(NULL)
  # (a stream of its own: not the rows the reduction sampled)
  sample_index(n, m, seed, stream = 2^32 + 13)
}

# The rows k-means sees (around the origin): the reduced rows, or x minus
# the reducer's shift (a sparse x made dense, minus a point among its rows,
# robust_shift_cpp()), in a frame scaled by a power of two (exact):
# the reference sets drawn there and their sums of squares stay finite
# however large or small the data, and the silhouettes do not change.
# Returns the rows and the scale `unit`.
path_space <- function(x, method, fitted, n_threads) {
  space <- if (method == "none") {
    xd <- as.matrix(x)
    storage.mode(xd) <- "double"
    sweep(xd, 2L, if (is.null(fitted$reducer$shift)) robust_shift_cpp(xd, n_threads) else fitted$reducer$shift)
  } else {
    fitted$reduced
  }
  storage.mode(space) <- "double"
  top <- max(abs(space))
  unit <- if (top > 0) 2^ceiling(log2(top)) else 1
  list(rows = space / unit, unit = unit)
}

# log W_k, as a function of the rows, their partition and k: W_k (the within
# sum of squares of `rows`' partition in the frame of `space`, on the
# original scale of log W) summed directly from the means (Lloyd's closed
# form cancels when W_k is far below the total); NA when it is rounding only
# (every cluster's rows equal: the log is undefined).
path_log_w <- function(space, unit, n_threads) {
  zero_w <- 4 * nrow(space) * .Machine$double.eps^2 * sum(space^2)
  function(rows, cluster, q) {
    w <- sum(cpp_stats(rows, cluster, q, n_threads)$withinss)
    if (w > zero_w) log(w) + 2 * log(unit) else NA_real_
  }
}

# The kmeans_reduced fit of every k on the one reduction (`fits[[k]]`), and
# its log W_k.
path_fits <- function(src, x, x_call, fitted, k, method, n_init, iter_max, seed, n_threads,
                      control, t0, t_reduce, space, log_w, tick) {
  fits <- vector("list", max(k))
  logw <- numeric(length(k))
  for (i in seq_along(k)) {
    run <- cluster_reduced(src, x, fitted$reducer, fitted$reduced, k[i], NULL, n_init, iter_max,
                           seed, n_threads, control, FALSE, 0)
    # (the call of kmeans_reduced() that gives this fit for the projections)
    fit_call <- as.call(list(quote(kmeans_reduced), x = x_call, k = k[i], method = method,
                             dims = fitted$reducer$dims, n_init = n_init, seed = seed))
    fits[[k[i]]] <- finish_fit(run, src, 0L, n_threads, control, FALSE, seed, fit_call, 1L,
                               run$objective, t_reduce, run$time, t0, iter_max)
    if (!is.null(log_w)) logw[i] <- log_w(space, fits[[k[i]]]$cluster, k[i])
    tick(i, sprintf("k = %d on the data: objective %.7g%s", k[i], fits[[k[i]]]$tot.withinss,
                    if (!is.null(log_w)) sprintf(", log W_k %.6g", logw[i]) else ""))
  }
  list(fits = fits, logw = logw,
       labels = lapply(k, function(q) fits[[q]]$cluster),
       objective = vapply(k, function(q) fits[[q]]$tot.withinss, numeric(1)),
       totss = if (length(k) > 0L) fits[[k[1L]]]$totss)
}

# The path on a sample of the reduced rows (`rows`, m of the n): for each
# k, k-means as kmeans_reduced() runs it on reduced rows (source_kmeans(),
# the same replicates, seeding and polish) and log W_k estimated as
# log(n / m) plus that of the sample (log_w()); `objective` is that
# estimate of the within-cluster sum of squares of all the reduced rows,
# `totss` their total sum of squares estimated alike.
path_sample_fits <- function(rows, k, method, n_init, iter_max, seed, n_threads, control,
                             log_w, tick) {
  src <- as_row_source(rows)
  logw <- numeric(length(k))
  labels <- vector("list", length(k))
  for (i in seq_along(k)) {
    km <- source_kmeans(src, rows, k[i], NULL, n_init, iter_max, control$tol, seed, n_threads,
                        FALSE, 0, NULL, kmeans_settings(control, method))
    labels[[i]] <- km$cluster
    logw[i] <- log_w(rows, km$cluster, k[i])
    tick(i, sprintf("k = %d on the sample of %d rows: log W_k %.6g (estimate)", k[i], nrow(rows),
                    logw[i]))
  }
  log_total <- log_w(rows, rep.int(1L, nrow(rows)), 1L)
  list(fits = list(), logw = logw, labels = labels,
       objective = ifelse(is.na(logw), 0, exp(logw)),
       totss = if (is.na(log_total)) 0 else exp(log_total))
}

# Mean silhouette width of every k (`labels`: the partition of `space` for
# each): exact, or on a random sample of rows (the same for every k). Returns the widths (`sil`, NA for k = 1) and the rows used.
path_silhouettes <- function(space, labels, k, silhouette_max, seed, n_threads) {
  n <- nrow(space)
  rows <- if (n <= silhouette_max) seq_len(n) else {
    order(uniform_box_cpp(n, 0, 1, seed, 2^32, 1L)[, 1L])[seq_len(silhouette_max)]
  }
  # (one pass over the pairwise distances serves every k)
  labels <- vapply(labels, function(l) unname(l[rows]), integer(length(rows)))
  widths <- silhouette_cpp(space[rows, , drop = FALSE], matrix(labels, ncol = length(k)), k,
                           n_threads)
  list(sil = ifelse(k == 1L, NA_real_, colMeans(widths)), rows = rows)
}

# Gap: B reference sets, uniform in the box of the principal axes of the
# centred reduced rows (k-means is invariant to the rotation, so the sets
# are clustered in the principal coordinates themselves), each clustered
# by the same call as the data (source_kmeans() with the data's
# replicates, seeding and polish). Returns log W*_k of every set (`logw_star`,
# NULL when B = 0), its mean and the gap's standard error (NA when B = 0).
path_gap <- function(space, k, B, seed, n_init_reference, iter_max, control, method,
                     n_threads, log_w, tick, all_rows = space) {
  n <- nrow(space)
  e_logw <- gap_se <- rep(NA_real_, length(k))
  if (B == 0L) return(list(logw_star = NULL, e_logw = e_logw, gap_se = gap_se))
  box <- path_box(all_rows, svd(sweep(space, 2L, colMeans(space)), nu = 0L)$v)
  lo <- box$lo
  hi <- box$hi
  logw_star <- matrix(NA_real_, B, length(k))
  for (b in seq_len(B)) {
    ref <- uniform_box_cpp(n, lo, hi, seed, b - 1, n_threads)
    ref_src <- as_row_source(ref)
    seed_b <- derive_seed_cpp(seed, b)
    for (i in seq_along(k)) {
      km <- source_kmeans(ref_src, ref, k[i], NULL, n_init_reference, iter_max, control$tol,
                          seed_b, n_threads, FALSE, 0, NULL,
                          kmeans_settings(control, method))
      logw_star[b, i] <- log_w(ref, km$cluster, k[i])
      tick(length(k) * b + i, if (i == length(k)) {
        sprintf("reference set %d of %d clustered for k = %s", b, B, paste(range(k), collapse = "..."))
      })
    }
  }
  # (a set with W* = 0 leaves E log W* undefined: NA)
  list(logw_star = logw_star, e_logw = colMeans(logw_star),
       gap_se = sqrt(1 + 1 / B) * apply(logw_star, 2L, stats::sd))
}

# The box of the reference sets: the range of `rows` on the axes `v` (on a
# sample of the rows, the axes of the sample and the range of all rows, as
# the reference sets of all rows would have it: a sample's range is
# narrower), taken in blocks of rows.
path_box <- function(rows, v) {
  n <- nrow(rows)
  lo <- rep(Inf, ncol(v))
  hi <- rep(-Inf, ncol(v))
  step <- max(1L, floor(2^22 / max(1L, ncol(v))))
  for (first in seq(1L, n, by = step)) {
    pc <- rows[first:min(n, first + step - 1L), , drop = FALSE] %*% v
    lo <- pmin(lo, apply(pc, 2L, min))
    hi <- pmax(hi, apply(pc, 2L, max))
  }
  list(lo = lo, hi = hi)
}

# Certificate for every k from one spectrum: the lower bound and the ratio
# objective / bound (NA without `bound`).
path_bound <- function(x, fits, k, k_max, bound, seed, n_threads) {
  lower <- ratio <- rep(NA_real_, length(k))
  if (bound) {
    tb <- bound_tops(x, k_max - 1L, "auto", 5000L, 4L, seed, n_threads)
    for (i in seq_along(k)) {
      if (length(fits) < k[i] || is.null(fits[[k[i]]])) next  # (not fitted to all rows)
      b <- bound_of(tb, fits[[k[i]]]$tot.withinss, k[i])
      lower[i] <- b$lower
      ratio[i] <- b$ratio
    }
  }
  list(lower = lower, ratio = ratio)
}

# The kmreduce_kpath object: the table per k, the chosen k, the notes and the
# fits, from the stages' results.
path_result <- function(src, k, path, sil, gap, cert, chosen, method, dims, seed, B, n_init,
                        n_init_reference, t_reduce, t_start, drawn) {
  fits <- path$fits
  logw <- path$logw
  n <- n_rows(src)
  m <- if (is.null(drawn)) n else length(drawn)  # (the rows of the path)
  objective <- path$objective
  totss <- path$totss
  ratio <- cert$ratio
  # A zero objective is optimal: its ratio to a zero bound is not defined.
  ratio[objective == 0 & !is.na(cert$lower) & cert$lower == 0] <- NA_real_
  gap_k <- gap$e_logw - logw
  results <- data.frame(k = k, objective = objective,
                        between_total = if (totss > 0) pmax(0, 1 - objective / totss) else NA_real_,
                        lower = cert$lower, ratio = ratio, silhouette = sil$sil, logW = logw,
                        E_logW = gap$e_logw, gap = gap_k, gap_se = gap$gap_se)
  notes <- path_notes(k, totss, logw, logw_star = gap$logw_star)
  chosen_fit <- chosen[c("gap_firstSEmax", "silhouette")]
  chosen_fit <- chosen_fit[!is.na(chosen_fit)]
  structure(list(results = results, chosen = chosen, notes = notes, fits = fits,
                 fit = if (length(chosen_fit) > 0L) fits[[chosen_fit[[1L]]]],
                 method = method, dims = dims, seed = seed, B = B,
                 silhouette_n = length(sil$rows),
                 silhouette_rows = if (length(sil$rows) < m) sil$rows,
                 n = n, d = n_cols(src), n_init = n_init, n_init_reference = n_init_reference,
                 path_rows = m, path_index = drawn,
                 timing = c(reduce = t_reduce, total = elapsed() - t_start)),
            class = "kmreduce_kpath")
}

# The k chosen by each rule: the gap statistic's (cluster::maxSE()'s
# "firstSEmax" and "Tibs2001SEmax") and the largest mean silhouette.
path_chosen <- function(k, gap, se, sil) {
  c(gap_firstSEmax = gap_choice(k, gap, se, "firstSEmax"),
    gap_Tibs2001SEmax = gap_choice(k, gap, se, "Tibs2001SEmax"),
    silhouette = if (any(!is.na(sil))) k[which.max(sil)] else NA_integer_)
}

# The k chosen by a gap rule among the k whose gap and standard error are
# defined (NA when none is).
gap_choice <- function(k, gap, se, rule) {
  ok <- !is.na(gap) & !is.na(se)
  if (!any(ok)) return(NA_integer_)
  k[ok][gap_rule(gap[ok], se[ok], rule)]
}

# Why values of the path are NA.
path_notes <- function(k, totss, logw, logw_star) {
  notes <- character(0)
  if (totss == 0) {
    notes <- c(notes, "all rows are equal: between_total is not defined (NA).")
  }
  if (any(is.na(logw))) {
    notes <- c(notes, sprintf(paste0("k = %s: the rows of every cluster are equal (W_k = 0), so ",
                                     "log W_k and the gap are not defined (NA)."),
                              paste(k[is.na(logw)], collapse = ", ")))
  }
  star <- if (!is.null(logw_star)) colSums(is.na(logw_star)) > 0 else rep(FALSE, length(k))
  if (any(star & !is.na(logw))) {
    notes <- c(notes, sprintf(paste0("k = %s: a reference set has W*_k = 0 (as many clusters ",
                                     "as rows), so E log W*_k and the gap are not defined (NA)."),
                              paste(k[star & !is.na(logw)], collapse = ", ")))
  }
  notes
}

# Position of the chosen k by a gap rule (as cluster::maxSE() defines them;
# `f` the gap values in increasing k, `se` their standard errors).
gap_rule <- function(f, se, rule) {
  K <- length(f)
  first_max <- function() {
    decr <- diff(f) <= 0
    if (any(decr)) which.max(decr) else K
  }
  switch(rule,
    firstSEmax = {
      nc <- first_max()
      within <- f[seq_len(nc - 1L)] >= f[nc] - se[nc]
      if (any(within)) which(within)[1L] else nc
    },
    Tibs2001SEmax = {
      within <- f[-K] >= (f - se)[-1L]
      if (any(within)) which.max(within) else K
    })
}

#' @rdname k_path
#' @param row.names,optional Ignored (for the generic).
#' @export
as.data.frame.kmreduce_kpath <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$results
}

#' @rdname k_path
#' @param object A `kmreduce_kpath`.
#' @param ... Ignored.
#' @export
summary.kmreduce_kpath <- function(object, ...) {
  object$results
}

#' @rdname k_path
#' @export
print.kmreduce_kpath <- function(x, ...) {
  cat(sprintf("kmreduce k path: %d x %d data, %s, %d dims, k = %s (seed %s)\n",
              x$n, x$d, method_label(x$method), x$dims,
              paste(range(x$results$k), collapse = "..."), format(x$seed, scientific = FALSE)))
  r <- x$results[c("k", "objective", "between_total", "ratio", "silhouette", "gap", "gap_se")]
  print(format(r, digits = 4), row.names = FALSE)
  m <- if (is.null(x$path_rows)) x$n else x$path_rows
  if (m < x$n) {
    cat(sprintf(paste0("on %s reduced rows drawn at random of %s (objective: the estimate of ",
                       "all rows' in the reduced space); fitted to every row: k = %s\n"),
                format(m), format(x$n),
                paste(which(!vapply(x$fits, is.null, logical(1))), collapse = ", ")))
  }
  if (x$silhouette_n < m) {
    cat(sprintf("silhouette on %d rows drawn at random of %s\n", x$silhouette_n, format(m)))
  }
  ch <- x$chosen
  cat(sprintf("chosen k: gap (firstSEmax) %s, gap (Tibs2001SEmax) %s, silhouette %s\n",
              ch[["gap_firstSEmax"]], ch[["gap_Tibs2001SEmax"]], ch[["silhouette"]]))
  if (length(x$notes) > 0L) cat(paste0("note: ", x$notes, "\n"), sep = "")
  invisible(x)
}

#' @rdname k_path
#' @param which Panels: any of `"gap"` (the gap statistic with its standard
#'   errors), `"silhouette"`, `"between_total"` (the share of the total sum
#'   of squares between clusters), `"objective"` (the elbow) and
#'   `"certificate"` (objective and its proven lower bound). Panels without a
#'   defined value on the path are left out. The `k` chosen by the gap
#'   statistic (`"firstSEmax"`) is marked in each panel, and in the
#'   silhouette's that of the silhouette.
#' @export
plot.kmreduce_kpath <- function(x, which = c("gap", "silhouette", "between_total", "certificate"),
                                ...) {
  ok <- c("gap", "silhouette", "between_total", "objective", "certificate")
  if (!is.character(which) || length(which) == 0L || !all(which %in% ok)) {
    stop_arg(sprintf("`which` must be a subset of %s, not %s.",
                     paste0("\"", ok, "\"", collapse = ", "), describe(which)))
  }
  r <- x$results
  # (panels without a defined value are left out: k = 1 alone has no
  # silhouette, a path without reference sets no gap)
  if (all(is.na(r$silhouette))) which <- setdiff(which, "silhouette")
  if (all(is.na(r$gap) | is.na(r$gap_se))) which <- setdiff(which, "gap")
  if (all(is.na(r$between_total))) which <- setdiff(which, "between_total")
  if (all(is.na(r$lower))) which <- setdiff(which, "certificate")
  if (length(which) == 0L) {
    stop_arg("nothing to draw: the panels asked for in `which` have no defined value on this path.")
  }
  old <- graphics::par(mfrow = c(1L, length(which)), mar = c(4.2, 4.2, 3.4, 0.8))
  on.exit(graphics::par(old))
  col <- cluster_colours(4L)
  sampled <- !is.null(x$path_rows) && x$path_rows < x$n
  for (w in which) {
    kk <- x$chosen[[if (w == "silhouette") "silhouette" else "gap_firstSEmax"]]
    y <- switch(w, gap = r$gap, silhouette = r$silhouette, between_total = r$between_total,
                r$objective)
    yr <- switch(w, gap = range(c(r$gap - r$gap_se, r$gap + r$gap_se), na.rm = TRUE),
                 certificate = range(c(0, r$objective, r$lower), na.rm = TRUE),
                 range(y, na.rm = TRUE))
    graphics::plot(r$k, y, type = "b", pch = 19, ylim = yr, xlab = "k",
                   col = switch(w, gap = col[3L], silhouette = col[2L], between_total = col[4L],
                                objective = col[1L], "black"),
                   ylab = switch(w, gap = "gap statistic", silhouette = "mean silhouette width",
                                 between_total = "betweenss / totss",
                                 objective = if (sampled) "W_k (estimate, reduced rows)" else
                                   "objective (tot.withinss)", "objective"),
                   main = switch(w, gap = "Gap (+- 1 s.e.)", silhouette = "Silhouette",
                                 between_total = "Between / total", objective = "Elbow",
                                 "Objective and proven lower bound"), ...)
    if (w == "gap") {
      bar <- !is.na(r$gap) & !is.na(r$gap_se) & r$gap_se > 0
      if (any(bar)) {
        graphics::arrows(r$k[bar], (r$gap - r$gap_se)[bar], r$k[bar], (r$gap + r$gap_se)[bar],
                         angle = 90, code = 3, length = 0.04, col = col[3L])
      }
    }
    if (w == "certificate") {
      graphics::lines(r$k, r$lower, type = "b", pch = 1, lty = 2)
      graphics::legend("topright", c("objective", "lower bound on the optimum"),
                       lty = c(1, 2), pch = c(19, 1), bty = "n", cex = 0.8)
    }
    if (!is.na(kk)) {
      graphics::abline(v = kk, lty = 3, col = "grey40")
      graphics::points(kk, y[r$k == kk], pch = 1, cex = 2, col = "grey20")
      graphics::mtext(sprintf("chosen k = %d", kk), side = 3, line = 0.2, cex = 0.75)
    }
  }
  invisible(x)
}

#' @rdname k_path
#' @usage \method{autoplot}{kmreduce_kpath}(object, ...)
#' @exportS3Method ggplot2::autoplot
autoplot.kmreduce_kpath <- function(object, ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    stop_arg("autoplot() needs the ggplot2 package: install.packages(\"ggplot2\").")
  }
  r <- object$results
  panel <- function(name, y, se = NA_real_) {
    data.frame(k = r$k, panel = name, value = y, se = se, stringsAsFactors = FALSE)
  }
  long <- rbind(panel("objective", r$objective), panel("between/total", r$between_total),
                panel("silhouette", r$silhouette),
                if (!all(is.na(r$gap))) panel("gap", r$gap, r$gap_se),
                if (!all(is.na(r$lower))) panel("lower bound", r$lower))
  long <- long[!is.na(long$value), , drop = FALSE]
  levels <- c("objective", "lower bound", "between/total", "silhouette", "gap")
  long$panel <- factor(long$panel, levels = levels)
  # (the k chosen by the gap statistic, and by the silhouette in its panel)
  chosen <- object$chosen
  marks <- data.frame(panel = factor(levels, levels = levels),
                      k = ifelse(levels == "silhouette", chosen[["silhouette"]],
                                 chosen[["gap_firstSEmax"]]))
  marks <- marks[!is.na(marks$k) & marks$panel %in% long$panel, , drop = FALSE]
  ggplot2::ggplot(long, ggplot2::aes(x = .data$k, y = .data$value)) +
    ggplot2::geom_vline(data = marks, ggplot2::aes(xintercept = .data$k), linetype = 3,
                        colour = "grey40") +
    ggplot2::geom_line() + ggplot2::geom_point() +
    ggplot2::geom_errorbar(data = long[!is.na(long$se), , drop = FALSE],
                           ggplot2::aes(ymin = .data$value - .data$se,
                                        ymax = .data$value + .data$se), width = 0.2) +
    ggplot2::facet_wrap(~panel, scales = "free_y") +
    ggplot2::labs(x = "k", y = NULL,
                  title = sprintf("Choosing k: %s, %d dims", object$method, object$dims)) +
    ggplot2::theme_minimal()
}
