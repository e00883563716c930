# Checks of the reduction method and its dims.

reduction_methods <- function() c("auto", names(method_registry()))

# `kmeans_call`: the method of kmeans_reduced(), whose third argument is
# where stats::kmeans() has `iter.max` (and fourth, `dims`, its `nstart`): a
# number there is most likely a kmeans() call written positionally, and the
# error says how to write it.
check_method <- function(method, kmeans_call = FALSE) {
  ok <- reduction_methods()
  if (!is.character(method) || length(method) != 1L || is.na(method) || !(method %in% ok)) {
    hint <- if (kmeans_call && is.numeric(method)) {
      paste0(" The third argument of kmeans_reduced() is `method`, where stats::kmeans() has",
             " `iter.max` (and the fourth `dims`, where it has `nstart`): name them here,",
             " e.g. kmeans_reduced(x, 3, iter.max = 20, nstart = 5).")
    } else ""
    stop_arg(sprintf("`method` must be one of %s, not %s.%s",
                     paste0("\"", ok, "\"", collapse = ", "), describe(method), hint))
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
