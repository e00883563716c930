# The options of `control`: kmeans_control() (exported), the table they are
# declared in, their checks (check_control()) and the k-means settings a
# fit gives the C++ core (kmeans_settings()). Each option of k-means is
# declared once, for R and C++, in the core's table
# (inst/include/kmreduce/cluster/kmeans_options.def, given to R by
# kmeans_option_table_cpp()): its name, kind, default, bounds and help. From
# that table come kmeans_control()'s arguments and their defaults (its
# formals are set from control_formals() when the package loads, R/zzz.R),
# its @param help (control_rd_params(), roxygen @eval), control_defaults()
# and the checks of check_control() (option_check()); the core validates the
# same table. The reduction methods' options are their registry entries'
# param()s (builtin_params(), R/registry.R), after the k-means ones. The
# core chooses the "auto" values for a fit (resolve_options()).

#' Tuning options of kmeans_reduced()
#'
#' Builds the `control` argument of [kmeans_reduced()], [reduce_dims()],
#' [k_path()] and [dims_path()]: every option with its default, checked
#' when the object is made. The defaults suit most data; change one only
#' for a reason named below. A plain named list of some of these options
#' (`control = list(polish = "none")`) works as well and is checked the same
#' way.
#'
#' @section Replicates, seeding and polish:
#' Each of the `n_init` replicates of [kmeans_reduced()] seeds with greedy
#' k-means++ (2 + floor(log(k)) candidates drawn with probability
#' proportional to the squared distance to the nearest centre, the best
#' kept) or, on tall data at large `k`, k-means|| (see `seeding`), then runs Lloyd's
#' iterations (Hamerly's bounds skip the rows that cannot move). In the even
#' replicates (2, 4, ...) a local search follows the seeding
#' (LocalSearch++, Lattanzi and Sohler 2019): `local_search` times, draw
#' 2 + floor(log(k)) rows by squared distance and swap one of them for a
#' centre when that lowers the cost. It repairs seedings with two seeds in
#' one cluster and none in another, which Lloyd cannot leave.
#'
#' What is proven: plain k-means++ (one candidate per step) is within
#' O(log k) of optimal in expectation (Arthur and Vassilvitskii 2007);
#' greedy k-means++ with `l` candidates per step has no O(log k) guarantee
#' (its factor can be \eqn{\Omega(l \log k)}{Omega(l log k)}, Bhattacharya et
#' al. 2020, and is at most \eqn{O(l^3 \log^3 k)}{O(l^3 log^3 k)}, Grunau et al. 2023).
#' LocalSearch++ after plain k-means++ reaches a constant factor in
#' expectation after O(k log log k) steps (Lattanzi and Sohler 2019), and
#' an O(1 / eps^3) factor with probability 1 - 1/poly(k) after `eps k`
#' steps (Choo et al. 2020); the greedy variant used here (several
#' candidates per step, about `k / log(k)` steps) has no proof of its own.
#' [optimality_bound()] certifies a given result.
#'
#' With `n_init > 1` the best distinct replicates are then polished
#' (`polish`): split/merge moves merge two clusters and cut a third in two
#' through its mean, perpendicular to its first principal direction (PDDP,
#' Boley 1998), which undoes a partition that splits one natural cluster
#' and joins two others; then Hartigan's moves move single rows while that
#' lowers the objective (Hartigan 1975; their fixed points are a subset of
#' Lloyd's, Telgarsky and Vattani 2010). Neither raises the objective. Each
#' split/merge round scores the moves by their exact change of the objective,
#' computes the objective after one assignment for the 20 best in one pass,
#' and runs Lloyd only from those within 2 % of the current objective
#' (at most `tries`), so a round where no move comes close costs one pass.
#' When two replicates ended at the same lowest objective (`polish_starts =
#' "auto"`), that optimum is taken as confirmed and only Hartigan's moves
#' follow. Otherwise the best replicate is polished, then the next ones
#' while the lowest polished result was reached from one start only and the
#' polish has made fewer passes over the rows than `polish_work` times the
#' replicates' Lloyd iterations. Two starts whose split/merge moves end
#' within a relative 1e-6 of the lowest such result confirm it too: the
#' Hartigan's moves that follow differ by a few rows.
#'
#' @section Mini-batch k-means:
#' With `algorithm = "minibatch"` in [kmeans_reduced()] (Sculley 2010, as
#' scikit-learn's `MiniBatchKMeans` runs it), each batch draws `batch_size`
#' distinct rows at random, assigns them to their nearest centres and moves
#' each centre that got rows to `(c v + s) / (v + m)`, where `v` counts the
#' rows (or sums the weights) the centre has had so far and `s` and `m` are
#' the sum and number (or weight) of its new rows: Sculley's updates with
#' learning rate `1 / v`. After every `10 k` rows drawn (or while a centre
#' has had no rows), the centres whose count is below `reassignment_ratio`
#' times the largest count move to random rows of the current batch (at
#' most half the batch) and their counts become the smallest of the others,
#' scikit-learn's rule. It stops after `iter_max` passes over the rows
#' (`iter_max * n / batch_size` batches), or earlier as scikit-learn does:
#' when the exponentially weighted average of the batch objective per row
#' has not reached a new low for 10 batches, or when the squared moves of
#' the centres in one batch sum to at most `tol` times the mean variance of
#' the columns. `tol` here is that threshold, not Lloyd's. The `n_init`
#' seedings run on a sample of `max(3 batch_size, 3 k)` rows (the best on
#' that sample kept), and `seeding = "auto"` decides by the size of that
#' sample.
#'
#' @eval control_rd_params()
#' @return An object of class `"kmreduce_control"`: a named list of every
#'   option, checked, with a print method that marks the options changed
#'   from their defaults.
#' @references
#' Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of
#' careful seeding. *SODA*, 1027--1035.
#'
#' Bachem, O., Lucic, M. and Krause, A. (2017). Practical coreset
#' constructions for machine learning. arXiv:1703.06476.
#'
#' Bahmani, B., Moseley, B., Vattani, A., Kumar, R. and Vassilvitskii, S.
#' (2012). Scalable k-means++. *Proceedings of the VLDB Endowment* 5(7),
#' 622--633.
#'
#' Bhattacharya, A., Eube, J., Roglin, H. and Schmidt, M. (2020). Noisy,
#' greedy and not so greedy k-means++. *ESA 2020*.
#'
#' Boley, D. (1998). Principal direction divisive partitioning. *Data Mining
#' and Knowledge Discovery* 2(4), 325--344.
#'
#' Bradley, P. S. and Fayyad, U. M. (1998). Refining initial points for
#' k-means clustering. *ICML 1998*, 91--99.
#'
#' Choo, D., Grunau, C., Portmann, J. and Rozhon, V. (2020). k-means++: few
#' more steps yield constant approximation. *ICML*, 1909--1917.
#'
#' Feldman, D. and Langberg, M. (2011). A unified framework for
#' approximating and clustering data. *STOC 2011*, 569--578.
#'
#' Grunau, C., Ozudogru, A. A., Rozhon, V. and Tetek, J. (2023). A nearly
#' tight analysis of greedy k-means++. *SODA 2023*.
#'
#' Hartigan, J. A. (1975). *Clustering Algorithms*. Wiley, New York.
#'
#' Lattanzi, S. and Sohler, C. (2019). A better k-means++ algorithm via local
#' search. *ICML*, 3662--3671.
#'
#' Rozhon, V. (2020). Simple and sharp analysis of k-means||. *ICML*,
#' 8266--8275.
#'
#' Sculley, D. (2010). Web-scale k-means clustering. *Proceedings of the
#' 19th International Conference on World Wide Web (WWW '10)*, 1177--1178.
#'
#' Telgarsky, M. and Vattani, A. (2010). Hartigan's method: k-means
#' clustering without Voronoi. *AISTATS*, 820--827.
#' @seealso [kmeans_reduced()], [reduction_methods] for the methods these
#'   options tune.
#' @examples
#' ctl <- kmeans_control(polish = "none", seeding = "k-means||")
#' ctl
#' x <- fashion_mnist$x[1:2000, ] / 255
#' fit <- kmeans_reduced(x, 10, n_init = 3, seed = 1, control = ctl)
#' fit$tot.withinss
#' @export
kmeans_control <- function() {
  # (the arguments, every option with its default, are those of
  # control_options(): .onLoad() sets the formals from control_formals(),
  # R/zzz.R)
  given <- mget(names(formals(kmeans_control)), environment())
  structure(check_control(given, prefix = ""), class = "kmreduce_control")
}

# Every option's default: those of control_options(), the one place they
# are written; then the options of registered reduction methods that are
# not arguments of kmeans_control() (method_registry(): their entry's
# default).
control_defaults <- function(params = method_params()) {
  out <- control_formals()
  for (p in setdiff(names(params), names(out))) out[p] <- list(params[[p]]$default)
  out
}

#' @export
print.kmreduce_control <- function(x, ...) {
  defaults <- control_defaults()
  shown <- vapply(names(x), function(name) {
    v <- x[[name]]
    if (is.null(v)) "NULL" else if (is.character(v)) paste0("\"", v, "\"") else format(v)
  }, character(1))
  changed <- !vapply(names(x), function(name) identical(x[[name]], defaults[[name]]) ||
                       isTRUE(all.equal(x[[name]], defaults[[name]])), logical(1))
  cat("kmeans_reduced() options", if (any(changed)) " (* changed from the default)", ":\n",
      sep = "")
  lines <- sprintf("  %-*s %s%s", max(nchar(names(x))), names(x), shown,
                   ifelse(changed, "  *", ""))
  cat(lines, sep = "\n")
  invisible(x)
}

# The core's table, read once per session: a named list of its rows.
option_table <- local({
  table <- NULL
  function() {
    if (is.null(table)) table <<- kmeans_option_table_cpp()
    table
  }
})

# Every option of kmeans_control(), in the order of its arguments: the
# table's options of kmeans_control() (scopes "control" and "r_only"), then
# the reduction methods' (builtin_params()). Made once per table (a fit
# checks its control several times).
control_options <- local({
  made <- NULL
  function() {
    table <- option_table()
    if (is.null(made) || !identical(made$table, table)) {
      made <<- list(table = table, options = table_options(table))
    }
    made$options
  }
})

table_options <- function(table) {
  rows <- Filter(function(o) o$scope != "call", table)
  c(lapply(rows, function(o) {
    check <- option_check(o)
    # (the default as its check gives it: whole numbers as integers)
    param(check, check(eval(str2lang(o$value)), o$name), gsub("\n[ ]+", "\n", o$help))
  }), builtin_params())
}

# The check of one row of the table (as the core's checked_option()): a
# function(value, arg) giving the value checked, or stop_arg() naming `arg`
# with what is expected.
option_check <- function(o) {
  function(v, arg) {
    if (is.null(v) && o$null) return(NULL)
    if (identical(v, "auto") && o$auto) return(v)
    ok <- switch(o$kind,
      flag = is.logical(v) && length(v) == 1L && !is.na(v),
      choice = is.character(v) && length(v) == 1L && !is.na(v) && v %in% o$choices,
      is.numeric(v) && length(v) == 1L && !is.na(v) &&
        (if (o$open_lower) v > o$lower else v >= o$lower) &&
        (if (o$open_upper) v < o$upper else v <= o$upper) &&
        (o$kind == "number" || is.infinite(v) || v == round(v)))
    if (!ok) {
      stop_arg(sprintf("`%s` must be %s, not %s.", arg, option_expected(o), describe(v)))
    }
    if (o$kind == "number") return(as.double(v))
    if (o$kind == "whole" && is.finite(v) && abs(v) <= .Machine$integer.max) as.integer(v) else v
  }
}

# What a row of the table accepts, in words.
option_expected <- function(o) {
  what <- switch(o$kind,
    flag = "TRUE or FALSE",
    choice = paste("one of", paste0("\"", o$choices, "\"", collapse = ", ")),
    sprintf("%s in %s%s, %s%s", if (o$kind == "whole") "a whole number" else "a number",
            if (o$open_lower) "(" else "[", format(o$lower), format(o$upper),
            if (o$open_upper) ")" else "]"))
  paste0(if (o$auto) "\"auto\" or ", if (o$null) "NULL or ", what)
}

# The formals of kmeans_control(): every option with its default.
control_formals <- function() {
  lapply(control_options(), `[[`, "default")
}

# The @param lines of ?kmeans_control (roxygen @eval): each option's help,
# the options that share one text (next to each other) in one @param.
control_rd_params <- function() {
  opts <- control_options()
  help <- vapply(opts, function(o) gsub("\n[ ]+", "\n", o$help), character(1))
  group <- cumsum(c(TRUE, help[-1L] != help[-length(help)]))
  vapply(split(names(opts), group), function(nms) {
    paste0("@param ", paste(nms, collapse = ","), " ", help[[nms[1L]]])
  }, character(1), USE.NAMES = FALSE)
}

# Merges `control` over the defaults (control_defaults()); unknown names and
# bad values are errors. The defaults are valid as declared (the tests run
# each through its own check): only the options given are checked.
check_control <- function(control, prefix = "control$") {
  extra <- method_params()
  defaults <- control_defaults(extra)
  nm <- function(name) paste0(prefix, name)
  if (is.null(control)) control <- list()
  if (!is.list(control) || (length(control) > 0L && is.null(names(control))) ||
      any(names(control) == "")) {
    stop_arg(sprintf("`control` must be a named list, not %s.", describe(control)))
  }
  # A name given twice is two answers to one question (the last would win
  # silently): refused, as R refuses an argument given twice in a call.
  twice <- unique(names(control)[duplicated(names(control))])
  if (length(twice) > 0L) {
    values <- vapply(control[names(control) == twice[1L]], describe, "")
    stop_arg(sprintf("`control` must give each option once, but gives %s %d times (%s)%s.",
                     paste0("'", twice[1L], "'"), length(values), paste(values, collapse = ", "),
                     if (length(twice) > 1L) {
                       sprintf("; also given more than once: %s",
                               paste0("'", twice[-1L], "'", collapse = ", "))
                     } else ""))
  }
  unknown <- setdiff(names(control), names(defaults))
  if (length(unknown) > 0L) {
    stop_arg(sprintf("`control` has unknown name%s %s; known names: %s.",
                     if (length(unknown) > 1L) "s" else "",
                     paste0("'", unknown, "'", collapse = ", "),
                     paste0("'", names(defaults), "'", collapse = ", ")))
  }
  out <- defaults
  out[names(control)] <- control
  # Each option checked as its declaration says (control_options()), or for
  # an option that only registered methods read, their entries' param().
  params <- control_options()
  params <- c(params, extra[setdiff(names(extra), names(params))])
  for (p in names(control)) out[p] <- list(params[[p]]$check(out[[p]], nm(p)))
  out
}

# The k-means settings of a fit: the options of the checked `control` that
# the core reads (the table's scope "control"), as given ("auto" and NULL
# included), and what follows from the method and from `algorithm`
# (control$algorithm, stats::kmeans()'s names, see algorithm_control()):
# MacQueen's online updates instead of Lloyd ("macqueen"), mini-batch
# k-means instead of the replicates and Lloyd ("minibatch"), Hartigan's
# moves after Lloyd from given centres ("Hartigan-Wong": `centres_polish`);
# `reduced`: the rows are reduced (every method but "none"), where
# polish_starts "auto" is 2.
kmeans_settings <- function(control, method = "none") {
  core <- names(Filter(function(o) o$scope == "control", option_table()))
  out <- control[core]
  names(out) <- core
  out$algorithm <- if (identical(control$algorithm, "MacQueen")) "macqueen" else
    if (identical(control$algorithm, "minibatch")) "minibatch" else "lloyd"
  out$centres_polish <- if (identical(control$algorithm, "Hartigan-Wong")) "hartigan" else "none"
  out$reduced <- method != "none"
  out
}
