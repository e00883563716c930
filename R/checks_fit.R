# Checks of fitted objects: k-means fits, kmeans_reduced fits, reducers.

# A k-means fit: kmeans_reduced() or stats::kmeans() (class "kmeans").
check_fit <- function(fit, arg = "fit") {
  if (!inherits(fit, "kmeans") || !is.numeric(fit$tot.withinss) ||
      is.null(fit$size) || !is.matrix(fit$centers)) {
    stop_arg(sprintf(paste0("`%s` must be a k-means fit (from kmeans_reduced() or ",
                            "stats::kmeans()), not %s."), arg, describe(fit)))
  }
  check_kmeans_fields(fit, function(what) {
    stop_arg(sprintf("`%s` is not a valid k-means fit: %s.", arg, what))
  })
  invisible(fit)
}

# A kmreduce_reducer (from a fit or reduce_dims()), as C++ will read it.
check_reducer <- function(r, arg = "object") {
  bad <- function(what) {
    stop_arg(sprintf("`%s` is not a valid kmreduce reducer: %s.", arg, what))
  }
  if (!inherits(r, "kmreduce_reducer") || !is.list(r)) bad(sprintf("it is %s", describe(r)))
  ok <- setdiff(reduction_methods(), "auto")
  if (!is.character(r$method) || length(r$method) != 1L || !(r$method %in% ok)) {
    bad(sprintf("`method` must be one of %s, not %s", paste0("\"", ok, "\"", collapse = ", "),
                describe(r$method)))
  }
  imax <- .Machine$integer.max
  if (!is_whole(r$n_features) || r$n_features < 1 || r$n_features > imax) {
    bad(sprintf("`n_features` must be a whole number in [1, %d], not %s", imax, describe(r$n_features)))
  }
  if (!is_whole(r$dims) || r$dims < 1 || r$dims > imax) {
    bad(sprintf("`dims` must be a whole number in [1, %d], not %s", imax, describe(r$dims)))
  }
  if (!is.null(method_info(r$method)) && r$dims > method_info(r$method)$upper(Inf, r$n_features)) {
    bad(sprintf("`dims` of a %s of %s features must be at most %s, not %s", method_label(r$method),
                format(r$n_features), format(method_info(r$method)$upper(Inf, r$n_features)),
                format(r$dims)))
  }
  if (!is.null(r$feature_names) &&
      (!is.character(r$feature_names) || length(r$feature_names) != r$n_features)) {
    bad(sprintf("`feature_names` must be NULL or %d names, not %s", r$n_features,
                describe(r$feature_names)))
  }
  m <- r$method
  if (m %in% projection_methods() && (!is_whole(r$seed) || abs(r$seed) > 2^53)) {
    bad(sprintf("`seed` must be a whole number, not %s", describe(r$seed)))
  }
  wrong <- method_info(m)$valid(r)
  if (!is.null(wrong)) bad(wrong)
  if (m == "none" && r$dims != r$n_features) {
    bad(sprintf("`dims` must equal `n_features` (%s) for method \"none\", not %s",
                format(r$n_features), format(r$dims)))
  }
  if (m %in% selection_methods()) {
    f <- r$features
    if (!is.data.frame(f) || !all(c("index", "scale", "name") %in% names(f)) ||
        nrow(f) != r$dims) {
      bad(sprintf("`features` must be a data frame of %s rows with columns index, scale and name",
                  format(r$dims)))
    }
    if (!is.numeric(f$index) || anyNA(f$index) || any(f$index != round(f$index)) ||
        any(f$index < 1) || any(f$index > r$n_features)) {
      bad(sprintf("`features$index` must hold column numbers in [1, %s]", format(r$n_features)))
    }
    if (!is.numeric(f$scale) || !all(is.finite(f$scale))) {
      bad("`features$scale` must hold finite numbers")
    }
  }
  if (m %in% extraction_methods() &&
      !(is_finite_matrix(r$rotation, r$dims) && nrow(r$rotation) == r$n_features)) {
    bad(sprintf("`rotation` must be a finite %s x %s matrix", format(r$n_features), format(r$dims)))
  }
  # The shift of the mapped rows: NULL (older versions, or sparse data for
  # "none") or one finite number per reduced column.
  if (!is.null(r$shift) && !is_finite_vector(r$shift, r$dims)) {
    bad(sprintf("`shift` must be NULL or %s finite numbers, not %s", format(r$dims),
                describe(r$shift)))
  }
  invisible(r)
}

# The fields every k-means fit has (stats::kmeans and kmeans_reduced), as
# the methods read them.
check_kmeans_fields <- function(fit, bad) {
  k <- if (is.matrix(fit$centers)) nrow(fit$centers) else 0L
  if (!is.matrix(fit$centers) || !is.numeric(fit$centers) || k < 1L) {
    bad(sprintf("`centers` must be a numeric matrix with one row per cluster, not %s",
                describe(fit$centers)))
  }
  cl <- fit$cluster
  if (!is.numeric(cl) || length(cl) < 1L || anyNA(cl) || any(cl != round(cl)) ||
      any(cl < 1) || any(cl > k)) {
    bad(sprintf("`cluster` must hold cluster numbers in [1, %d], not %s", k, describe(cl)))
  }
  for (f in c("withinss", "size")) {
    v <- fit[[f]]
    if (!is.numeric(v) || length(v) != k || anyNA(v)) {
      bad(sprintf("`%s` must be %d numbers (one per cluster), not %s", f, k, describe(v)))
    }
  }
  for (f in c("totss", "tot.withinss", "betweenss", "iter")) {
    v <- fit[[f]]
    if (!is.numeric(v) || length(v) != 1L || is.na(v)) {
      bad(sprintf("`%s` must be a number, not %s", f, describe(v)))
    }
  }
  invisible(fit)
}

# A kmeans_reduced fit, as predict() and its relatives read it; with
# fields = TRUE also the kmeans fields (print, summary, plot, tidiers).
check_reduced_fit <- function(fit, arg = "object", fields = FALSE) {
  bad <- function(what) {
    stop_arg(sprintf("`%s` is not a valid kmeans_reduced fit: %s.", arg, what))
  }
  if (!inherits(fit, "kmeans_reduced") || !is.list(fit)) bad(sprintf("it is %s", describe(fit)))
  if (fields) check_kmeans_fields(fit, bad)
  check_reducer(fit$reducer, sprintf("%s$reducer", arg))
  if (fields && (!is.numeric(fit$sumsq) || length(fit$sumsq) != 1L || is.na(fit$sumsq))) {
    bad(sprintf("`sumsq` must be a number, not %s", describe(fit$sumsq)))
  }
  if (fields && (!is_whole(fit$dims) || fit$dims < 1 || fit$dims > .Machine$integer.max ||
                 !is.character(fit$method) || length(fit$method) != 1L)) {
    bad(sprintf("`method` and `dims` must be a method name and a whole number, not %s and %s",
                describe(fit$method), describe(fit$dims)))
  }
  if (!is.null(fit$assignment_centers) &&
      !is_finite_matrix(fit$assignment_centers, fit$reducer$n_features)) {
    bad(sprintf("`assignment_centers` must be a finite matrix with %s columns, not %s",
                format(fit$reducer$n_features), describe(fit$assignment_centers)))
  }
  if (!is.null(fit$assignment_shift) &&
      !is_finite_vector(fit$assignment_shift, fit$reducer$n_features)) {
    bad(sprintf("`assignment_shift` must be NULL or %s finite numbers, not %s",
                format(fit$reducer$n_features), describe(fit$assignment_shift)))
  }
  # predict() needs the reduced centres unless it assigns in the original space.
  if ((is.null(fit$assignment_centers) || !is.null(fit$reduced_centers)) &&
      !is_finite_matrix(fit$reduced_centers, fit$reducer$dims)) {
    bad(sprintf("`reduced_centers` must be a finite matrix with %s columns (one row per cluster), not %s",
                format(fit$reducer$dims), describe(fit$reduced_centers)))
  }
  for (f in c("reduced_centers", "assignment_centers")) {
    if (is.matrix(fit[[f]]) && is.matrix(fit$centers) && nrow(fit[[f]]) != nrow(fit$centers)) {
      bad(sprintf("it has %d centres but %d rows in `%s`", nrow(fit$centers), nrow(fit[[f]]), f))
    }
  }
  invisible(fit)
}
