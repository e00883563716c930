#' Quality and time of reduction methods over a range of dimensions
#'
#' Runs [kmeans_reduced()] for every method in `methods` and every number of
#' dimensions in `dims` (and `repeats` times each, with seeds derived from
#' `seed`), plus the full k-means (`method = "none"`) as a reference, and
#' collects what the experiments of the papers report: the objective on the
#' original data (also normalized by \eqn{\|A\|_F^2}{||A||_F^2}), the accuracy, adjusted
#' Rand index and normalized mutual information against `truth` when given,
#' and the reduction and clustering times. `plot()` draws the three panels of
#' the papers' figures (time, normalized objective and accuracy against
#' `dims`), with the full k-means as a dashed reference line. The reference
#' runs with `reference_n_init` starts (10 by default) so that it is the best
#' partition the full k-means finds, not one start's; each method has a fixed
#' colour in every plot: black for the full k-means, then the Tableau 10
#' palette in the order of the method table of [reduction_methods] (methods
#' beyond ten take the further colours of [cluster_colours()], all distinct).
#'
#' @inheritParams kmeans_reduced
#' @param methods Reduction methods to compare (see [reduction_methods]).
#' @param dims Numbers of dimensions, whole numbers. Values a method does not
#'   allow (above `min(dim(x))` for `"svd"`, `"rsvd"`, `"cssp"`) are skipped.
#' @param truth Optional true labels, one per row of `x`.
#' @param repeats Runs per method and number of dimensions (seeds derived
#'   from `seed`); the papers average over such runs.
#' @param reference Also run the full k-means (`method = "none"`).
#' @param reference_n_init Starts of the full k-means reference.
#' @param verbose Show a progress bar.
#' @param protocol `"custom"` (the arguments as given) or `"paper"`: the
#'   protocol of Boutsidis et al. (2015), section 7, for every method and the
#'   reference: k-means with 5 k-means++ replicates of at most 500 Lloyd
#'   iterations, and every figure the mean of 5 independent runs
#'   (`n_init = 5`, `reference_n_init = 5`, `iter_max = 500`, `repeats = 5`;
#'   giving any of these too is an error). The paper's Synth data:
#'   [synth_data()].
#' @param ... Passed to [kmeans_reduced()] (e.g. `control`).
#' @return An object of class `kmreduce_path`: a list with `results` (one row
#'   per run: `method`, `dims`, `rep`, `seed`, `objective`, `normalized`,
#'   `accuracy`, `ari`, `nmi` (`NA` without `truth`), `reduce_time`,
#'   `cluster_time`, `total_time` (seconds, to 0.1 ms)), `k`, `n`, `d`. The
#'   seed of each run is a whole number below 2^31 that reproduces it with
#'   [kmeans_reduced()]. `as.data.frame()` returns
#'   `results`; `summary()` the means per method and `dims`.
#' @references Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P.
#'   (2015). Randomized dimensionality reduction for k-means clustering.
#'   *IEEE Transactions on Information Theory* 61(2), 1045--1062 (Figures
#'   1--3 are such paths).
#' @examples
#' x <- fashion_mnist$x[1:1000, ] / 255
#' path <- dims_path(x, 10, methods = c("sign", "leverage"), dims = c(10, 20, 40),
#'                   truth = fashion_mnist$label[1:1000], seed = 1)
#' head(as.data.frame(path))
#' plot(path)
#' @export
dims_path <- function(x, k, methods = c("sign", "sparse_embedding", "leverage"),
                      dims = c(5L, 10L, 20L, 50L, 100L), truth = NULL, seed = NULL,
                      n_init = 1L, repeats = 1L, reference = TRUE,
                      reference_n_init = 10L, n_threads = NULL,
                      verbose = interactive(), protocol = c("custom", "paper"), ...) {
  protocol <- if (missing(protocol)) "custom" else
    check_choice(protocol, "protocol", c("custom", "paper"))
  dots <- ...names()
  # `nstart` (stats::kmeans()'s name) would reach kmeans_reduced() beside the
  # `n_init` (or `reference_n_init`) set here, and the error there would name
  # an argument the user did not give.
  if ("nstart" %in% dots) {
    stop_arg("`nstart` is not an argument of dims_path(): give `n_init` (the methods' replicates) and `reference_n_init` (the reference's).")
  }
  if (protocol == "paper") {
    iter_arg <- intersect(c("iter_max", "iter.max"), dots)
    given <- c(n_init = !missing(n_init), repeats = !missing(repeats),
               reference_n_init = !missing(reference_n_init), iter_max = length(iter_arg) > 0L)
    names(given)[4L] <- if (length(iter_arg)) iter_arg[1L] else "iter_max"
    if (any(given)) {
      stop_arg(sprintf("`protocol = \"paper\"` sets %s: give the protocol or them, not both.",
                       paste0("`", names(given)[given], "`", collapse = ", ")))
    }
    # Boutsidis et al. (2015), section 7: k-means is "500 iterations of
    # Lloyd's algorithm with 5 different random initializations", and every
    # reported quantity the average of five independent executions.
    n_init <- 5L
    reference_n_init <- 5L
    repeats <- 5L
    iter_max <- 500L
  }
  x <- check_data(x, "x")
  k <- check_k(k, x)
  if (!is.character(methods) || length(methods) == 0L || anyNA(methods) ||
      !all(methods %in% setdiff(reduction_methods(), "none"))) {
    ok <- setdiff(reduction_methods(), "none")
    stop_arg(sprintf("`methods` must be a character vector of %s, not %s.",
                     paste0("\"", ok, "\"", collapse = ", "), describe(methods)))
  }
  if (!is.numeric(dims) || length(dims) == 0L || anyNA(dims) ||
      any(dims < 1) || any(dims != round(dims))) {
    stop_arg(sprintf("`dims` must be a vector of whole numbers >= 1, not %s.", describe(dims)))
  }
  dims <- sort(unique(as.integer(dims)))
  if (!is.null(truth)) check_cluster(truth, nrow(x), "truth")
  repeats <- check_whole(repeats, "repeats", 1, 1e4)
  reference <- check_flag(reference, "reference")
  reference_n_init <- check_whole(reference_n_init, "reference_n_init", 1, 1e4)
  n_threads <- check_n_threads(n_threads)
  verbose <- check_flag(verbose, "verbose")
  seed <- resolve_seed(seed)
  runs <- expand.grid(dims = dims, method = unique(methods), rep = seq_len(repeats),
                      stringsAsFactors = FALSE)
  upper <- vapply(runs$method, method_dims_upper, numeric(1), n = nrow(x), d = ncol(x))
  runs <- runs[runs$dims <= upper, c("method", "dims", "rep"), drop = FALSE]
  if (reference) {
    runs <- rbind(data.frame(method = "none", dims = ncol(x), rep = seq_len(repeats),
                             stringsAsFactors = FALSE), runs)
  }
  if (nrow(runs) == 0L) stop_arg("no run left: every value of `dims` is too large for the methods.")
  bar <- if (isTRUE(verbose)) utils::txtProgressBar(max = nrow(runs), style = 3) else NULL
  rows <- vector("list", nrow(runs))
  for (i in seq_len(nrow(runs))) {
    # A whole number below 2^31 (prints as typed, reproduces the run).
    run_seed <- as.integer(derive_seed_cpp(seed, runs$rep[i]) %% .Machine$integer.max + 1)
    run_fit <- function(...) {
      kmeans_reduced(x, k, method = runs$method[i], dims = runs$dims[i],
                     n_init = if (runs$method[i] == "none") reference_n_init else n_init,
                     seed = run_seed, n_threads = n_threads, ...)
    }
    fit <- if (protocol == "paper") run_fit(iter_max = iter_max, ...) else run_fit(...)
    scores <- if (is.null(truth)) c(NA_real_, NA_real_, NA_real_) else
      c(cluster_accuracy(fit$cluster, truth), adjusted_rand_index(fit$cluster, truth),
        normalized_mutual_info(fit$cluster, truth))
    rows[[i]] <- data.frame(
      method = runs$method[i], dims = runs$dims[i], rep = runs$rep[i], seed = run_seed,
      objective = fit$tot.withinss, normalized = fit$tot.withinss / fit$sumsq,
      accuracy = scores[1L], ari = scores[2L], nmi = scores[3L],
      reduce_time = round(fit$timing[["reduce"]], 4),
      cluster_time = round(fit$timing[["cluster"]], 4),
      total_time = round(fit$timing[["total"]], 4), stringsAsFactors = FALSE)
    if (!is.null(bar)) utils::setTxtProgressBar(bar, i)
  }
  if (!is.null(bar)) close(bar)
  results <- do.call(rbind, rows)
  rownames(results) <- NULL
  structure(list(results = results, k = k, n = nrow(x), d = ncol(x),
                 has_truth = !is.null(truth)),
            class = "kmreduce_path")
}

#' @rdname dims_path
#' @param row.names,optional Ignored (for the generic).
#' @export
as.data.frame.kmreduce_path <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$results
}

#' @rdname dims_path
#' @param object A `kmreduce_path`.
#' @export
summary.kmreduce_path <- function(object, ...) {
  r <- object$results
  cols <- c("objective", "normalized", "accuracy", "ari", "nmi", "reduce_time",
            "cluster_time", "total_time")
  out <- stats::aggregate(r[cols], by = list(method = r$method, dims = r$dims),
                          FUN = mean, na.action = stats::na.pass)
  out <- out[order(out$method != "none", out$method, out$dims), , drop = FALSE]
  rownames(out) <- NULL
  out
}

#' @rdname dims_path
#' @export
print.kmreduce_path <- function(x, ...) {
  cat(sprintf("kmreduce dims path: %d x %d data, k = %d, %d runs\n",
              x$n, x$d, x$k, nrow(x$results)))
  s <- summary(x)
  if (!x$has_truth) s <- s[setdiff(names(s), c("accuracy", "ari", "nmi"))]
  print(s, digits = 4, row.names = FALSE)
  invisible(x)
}

#' @rdname dims_path
#' @param which Panels to draw: any of `"time"`, `"objective"`, `"accuracy"`
#'   (the last only with `truth`).
#' @param col Colours, one per method (by default each method's fixed
#'   colour).
#' @export
plot.kmreduce_path <- function(x, which = c("time", "objective", "accuracy"),
                               col = NULL, ...) {
  ok <- c("time", "objective", "accuracy")
  if (!is.character(which) || length(which) == 0L || !all(which %in% ok)) {
    stop_arg(sprintf("`which` must be a subset of %s, not %s.",
                     paste0("\"", ok, "\"", collapse = ", "), describe(which)))
  }
  if (!x$has_truth) which <- setdiff(which, "accuracy")
  s <- summary(x)
  ref <- s[s$method == "none", , drop = FALSE]
  s <- s[s$method != "none", , drop = FALSE]
  methods <- unique(s$method)
  col <- if (is.null(col)) method_colour(methods) else check_colours(col, length(methods), "col")
  old <- graphics::par(mfrow = c(1L, length(which)), mar = c(4.2, 4.2, 2.5, 0.8))
  on.exit(graphics::par(old))
  panel <- function(column, ylab, main) {
    yr <- range(c(s[[column]], ref[[column]]), na.rm = TRUE, finite = TRUE)
    graphics::plot(range(s$dims), yr, type = "n", log = "x", xlab = "dims",
                   ylab = ylab, main = main, ...)
    for (j in seq_along(methods)) {
      sm <- s[s$method == methods[j], , drop = FALSE]
      graphics::lines(sm$dims, sm[[column]], type = "b", pch = 19, col = col[j], lwd = 1.5)
    }
    if (nrow(ref) > 0L) graphics::abline(h = ref[[column]], lty = 2)
  }
  for (w in which) {
    switch(w,
      time = panel("total_time", "seconds (reduce + cluster)", "Time"),
      objective = panel("normalized", "objective / ||A||_F^2", "Objective"),
      accuracy = panel("accuracy", "accuracy", "Accuracy"))
  }
  graphics::legend("bottomright",
                   legend = c(methods, if (nrow(ref) > 0L) "full k-means (reference)"),
                   col = c(col[seq_along(methods)], if (nrow(ref) > 0L) method_colour("none")),
                   lty = c(rep(1, length(methods)), if (nrow(ref) > 0L) 2),
                   pch = c(rep(19, length(methods)), if (nrow(ref) > 0L) NA),
                   bty = "n", cex = 0.8)
  invisible(x)
}

# Colours of m methods (after "none", which is black): Tableau 10 for the
# first ten, then the dark colours of Polychrome 36 that cluster_colours()
# gives 11 to 33 clusters, then its golden-angle hues; every colour
# different, and a method's colour never changes when methods are added
# after it.
method_palette <- function(m) {
  key <- as.character(m)
  # (kept: method_info() reads the registry at every call)
  if (is.null(registry_env$palette[[key]])) {
    cols <- unique(c(cluster_colours(10L), cluster_colours(33L)))
    if (m > length(cols)) cols <- unique(c(cols, cluster_colours(m + length(cols))))
    registry_env$palette[[key]] <- cols[seq_len(m)]
  }
  registry_env$palette[[key]]
}

method_colour <- function(method) {
  reg <- method_registry()
  i <- match(method, names(reg))
  if (anyNA(i)) stop_arg(sprintf("`method` has no colour: %s is not a method.", method[is.na(i)][1L]))
  # Fixed colours: none black, the others method_palette() in registry order.
  unname(c("black", method_palette(length(reg) - 1L))[i])
}
