# Row sources: where kmeans_reduced() reads its rows. One class per source,
# one file each:
#
#   source_matrix  a dense matrix or data frame in memory (R/source_matrix.R)
#   source_sparse  a dgCMatrix in memory (R/source_sparse.R; a source_matrix)
#   source_big     a bigmemory::big.matrix, read in blocks (R/source_big.R)
#   source_mpi     mpi_rows(): each MPI rank holds some rows (R/source_mpi.R)
#   source_mpi_blocks  mpi_rows() of rows read in blocks: each MPI rank
#                  reads its own rows (a range of a 10x file's cells, a
#                  DelayedMatrix, a big.matrix; R/source_mpi_blocks.R; a
#                  source_mpi)
#   source_delayed a Bioconductor DelayedMatrix, or a SummarizedExperiment's
#                  assay with the cells as rows, read in blocks
#                  (R/source_delayed.R)
#   source_tenx    a 10x HDF5 file (a TENxMatrix), read in blocks of whole
#                  cells (R/source_tenx.R; a source_delayed)
#
# Every source is a list with `data` (the object as given) and `weights`
# (NULL or one per row, set by set_weights()), of class c(<its class>,
# "row_source"). Its interface is six generics:
#
#   n_rows(src), n_cols(src)   the rows (of all ranks) and the columns
#   dim_names(src)             row and column names
#   read_block(src, first, last)  rows first..last as a double matrix
#   to_cpp_source(src, block_rows)  what the C++ core reads the rows through:
#                              one description, cpp_source() of R/cpp_steps.R
#   describe_source(src)       a phrase for messages ("a big.matrix")
#
# and the fields of what it can do (below). The methods of "row_source"
# read the rows in blocks through read_block() (the C++ core calls back for
# each block: to_cpp_source() -> RBlockSource of src/sources.h), so a new
# source read in blocks implements read_block() and describe_source()
# (n_rows() and n_cols() too when its object has no nrow() and ncol()).
# The pipeline's steps that read rows are plain functions
# (R/source_steps.R); a source is made by as_row_source()
# (R/as_row_source.R).

# The common constructor: `data` as given, no weights.
new_row_source <- function(data, class, ...) {
  structure(list(data = data, weights = NULL, ...), class = c(class, "row_source"))
}

## What a source can do -----------------------------------------------------
#
# Fields a constructor sets (absent: FALSE or NULL). The plain functions of
# the pipeline read them instead of dispatching on the class:
#
#   in_memory      src$data is the rows, a matrix, data frame or sparse Matrix
#                  the C++ core reads whole (source_matrix, source_sparse)
#   sparse         zeros stay zeros (no shift of the rows in Lloyd's distances)
#   checks_blocks  each block's values are checked as it is read (no pass of
#                  their own; too few distinct rows show in the reduced rows)
#   mpi            the MPI ranks (mpi_rows()): each rank holds some rows, in
#                  src$data, or read in blocks from src$local (a source)
#   progress       an environment: long reads report their progress
#   hooks          functions of a source read from a file (source_tenx), each
#                  called with the source: release (memory outside R's heap),
#                  keep_in_memory(src, bytes), and the passes it does on the
#                  rows as stored (R/source_tenx.R)

in_memory <- function(src) isTRUE(src$in_memory)
on_ranks <- function(src) !is.null(src$mpi)

## The interface ------------------------------------------------------------

n_rows <- function(src) UseMethod("n_rows")
n_cols <- function(src) UseMethod("n_cols")
read_block <- function(src, first, last) UseMethod("read_block")
to_cpp_source <- function(src, block_rows = NULL) UseMethod("to_cpp_source")
describe_source <- function(src) UseMethod("describe_source")

n_rows.row_source <- function(src) nrow(src$data)
n_cols.row_source <- function(src) ncol(src$data)
describe_source.row_source <- function(src) sprintf("a %s", class(src$data)[1L])

# The rows this process holds (all of them but on MPI ranks): what the
# memory checks count.
n_local_rows <- function(src) {
  if (!on_ranks(src)) return(n_rows(src))
  if (!is.null(src$local)) n_rows(src$local) else nrow(src$data)
}

# Row and column names (NULL: none).
dim_names <- function(src) UseMethod("dim_names")
dim_names.row_source <- function(src) {
  dn <- dimnames(src$data)
  list(dn[[1L]], dn[[2L]])
}
col_names <- function(src) dim_names(src)[[2L]]
row_names <- function(src) dim_names(src)[[1L]]

# Turns the report of long reads on (verbose fits): each block read says how
# far the pass is, how fast the rows come and the time left in the pass
# (sources with src$progress, report_progress(); the others are read
# quickly, or held in memory).
set_progress <- function(src, on) {
  if (!is.null(src$local)) src$local <- set_progress(src$local, on)
  if (is.environment(src$progress)) src$progress$on <- isTRUE(on)
  src
}

# Sparse rows (zeros stay zeros: no shift of the rows in Lloyd's distances).
sparse_rows <- function(src) isTRUE(src$sparse)

# The C++ core's row source of blocks: the reader it calls for rows
# first..last (on R's main thread, between parallel loops), the rows, the
# columns and the rows per block (source_block_rows()).
to_cpp_source.row_source <- function(src, block_rows = NULL) {
  cpp_source(read = function(first, last) read_block_transient(src, first, last),
             n = n_rows(src), d = n_cols(src), block_rows = source_block_rows(src, block_rows),
             weights = src$weights)
}

# Rows per block unless given: src$block_values values (2^23 unless the
# source says: 64 MB of doubles) of src$values_per_row each (the columns
# unless the source says: a sparse source, its stored values).
source_block_rows <- function(src, block_rows = NULL) {
  n <- n_rows(src)
  if (!is.null(block_rows)) return(as.integer(min(block_rows, n)))
  per_row <- if (is.null(src$values_per_row)) n_cols(src) else src$values_per_row
  budget <- if (is.null(src$block_values)) 2^23 else src$block_values
  as.integer(max(1, min(n, floor(budget / max(1, per_row)))))
}

# Rows first..last for a pass that is done with them before it reads its
# next block (for_source_blocks() and the C++ core's reads): a source may
# then give a block whose memory it reuses for the block after next
# (source_tenx). Default: read_block().
read_block_transient <- function(src, first, last) {
  f <- src$hooks$read_transient
  if (is.null(f)) read_block(src, first, last) else f(src, first, last)
}

# Calls f(block, rows) for consecutive blocks of rows of the source (f must
# not keep the block: see read_block_transient()).
for_source_blocks <- function(src, block_rows, f) {
  n <- n_rows(src)
  start <- 1L
  while (start <= n) {
    last <- min(n, start + block_rows - 1L)
    f(read_block_transient(src, start, last), start:last)
    start <- start + block_rows
  }
  invisible(NULL)
}

# Fields the fit carries for this source (on MPI ranks: which rows this
# rank held).
fit_fields <- function(src) {
  if (on_ranks(src)) list(mpi = unclass(src$mpi)[c("rank", "size", "n", "offset")])
}

# The description of the rows of a source as C++ reads them: in memory
# (`rows`, a double matrix or a dgCMatrix) or read in blocks of `block_rows`
# by read(first, last) (`n` rows, `d` columns); `mpi` (mpi_info()) on MPI
# ranks, `weights` one per row or NULL. `one_pass`: the rows are costly to
# read again (a file): the statistics take one pass where it keeps the
# digits; `cells`: NULL, or list(read, fail) giving a 10x file's cells as
# stored for that pass (to_cpp_source.source_tenx()).
cpp_source <- function(rows = NULL, read = NULL, n = NULL, d = NULL, block_rows = NULL,
                       mpi = NULL, weights = NULL, one_pass = FALSE, cells = NULL) {
  list(rows = rows, read = read, n = if (!is.null(n)) as.double(n),
       d = if (!is.null(d)) as.integer(d), block_rows = if (!is.null(block_rows)) as.double(block_rows),
       mpi = mpi, weights = weights, one_pass = one_pass, cells = cells)
}

# `rows` in memory (the reduced rows of a source) on the MPI ranks and with
# the weights of the source `src`.
cpp_rows_like <- function(src, rows) {
  of <- to_cpp_source(src)
  cpp_source(rows = rows, mpi = of$mpi, weights = of$weights)
}
