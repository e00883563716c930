# Blocks of rows of in-memory data (row sources read theirs through
# for_source_blocks(), R/row_source.R).

# Rows per block: about 64 MB of doubles unless given.
block_rows_for <- function(x, block_rows = NULL) {
  if (!is.null(block_rows)) return(as.integer(min(block_rows, nrow(x))))
  as.integer(max(1, min(nrow(x), floor(2^26 / (8 * ncol(x))))))
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
