# Checks of the data: x, k, weights, initial centres, new rows (dense,
# sparse and big.matrix), before any C++ code.

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

# A sparse x whose rows sit far from zero against their spread is
# clustered as the dense matrix it is, where rows are shifted to sit around
# the origin (sparse rows are not: their distances ||x||^2 + ||c||^2 - 2 x.c
# would lose their digits). Far: over at most 256 rows spread over x, the
# median squared norm above 1e6 times the median squared distance to the
# columns' medians (six digits lost); medians, so that a few rows far from
# the others neither hide nor fake it. Only columns nonzero in more than
# half the rows can have a median away from zero (O(d) to rule out, and the
# only ones made dense in the sample); when the dense copy does not fit, the
# error says so.
dense_if_far_from_zero <- function(x, arg = "x") {
  if (!methods::is(x, "dgCMatrix")) return(x)
  n <- nrow(x)
  if (!any(diff(x@p) > n / 2)) return(x)
  s <- x[unique(round(seq(1, n, length.out = min(n, 256)))), , drop = FALSE]
  norms <- Matrix::rowSums(s^2)
  full <- which(diff(s@p) > nrow(s) / 2)
  if (length(full) == 0L) return(x)
  sf <- as.matrix(s[, full, drop = FALSE])
  spread <- norms - rowSums(sf^2) + rowSums((sf - rep(robust_shift_cpp(sf), each = nrow(sf)))^2)
  ratio <- stats::median(norms) / stats::median(spread)
  if (!isTRUE(ratio > 1e6)) return(x)
  check_memory(8 * as.numeric(nrow(x)) * ncol(x),
               sprintf(paste0("`%s` is sparse, but its rows sit far from zero against their ",
                              "spread (squared norms about %.2g times their squared distances), ",
                              "where sparse rows lose the digits of their distances; clustering ",
                              "it as the dense matrix it is"),
                       arg, ratio),
               "Subtract the column medians (or a value near them) from the columns far from zero.")
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
  weights
}

# The power of two the core's weights are in, `unit` (the checked
# `weights` are the core's times unit): 1 when the largest weight is within
# [2^-64, 2^64] and the smallest at least the smallest normal double (2^-1022).
# Otherwise sums of weights, weighted sums and sums of squares could
# overflow, or lose their digits among subnormal numbers, and the core's
# weights have their largest brought to [1, 4), as far as the smallest stays
# a normal double (a wider range keeps the smallest normal and the largest
# as low as that allows; the largest never above 2^1020). An even power, so
# that the square roots of the weights, which the SVD-based methods take,
# scale exactly too. Only the ratios of the weights set the partition and
# the centres, and the scaling is exact; the statistics are those of the
# core's weights times `unit` (partition_stats(), which refuses statistics
# that do not fit in a double).
weights_unit <- function(weights) {
  if (is.null(weights)) return(1)
  top <- log2(max(weights))
  low <- log2(min(weights))
  keep_low <- low - log2(.Machine$double.xmin)  # (the largest shift down)
  if (top <= 64 && top >= -64 && keep_low >= 0) return(1)
  e <- floor(max(min(top, keep_low), top - 1020))
  2^(e - e %% 2)
}

# Where the fit's columns are among the `d_new` columns (names `names_new`,
# or NULL) of new data `arg` (`features`: what they are, plural and
# singular, in messages): NULL when they are those columns in that order,
# else their positions there (matched by name when both have names; extra
# columns are left out). The same rule for rows in memory and rows read in
# blocks (source_predict()).
newdata_columns <- function(names_new, d_new, reducer, arg = "newdata",
                            features = c("columns", "column")) {
  names_fit <- reducer$feature_names
  d <- reducer$n_features
  # Columns are matched by name only when the fit's names identify them
  # (no NA, "" or duplicate); otherwise by position.
  usable <- !is.null(names_fit) && !anyNA(names_fit) && all(nzchar(names_fit)) &&
    !anyDuplicated(names_fit)
  if (usable && !is.null(names_new)) {
    dup <- unique(names_new[duplicated(names_new) & names_new %in% names_fit])
    if (length(dup) > 0L) {
      shown <- utils::head(dup, 5L)
      stop_arg(sprintf("`%s` has duplicated %s names, so its %s cannot be matched to the fit's: %s.",
                       arg, features[2L], features[1L],
                       paste0("'", shown, "'", collapse = ", ")))
    }
    missing <- setdiff(names_fit, names_new)
    if (length(missing) > 0L) {
      shown <- utils::head(missing, 5L)
      stop_arg(sprintf("`%s` must have the %s of the data the model was fitted to; missing: %s%s.",
                       arg, features[1L], paste0("'", shown, "'", collapse = ", "),
                       if (length(missing) > 5L) sprintf(" and %d more", length(missing) - 5L) else ""))
    }
    if (identical(names_new, names_fit)) return(NULL)
    return(match(names_fit, names_new))
  }
  if (!is.null(names_fit) && !is.null(names_new) && !identical(names_new, names_fit)) {
    # The fit's names cannot identify its columns (duplicated, NA or ""):
    # named newdata must come in the fit's order, never matched silently
    # by position under other names.
    why <- if (anyDuplicated(names_fit)) {
      dup <- unique(names_fit[duplicated(names_fit)])
      sprintf("duplicated names (%s)", paste0("'", utils::head(dup, 5L), "'", collapse = ", "))
    } else {
      "missing (NA or empty) names"
    }
    stop_arg(sprintf(paste0("`%s` has %s names, but the data the model was fitted to have %s, ",
                            "so %s cannot be matched by name: give `%s` the fit's %d %s ",
                            "in the same order with the same names, or without %s names ",
                            "(matched by position)."), arg, features[2L], why, features[1L], arg, d,
                     features[1L], features[2L]))
  }
  if (d_new != d) {
    stop_arg(sprintf("`%s` must have %d %s (as the data the model was fitted to), not %d.",
                     arg, d, features[1L], d_new))
  }
  NULL
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

# check_data() for a big.matrix: a numeric type, at least one row and column,
# check_data() for rows read in blocks (a row source, e.g. a big.matrix): at
# least one row and column, finite values of a size whose squared distances
# stay finite.
check_big_data <- function(x, arg, block_rows, small = TRUE) {
  n <- n_rows(x)
  d <- n_cols(x)
  if (n == 0L || d == 0L) {
    stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                     arg, n, d))
  }
  top <- 0
  for_source_blocks(x, block_rows, function(block, rows) {
    m <- nrow(block)
    top <<- max(top, check_finite_values(block, arg, function(t) {
      sprintf("at row %d, column %d", rows[1L] - 1L + (t - 1L) %% m + 1L, (t - 1L) %/% m + 1L)
    }, as.numeric(n) * d, small = FALSE))
  })
  # (the largest magnitude of all blocks)
  if (small) check_small_values(top, arg)
  x
}

# TRUE when the row source x has at least k distinct rows (stops reading
# once it has); else FALSE with the number of distinct rows as attribute
# "distinct". Rows are compared by their hashes (as distinct_rows_cpp()),
# block by block, so no block is densified or kept.
big_has_distinct <- function(x, k, block_rows) {
  seen <- character(0)
  n <- n_rows(x)
  start <- 1L
  while (start <= n) {
    block <- read_block(x, start, min(n, start + block_rows - 1L))
    if (has_distinct_rows_cpp(block, k)) return(TRUE)
    seen <- unique(c(seen, distinct_row_keys_cpp(block)))
    if (length(seen) >= k) return(TRUE)
    start <- start + block_rows
  }
  structure(FALSE, distinct = length(seen))
}

is_se <- function(x) isS4(x) && methods::is(x, "SummarizedExperiment")

# The error for k above the number of distinct rows (the same for every
# source).
stop_too_few_distinct <- function(k, distinct, arg = "k") {
  stop_arg(sprintf("`%s` must be a whole number in [1, %d] (the number of distinct rows of `x`), not %s.",
                   arg, as.integer(distinct), describe(k)))
}
