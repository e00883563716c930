# Out-of-core input: a bigmemory::big.matrix (file-backed or not) is read in
# blocks of rows, never whole. Every pass over the data goes through
# for_row_blocks(); what stays in memory is one block plus O((n + d) * dims).
#
#   reduction   data-oblivious methods: each block is reduced on its own
#               (the same numbers as in memory: the kernels work row by row);
#               leverage / rsvd: the randomized SVD streams A Omega, A^T Q, A Z
#   k-means     on the reduced rows, in memory
#   statistics  two more passes (cluster sums, then squared deviations)
#   refine      one pass per Lloyd iteration on the original data

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

# check_data() for a big.matrix: a numeric type, at least one row and column,
# finite values of a size whose squared distances stay finite.
check_big_data <- function(x, arg, block_rows) {
  if (!requireNamespace("bigmemory", quietly = TRUE)) {
    stop_arg(sprintf("`%s` is a big.matrix but the bigmemory package is not installed.", arg))
  }
  if (nrow(x) == 0L || ncol(x) == 0L) {
    stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                     arg, nrow(x), ncol(x)))
  }
  for_row_blocks(x, block_rows, function(block, rows) {
    m <- nrow(block)
    check_finite_values(block, arg, function(t) {
      sprintf("at row %d, column %d", rows[1L] - 1L + (t - 1L) %% m + 1L, (t - 1L) %/% m + 1L)
    }, as.numeric(nrow(x)) * ncol(x))
  })
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

# As apply_reducer(): with reducer$shift = numeric(0), the column means of
# all the reduced rows are subtracted and returned as attribute "shift".
stream_reduce <- function(reducer, x, block_rows, n_threads) {
  out <- NULL
  fit_shift <- length(reducer$shift) == 0L && !is.null(reducer$shift)
  if (fit_shift) reducer$shift <- NULL
  for_row_blocks(x, block_rows, function(block, rows) {
    r <- apply_reducer(reducer, block, n_threads)
    if (is.null(out)) {
      out <<- matrix(0, nrow(x), ncol(r), dimnames = list(NULL, colnames(r)))
    }
    out[rows, ] <<- r
  })
  rownames(out) <- rownames(x)
  if (fit_shift) out <- center_columns_cpp(out)
  out
}

# The rows first..last of x as a double matrix: how the C++ core reads a
# big.matrix (row sources of row_source.hpp, see src/kmeans.cpp).
block_reader <- function(x) {
  function(first, last) {
    block <- x[first:last, , drop = FALSE]
    if (!is.double(block)) storage.mode(block) <- "double"
    block
  }
}

# cluster_stats_cpp() in two passes over the blocks (cluster_stats_blocks()).
stream_stats <- function(x, cluster, k, block_rows, n_threads) {
  stats_blocks_cpp(block_reader(x), nrow(x), ncol(x), block_rows, cluster, k, n_threads)
}

# Lloyd on the original data from given centres (refine = iter_max): the
# Lloyd of lloyd.hpp with the rows read block by block (lloyd_blocks_cpp),
# rows minus `shift` in the distances (see with_row_access() in packed.hpp).
stream_lloyd <- function(x, centers, iter_max, block_rows, n_threads, shift = NULL) {
  lloyd_blocks_cpp(block_reader(x), nrow(x), ncol(x), block_rows, centers, iter_max, 0,
                   n_threads, shift)
}

# randomized_svd_cpp() with the products taken block by block
# (randomized_svd_blocks() of rsvd.hpp: the same test matrix and steps, equal
# to rounding); center = TRUE: of the centred matrix.
stream_rsvd <- function(x, k, oversample, power_iters, seed, n_threads, block_rows,
                        center = FALSE) {
  rsvd_blocks_cpp(block_reader(x), nrow(x), ncol(x), block_rows, k, oversample, power_iters,
                  seed, n_threads, center)
}

# cluster_stats_cpp() for in-memory data, two streaming passes for a big.matrix.
data_stats <- function(x, cluster, k, n_threads, block_rows = NULL) {
  if (is_big(x)) return(stream_stats(x, cluster, k, block_rows_for(x, block_rows), n_threads))
  cluster_stats_cpp(x, cluster, k, n_threads)
}
