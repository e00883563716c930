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
  if (is.environment(x)) return("an environment")
  if (is.matrix(x)) return(sprintf("a %s matrix of %d x %d", typeof(x), nrow(x), ncol(x)))
  if (is.array(x)) {
    return(sprintf("a %d-dimensional %s array (%s)", length(dim(x)), typeof(x),
                   paste(dim(x), collapse = " x ")))
  }
  if (isS4(x)) return(sprintf("an object of class %s", class(x)[1L]))
  if (!is.null(oldClass(x))) {
    return(sprintf("an object of class %s%s", class(x)[1L],
                   if (length(x) == 1L && is.atomic(x)) paste0(" (", format(x), ")") else ""))
  }
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

# Largest magnitude for which sums of squared differences over `cells`
# values (the n x d cells of the data: totss, withinss, distances),
# sum (x - c)^2 <= 4 cells max^2, stay finite doubles.
max_abs_value <- function(cells = 1) sqrt(.Machine$double.xmax / (4 * cells))

# Smallest largest magnitude of data that are not all zero: below it,
# squared differences at the data's own precision, (eps max|x|)^2, are
# subnormal or zero and distances lose their digits (the partition would
# change with the units). About 6.7e-139; min_abs_value() in scan.hpp.
min_abs_value <- function() sqrt(.Machine$double.xmin) / .Machine$double.eps

# small = TRUE: also refuse data whose largest magnitude is positive but
# below min_abs_value() (training data; rows to assign may be anything
# finite). Returns the largest magnitude, invisibly.
check_finite_values <- function(v, arg, where, cells = 1, small = TRUE) {
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
  if (s$maxabs > max_abs_value(cells)) {
    stop_arg(sprintf(paste0("`%s` has values as large as %s in absolute value; ",
                            "squared distances and sums of squares would overflow. Rescale the data ",
                            "(values up to %s are supported for data of this size)."),
                     arg, format(s$maxabs, digits = 3), format(max_abs_value(cells), digits = 3)))
  }
  if (small) check_small_values(s$maxabs, arg)
  invisible(s$maxabs)
}

check_small_values <- function(maxabs, arg) {
  if (maxabs > 0 && maxabs < min_abs_value()) {
    stop_arg(sprintf(paste0("`%s` has no value larger than %s in absolute value; squared ",
                            "distances would underflow and lose their digits. Rescale the data ",
                            "(largest values from %s up are supported, or all zero)."),
                     arg, format(maxabs, digits = 3), format(min_abs_value(), digits = 3)))
  }
  invisible(TRUE)
}

# Data for the algorithms: a double matrix or a dgCMatrix, checked.
# values = FALSE skips the scan for NA/Inf and huge values of a dense double
# matrix: the caller has a kernel that checks them on its way (kmeans_cpp(),
# project_cpp() with `limit`) and calls check_values_later() on failure.
# vector_column = TRUE: a plain numeric vector is one feature (one column),
# as stats::kmeans() takes it.
# small = FALSE: values of any size (rows to assign, initial centres; see
# check_finite_values()).
check_data <- function(x, arg = "x", big = FALSE, block_rows = NULL, values = TRUE,
                       vector_column = FALSE, small = TRUE) {
  if (vector_column && is.numeric(x) && is.null(dim(x)) && is.null(oldClass(x)) &&
      length(x) > 0L) {
    x <- matrix(as.double(x), ncol = 1L, dimnames = list(names(x), NULL))
  }
  if (inherits(x, "kmreduce_mpi")) {
    stop_arg(sprintf(paste0("`%s` is a set of distributed rows (mpi_rows()); only kmeans_reduced() ",
                            "takes them. Give this function a matrix, data frame or sparse Matrix ",
                            "in memory (for example `%s$x`, this rank's rows)."), arg, arg))
  }
  if (is_big(x)) {
    if (!big) {
      stop_arg(sprintf(paste0("`%s` is a big.matrix; only kmeans_reduced(), reduce_dims(), ",
                              "randomized_svd(), kmeans_objective() and predict() read one ",
                              "in blocks. Give an in-memory matrix here."), arg))
    }
    return(check_big_data(x, arg, block_rows_for(x, block_rows), small))
  }
  if (is.data.frame(x)) {
    if (ncol(x) == 0L || nrow(x) == 0L) {
      stop_arg(sprintf("`%s` must have at least one row and one column, not a data frame of %d x %d.",
                       arg, nrow(x), ncol(x)))
    }
    x <- data_frame_matrix(x, arg)
  } else if (is.matrix(x) && !is.null(oldClass(x)) && !identical(oldClass(x), "matrix")) {
    x <- matrix(plain_numeric(x, arg, NULL), nrow(x), ncol(x), dimnames = dimnames(x))
  }
  if (inherits(x, "Matrix")) {
    if (!methods::is(x, "dMatrix") && !methods::is(x, "lMatrix") && !methods::is(x, "nMatrix")) {
      stop_arg(sprintf("`%s` must be a numeric Matrix, not %s.", arg, describe(x)))
    }
    if (methods::is(x, "sparseMatrix")) {
      if (!methods::is(x, "dgCMatrix")) {
        valid <- tryCatch(methods::validObject(x), error = function(e) conditionMessage(e))
        if (is.character(valid)) {
          stop_arg(sprintf("`%s` is not a valid %s: %s", arg, class(x)[1L], valid))
        }
        x <- methods::as(methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix")
      }
    } else {
      x <- as.matrix(x)
    }
  }
  if (methods::is(x, "dgCMatrix")) {
    check_sparse_slots(x, arg)
    if (nrow(x) == 0L || ncol(x) == 0L) {
      stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                       arg, nrow(x), ncol(x)))
    }
    check_finite_values(x@x, arg, function(t) {
      col <- findInterval(t - 1L, x@p, left.open = FALSE, rightmost.closed = FALSE)
      sprintf("at row %d, column %d", x@i[t] + 1L, col)
    }, as.numeric(nrow(x)) * ncol(x), small)
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
  }, as.numeric(n) * ncol(x), small)
  x
}

# A data frame of numeric columns as a double matrix, column by column in
# linear time (`x[] <- lapply(...)` then as.matrix() is quadratic in the
# number of columns: minutes for 10^5 columns), with the dimnames
# as.matrix() gives (row names only when they are not automatic).
data_frame_matrix <- function(x, arg) {
  nm <- names(x)
  cols <- unclass(x)
  attributes(cols) <- NULL
  # (plain double or integer columns need no check of their own)
  plain <- vapply(cols, function(v) is.null(attributes(v)) && (is.double(v) || is.integer(v)),
                  TRUE)
  for (j in which(!plain)) cols[[j]] <- plain_numeric(cols[[j]], arg, nm[j])
  if (any(vapply(cols, function(v) !is.null(dim(v)), TRUE))) {
    # matrix columns (rare): as.matrix() names and spreads them
    x[] <- cols
    return(as.matrix(x))
  }
  out <- matrix(as.double(unlist(cols, use.names = FALSE)), nrow(x), length(cols))
  rn <- if (.row_names_info(x) > 0L) row.names(x)
  if (!is.null(rn) || !is.null(nm)) dimnames(out) <- list(rn, nm)
  out
}

# A sparse x whose columns sit far from zero against their spread (sum of
# n mean_j^2 over the total sum of squares above 1e6: six digits of the
# distances ||x||^2 + ||c||^2 - 2 x.c lost; sparse rows are not shifted) is
# nearly all nonzeros (a column of mean m and standard deviation s has at
# most a fraction s^2 / m^2 of zeros), so it is clustered as the dense
# matrix it is, where rows are shifted by their means; when that copy does
# not fit, the error says so.
dense_if_far_from_zero <- function(x, arg = "x") {
  if (!methods::is(x, "dgCMatrix")) return(x)
  # (so it takes a column with fewer than n / (1e6 + 1) zeros: O(d) to rule out)
  n <- nrow(x)
  if (!any(diff(x@p) > n - n / (1e6 + 1))) return(x)
  st <- cluster_stats_cpp(x, rep.int(1L, n), 1L, 1L)
  ratio <- nrow(x) * sum(st$centers^2) / st$totss
  if (!(st$totss > 0) || ratio <= 1e6) return(x)
  check_memory(8 * as.numeric(nrow(x)) * ncol(x),
               sprintf(paste0("`%s` is sparse, but its columns sit far from zero against their ",
                              "spread (mean^2 / variance about %.2g), where sparse rows lose the ",
                              "digits of their distances; clustering it as the dense matrix it is"),
                       arg, ratio),
               "Subtract the column means (or a value near them) from the columns far from zero.")
  out <- as.matrix(x)
  storage.mode(out) <- "double"
  out
}

# A column (or matrix) of numbers as a plain double/integer vector: classed
# numbers are converted where the conversion is well defined (integer64
# through bit64, difftime in its units) and refused by name otherwise (the
# bits of an integer64 read as doubles would be garbage).
plain_numeric <- function(col, arg, name) {
  what <- if (is.null(name)) sprintf("`%s`", arg) else sprintf("`%s` column '%s'", arg, name)
  cls <- setdiff(oldClass(col), c("matrix", "array", "AsIs"))
  if (length(cls) == 0L || is.factor(col)) {
    if (is.numeric(col) && !is.factor(col)) return(col)
    stop_arg(sprintf("%s must be numeric, not %s.", what, describe_kind(col)))
  }
  if (inherits(col, "integer64")) {
    if (!requireNamespace("bit64", quietly = TRUE)) {
      stop_arg(sprintf("%s is an integer64 vector; install bit64 or convert it with as.numeric().", what))
    }
    out <- suppressWarnings(as.double(col))  # the check below says it better
    if (any(abs(out) > 2^53, na.rm = TRUE)) {
      stop_arg(sprintf("%s is an integer64 vector with values beyond 2^53, which doubles cannot hold exactly.",
                       what))
    }
    return(out)
  }
  if (inherits(col, "difftime")) return(as.double(col, units = units(col)))
  stop_arg(sprintf(paste0("%s is a %s vector; convert it to plain numbers first ",
                          "(for example with as.numeric()) so that its unit is your choice."),
                   what, cls[1L]))
}

describe_kind <- function(col) {
  if (is.factor(col)) "a factor" else sprintf("a %s vector", class(col)[1L])
}

# A kernel found a non-finite or too large value in `x` (checked with
# values = FALSE): the scan of check_data() finds and reports it.
check_values_later <- function(x, arg = "x") {
  check_data(x, arg)
  stop_arg(sprintf("`%s` has values that cannot be clustered (not finite or too large).", arg))
}

check_k <- function(k, x) {
  if (inherits(x, "kmreduce_mpi")) {
    if (!is_whole(k) || k < 1 || k > x$n) {
      stop_arg(sprintf("`k` must be a whole number in [1, %s] (the rows of the distributed matrix), not %s.",
                       format(x$n), describe(k)))
    }
    return(as.integer(k))
  }
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

# Observation weights: NULL, or one finite positive number per row of `x`
# (n rows); returned as a plain double vector.
check_weights <- function(weights, n, arg = "weights") {
  if (is.null(weights)) return(NULL)
  expect <- sprintf("a numeric vector of %s positive finite numbers (one per row of `x`)", format(n))
  if (!is.numeric(weights) || is.factor(weights) || length(dim(weights)) > 1L ||
      !is.null(oldClass(weights)) && !identical(oldClass(weights), "AsIs")) {
    stop_arg(sprintf("`%s` must be %s, not %s.", arg, expect, describe(weights)))
  }
  if (length(weights) != n) {
    stop_arg(sprintf("`%s` must be %s, not %s values.", arg, expect, format(length(weights))))
  }
  weights <- as.double(unclass(weights))
  attributes(weights) <- NULL
  bad <- which(!is.finite(weights))
  if (length(bad) > 0L) {
    stop_arg(sprintf("`%s` must be %s; found %d non-finite value%s (%s%s at position %d).",
                     arg, expect, length(bad), if (length(bad) > 1L) "s" else "",
                     if (length(bad) > 1L) "the first: " else "",
                     if (is.na(weights[bad[1L]])) "NA/NaN" else format(weights[bad[1L]]),
                     bad[1L]))
  }
  bad <- which(weights <= 0)
  if (length(bad) > 0L) {
    stop_arg(sprintf(paste0("`%s` must be %s; found %d zero or negative value%s (%s%s at position %d). ",
                            "Leave out the rows of weight 0 instead."),
                     arg, expect, length(bad), if (length(bad) > 1L) "s" else "",
                     if (length(bad) > 1L) "the first: " else "", format(weights[bad[1L]]),
                     bad[1L]))
  }
  if (!is.finite(sum(weights))) {
    stop_arg(sprintf("`%s` must be %s whose sum is finite; they sum to more than %s. Rescale them.",
                     arg, expect, format(.Machine$double.xmax, digits = 3)))
  }
  weights
}

# `algorithm` of stats::kmeans(): NULL (the package's pipeline) or one of its
# four names (partial matching as match.arg(); its whole default vector is
# its first name).
check_algorithm <- function(algorithm) {
  if (is.null(algorithm)) return(NULL)
  choices <- c("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")
  if (identical(algorithm, choices)) return(choices[1L])
  hit <- if (is.character(algorithm) && length(algorithm) == 1L && !is.na(algorithm) &&
             nzchar(algorithm)) pmatch(algorithm, choices) else NA_integer_
  if (is.na(hit)) {
    stop_arg(sprintf("`algorithm` must be NULL (the package's default) or one of %s, as in stats::kmeans(), not %s.",
                     paste0("\"", choices, "\"", collapse = ", "), describe(algorithm)))
  }
  choices[hit]
}

# `trace`: NULL (the default: a progress line for long interactive fits),
# TRUE / FALSE, or a whole number >= 0 (the level of detail).
check_trace <- function(trace) {
  if (is.null(trace)) return(NULL)
  if (is.logical(trace) && length(trace) == 1L && !is.na(trace)) return(as.integer(trace))
  if (is_whole(trace) && trace >= 0) return(as.integer(min(trace, 10)))
  stop_arg(sprintf("`trace` must be NULL, TRUE, FALSE or a whole number >= 0 (the level of detail), not %s.",
                   describe(trace)))
}

# Initial centres given as `k`: a numeric matrix with the columns of `x`.
check_centers <- function(centers, x) {
  centers <- check_data(centers, "k", small = FALSE)
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
  # Integer codes by exact value (a factor would merge labels that print
  # alike, such as 1 and 1 + 2^-52).
  if (is.factor(a)) a <- as.character(a)
  if (is.factor(b)) b <- as.character(b)
  ia <- match(a, unique(a))
  ib <- match(b, unique(b))
  # The nonzero cells of the contingency table, never the dense table.
  o <- order(ia, ib)
  sa <- ia[o]
  sb <- ib[o]
  n <- length(sa)
  new <- c(TRUE, sa[-1L] != sa[-n] | sb[-1L] != sb[-n])
  list(a = ia, b = ib, n = n, na = max(ia), nb = max(ib),
       cell_a = sa[new], cell_b = sb[new], count = tabulate(cumsum(new)))
}

reduction_methods <- function() c("auto", names(method_registry()))

check_method <- function(method) {
  ok <- reduction_methods()
  if (!is.character(method) || length(method) != 1L || is.na(method) || !(method %in% ok)) {
    stop_arg(sprintf("`method` must be one of %s, not %s.",
                     paste0("\"", ok, "\"", collapse = ", "), describe(method)))
  }
  method
}

# "auto": k-means on the data themselves for narrow data (with `k` given:
# at most narrow_columns(k) columns, where the default reduction would keep
# every column), else the sparse embedding (O(nnz)) for sparse data and
# signs for dense.
resolve_method <- function(method, x, k = NULL) {
  if (method != "auto") return(method)
  if (!is.null(k) && ncol(x) <= narrow_columns(k)) return("none")
  if (methods::is(x, "dgCMatrix")) "sparse_embedding" else "sign"
}

# Data with at most this many columns are clustered as they are by
# method = "auto": the projections' default `dims` is min(ncol(x), 10 k), so
# up to 10 k columns a projection would not reduce anything, only add its
# cost and its distortion (a square random sign matrix is no isometry).
narrow_columns <- function(k) 10 * k

# The dimensions dims = "auto" tries: from 2k (k for the SVD methods),
# doubling, to the largest the method allows and at most half of d (beyond,
# a reduction costs about as much as k-means on the data themselves).
auto_dims_schedule <- function(method, k, n, d) {
  upper <- max(1, min(method_dims_upper(method, n, d), floor(d / 2)))
  start <- if (method_info(method)$family == "extraction") k else 2 * k
  start <- max(1, min(start, upper))
  s <- start * 2^(0:60)
  as.integer(unique(c(s[s < upper], upper)))
}

# dims for n rows (of all sources) and d columns.
check_dims <- function(dims, method, k, n, d, auto = FALSE) {
  if (method == "none") return(as.integer(d))
  if (identical(dims, "auto")) {
    if (!auto) stop_arg("`dims = \"auto\"` is for kmeans_reduced(); give a number here.")
    if (is.null(k)) stop_arg("`dims = \"auto\"` needs `k`.")
    return("auto")
  }
  upper <- method_dims_upper(method, n, d)
  if (is.null(dims)) {
    if (is.null(k)) {
      stop_arg(sprintf("`dims` must be given (a whole number in [1, %s]) when `k` is not.",
                       format(upper)))
    }
    return(method_dims_default(method, k, n, d))
  }
  if (is_whole(dims) && dims > d && dims <= .Machine$integer.max &&
      method_info(method)$family == "projection") {
    stop_arg(sprintf(paste0("`dims` must be at most the number of features (%s) for method ",
                            "\"%s\", not %s: a projection to more dimensions than the data have ",
                            "costs more than clustering the data themselves (method = \"none\")."),
                     format(d), method, format(dims)))
  }
  check_whole(dims, "dims", 1, upper)
}

check_seed <- function(seed) {
  if (is.null(seed)) return(NULL)
  if (!is_whole(seed) || abs(seed) > 2^53) {
    stop_arg(sprintf("`seed` must be NULL or a single whole number, not %s. Seeds are whole numbers with |seed| <= 2^53.",
                     describe(seed)))
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

# Power iterations of a randomized SVD: "auto" (power_iters_for()) or a
# whole number in [0, 100].
check_power_iters <- function(x, arg) {
  if (identical(x, "auto")) return(x)
  if (!is_whole(x) || x < 0 || x > 100) {
    stop_arg(sprintf("`%s` must be \"auto\" or a whole number in [0, 100], not %s.",
                     arg, describe(x)))
  }
  as.integer(x)
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
  check_kmeans_fields(fit, function(what) {
    stop_arg(sprintf("`%s` is not a valid k-means fit: %s.", arg, what))
  })
  invisible(fit)
}

check_choice <- function(value, arg, choices) {
  if (!is.character(value) || length(value) != 1L || is.na(value) || !(value %in% choices)) {
    stop_arg(sprintf("`%s` must be one of %s, not %s.", arg,
                     paste0("\"", choices, "\"", collapse = ", "), describe(value)))
  }
  value
}

# Merges `control` over the defaults; unknown names and bad values are errors.
check_control <- function(control, defaults = control_defaults(), prefix = "control$") {
  nm <- function(name) paste0(prefix, name)
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
      stop_arg(sprintf("`%s%s` must be a number in %s%s, %s), not %s.", prefix, arg,
                       if (open_lower) "(" else "[", format(lower), format(upper), describe(v)))
    }
  }
  number_in(out$tol, "tol", 0, 1)
  number_in(out$dims_tol, "dims_tol", 0, 1)
  number_in(out$eps, "eps", 0, 1, open_lower = TRUE)
  if (!is.logical(out$keep_reduced) || length(out$keep_reduced) != 1L ||
      is.na(out$keep_reduced)) {
    stop_arg(sprintf("`%s` must be TRUE or FALSE, not %s.", nm("keep_reduced"),
                     describe(out$keep_reduced)))
  }
  check_choice(out$svd, nm("svd"), c("randomized", "exact"))
  check_choice(out$scores, nm("scores"), c("squared", "sqrt"))
  check_choice(out$sampling, nm("sampling"), c("random", "top"))
  check_choice(out$residual, nm("residual"), c("frobenius", "spectral"))
  check_choice(out$qr, nm("qr"), c("pivoted", "strong"))
  out$power_iters <- check_power_iters(out$power_iters, nm("power_iters"))
  out$repeats <- check_whole(out$repeats, nm("repeats"), 1, 10000)
  check_choice(out$seeding, nm("seeding"), c("auto", kmeans_seedings_cpp()))
  number_in(out$oversampling, "oversampling", 0, 1e6, open_lower = TRUE)
  out$rounds <- check_whole(out$rounds, nm("rounds"), 1, 1000)
  check_choice(out$polish, nm("polish"), c("auto", "split_merge", "hartigan", "none"))
  out$tries <- check_whole(out$tries, nm("tries"), 1, 1e6)
  out$split_rounds <- check_whole(out$split_rounds, nm("split_rounds"), 1, 1e6)
  if (!identical(out$polish_starts, "auto")) {
    if (!is_whole(out$polish_starts) || out$polish_starts < 1 || out$polish_starts > 1e6) {
      stop_arg(sprintf("`%s` must be \"auto\" or a whole number in [1, 1e+06], not %s.",
                       nm("polish_starts"), describe(out$polish_starts)))
    }
    out$polish_starts <- as.integer(out$polish_starts)
  }
  check_choice(out$precision, nm("precision"), c("double", "single"))
  if (!is.null(out$local_search)) {
    out$local_search <- check_whole(out$local_search, nm("local_search"), 0, 1e6)
  }
  if (!is.null(out$c)) number_in(out$c, "c", 0, Inf, open_lower = TRUE)
  if (!is.null(out$fjlt_density) &&
      !(is.numeric(out$fjlt_density) && length(out$fjlt_density) == 1L &&
        !is.na(out$fjlt_density) && out$fjlt_density > 0 && out$fjlt_density <= 1)) {
    stop_arg(sprintf("`%s` must be NULL or a number in (0, 1], not %s.", nm("fjlt_density"),
                     describe(out$fjlt_density)))
  }
  if (!is.null(out$block_rows)) {
    out$block_rows <- check_whole(out$block_rows, nm("block_rows"), 1)
  }
  out
}

# New data for predict()/plot(): checked like `x`, with the columns of the
# data the model was fitted to (matched by name when both have names).
check_newdata <- function(newdata, reducer, arg = "newdata") {
  # A plain numeric vector: one row of the fit's features, or (one feature)
  # one value per row.
  if (is.numeric(newdata) && is.null(dim(newdata)) && is.null(oldClass(newdata)) &&
      length(newdata) > 0L) {
    newdata <- if (identical(as.numeric(reducer$n_features), 1)) {
      matrix(as.double(newdata), ncol = 1L, dimnames = list(names(newdata), reducer$feature_names))
    } else {
      matrix(as.double(newdata), nrow = 1L, dimnames = list(NULL, names(newdata)))
    }
  }
  newdata <- check_data(newdata, arg, small = FALSE)
  names_fit <- reducer$feature_names
  d <- reducer$n_features
  names_new <- colnames(newdata)
  # Columns are matched by name only when the fit's names identify them
  # (no NA, "" or duplicate); otherwise by position.
  usable <- !is.null(names_fit) && !anyNA(names_fit) && all(nzchar(names_fit)) &&
    !anyDuplicated(names_fit)
  if (usable && !is.null(names_new)) {
    dup <- unique(names_new[duplicated(names_new) & names_new %in% names_fit])
    if (length(dup) > 0L) {
      shown <- utils::head(dup, 5L)
      stop_arg(sprintf("`%s` has duplicated column names, so its columns cannot be matched to the fit's: %s.",
                       arg, paste0("'", shown, "'", collapse = ", ")))
    }
    missing <- setdiff(names_fit, names_new)
    if (length(missing) > 0L) {
      shown <- utils::head(missing, 5L)
      stop_arg(sprintf("`%s` must have the columns of the data the model was fitted to; missing: %s%s.",
                       arg, paste0("'", shown, "'", collapse = ", "),
                       if (length(missing) > 5L) sprintf(" and %d more", length(missing) - 5L) else ""))
    }
    if (!identical(names_new, names_fit)) newdata <- newdata[, match(names_fit, names_new), drop = FALSE]
  } else if (!is.null(names_fit) && !is.null(names_new) && !identical(names_new, names_fit)) {
    # The fit's names cannot identify its columns (duplicated, NA or ""):
    # named newdata must come in the fit's order, never matched silently
    # by position under other names.
    why <- if (anyDuplicated(names_fit)) {
      dup <- unique(names_fit[duplicated(names_fit)])
      sprintf("duplicated names (%s)", paste0("'", utils::head(dup, 5L), "'", collapse = ", "))
    } else {
      "missing (NA or empty) names"
    }
    stop_arg(sprintf(paste0("`%s` has column names, but the data the model was fitted to have %s, ",
                            "so columns cannot be matched by name: give `%s` the fit's %d columns ",
                            "in the same order with the same names, or without column names ",
                            "(matched by position)."), arg, why, arg, d))
  } else if (ncol(newdata) != d) {
    stop_arg(sprintf("`%s` must have %d columns (as the data the model was fitted to), not %d.",
                     arg, d, ncol(newdata)))
  }
  newdata
}

# A dgCMatrix whose slots may have been edited: every slot checked in O(nnz)
# before C++ reads it.
check_sparse_slots <- function(x, arg) {
  problem <- sparse_problem_cpp(x)
  if (nzchar(problem)) {
    stop_arg(sprintf(paste0("`%s` is not a valid dgCMatrix: %s. Was it modified slot by slot? ",
                            "Build it with Matrix::sparseMatrix() instead."), arg, problem))
  }
  invisible(x)
}

is_finite_matrix <- function(m, ncol = NULL) {
  is.matrix(m) && is.numeric(m) && nrow(m) >= 1L && (is.null(ncol) || ncol(m) == ncol) &&
    all(is.finite(m))
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
  if (m == "fjlt" && !(is.numeric(r$density) && length(r$density) == 1L &&
                       !is.na(r$density) && r$density > 0 && r$density <= 1)) {
    bad(sprintf("`density` must be a number in (0, 1], not %s", describe(r$density)))
  }
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

is_finite_vector <- function(v, len) {
  is.numeric(v) && is.null(dim(v)) && length(v) == len && all(is.finite(v))
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

# The randomized SVD of an n x d matrix with l test vectors: the range and
# its basis (n x l, twice, and a copy for LAPACK) and A^T Q (d x l, twice).
check_rsvd_memory <- function(n, d, l, advice) {
  check_memory(8 * l * (3 * n + 2 * d),
               sprintf("The randomized SVD of the %s x %s `x` (%s test vectors)", format(n),
                       format(d), format(l)),
               advice, entries = max(n, d) * l)
}

# The FJLT's sparse Gaussian matrix P (dims x 2^ceiling(log2(d)), density
# q): 8 bytes per non-zero when dense (q = 1), 32 while a sparse one is put
# together (its rows, then the flat arrays of values and coordinates); and
# the reduced rows (n x dims).
check_fjlt_memory <- function(n, d, dims, q) {
  padded <- 2^ceiling(log2(d))
  nz <- as.numeric(dims) * padded * q
  check_memory(nz * (if (q >= 1) 8 else 32) + 8 * as.numeric(n) * dims,
               sprintf("The FJLT to %s dimensions (its %s x %s Gaussian matrix of density %s and the reduced rows)",
                       format(dims), format(dims), format(padded), format(q, digits = 3)),
               "Use fewer dimensions (`dims`) or a smaller `control$fjlt_density`.")
}

# The n x dims reduced (or projected) rows.
check_reduced_memory <- function(n, dims) {
  check_memory(8 * as.numeric(n) * dims,
               sprintf("The reduced data (%s rows x %s dimensions)", format(n), format(dims)),
               "Use fewer dimensions (`dims`) or fewer rows at a time.")
}

# Memory this process can still get: the system's MemAvailable (Linux) and
# what the address-space limit (getrlimit(RLIMIT_AS), `ulimit -v`) leaves
# above the address space in use, the smaller; NA when neither is known.
# Attribute "limit": TRUE when the address-space limit is the smaller.
available_memory <- function() {
  system <- NA_real_
  if (file.exists("/proc/meminfo")) {
    line <- tryCatch(grep("^MemAvailable:", readLines("/proc/meminfo", warn = FALSE), value = TRUE),
                     error = function(e) character(0))
    if (length(line) == 1L) system <- as.numeric(gsub("[^0-9]", "", line)) * 1024
  }
  as <- address_space_cpp()
  left <- if (is.finite(as[["limit"]]) && !is.na(as[["used"]])) {
    max(0, as[["limit"]] - as[["used"]])
  } else {
    NA_real_
  }
  out <- min(system, left, na.rm = TRUE)
  if (!is.finite(out)) return(NA_real_)
  structure(out, limit = !is.na(left) && (is.na(system) || left < system))
}

# Refuses a step whose allocations (`bytes`, or a single matrix of more than
# 2^31 - 1 rows or 2^32 - 1 entries for LAPACK) cannot succeed, with the
# figure and what to do instead, before anything is allocated.
check_memory <- function(bytes, what, advice, entries = 0) {
  avail <- available_memory()
  gb <- function(b) sprintf("%.1f GB", b / 2^30)
  if (entries >= 2^32 - 1) {
    stop_arg(sprintf("%s would need a matrix of %.3g entries, more than the 2^32 - 1 that LAPACK can take. %s",
                     what, entries, advice))
  }
  if (!is.na(avail) && bytes > avail) {
    stop_arg(sprintf("%s would need about %s of memory, more than the %s available%s. %s",
                     what, gb(bytes), gb(avail),
                     if (isTRUE(attr(avail, "limit"))) " under this process's address-space limit (ulimit -v)" else "",
                     advice))
  }
  invisible(TRUE)
}

# check_data() for a big.matrix: a numeric type, at least one row and column,
# finite values of a size whose squared distances stay finite.
check_big_data <- function(x, arg, block_rows, small = TRUE) {
  if (!requireNamespace("bigmemory", quietly = TRUE)) {
    stop_arg(sprintf("`%s` is a big.matrix but the bigmemory package is not installed.", arg))
  }
  if (nrow(x) == 0L || ncol(x) == 0L) {
    stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                     arg, nrow(x), ncol(x)))
  }
  top <- 0
  for_row_blocks(x, block_rows, function(block, rows) {
    m <- nrow(block)
    top <<- max(top, check_finite_values(block, arg, function(t) {
      sprintf("at row %d, column %d", rows[1L] - 1L + (t - 1L) %% m + 1L, (t - 1L) %/% m + 1L)
    }, as.numeric(nrow(x)) * ncol(x), small = FALSE))
  })
  # (the largest magnitude of all blocks)
  if (small) check_small_values(top, arg)
  x
}

# TRUE when x has at least k distinct rows (stops reading once it has).
big_has_distinct <- function(x, k, block_rows) {
  seen <- NULL
  found <- FALSE
  n <- nrow(x)
  start <- 1L
  while (!found && start <= n) {
    rows <- start:min(n, start + block_rows - 1L)
    block <- x[rows, , drop = FALSE]
    seen <- unique(rbind(seen, unique(block)))
    found <- nrow(seen) >= k
    start <- start + block_rows
  }
  found
}

# Known labels for colouring, as a factor (unused levels dropped).
check_labels <- function(labels, n, arg) {
  if (!is.atomic(labels) || length(labels) != n || anyNA(labels)) {
    stop_arg(sprintf("`%s` must be %d labels (one per row, no NA), not %s.", arg, n,
                     describe(labels)))
  }
  droplevels(as.factor(labels))
}

# Colours for n groups: the default palette, or the user's (recycled).
check_colours <- function(col, n, arg) {
  if (is.null(col)) return(cluster_colours(n))
  ok <- (is.character(col) || is.numeric(col)) && length(col) > 0L && !anyNA(col) &&
    !inherits(try(grDevices::col2rgb(col), silent = TRUE), "try-error")
  if (!ok) {
    stop_arg(sprintf("`%s` must be colours (names, \"#RRGGBB\" or palette numbers), not %s.",
                     arg, describe(col)))
  }
  rep_len(col, n)
}

# Height and width of the images whose pixels are the d features.
check_image_dim <- function(image_dim, d) {
  if (!is.numeric(image_dim) || length(image_dim) != 2L || anyNA(image_dim) ||
      any(image_dim < 1) || any(image_dim != round(image_dim)) || prod(image_dim) != d) {
    stop_arg(sprintf(paste0("`image_dim` must be the height and width of the images, two whole ",
                            "numbers whose product is the number of features (%d), not %s."),
                     d, describe(image_dim)))
  }
  as.integer(image_dim)
}
