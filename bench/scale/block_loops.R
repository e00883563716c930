# The block loops of the pipeline's steps (R/source_steps.R): the loop in R
# they had (for_source_blocks() calling map_rows() per block, read_block()
# per block for a sample) against the C++ pass over the source's
# description that replaced them (reduce_source_cpp(), rows_at_cpp()), side
# by side in one process on the same rows, with the same answers. Usage:
#   Rscript bench/scale/block_loops.R [n] [d] [reps]   (default 200000 500 3)
# Sources: a big.matrix in memory and an in-memory DelayedMatrix (read in
# blocks through DelayedArray); methods sign (dims 50), sparse_embedding
# (dims 50) and rsvd's product (dims 10). Prints the median seconds of each.
suppressPackageStartupMessages(library(kmreduce))
args <- as.numeric(commandArgs(TRUE))
n <- if (length(args) >= 1) args[1] else 200000
d <- if (length(args) >= 2) args[2] else 500
reps <- if (length(args) >= 3) args[3] else 3
ns <- asNamespace("kmreduce")

# The R loops as they were (commit 9022f2b), on the helpers still in the
# namespace.
old_reduce_rows <- function(src, reducer, block_rows, n_threads) {
  out <- NULL
  ns$for_source_blocks(src, block_rows, function(block, rows) {
    r <- ns$map_rows(reducer, block, n_threads, 0)
    if (is.null(out)) {
      out <<- matrix(0, ns$n_rows(src), ncol(r), dimnames = list(NULL, colnames(r)))
    }
    out[rows, ] <<- r
  })
  out
}
old_rows_at <- function(src, index, block_rows = NULL) {
  parts <- list()
  ns$for_row_blocks_index(ns$n_rows(src), ns$source_block_rows(src, block_rows), function(rows) {
    local <- ns$sample_in_block(list(index = index), rows)
    if (length(local) == 0L) return()
    block <- ns$read_block(src, rows[1L], rows[length(rows)])
    parts[[length(parts) + 1L]] <<- block[local, , drop = FALSE]
  })
  ns$bind_blocks(parts)
}
# (in the namespace, where the sources' methods are found)
environment(old_reduce_rows) <- ns
environment(old_rows_at) <- ns

set.seed(1)
x <- matrix(rnorm(n * d), n, d)
sources <- list(big.matrix = ns$as_row_source(bigmemory::as.big.matrix(x)))
if (requireNamespace("DelayedArray", quietly = TRUE)) {
  sources$DelayedMatrix <- ns$as_row_source(DelayedArray::DelayedArray(x))
}
reducers <- list(
  sign = kmeans_reduced(x[1:2000, ], 3, method = "sign", dims = 50, n_init = 1, seed = 1)$reducer,
  sparse_embedding = kmeans_reduced(x[1:2000, ], 3, method = "sparse_embedding", dims = 50,
                                    n_init = 1, seed = 1)$reducer,
  rsvd = kmeans_reduced(x[1:2000, ], 3, method = "rsvd", dims = 10, n_init = 1, seed = 1)$reducer)
rm(x)
invisible(gc())
# The median seconds of f and g, run in turns (a load that comes and goes
# weighs on both).
med <- function(f, g) {
  t <- vapply(seq_len(reps), function(i) {
    c(system.time(f())[["elapsed"]], system.time(g())[["elapsed"]])
  }, numeric(2))
  apply(t, 1L, stats::median)
}
cat(sprintf("block loops, %s x %s, median of %d runs, 1 thread (R %s, %s)\n", format(n),
            format(d), reps, getRversion(), format(Sys.time(), "%Y-%m-%d")))
cat(sprintf("%-14s %-24s %8s %8s %6s  %s\n", "source", "step", "R loop", "C++", "ratio", "same"))
for (s in names(sources)) {
  src <- sources[[s]]
  block_rows <- ns$source_block_rows(src)
  for (m in names(reducers)) {
    r <- reducers[[m]]
    a <- old_reduce_rows(src, r, block_rows, 1L)
    b <- ns$reduce_rows(src, r, block_rows, 1L)
    same <- identical(unname(a), unname(b))
    t <- med(function() old_reduce_rows(src, r, block_rows, 1L),
             function() ns$reduce_rows(src, r, block_rows, 1L))
    cat(sprintf("%-14s %-24s %8.2f %8.2f %6.2f  %s\n", s, paste("reduce", m), t[1L], t[2L],
                t[2L] / t[1L], same))
  }
  index <- ns$sample_index(n, 5000, 1)
  same <- identical(unname(old_rows_at(src, index)), unname(ns$rows_at(src, index)))
  t <- med(function() old_rows_at(src, index), function() ns$rows_at(src, index))
  cat(sprintf("%-14s %-24s %8.2f %8.2f %6.2f  %s\n", s, "rows_at 5000", t[1L], t[2L],
              t[2L] / t[1L], same))
}
