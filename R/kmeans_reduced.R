#' k-means on reduced data, evaluated on the original data
#'
#' Reduces the number of features of `x` with a randomized method whose
#' paper proves a bound on the k-means objective, clusters the reduced rows
#' (k-means++ replicates, Lloyd's iterations, a polish; multi-threaded), and
#' evaluates the partition on the ORIGINAL data: `centers`, `withinss`,
#' `totss` and the other fields of [stats::kmeans()] are computed in the
#' original feature space, so the result can be used wherever a `kmeans`
#' object is.
#'
#' The default `method = "auto"` clusters narrow data (at most `10 k`
#' columns, where a reduction would save nothing) as they are, like
#' [stats::kmeans()]; wider data are reduced to `10 k` dimensions by random
#' signs (dense `x`) or a sparse embedding (sparse `x`). [reduction_methods]
#' describes each method, its guarantee, and how out-of-core and MPI data
#' are read; [kmeans_control()] the seeding, the polish and every tuning
#' option. Every step works on rows shifted to sit around the origin, so
#' data far from the origin lose no digits, and one row far from all the
#' others ends in a cluster of its own (see [reduction_methods]). With a
#' given `seed` the result is the same, bit for bit, whatever `n_threads`.
#'
#' Single cells are clustered by [kmeans_reduced.SummarizedExperiment()],
#' with the defaults of single-cell analysis (counts normalized, cells
#' reduced to their principal components): a `SummarizedExperiment` or
#' `SingleCellExperiment`, and `t()` of a 10x `TENxMatrix` (the cells of a
#' 10x file as rows), which that page describes too.
#'
#' @section When it is slow or runs out of memory:
#' Each remedy below is an argument or an option of `control`
#' ([kmeans_control()]); `verbose = TRUE` shows which stage takes the time.
#'
#' When it is slow:
#' * Use every core: `n_threads` (or `options(kmreduce.threads = )`) is the
#'   number of threads; the result does not depend on it.
#' * Run fewer starts: `n_init = 3` or `1` instead of 10 (a single start has
#'   no polish), or keep the starts and drop their polish with
#'   `control = list(polish = "none")`.
#' * Reduce wide data more: `dims` below its default `10 k` makes every
#'   k-means pass cheaper; `method = "none"` on wide data clusters every
#'   column and is the slowest choice, and sparse data are reduced fastest by
#'   `method = "sparse_embedding"` (the default there).
#' * Give `dims` a number rather than `"auto"` (which costs about two fits
#'   at the largest size it tries), and keep `n_reductions = 1` and
#'   `refine = 0` (each reduction is a fit of its own; each `refine`
#'   iteration is a pass over the original data).
#' * Prefer `method = "rsvd"` to `"svd"`: the exact SVD of a large matrix
#'   takes much longer.
#' * On very many rows, run the starts on smaller samples of `m` rows with
#'   `control = list(sketch_rows = m)` (by default, `"auto"`, samples of
#'   `max(2000, 100 k)` rows once there are ten times as many rows), or use
#'   mini-batch k-means: `algorithm = "minibatch"`.
#' * At large `k`, seed by `control = list(seeding = "k-means||")` (the
#'   default from `nrow(x) * k >= 10^6`), and compute the distances in
#'   single precision with `control = list(precision = "single")`.
#'
#' When it runs out of memory (each step that cannot get its memory stops
#' first, with an error that says how much it needs):
#' * Use fewer dimensions: the reduced data take `8 * nrow(x) * dims` bytes;
#'   `control = list(keep_reduced = FALSE)` does not keep them in the fit.
#' * Keep the data out of memory: a file-backed `bigmemory::big.matrix`, an
#'   `HDF5Matrix` or any `DelayedMatrix`, or a 10x HDF5 file through a
#'   `SingleCellExperiment`, is read in blocks (`control$block_rows` rows at
#'   a time for a `big.matrix`). For a 10x file, `control = list(file_cache
#'   = 0)` keeps no counts in memory between passes.
#' * Spread the rows over MPI processes: [mpi_rows()].
#' * Prefer `method = "rsvd"` to `"svd"`, whose exact SVD needs a dense copy
#'   of the data; for CSSP keep the default `control$residual =
#'   "frobenius"` (`"spectral"` needs a Gram matrix of the columns).
#' * Cluster a sample of the rows, then assign the others with
#'   [predict()] (which reads a `big.matrix` or a `DelayedMatrix` in
#'   blocks).
#'
#' @param x Data, one row per observation: a numeric matrix (a vector is one
#'   column), a data frame of numeric columns, a sparse `Matrix` (kept
#'   sparse), a file-backed `bigmemory::big.matrix` or a Bioconductor
#'   `DelayedMatrix` (an `HDF5Matrix`; read in blocks), or this MPI rank's
#'   rows marked by [mpi_rows()]. No `NA`, `NaN` or `Inf`. The ROWS are
#'   clustered; for a `SummarizedExperiment` or `SingleCellExperiment`
#'   (cells as columns) see [kmeans_reduced.SummarizedExperiment()], which
#'   clusters the cells.
#' @param ... Passed to the methods; the default method takes none beyond
#'   those named here (a misspelt argument is an error).
#' @param k Number of clusters, between 1 and the number of distinct rows;
#'   or, as `centers` of [stats::kmeans()], a matrix of initial centres (one
#'   row per cluster): Lloyd starts from them and `n_init` is ignored.
#' @param method Reduction method: `"auto"`, `"none"` (cluster `x` itself),
#'   the projections `"sign"`, `"gaussian"`, `"achlioptas"`, `"srht"`,
#'   `"fjlt"`, `"sparse_embedding"`, the feature selections `"leverage"`,
#'   `"cssp"`, or the feature extractions `"svd"`, `"rsvd"` (see
#'   [reduction_methods]).
#' @param dims Dimensions of the reduced data. Default `min(ncol(x), 10 * k)`
#'   (`30 * k` for `"leverage"`, `k` for `"svd"` and `"rsvd"`); `"auto"` chooses it from the data (see
#'   [reduction_methods]). Ignored for `"none"`.
#' @param n_init Number of replicates, each a k-means++ seeding followed by
#'   Lloyd's iterations; the lowest objective is kept. With `n_init > 1` the
#'   best replicates are then polished by moves Lloyd cannot make (see
#'   [kmeans_control()]). On many rows (by default from `10 max(2000, 100 k)`
#'   rows, with `n_init > 1`) the replicates and their polish run on up to
#'   three weighted samples of the rows; the best of each is lifted to all
#'   rows, where Lloyd runs from it, and the lowest is polished there: see
#'   `sketch_rows` in [kmeans_control()].
#' @param iter_max Maximum number of Lloyd iterations per replicate.
#' @param seed `NULL` or a whole number. With a number, results are
#'   reproducible and R's random number generator is neither used nor
#'   changed. With `NULL`, one integer is drawn from R's generator (so
#'   [set.seed()] makes the call reproducible). The seed used is returned.
#' @param n_threads Number of threads; `NULL`: [kmreduce_threads()]
#'   (`getOption("kmreduce.threads")`, else `OMP_NUM_THREADS`, else every
#'   available core; 1 in a forked child such as a [parallel::mclapply()]
#'   worker). Results do not depend on it.
#' @param n_reductions Number of independent reductions (seeds derived from
#'   `seed`), each clustered; the partition with the lowest objective on the
#'   original data is kept, as the papers repeat randomized reductions.
#' @param refine Lloyd iterations on the ORIGINAL data from the centres of
#'   the reduced solution (default 0: the papers' algorithms). Rows (and
#'   [predict()]) are then assigned to the nearest centre in the original
#'   space. At least one is run, with a warning, when the reduction leaves
#'   fewer than `k` distinct rows.
#' @param control A [kmeans_control()] object, or a named list of some of
#'   its options (`list(polish = "none")`).
#' @param verbose Report each stage (the reduction, the replicates, the
#'   polish, the statistics) and its time with [message()].
#' @param weights `NULL`, or observation weights: one positive finite number
#'   per row, as scikit-learn's `sample_weight` (a row of weight 3 counts as
#'   three copies of it). Every step is weighted: the objective is
#'   \eqn{\sum_i w_i \|x_i - c_{(i)}\|^2}{sum_i w_i ||x_i - c(i)||^2}, the
#'   centres are weighted means, the seeding draws by `w D^2`, and the
#'   SVD-based methods decompose \eqn{W^{1/2} (A - 1 \mu_w^T)}{W^(1/2) (A - 1 mu_w^T)}.
#'   `size` still counts rows; `weight` holds each cluster's sum of weights.
#'   With whole weights the fit is that of the rows repeated, except where
#'   Hartigan's moves (which move a row with all its weight) stop at another
#'   nearby optimum, and where the choices made by the number of rows
#'   (`seeding` and `polish_starts` `"auto"`, see [kmeans_control()]) differ
#'   between the rows and their repetitions: they count rows, so weights
#'   times a power of two change none of them. Only the ratios of the
#'   weights matter to the partition and the centres: weights of any size
#'   (1e300 each, or from 1e-300 to 1e300) are taken times a power of two
#'   where their sums would overflow or lose their digits, and the
#'   statistics are those of the weights given (an error when one exceeds
#'   the largest double). Not available for [mpi_rows()] data.
#' @param algorithm `NULL` (the package's pipeline), or the algorithm of
#'   [stats::kmeans()] with its meaning there: `"Hartigan-Wong"` (Lloyd,
#'   then Hartigan's single-point moves, also with one replicate), `"Lloyd"`
#'   or `"Forgy"` (Lloyd alone), `"MacQueen"` (online updates in sweeps over
#'   the rows, then Lloyd to confirm; not for [mpi_rows()] data). The
#'   seeding stays the package's k-means++ without the local search;
#'   `algorithm` overrides `control$polish` and `control$local_search`.
#'   Or `"minibatch"`, which is not a name of [stats::kmeans()]: mini-batch
#'   k-means (Sculley 2010) on the reduced rows (or on `x` itself for
#'   `method = "none"`) instead of the replicates and Lloyd, as
#'   scikit-learn's `MiniBatchKMeans` runs it: `n_init` seedings on a sample
#'   of `max(3 batch_size, 3 k)` rows, the best kept (or the given centres),
#'   then batches of `control$batch_size` rows, each row moving its nearest
#'   centre with learning rate one over the centre's count (its rows, or
#'   their weights, so far), and centres with few rows reassigned, each
#'   to split the cluster of a random row (see `reassignment_ratio` in
#'   [kmeans_control()]). It stops after `iter_max`
#'   passes over the rows or earlier (see [kmeans_control()]); every row
#'   then goes to its nearest centre (a centre left without rows is
#'   re-seeded, as Lloyd re-seeds one), and `iter` is the number of batches
#'   run. No polish follows. Not for [mpi_rows()] data, [k_path()] or
#'   `dims = "auto"`.
#' @param trace As `trace` of [stats::kmeans()]: `TRUE` (or 1) prints one
#'   line per Lloyd iteration, Hartigan or MacQueen sweep and split/merge
#'   round (objective, rows moved, seconds); 2 also the Lloyd runs inside
#'   the split/merge moves; `FALSE` nothing. The default `NULL` shows one
#'   progress line in an interactive session once a fit has run for a few
#'   seconds (not in knitr, not with `verbose`). It never changes the result.
#' @param centers,nstart,iter.max The names of [stats::kmeans()] for `k`,
#'   `n_init` and `iter_max`. Give one name or the other, not both. With
#'   these, a call to `kmeans()` runs as `kmeans_reduced()` when its
#'   arguments after `centers` are named: `kmeans(x, 3, iter.max = 20,
#'   nstart = 5, algorithm = "Lloyd", trace = FALSE)` becomes
#'   `kmeans_reduced(x, 3, iter.max = 20, nstart = 5, algorithm = "Lloyd",
#'   trace = FALSE)`. Positional arguments do not carry over: the third and
#'   fourth arguments here are `method` and `dims`, where `kmeans()` has
#'   `iter.max` and `nstart`, so `kmeans(x, 3, 20)` is
#'   `kmeans_reduced(x, 3, iter.max = 20)` (a number given as `method` is an
#'   error that says so). What a call leaves out takes this function's
#'   defaults, not those of `kmeans()`: 10 starts (`n_init`) of at most 100
#'   iterations (`iter_max`), the package's pipeline for `algorithm = NULL`,
#'   and a reduction of data wider than `10 k` columns (`method = "auto"`;
#'   `method = "none"` clusters every column, as `kmeans()` does).
#' @return An object of class `c("kmeans_reduced", "kmeans")`: a list with
#'   the components of [stats::kmeans()], all in the original feature space,
#'   \item{cluster}{integer vector of the cluster (1 to `k`) of each row.}
#'   \item{centers}{`k x ncol(x)` matrix of cluster means of the original data.}
#'   \item{totss}{total sum of squares about the grand mean.}
#'   \item{withinss}{within-cluster sums of squares, one per cluster.}
#'   \item{tot.withinss}{`sum(withinss)`: the k-means objective.}
#'   \item{betweenss}{`totss - tot.withinss`.}
#'   \item{size}{number of rows in each cluster.}
#'   \item{weight}{with `weights`: each cluster's sum of weights (the
#'     statistics above are then weighted).}
#'   \item{iter}{Lloyd iterations of the kept replicate (with those of its
#'     polish).}
#'   \item{passes}{passes over the clustered rows (`x` for `"none"`, the
#'     reduced rows otherwise) by stage: `sketch` (drawing the sketch the
#'     replicates ran on), `replicates` (seedings and Lloyd on all rows;
#'     k-means++ reads the rows once per centre), `lift` (the best sketch
#'     replicate's centres made the means of their rows), `lloyd` (Lloyd on
#'     all rows from the lifted start), `polish`; then `statistics` and
#'     `refine`, over the original rows.}
#'   \item{sketch}{when the replicates ran on a sketch (see `sketch_rows` in
#'     [kmeans_control()]): its number of rows, the objective of its best
#'     replicate there, that replicate's centres and the lifted centres (in
#'     the clustered space); otherwise `NULL`.}
#'   \item{ifault}{0, or 2 if Lloyd did not converge in `iter_max` iterations.}
#'
#'   and also
#'   \item{method, dims, seed, call}{the method and dimension used, the seed
#'     used and the call.}
#'   \item{reducer}{the fitted reduction (class `"kmreduce_reducer"`), which
#'     [predict()] applies to new rows.}
#'   \item{reduced_centers}{`k x dims` centres in the reduced space.}
#'   \item{reduced}{the reduced data minus the reducer's `shift` (rows
#'     around the origin), or `NULL`.}
#'   \item{sumsq}{\eqn{\|A\|_F^2}{||A||_F^2}, the sum of squares of `x`.}
#'   \item{n_reductions, objectives}{the number of reductions and the
#'     objective (on the original data) of each.}
#'   \item{refine, objective_before_refine, assignment_centers, assignment_shift}{the
#'     refining iterations, the objective before them and, when `refine > 0`,
#'     the original-space centres rows are assigned to and the shift of the
#'     rows in those distances.}
#'   \item{dims_auto}{with `dims = "auto"`: the sizes tried.}
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
#' Liu, W., Shen, X. and Tsang, I. (2017). Sparse embedded k-means
#' clustering. *NIPS 30*, 3319--3327.
#'
#' Sculley, D. (2010). Web-scale k-means clustering. *Proceedings of the
#' 19th International Conference on World Wide Web (WWW '10)*, 1177--1178.
#'
#' (Each method's paper: [reduction_methods].)
#' @seealso [kmeans_control()], [reduction_methods], [reduce_dims()] for the
#'   reduction alone, [k_path()] to choose `k`, [predict.kmeans_reduced()],
#'   [summary.kmeans_reduced()], [plot.kmeans_reduced()], [stats::kmeans()].
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, k = 10, method = "sign", dims = 50, n_init = 3,
#'                       seed = 1)
#' fit
#' table(fit$cluster, fashion_mnist$label)
#'
#' # a call to stats::kmeans() with its arguments after `centers` named
#' x2 <- x[1:500, ]
#' fl <- kmeans_reduced(x2, centers = x2[1:4, ], algorithm = "Lloyd",
#'                      iter.max = 20)
#'
#' # observation weights: a row of weight 2 counts as two copies of it
#' w <- rep(c(1, 2), length.out = nrow(x2))
#' fw <- kmeans_reduced(x2, 4, n_init = 3, seed = 1, weights = w)
#' fw$weight
#' @export
kmeans_reduced <- function(x, ...) UseMethod("kmeans_reduced")

#' @rdname kmeans_reduced
#' @export
kmeans_reduced.default <- function(x, k, method = "auto", dims = NULL, n_init = 10L,
                                   iter_max = 100L, seed = NULL, n_threads = NULL,
                                   n_reductions = 1L, refine = 0L, control = list(),
                                   verbose = FALSE, weights = NULL, algorithm = NULL,
                                   trace = NULL, centers, nstart, iter.max, ...) {
  hold_sources()  # (memory sources take outside R's heap: freed on return)
  on.exit(leave_sources(), add = TRUE)
  call <- match.call()
  check_dots_empty(..., fun = "kmeans_reduced")
  t_start <- elapsed()
  # (MPI ranks: every rank checks, then all agree before a collective step,
  # so a user error stops every rank with one message: agree_ranks())
  src <- as_row_source(x)
  seed_arg <- seed
  failed <- try_checks(src, {
  # The argument names of stats::kmeans(), as aliases.
  if (missing(k) && missing(centers)) {
    stop_arg("`k` (or `centers`, as in stats::kmeans()) must be given.")
  }
  k <- kmeans_alias(if (!missing(k)) k, if (!missing(centers)) centers, !missing(k),
                    !missing(centers), "k", "centers")
  n_init <- kmeans_alias(n_init, if (!missing(nstart)) nstart, !missing(n_init),
                         !missing(nstart), "n_init", "nstart")
  iter_max <- kmeans_alias(iter_max, if (!missing(iter.max)) iter.max, !missing(iter_max),
                           !missing(iter.max), "iter_max", "iter.max")
  # Errors and warnings name the argument as the user gave it.
  arg <- c(k = if (missing(centers)) "k" else "centers",
           n_init = if (missing(nstart)) "n_init" else "nstart",
           iter_max = if (missing(iter.max)) "iter_max" else "iter.max")
  control <- check_control(control)
  args <- check_fit_args(n_init, iter_max, n_threads, n_reductions, refine, seed, verbose,
                         trace, algorithm, arg)
  control <- algorithm_control(control, args$algorithm)
  trace <- args$trace
  # The sparse embedding and k-means on the data itself check the values of
  # a dense matrix while they read it: no pass of its own.
  fused <- is.matrix(x) && is.null(oldClass(x)) && is.double(x) && is.numeric(k) && !is.matrix(k) &&
    !identical(method, "auto") && isTRUE(method_info(method)$checks_values)
  src <- checked_source(src, control$block_rows, !fused)
  # (a 10x file's chunks decompressed on n_threads; its cells kept in memory
  # within control$file_cache)
  use_source(src, file_cache_budget(control$file_cache), args$n_threads)
  x <- src$data
  src <- set_weights(src, weights, control)
  centers0 <- NULL
  if (inherits(k, "Matrix")) k <- as.matrix(k)  # sparse initial centres
  if (is.matrix(k) || is.data.frame(k)) {
    centers0 <- check_source_centers(src, k, arg[["k"]])
    k <- nrow(centers0)
  } else {
    k <- check_source_k(src, k, arg[["k"]])
  }
  chosen <- check_fit_method(src, method, dims, k, control)
  method <- chosen$method
  dims <- chosen$dims
  auto <- !is.null(chosen$schedule)
  schedule <- chosen$schedule
  # The reduced rows (for "none" on dense data: the packed copy) and k-means:
  # labels, norms, distances and bounds, a few numbers per row.
  n_local <- as.numeric(n_local_rows(src))
  check_memory(8 * n_local * (dims + 8),
               sprintf("k-means on the %s x %s reduced data", format(n_local), format(dims)),
               "Use fewer dimensions (`dims`), or cluster a sample of the rows and assign the rest with predict().")
  n_init <- args$n_init
  iter_max <- args$iter_max
  n_threads <- args$n_threads
  n_reductions <- args$n_reductions
  if (auto) check_auto_dims(control, n_reductions)
  refine <- args$refine
  seed <- args$seed
  verbose <- args$verbose
  })
  # (MPI ranks: every rank passed its checks, with the same arguments; one
  # seed for all, rank 0's)
  seed <- agree_ranks(src, failed, function() {
    c(stats::setNames(list(k, n_init, iter_max), arg[c("k", "n_init", "iter_max")]),
      agreed_args(method, dims, n_reductions, refine, seed_arg, trace, control))
  }, seed, seed_arg)
  verbose <- verbose && is_lead(src)
  src <- set_progress(src, verbose)
  level <- start_trace(src, trace, verbose, if (is.null(centers0)) n_init else 0L)
  on.exit(if (!is.na(level)) clear_trace_cpp(), add = TRUE)

  if (auto) {
    return(auto_dims_fit(src, x, method, schedule, k, centers0, n_init, iter_max, seed,
                         n_threads, control, verbose, refine, call, t_start, arg[["iter_max"]]))
  }
  runs <- run_reductions(src, x, method, dims, k, centers0, n_init, iter_max, seed, n_threads,
                         control, verbose, n_reductions, fused)
  fit <- finish_fit(runs$best, src, refine, n_threads, control, verbose, seed, call, n_reductions,
                    runs$objectives, runs$t_reduce, runs$t_cluster, t_start, iter_max,
                    arg[["iter_max"]])
  if (isTRUE(level > 0L)) cat("kmreduce: ", passes_line(fit$passes, method), "\n", sep = "")
  fit
}

# dims = "auto" chooses one reduction, of a size it finds.
check_auto_dims <- function(control, n_reductions) {
  if (identical(control$algorithm, "minibatch")) {
    stop_arg("`algorithm` \"minibatch\" runs on one reduction of a given size: give `dims` as a number, not \"auto\".")
  }
  if (n_reductions > 1L) {
    stop_arg("`dims = \"auto\"` chooses one reduction: use it with n_reductions = 1.")
  }
  invisible(TRUE)
}

# The arguments every MPI rank must give alike (agree_ranks()), besides k,
# n_init and iter_max under the names the user gave them.
agreed_args <- function(method, dims, n_reductions, refine, seed_arg, trace, control) {
  c(list(method = method, dims = dims, n_reductions = n_reductions, refine = refine,
         seed = if (is.null(seed_arg)) "NULL (drawn on rank 0)" else seed_arg,
         trace = if (is.null(trace)) "NULL" else trace),
    stats::setNames(control, paste0("control$", names(control))))
}

# trace: each iteration printed (a level), or by default a progress line
# for a long fit in an interactive session (not in knitr, not with
# verbose); on MPI ranks only the lead reports. The level set, or NA when
# nothing reports (no hook to clear).
start_trace <- function(src, trace, verbose, n_init) {
  level <- if (is.null(trace)) 0L else trace
  line <- is.null(trace) && !verbose && interactive() && !isTRUE(getOption("knitr.in.progress"))
  if (!is_lead(src)) {
    level <- 0L
    line <- FALSE
  }
  if (level == 0L && !line) return(NA_integer_)
  set_trace_cpp(level, line, n_init)
  level
}

# Steps 3-6 for each of the n_reductions reductions (derived seeds after
# the first), the lowest objective kept: list(best, objectives, t_reduce,
# t_cluster).
run_reductions <- function(src, x, method, dims, k, centers0, n_init, iter_max, seed, n_threads,
                           control, verbose, n_reductions, fused) {
  best <- NULL
  objectives <- numeric(n_reductions)
  t_reduce <- t_cluster <- 0
  for (r in seq_len(n_reductions)) {
    # Repetition r uses its own seed (the given one for a single reduction).
    seed_r <- if (n_reductions == 1L) seed else derive_seed_cpp(seed, r)
    t0 <- elapsed()
    say(verbose, "reducing %s x %d: %s to %d dimensions%s", format(n_rows(src)), n_cols(src),
        method_label(method), dims,
        if (n_reductions > 1L) sprintf(" (reduction %d of %d)", r, n_reductions) else "")
    limit <- if (fused && r == 1L) max_abs_value(as.numeric(nrow(x)) * ncol(x)) else 0
    # (the reduction's kernel checks the values on its way, or k-means on x)
    reduce_limit <- if (limit > 0 && method != "none" && method_info(method)$checks_values) limit else 0
    fitted <- reduce_source(src, fit_source_reducer(src, method, dims, k, seed_r, n_threads,
                                                    control),
                            n_threads, control$block_rows, reduce_limit)
    t_reduce <- t_reduce + (elapsed() - t0)
    say(verbose, "  done in %.3f s", elapsed() - t0)
    run <- cluster_reduced(src, x, fitted$reducer, fitted$reduced, k, centers0, n_init, iter_max,
                           seed_r, n_threads, control, verbose,
                           if (method == "none") limit else 0)
    objectives[r] <- run$objective
    t_cluster <- t_cluster + run$time
    if (is.null(best) || objectives[r] < best$objective) best <- run
  }
  list(best = best, objectives = objectives, t_reduce = t_reduce, t_cluster = t_cluster)
}

# dims = "auto": reductions of growing size (the schedule), each clustered
# and evaluated on the original data. Each size runs its own replicates (the
# n_init k-means++ seedings, or the given centres, on the new reduction:
# "fresh") and Lloyd from the best partition so far (its means there,
# "warm"); the better of the two on the original data is the size's result.
# It stops when the best objective has improved by less than
# control$dims_tol (relative) over the last two doublings (auto_dims_done()),
# and the fit is the best of all, with the steps in fit$dims_auto.
auto_dims_fit <- function(src, x, method, schedule, k, centers0, n_init, iter_max, seed,
                          n_threads, control, verbose, refine, call, t_start,
                          iter_arg = "iter_max") {
  steps <- data.frame(dims = integer(0), objective = numeric(0), fresh = numeric(0),
                      warm = numeric(0), seconds = numeric(0))
  best <- NULL
  bests <- numeric(0)
  t_reduce <- t_cluster <- 0
  for (dims in schedule) {
    t0 <- elapsed()
    fitted <- reduce_source(src, fit_source_reducer(src, method, dims, k, seed, n_threads, control),
                            n_threads, control$block_rows, 0)
    t_reduce <- t_reduce + (elapsed() - t0)
    cluster <- function(start, n) {
      suppressWarnings(cluster_reduced(src, x, fitted$reducer, fitted$reduced, k, start, n,
                                       iter_max, seed, n_threads, control, FALSE, 0))
    }
    fresh <- cluster(centers0, n_init)
    # (the warm run: Lloyd alone, as kmeans_reduced(x, centres, n_init = 1))
    warm <- if (!is.null(best)) cluster(start_centres(best$st), 1L)
    run <- if (!is.null(warm) && warm$objective < fresh$objective) warm else fresh
    t_cluster <- t_cluster + fresh$time + if (is.null(warm)) 0 else warm$time
    steps[nrow(steps) + 1L, ] <- list(dims, run$objective, fresh$objective,
                                      if (is.null(warm)) NA_real_ else warm$objective,
                                      elapsed() - t0)
    say(verbose, "dims = \"auto\": %d dimensions, objective %.7g (fresh %.7g, warm %s; %.3f s)",
        dims, run$objective, fresh$objective,
        if (is.null(warm)) "-" else sprintf("%.7g", warm$objective), elapsed() - t0)
    if (is.null(best) || run$objective < best$objective) best <- run
    bests <- c(bests, best$objective)
    if (auto_dims_done(bests, control$dims_tol)) break
  }
  if (best$collapsed) warn_collapsed(best$reducer$dims, k)
  fit <- finish_fit(best, src, refine, n_threads, control, verbose, seed, call, 1L,
                    best$objective, t_reduce, t_cluster, t_start, iter_max, iter_arg)
  fit$dims_auto <- steps
  fit
}

# The stopping rule of dims = "auto": `bests`, the best objective after each
# size so far. Done when the best improved by less than `tol` (relative) over
# the last two doublings (a quadrupling of dims). One doubling is not
# enough: on real data the objective often stalls for one doubling (two
# sizes agreeing within 1 %) and falls again at the next, and a fresh run at
# one size can end far above the best of a smaller one.
auto_dims_done <- function(bests, tol) {
  i <- length(bests)
  i >= 3L && bests[i] >= bests[i - 2L] * (1 - tol)
}

# The reduction merged rows: finish_fit() refines on the original data.
warn_collapsed <- function(dims, k) {
  warning(sprintf(paste0("The reduced data (%d dimensions) have fewer than k = %d distinct rows: ",
                         "the reduction merged rows that the original data tell apart, so the ",
                         "partition is refined on the original data (refine = 1 at least). ",
                         "Increase `dims` or choose another method."), dims, k),
          call. = FALSE)
}

# `algorithm` (stats::kmeans()'s names) as the package's controls: no local
# search after the k-means++ seeding, and Hartigan's moves after Lloyd
# ("Hartigan-Wong"), nothing ("Lloyd", "Forgy") or MacQueen's online updates
# instead of Lloyd ("MacQueen", control$algorithm read by source_kmeans()),
# or mini-batch k-means instead of the replicates and Lloyd ("minibatch").
# NULL: the package's own pipeline, unchanged.
algorithm_control <- function(control, algorithm) {
  if (is.null(algorithm)) return(control)
  # ("minibatch": mini-batch k-means, no polish after it either)
  control$polish <- if (algorithm == "Hartigan-Wong") "hartigan" else "none"
  control$local_search <- 0L
  control$algorithm <- algorithm
  control
}

# k-means on the reduced rows of one reduction and the statistics of its
# partition on the original rows (kmeans_reduced(), k_path()).
cluster_reduced <- function(src, x, reducer, reduced, k, centers0, n_init, iter_max, seed,
                            n_threads, control, verbose, limit) {
  t1 <- elapsed()
  method <- reducer$method
  # "none": Lloyd on the rows minus their column means (dense x).
  shift <- if (method == "none") reducer$shift
  settings <- kmeans_settings(control, method)
  # (on distributed rows each rank sees only its own reduced rows)
  collapsed <- method != "none" && reduced_collapsed(src, reduced, k)
  if (collapsed) warn_collapsed(ncol(reduced), k)
  say(verbose, "  %s on %s x %d, k = %d%s",
      if (identical(control$algorithm, "minibatch")) "mini-batch k-means" else "k-means",
      format(n_rows(src)), ncol(reduced), k,
      if (is.null(centers0)) sprintf(", %d %s replicate%s", n_init,
                                     kmeans_resolved(k, n_init, n_rows(src), settings)$seeding,
                                     if (n_init == 1L) "" else "s") else
        " from the given centres")
  start <- if (!is.null(centers0)) as.matrix(apply_reducer(reducer, centers0, n_threads))
  km <- source_kmeans(src, reduced, k, start, n_init, iter_max, control$tol, seed,
                      n_threads, verbose, limit, shift, settings)
  if (isTRUE(km$invalid)) check_values_later(x)
  if (!is.null(km$sketch)) {
    say(verbose, paste0("  the replicates ran on a sketch of %s of the rows (best objective there %.7g); ",
                        "lifted to all rows, then %g Lloyd iterations: objective %.7g"),
        format(km$sketch$rows), km$sketch$objective, km$passes[["lloyd"]],
        km$objective_before_polish)
  }
  if (verbose && isTRUE(km$polish_starts > 0L)) {
    say(verbose, paste0("  split/merge and Hartigan moves from the %s: objective %.7g -> %.7g ",
                        "(%d split/merge moves tried; kept: %d round%s, then %d rows moved by Hartigan's moves)"),
        if (!is.null(km$sketch)) "lifted start" else
          sprintf("%d best replicate%s", km$polish_starts, if (km$polish_starts > 1L) "s" else ""),
        km$objective_before_polish, km$objective,
        km$split_tries, km$split_accepted, if (km$split_accepted == 1L) "" else "s",
        as.integer(km$hartigan_moves))
  }
  # Lloyd ran on x itself and stopped with its centres the cluster means:
  # the statistics need one pass, not two.
  st <- partition_stats(src, km$cluster, k, n_threads, control$block_rows,
                     if (method == "none" && isTRUE(km$means)) km$centers)
  km$passes <- kmeans_passes(km)
  say(verbose, "  %s", passes_line(km$passes, method))
  say(verbose, "  clustered in %.3f s; objective on the original data %.7g",
      elapsed() - t1, sum(st$withinss))
  list(objective = sum(st$withinss), reducer = reducer, reduced = reduced, km = km, st = st,
       seed = seed, collapsed = collapsed, time = elapsed() - t1)
}

# The kmeans_reduced object of the chosen run: refine on the original data
# if asked (or if the reduction merged rows), then assemble. `iter_arg`: the
# name the user gave `iter_max` under, for the warning.
finish_fit <- function(best, src, refine, n_threads, control, verbose, seed, call, n_reductions,
                       objectives, t_reduce, t_cluster, t_start, iter_max, iter_arg = "iter_max") {
  km <- best$km
  st <- best$st
  k <- length(st$size)
  method <- best$reducer$method
  objective <- best$objective
  assignment_centers <- assignment_shift <- NULL
  # Rows merged by the reduction cannot be told apart by nearest reduced
  # centre (predict() would not give back the labels): assign them in the
  # original space, where they are distinct.
  if (best$collapsed) refine <- max(refine, 1L)
  if (refine > 0L) {
    # Lloyd on the original data from the reduced solution's centres, with
    # the rows minus a point among them (dense rows; see fit_reducer()).
    t0 <- elapsed()
    if (!isTRUE(src$sparse)) assignment_shift <- centres_median(st)
    rk <- source_lloyd(src, start_centres(st), refine, n_threads, control$block_rows,
                       assignment_shift)
    st <- partition_stats(src, rk$cluster, k, n_threads, control$block_rows)
    km$cluster <- rk$cluster
    objective <- sum(st$withinss)
    assignment_centers <- rk$centers
    dimnames(assignment_centers) <- list(seq_len(k), col_names(src))
    t_cluster <- t_cluster + (elapsed() - t0)
    say(verbose, "refined with %d Lloyd iterations on the original data in %.3f s: objective %.7g -> %.7g",
        rk$iter, elapsed() - t0, best$objective, objective)
  }
  check_no_empty(st$size, src)
  cluster <- km$cluster
  names_src <- dim_names(src)
  # (only when there are names: setting none would copy the labels)
  if (!is.null(names_src[[1L]])) names(cluster) <- names_src[[1L]]
  centers <- st$centers
  dimnames(centers) <- list(seq_len(k), names_src[[2L]])
  reduced_centers <- km$centers
  dimnames(reduced_centers) <- list(seq_len(k), colnames(best$reduced))
  minibatch <- identical(control$algorithm, "minibatch")
  if (!km$converged && minibatch) {
    warning(sprintf(paste0("Mini-batch k-means ran %d batches (%d passes over the rows) without ",
                           "meeting its stopping criteria; increase `%s`."),
                    km$iter, iter_max, iter_arg), call. = FALSE)
  } else if (!km$converged) {
    warning(sprintf("Lloyd did not converge in %d iterations; increase `%s`.",
                    iter_max, iter_arg), call. = FALSE)
  }
  structure(c(list(
    cluster = cluster,
    centers = centers,
    totss = st$totss,
    withinss = st$withinss,
    tot.withinss = objective,
    betweenss = st$totss - objective,
    size = st$size),
    # (with weights: each cluster's sum of weights)
    if (!is.null(st$weight)) list(weight = st$weight),
    list(iter = km$iter,
    passes = c(km$passes, refine = if (refine > 0L) rk$iter else 0),
    sketch = km$sketch,
    ifault = if (km$converged) 0L else 2L,
    method = method,
    dims = best$reducer$dims,
    seed = seed,
    call = call,
    reducer = best$reducer,
    reduced_centers = reduced_centers,
    reduced = if (control$keep_reduced && method != "none") best$reduced else NULL,
    sumsq = st$sumsq,
    n_reductions = n_reductions,
    objectives = objectives,
    refine = refine,
    objective_before_refine = best$objective,
    assignment_centers = assignment_centers,
    assignment_shift = assignment_shift),
    # (mini-batch k-means: its name; iter is then its batches)
    if (minibatch) list(algorithm = "minibatch"),
    fit_fields(src),
    list(timing = c(reduce = t_reduce, cluster = t_cluster, total = elapsed() - t_start))
  ), class = c("kmeans_reduced", "kmeans"))
}

# A fit never comes back with an empty cluster silently: Lloyd and
# mini-batch k-means re-seed theirs (lloyd.hpp, update_centres(): from
# distances summed term by term where the norms' differences lost every
# digit), and a reduction that merged rows is refined on the original rows.
# So an empty cluster means fewer distinct rows than centres (possible with
# centres given: a warning, as stats::kmeans() gives for Lloyd), or
# distances double precision cannot tell apart: an error, not a partition
# with fewer clusters than asked. `src`: the rows (their distinct rows are
# counted only then).
check_no_empty <- function(size, src) {
  empty <- sum(size == 0)
  if (empty == 0L) return(invisible(TRUE))
  k <- length(size)
  distinct <- tryCatch({
    check_source_k(src, k)
    TRUE
  }, error = function(e) FALSE)
  if (!distinct) {
    warning(sprintf(paste0("`x` has fewer distinct rows than the k = %d centres: %d cluster%s ",
                           "left empty."), k, empty, if (empty > 1L) "s are" else " is"),
            call. = FALSE)
    return(invisible(FALSE))
  }
  stop_arg(sprintf(paste0("The fit left %d of the k = %d clusters empty: the distances between ",
                          "the rows of `x` lost their digits in double precision (rows very far ",
                          "apart beside rows very close together). Rescale or transform `x` (for ",
                          "example with a logarithm), or leave out the rows far from the others."),
                   empty, k))
}

# Lloyd's start from a partition's statistics: its means, and for an empty
# cluster (rows merged by a reduction) a point among the rows
# (centres_median()) instead of the statistics' 0, which sits wherever the
# origin is; Lloyd then re-seeds it with the farthest row, whatever the
# data's offset.
start_centres <- function(st) {
  start <- st$centers
  empty <- st$size == 0
  if (any(empty)) start[empty, ] <- rep(centres_median(st), each = sum(empty))
  start
}

# A point among the rows of a partition (its statistics `st`), the shift of
# the rows in refine's distances: in each column the weighted lower median
# of the centres, weighted by the clusters' sizes (their sums of weights
# when weighted). Not the grand mean, which one row far from the others
# moves away from all of them (they would lose the digits the shift is
# for); the order of the rows does not matter.
centres_median <- function(st) {
  size <- as.numeric(if (is.null(st$weight)) st$size else st$weight)
  half <- sum(size) / 2
  unname(apply(st$centers, 2L, function(v) {
    o <- order(v)
    v[o][which(cumsum(size[o]) >= half)[1L]]
  }))
}

# `ours`, or the value given under the stats::kmeans() name (`theirs`);
# both given: an error naming them.
kmeans_alias <- function(ours, theirs, has_ours, has_theirs, our_name, their_name) {
  if (!has_theirs) return(ours)
  if (has_ours) {
    stop_arg(sprintf("Give `%s` or `%s` (its name in stats::kmeans()), not both.",
                     our_name, their_name))
  }
  theirs
}

# Progress messages of verbose = TRUE (suppressMessages() silences them).
say <- function(verbose, fmt, ...) {
  if (verbose) message("kmreduce: ", sprintf(fmt, ...))
}

# The passes of k-means over the clustered rows by stage (C++: sketch,
# replicates, lift, lloyd, polish; from given centres Lloyd alone), and the
# statistics' pass over the original rows.
kmeans_passes <- function(km) {
  p <- km$passes
  if (is.null(p)) p <- c(sketch = 0, replicates = 0, lift = 0, lloyd = km$iter, polish = 0)
  c(p, statistics = 1)
}

# One line of the passes by stage, for trace and verbose.
passes_line <- function(passes, method) {
  sprintf("passes over the %s rows: %s", if (method == "none") "data's" else "reduced",
          paste(sprintf("%s %g", names(passes), passes), collapse = ", "))
}

# Fields the fit carries for this source (on MPI ranks: which rows this
# rank held).
fit_fields <- function(src) {
  if (!is.null(src$mpi)) list(mpi = unclass(src$mpi)[c("rank", "size", "n", "offset")])
}
