# Row source: a bigmemory::big.matrix (file-backed or not), read in blocks of
# rows, never whole (the defaults of R/row_source.R: the C++ core calls
# read_block() for each block, src/sources.h::RBlockSource); what stays in
# memory is one block plus O((n + d) * dims):
#
#   reduction   data-oblivious methods: each block is reduced on its own
#               (the same numbers as in memory: the kernels work row by row;
#               stream_reduce() in R/reducer.R); leverage / rsvd: the
#               randomized SVD with its products taken block by block
#   k-means     on the reduced rows, in memory
#   statistics  two passes (cluster sums, then squared deviations)
#   refine      Lloyd of lloyd.hpp, one pass per iteration

new_source_big <- function(x) {
  if (!requireNamespace("bigmemory", quietly = TRUE)) {
    stop_arg("`x` is a big.matrix but the bigmemory package is not installed.")
  }
  new_row_source(x, "source_big", hooks = list(all_rows = big_all_rows))
}

is_big <- function(x) inherits(x, "big.matrix")

read_block.source_big <- function(src, first, last) {
  block <- src$data[first:last, , drop = FALSE]
  if (!is.double(block)) storage.mode(block) <- "double"
  block
}
describe_source.source_big <- function(src) "a big.matrix"

# All the rows in their own type (rows_in_memory(): an integer big.matrix
# gives integer columns).
big_all_rows <- function(src) src$data[, , drop = FALSE]
