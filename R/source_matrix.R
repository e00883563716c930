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
