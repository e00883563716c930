# Row source: a dense matrix or data frame in memory (checked and made a
# double matrix by check_data() first). The C++ core reads it whole, as one
# resident chunk (row_source.hpp::ResidentRows); every step calls the
# in-memory entry point. R/source_sparse.R, a dgCMatrix, is one of these.

new_source_matrix <- function(x) new_row_source(x, "source_matrix", in_memory = TRUE)

read_block.source_matrix <- function(src, first, last) {
  block <- as.matrix(src$data[first:last, , drop = FALSE])
  if (!is.double(block)) storage.mode(block) <- "double"
  block
}
to_cpp_source.source_matrix <- function(src, block_rows = NULL) {
  cpp_source(rows = src$data, weights = src$weights)
}
describe_source.source_matrix <- function(src) "a matrix"

# The top right singular vectors of rows in memory (source_svd()): exact
# (LAPACK) or randomized.
memory_svd <- function(x, k, how, oversample, power_iters, seed, n_threads, center, weights) {
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

