# Out-of-core input: a bigmemory::big.matrix (file-backed or not) is read in
# blocks of rows, never whole; what stays in memory is one block plus
# O((n + d) * dims). The C++ core reads the blocks itself through
# block_reader() (a row source, see row_source.hpp and src/sources.h) and
# runs the algorithms of in-memory data on them:
#
#   reduction   data-oblivious methods: each block is reduced on its own
#               (the same numbers as in memory: the kernels work row by row;
#               stream_reduce() in reducer.R); leverage / rsvd: the
#               randomized SVD with its products taken block by block
#   k-means     on the reduced rows, in memory
#   statistics  two passes (cluster sums, then squared deviations)
#   refine      Lloyd of lloyd.hpp, one pass per iteration

is_big <- function(x) inherits(x, "big.matrix")

# Rows per block: about 64 MB of doubles unless given.
block_rows_for <- function(x, block_rows = NULL) {
  if (!is.null(block_rows)) return(as.integer(min(block_rows, nrow(x))))
  as.integer(max(1, min(nrow(x), floor(2^26 / (8 * ncol(x))))))
}

# Calls f(block, rows) for consecutive blocks of rows of x (dense doubles).
for_row_blocks <- function(x, block_rows, f) {
  n <- nrow(x)
  start <- 1L
  while (start <= n) {
    rows <- start:min(n, start + block_rows - 1L)
    block <- x[rows, , drop = FALSE]
    if (!is.double(block)) storage.mode(block) <- "double"
    f(block, rows)
    start <- start + block_rows
  }
  invisible(NULL)
}

# Calls f(rows) for consecutive blocks of block_rows of 1..n.
for_row_blocks_index <- function(n, block_rows, f) {
  start <- 1L
  while (start <= n) {
    f(start:min(n, start + block_rows - 1L))
    start <- start + block_rows
  }
  invisible(NULL)
}

# The rows first..last of x as a double matrix: how the C++ core reads a
# big.matrix (the RBlockSource of src/sources.h).
block_reader <- function(x) {
  function(first, last) {
    block <- x[first:last, , drop = FALSE]
    if (!is.double(block)) storage.mode(block) <- "double"
    block
  }
}

# cluster_stats_cpp() in two passes over the blocks (cluster_stats_blocks();
# with observation `weights`, weighted).
stream_stats <- function(x, cluster, k, block_rows, n_threads, weights = NULL) {
  stats_blocks_cpp(block_reader(x), nrow(x), ncol(x), block_rows, cluster, k, n_threads,
                   weights)
}

# Lloyd on the original data from given centres (refine = iter_max): the
# Lloyd of lloyd.hpp with the rows read block by block (lloyd_blocks_cpp),
# rows minus `shift` in the distances (see with_row_access() in packed.hpp).
stream_lloyd <- function(x, centers, iter_max, block_rows, n_threads, shift = NULL,
                         weights = NULL) {
  lloyd_blocks_cpp(block_reader(x), nrow(x), ncol(x), block_rows, centers,
                   lloyd_cpp_options(iter_max, 0, n_threads), shift, weights)
}

# randomized_svd_cpp() with the products taken block by block
# (randomized_svd_blocks() of rsvd.hpp: the same test matrix and steps, equal
# to rounding); center = TRUE: of the centred matrix.
stream_rsvd <- function(x, k, oversample, power_iters, seed, n_threads, block_rows,
                        center = FALSE, weights = NULL) {
  rsvd_blocks_cpp(block_reader(x), nrow(x), ncol(x), block_rows, k, oversample, power_iters,
                  seed, n_threads, center, weights)
}
