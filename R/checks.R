# Argument checks. Every check runs before any C++ code and fails with an
# error that names the argument, says what was expected and what was given.

stop_arg <- function(...) stop(..., call. = FALSE)

# A short description of a value for error messages.
describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (is.data.frame(x)) return(sprintf("a data frame with %d columns", ncol(x)))
  if (is.list(x)) return(sprintf("a list of length %d", length(x)))
  if (is.factor(x)) return(sprintf("a factor of length %d", length(x)))
  if (is.matrix(x)) return(sprintf("a %s matrix of %d x %d", typeof(x), nrow(x), ncol(x)))
  if (isS4(x)) return(sprintf("an object of class %s", class(x)[1L]))
  if (length(x) == 0L) return(sprintf("an empty %s vector", typeof(x)))
  if (length(x) > 1L) return(sprintf("a %s vector of length %d", typeof(x), length(x)))
  if (is.character(x)) return(sprintf("\"%s\"", x))
  format(x, digits = 15)
}

is_whole <- function(x) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) && x == round(x)
}

# A single whole number in [lower, upper]; returned as integer when it fits.
check_whole <- function(x, arg, lower = 1, upper = .Machine$integer.max) {
  if (!is_whole(x) || x < lower || x > upper) {
    range <- if (is.finite(upper)) sprintf("in [%s, %s]", format(lower), format(upper))
             else sprintf(">= %s", format(lower))
    stop_arg(sprintf("`%s` must be a whole number %s, not %s.", arg, range, describe(x)))
  }
  if (abs(x) <= .Machine$integer.max) as.integer(x) else x
}

# Largest magnitude for which squared distances between rows of d values,
# sum_j (x_j - c_j)^2 <= 4 d max^2, stay finite doubles.
max_abs_value <- function(d = 1) sqrt(.Machine$double.xmax / (4 * d))

check_finite_values <- function(v, arg, where, d = 1) {
  if (!is.double(v)) storage.mode(v) <- "double"
  s <- scan_values_cpp(v)
  if (s$nonfinite > 0) {
    first <- s$first
    bad <- v[first]
    kinds <- if (is.na(bad)) "NA/NaN" else "Inf"
    stop_arg(sprintf("`%s` must contain only finite numbers; found %d non-finite value%s (%s%s %s).",
                     arg, as.integer(s$nonfinite), if (s$nonfinite > 1) "s" else "",
                     if (s$nonfinite > 1) "the first: " else "", kinds, where(first)))
  }
  if (s$maxabs > max_abs_value(d)) {
    stop_arg(sprintf(paste0("`%s` has values as large as %s in absolute value; ",
                            "squared distances would overflow. Rescale the data ",
                            "(values up to %s are supported)."),
                     arg, format(s$maxabs, digits = 3), format(max_abs_value(d), digits = 3)))
  }
  invisible(TRUE)
}

# Data for the algorithms: a double matrix or a dgCMatrix, checked.
# values = FALSE skips the scan for NA/Inf and huge values of a dense double
# matrix: the caller has a kernel that checks them on its way (kmeans_cpp(),
# project_cpp() with `limit`) and calls check_values_later() on failure.
check_data <- function(x, arg = "x", big = FALSE, block_rows = NULL, values = TRUE) {
  if (is_big(x)) {
    if (!big) {
      stop_arg(sprintf(paste0("`%s` is a big.matrix; only kmeans_reduced(), reduce_dims(), ",
                              "randomized_svd(), kmeans_objective() and predict() read one ",
                              "in blocks. Give an in-memory matrix here."), arg))
    }
    return(check_big_data(x, arg, block_rows_for(x, block_rows)))
  }
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) is.numeric(col) && !is.factor(col), logical(1))
    if (!all(ok)) {
      bad <- names(x)[!ok]
      kinds <- vapply(x[!ok], function(col) class(col)[1L], character(1))
      stop_arg(sprintf("`%s` must have numeric columns only; %s.", arg,
                       paste(sprintf("column '%s' is %s", bad, kinds), collapse = ", ")))
    }
    x <- as.matrix(x)
  }
  if (inherits(x, "Matrix")) {
    if (!methods::is(x, "dMatrix") && !methods::is(x, "lMatrix") && !methods::is(x, "nMatrix")) {
      stop_arg(sprintf("`%s` must be a numeric Matrix, not %s.", arg, describe(x)))
    }
    if (methods::is(x, "sparseMatrix")) {
      if (!methods::is(x, "dgCMatrix")) {
        x <- methods::as(methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix")
      }
    } else {
      x <- as.matrix(x)
    }
  }
  if (methods::is(x, "dgCMatrix")) {
    if (nrow(x) == 0L || ncol(x) == 0L) {
      stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                       arg, nrow(x), ncol(x)))
    }
    check_finite_values(x@x, arg, function(t) {
      col <- findInterval(t - 1L, x@p, left.open = FALSE, rightmost.closed = FALSE)
      sprintf("at row %d, column %d", x@i[t] + 1L, col)
    }, ncol(x))
    return(x)
  }
  if (!is.matrix(x) || !(is.numeric(x))) {
    stop_arg(sprintf("`%s` must be a numeric matrix, data frame or dgCMatrix, not %s.",
                     arg, describe(x)))
  }
  if (nrow(x) == 0L || ncol(x) == 0L) {
    stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                     arg, nrow(x), ncol(x)))
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!values) return(x)
  n <- nrow(x)
  check_finite_values(x, arg, function(t) {
    sprintf("at row %d, column %d", (t - 1L) %% n + 1L, (t - 1L) %/% n + 1L)
  }, ncol(x))
  x
}

# A kernel found a non-finite or too large value in `x` (checked with
# values = FALSE): the scan of check_data() finds and reports it.
check_values_later <- function(x, arg = "x") {
  check_data(x, arg)
  stop_arg(sprintf("`%s` has values that cannot be clustered (not finite or too large).", arg))
}

check_k <- function(k, x) {
  n_max <- nrow(x)
  if (!is_whole(k) || k < 1 || k > n_max) {
    stop_arg(sprintf("`k` must be a whole number in [1, %d] (the number of rows of `x`), not %s.",
                     n_max, describe(k)))
  }
  if (is_big(x)) {
    if (k > 1 && !big_has_distinct(x, k, block_rows_for(x))) {
      stop_arg(sprintf("`k` must be at most the number of distinct rows of `x` (fewer than %s).",
                       describe(k)))
    }
    return(as.integer(k))
  }
  if (k > 1 && !has_distinct_rows_cpp(x, k)) {
    distinct <- distinct_rows_cpp(x)
    if (k > distinct) {
      stop_arg(sprintf("`k` must be a whole number in [1, %d] (the number of distinct rows of `x`), not %s.",
                       as.integer(distinct), describe(k)))
    }
  }
  as.integer(k)
}

# Initial centres given as `k`: a numeric matrix with the columns of `x`.
check_centers <- function(centers, x) {
  centers <- check_data(centers, "k")
  if (methods::is(centers, "dgCMatrix")) centers <- as.matrix(centers)
  if (ncol(centers) != ncol(x)) {
    stop_arg(sprintf("`k` given as a matrix of initial centres must have %d columns (as `x`), not %d.",
                     ncol(x), ncol(centers)))
  }
  if (nrow(centers) > nrow(x)) {
    stop_arg(sprintf("`k` given as a matrix of initial centres must have at most %d rows (the rows of `x`), not %d.",
                     nrow(x), nrow(centers)))
  }
  centers
}

# Labels of a partition of n rows, as a factor without unused levels.
check_cluster <- function(cluster, n, arg = "cluster") {
  if (!(is.numeric(cluster) || is.character(cluster) || is.factor(cluster)) ||
      length(cluster) != n || anyNA(cluster)) {
    stop_arg(sprintf("`%s` must be a vector of %d labels without NA (one per row), not %s.",
                     arg, n, describe(cluster)))
  }
  factor(cluster, levels = unique(cluster))
}

# Two partitions of the same observations.
check_label_pair <- function(a, b) {
  if (!(is.numeric(a) || is.character(a) || is.factor(a)) || length(a) == 0L || anyNA(a)) {
    stop_arg(sprintf("`cluster` must be a non-empty vector of labels without NA, not %s.", describe(a)))
  }
  if (length(b) != length(a)) {
    stop_arg(sprintf("`truth` must have the length of `cluster` (%d), not %d.", length(a), length(b)))
  }
  if (!(is.numeric(b) || is.character(b) || is.factor(b)) || anyNA(b)) {
    stop_arg(sprintf("`truth` must be a vector of labels without NA, not %s.", describe(b)))
  }
  list(a = factor(a, levels = unique(a)), b = factor(b, levels = unique(b)))
}

reduction_methods <- function() {
  c("auto", "none", projection_methods(), selection_methods(), extraction_methods())
}

check_method <- function(method) {
  ok <- reduction_methods()
  if (!is.character(method) || length(method) != 1L || is.na(method) || !(method %in% ok)) {
    stop_arg(sprintf("`method` must be one of %s, not %s.",
                     paste0("\"", ok, "\"", collapse = ", "), describe(method)))
  }
  method
}

# "auto": the sparse embedding (O(nnz)) for sparse data, signs for dense.
resolve_method <- function(method, x) {
  if (method != "auto") return(method)
  if (methods::is(x, "dgCMatrix")) "sparse_embedding" else "sign"
}

# Largest number of doubles a reduced matrix may have (32 GB).
max_reduced_size <- function() 4e9

# Most columns a reduced matrix of nrow(x) rows may have.
max_dims <- function(x) min(.Machine$integer.max, floor(max_reduced_size() / nrow(x)))

check_dims <- function(dims, method, k, x) {
  n <- nrow(x)
  d <- ncol(x)
  if (method == "none") return(as.integer(d))
  upper <- switch(method,
    svd = , rsvd = , cssp = min(n, d),
    srht = 2^ceiling(log2(d)),
    max_dims(x))
  if (is.null(dims)) {
    if (is.null(k)) {
      stop_arg(sprintf("`dims` must be given (a whole number in [1, %s]) when `k` is not.",
                       format(upper)))
    }
    dims <- if (method %in% extraction_methods()) k else min(d, 10 * k)
    return(as.integer(min(dims, upper)))
  }
  check_whole(dims, "dims", 1, upper)
}

check_seed <- function(seed) {
  if (is.null(seed)) return(NULL)
  if (!is_whole(seed) || abs(seed) > 2^53) {
    stop_arg(sprintf("`seed` must be NULL or a single whole number, not %s.", describe(seed)))
  }
  as.numeric(seed)
}

# The seed used: the one given, or one integer drawn from R's RNG (so that
# set.seed() makes a NULL seed reproducible). A given seed never touches R's RNG.
resolve_seed <- function(seed) {
  seed <- check_seed(seed)
  if (is.null(seed)) seed <- as.numeric(sample.int(.Machine$integer.max, 1L))
  seed
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop_arg(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, describe(x)))
  }
  x
}

# A k-means fit: kmeans_reduced() or stats::kmeans() (class "kmeans").
check_fit <- function(fit, arg = "fit") {
  if (!inherits(fit, "kmeans") || !is.numeric(fit$tot.withinss) ||
      is.null(fit$size) || !is.matrix(fit$centers)) {
    stop_arg(sprintf(paste0("`%s` must be a k-means fit (from kmeans_reduced() or ",
                            "stats::kmeans()), not %s."), arg, describe(fit)))
  }
  invisible(fit)
}

# NULL: the default of kmreduce_threads(). A number above the available
# cores is lowered to them, with a message (never an error or a crash).
check_n_threads <- function(n_threads) {
  if (is.null(n_threads)) return(as.integer(kmreduce_threads()))
  n <- check_whole(n_threads, "n_threads", 1, Inf)
  cores <- available_cores()
  if (n > cores) {
    message(sprintf("`n_threads` = %s is more than the %d core%s available; using %d.",
                    format(n), cores, if (cores == 1L) "" else "s", cores))
    n <- cores
  }
  as.integer(n)
}

control_defaults <- function() {
  list(tol = 1e-6, keep_reduced = TRUE, svd = "randomized", eps = 1 / 3,
       power_iters = 0L, scores = "squared", sampling = "random", c = NULL,
       repeats = 40L, block_rows = NULL)
}

check_choice <- function(value, arg, choices) {
  if (!is.character(value) || length(value) != 1L || is.na(value) || !(value %in% choices)) {
    stop_arg(sprintf("`%s` must be one of %s, not %s.", arg,
                     paste0("\"", choices, "\"", collapse = ", "), describe(value)))
  }
  value
}

# Merges `control` over the defaults; unknown names and bad values are errors.
check_control <- function(control, defaults = control_defaults()) {
  if (is.null(control)) control <- list()
  if (!is.list(control) || (length(control) > 0L && is.null(names(control))) ||
      any(names(control) == "")) {
    stop_arg(sprintf("`control` must be a named list, not %s.", describe(control)))
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
  number_in <- function(v, arg, lower, upper, open_lower = FALSE) {
    ok <- is.numeric(v) && length(v) == 1L && !is.na(v) &&
      (if (open_lower) v > lower else v >= lower) && v < upper
    if (!ok) {
      stop_arg(sprintf("`control$%s` must be a number in %s%s, %s), not %s.", arg,
                       if (open_lower) "(" else "[", format(lower), format(upper), describe(v)))
    }
  }
  number_in(out$tol, "tol", 0, 1)
  number_in(out$eps, "eps", 0, 1, open_lower = TRUE)
  if (!is.logical(out$keep_reduced) || length(out$keep_reduced) != 1L ||
      is.na(out$keep_reduced)) {
    stop_arg(sprintf("`control$keep_reduced` must be TRUE or FALSE, not %s.",
                     describe(out$keep_reduced)))
  }
  check_choice(out$svd, "control$svd", c("randomized", "exact"))
  check_choice(out$scores, "control$scores", c("squared", "sqrt"))
  check_choice(out$sampling, "control$sampling", c("random", "top"))
  out$power_iters <- check_whole(out$power_iters, "control$power_iters", 0, 100)
  out$repeats <- check_whole(out$repeats, "control$repeats", 1, 10000)
  if (!is.null(out$c)) number_in(out$c, "c", 0, Inf, open_lower = TRUE)
  if (!is.null(out$block_rows)) {
    out$block_rows <- check_whole(out$block_rows, "control$block_rows", 1)
  }
  out
}

# New data for predict()/plot(): checked like `x`, with the columns of the
# data the model was fitted to (matched by name when both have names).
check_newdata <- function(newdata, reducer, arg = "newdata") {
  newdata <- check_data(newdata, arg)
  names_fit <- reducer$feature_names
  d <- reducer$n_features
  names_new <- colnames(newdata)
  if (!is.null(names_fit) && !is.null(names_new)) {
    missing <- setdiff(names_fit, names_new)
    if (length(missing) > 0L) {
      shown <- utils::head(missing, 5L)
      stop_arg(sprintf("`%s` must have the columns of the data the model was fitted to; missing: %s%s.",
                       arg, paste0("'", shown, "'", collapse = ", "),
                       if (length(missing) > 5L) sprintf(" and %d more", length(missing) - 5L) else ""))
    }
    if (!identical(names_new, names_fit)) newdata <- newdata[, names_fit, drop = FALSE]
  } else if (ncol(newdata) != d) {
    stop_arg(sprintf("`%s` must have %d columns (as the data the model was fitted to), not %d.",
                     arg, d, ncol(newdata)))
  }
  newdata
}
