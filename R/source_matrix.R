# Row source: a dense matrix or data frame in memory (checked and made a
# double matrix by check_data() first). The C++ core reads it whole, as one
# resident chunk (row_source.hpp::ResidentRows); every step calls the
# in-memory entry point. R/source_sparse.R, a dgCMatrix, is one of these.

new_source_matrix <- function(x) new_row_source(x, "source_matrix")

# (in memory: the rows indexed)
sample_rows.source_matrix <- function(src, m, seed, block_rows = NULL) {
  index <- sample_index(n_rows(src), m, seed)
  list(rows = src$data[index, , drop = FALSE], index = index)
}

read_block.source_matrix <- function(src, first, last) {
  block <- as.matrix(src$data[first:last, , drop = FALSE])
  if (!is.double(block)) storage.mode(block) <- "double"
  block
}
to_cpp_source.source_matrix <- function(src, block_rows = NULL) {
  cpp_source(rows = src$data, weights = src$weights)
}
describe_source.source_matrix <- function(src) "a matrix"

# (checked by check_data() itself)
check_rows.source_matrix <- function(src, arg, big, block_rows, small) NULL

check_source_k.source_matrix <- function(src, k, arg = "k") {
  x <- src$data
  n_max <- nrow(x)
  if (!is_whole(k) || k < 1 || k > n_max) {
    stop_arg(sprintf("`%s` must be a whole number in [1, %d] (the number of rows of `x`), not %s.",
                     arg, n_max, describe(k)))
  }
  if (k > 1 && !has_distinct_rows_cpp(x, k)) {
    distinct <- distinct_rows_cpp(x)
    if (k > distinct) stop_too_few_distinct(k, distinct, arg)
  }
  as.integer(k)
}

# (narrow data: "none")
auto_method.source_matrix <- function(src, method, k) resolve_method(method, src$data, k)

check_source_method.source_matrix <- function(src, method, control) {
  method_unavailable(src, method, "is not available; use")
}

source_svd.source_matrix <- function(src, k, how, oversample, power_iters, seed, n_threads,
                                     block_rows, center, weights) {
  x <- src$data
  mu <- if (center) column_means(x, n_threads, weights) else NULL
  n <- as.numeric(nrow(x))
  d <- as.numeric(ncol(x))
  if (how == "exact") {
    if (methods::is(x, "dgCMatrix") && 8 * as.numeric(nrow(x)) * ncol(x) > max_dense_bytes()) {
      stop_arg(sprintf(paste0("`x` is sparse and large (%d x %d): the exact SVD would densify it ",
                              "(%.1f GB). Use the randomized SVD instead (method = \"rsvd\" or ",
                              "control = list(svd = \"randomized\"))."),
                       nrow(x), ncol(x), 8 * as.numeric(nrow(x)) * ncol(x) / 2^30))
    }
    check_exact_svd_memory(n, d)
    sv <- cpp_svd(x, k, mu, weights, n_threads)
  } else {
    check_rsvd_memory(n, d, min(k + oversample, n, d),
                      "Use a projection (for example method = \"sparse_embedding\", O(nnz)) or a smaller k or eps.")
    sv <- cpp_rsvd(cpp_source(rows = x, weights = weights), k, oversample, power_iters, seed,
                   n_threads, mu)
  }
  list(d = sv$d, v = sv$v, center = mu)
}

source_rsvd.source_matrix <- function(src, k, oversample, power_iters, seed, n_threads,
                                      block_rows, center, weights = NULL) {
  cpp_rsvd(cpp_source(rows = src$data, weights = weights), k, oversample, power_iters, seed,
           n_threads, if (center) column_means(src$data, n_threads))
}

# Lloyd on the rows minus a point among them (robust_shift_cpp(): in each
# column the median of at most 256 rows chosen by their content); not their
# mean, which one far row moves away from all the others.
none_shift.source_matrix <- function(src, n_threads = 1L) {
  x <- src$data
  if (!is.matrix(x)) return(NULL)
  robust_shift_cpp(x, n_threads)
}

source_apply_reducer.source_matrix <- function(src, reducer, n_threads, block_rows, limit) {
  map_rows(reducer, src$data, n_threads, limit)
}

source_predict.source_matrix <- function(src, object, n_threads, type, k, one) one(src$data)

rows_in_memory.source_matrix <- function(src, what) src$data
