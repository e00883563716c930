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

# `algorithm`: NULL (the package's pipeline), one of the four names of
# stats::kmeans() (partial matching as match.arg(); its whole default vector
# is its first name), or "minibatch" (mini-batch k-means, not a stats name).
check_algorithm <- function(algorithm) {
  if (is.null(algorithm)) return(NULL)
  stats_names <- c("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")
  choices <- c(stats_names, "minibatch")
  if (identical(algorithm, stats_names)) return(choices[1L])
  hit <- if (is.character(algorithm) && length(algorithm) == 1L && !is.na(algorithm) &&
             nzchar(algorithm)) pmatch(algorithm, choices) else NA_integer_
  if (is.na(hit)) {
    stop_arg(sprintf("`algorithm` must be NULL (the package's default), one of %s (as in stats::kmeans()) or \"minibatch\", not %s.",
                     paste0("\"", stats_names, "\"", collapse = ", "), describe(algorithm)))
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

# "auto", or a whole number in [lower, upper] (as an integer).
check_auto_whole <- function(x, arg, lower, upper) {
  if (identical(x, "auto")) return(x)
  if (!is_whole(x) || x < lower || x > upper) {
    stop_arg(sprintf("`%s` must be \"auto\" or a whole number in [%s, %s], not %s.",
                     arg, format(lower), format(upper), describe(x)))
  }
  as.integer(x)
}

# Power iterations of a randomized SVD: "auto" (power_iters_for()) or a
# whole number in [0, 100].
check_power_iters <- function(x, arg) check_auto_whole(x, arg, 0, 100)

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop_arg(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, describe(x)))
  }
  x
}

# No argument beyond the named ones (a method's `...`): a misspelt name is an
# error, not ignored.
check_dots_empty <- function(..., fun) {
  n <- ...length()
  if (n == 0L) return(invisible(TRUE))
  nms <- names(list(...))
  shown <- if (is.null(nms)) rep("", n) else nms
  shown <- ifelse(nzchar(shown), paste0("`", shown, "`"), "an unnamed argument")
  stop_arg(sprintf("%s() has no argument %s; see ?%s for its arguments.", fun,
                   paste(unique(shown), collapse = ", "), fun))
}

check_choice <- function(value, arg, choices) {
  if (!is.character(value) || length(value) != 1L || is.na(value) || !(value %in% choices)) {
    stop_arg(sprintf("`%s` must be one of %s, not %s.", arg,
                     paste0("\"", choices, "\"", collapse = ", "), describe(value)))
  }
  value
}

is_finite_matrix <- function(m, ncol = NULL) {
  is.matrix(m) && is.numeric(m) && nrow(m) >= 1L && (is.null(ncol) || ncol(m) == ncol) &&
    all(is.finite(m))
}

is_finite_vector <- function(v, len) {
  is.numeric(v) && is.null(dim(v)) && length(v) == len && all(is.finite(v))
}

# A single number in [lower, upper) (open_lower: in (lower, upper)).
check_number <- function(v, arg, lower, upper, open_lower = FALSE) {
  ok <- is.numeric(v) && length(v) == 1L && !is.na(v) &&
    (if (open_lower) v > lower else v >= lower) && v < upper
  if (!ok) {
    stop_arg(sprintf("`%s` must be a number in %s%s, %s), not %s.", arg,
                     if (open_lower) "(" else "[", format(lower), format(upper), describe(v)))
  }
  v
}

# NULL or a probability in (0, 1] (the FJLT's density).
check_density <- function(v, arg) {
  if (!is.null(v) && !(is.numeric(v) && length(v) == 1L && !is.na(v) && v > 0 && v <= 1)) {
    stop_arg(sprintf("`%s` must be NULL or a number in (0, 1], not %s.", arg, describe(v)))
  }
  v
}

# Seconds since an arbitrary start (timings and progress).
elapsed <- function() proc.time()[["elapsed"]]
