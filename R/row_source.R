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
#                              one description, cpp_source() below
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
# the pipeline read them directly (isTRUE(src$in_memory), !is.null(src$mpi))
# instead of dispatching on the class:
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
  if (is.null(src$mpi)) return(n_rows(src))
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

## Memory outside R's heap ------------------------------------------------

# Memory outside R's heap. A source may hold some while it is read
# (source_tenx: its reading vectors and its pool of blocks), which R's
# collector neither counts nor hurries to free. Each exported function that
# reads sources starts with `hold_sources(); on.exit(leave_sources(), add =
# TRUE)`; a source that takes such memory calls holding_memory(src), and the
# outermost leave_sources() releases it (release_source()) when its function
# returns, also on an error. A released source makes its memory again if it
# is read again.
held <- new.env(parent = emptyenv())
held$depth <- 0L
held$sources <- list()
held$threads <- NULL
# (the package's own reader of 10x files where it was built with HDF5,
# src/tenx_hdf5.cpp; FALSE: rhdf5 reads every block, as tests compare)
held$own_hdf5_reader <- TRUE

hold_sources <- function() {
  held$depth <- held$depth + 1L
  invisible(NULL)
}

leave_sources <- function() {
  held$depth <- max(0L, held$depth - 1L)
  if (held$depth == 0L) {
    sources <- held$sources
    held$sources <- list()
    held$threads <- NULL
    for (src in sources) release_source(src)
  }
  invisible(NULL)
}

# The threads of the outermost exported function that reads sources (its
# checked n_threads), for the work a source does as it is read: the 10x
# reader decompresses a file's chunks on them. One thread when none is set.
use_reading_threads <- function(n_threads) {
  if (is.null(held$threads)) held$threads <- n_threads
  invisible(NULL)
}

reading_threads <- function() if (is.null(held$threads)) 1L else held$threads

holding_memory <- function(src) {
  if (!any(vapply(held$sources, identical, logical(1), src))) {
    held$sources[[length(held$sources) + 1L]] <- src
  }
  invisible(NULL)
}

release_source <- function(src) {
  if (!is.null(src$hooks$release)) src$hooks$release(src)
  invisible(NULL)
}

# A fit's use of the source: its reading threads (use_reading_threads())
# and the memory it may keep its rows in (keep_in_memory()).
use_source <- function(src, bytes, n_threads) {
  use_reading_threads(n_threads)
  keep_in_memory(src, bytes)
}

# A source read from a file in several passes keeps what it reads in memory
# when that takes at most `bytes` (file_cache_budget()), and its later
# passes read from there (source_tenx); elsewhere nothing.
keep_in_memory <- function(src, bytes) {
  if (!is.null(src$hooks$keep_in_memory)) src$hooks$keep_in_memory(src, bytes)
  invisible(src)
}

# The positions in the block of rows `rows` of the sampled rows that fall
# in it.
sample_in_block <- function(sample, rows) {
  if (is.null(sample)) return(integer(0))
  index <- sample$index
  match(index[index >= rows[1L] & index <= rows[length(rows)]], rows)
}

# Row blocks (all sparse or all dense) bound into one matrix: a dgCMatrix
# when sparse.
bind_blocks <- function(parts) {
  rows <- if (length(parts) == 1L) parts[[1L]] else do.call(rbind, parts)
  if (methods::is(rows, "sparseMatrix") && !methods::is(rows, "dgCMatrix")) {
    rows <- methods::as(methods::as(rows, "generalMatrix"), "CsparseMatrix")
  }
  rows
}

# The rows `index` normalized, when the library-size pass kept them
# (source_library_sizes()), else NULL; the kept counts are dropped. A
# source that keeps the counts as stored normalizes them by its hook
# kept_sample (source_tenx).
kept_sample <- function(src, index) {
  if (!is.environment(src$cache)) return(NULL)
  if (!is.null(src$hooks$kept_sample)) return(src$hooks$kept_sample(src, index))
  kept <- take_kept_sample(src, index)
  if (is.null(kept)) return(NULL)
  rows <- normalize_rows(kept$counts, src$normalize, describe_source(src))
  if (!methods::is(rows, "dgCMatrix") && !is.double(rows)) storage.mode(rows) <- "double"
  rows
}

# What source_library_sizes() kept of the rows `index` (dropped from the
# source: taken once), or NULL when it kept other rows or none.
take_kept_sample <- function(src, index) {
  kept <- src$cache$sample
  if (is.null(kept) || !identical(kept$index, index)) return(NULL)
  rm("sample", envir = src$cache)
  kept
}

# A block just read (cells as rows): values checked, normalized (unless
# done already), progress reported.
finish_block <- function(src, block, first, last, normalized = FALSE) {
  if (!methods::is(block, "dgCMatrix") && !is.double(block)) storage.mode(block) <- "double"
  if (nrow(block) != last - first + 1L || ncol(block) != src$n_col) {
    stop_arg(sprintf("%s gave a block of %d x %d for rows %d..%d; expected %d x %d.",
                     describe_source(src), nrow(block), ncol(block), first, last,
                     last - first + 1L, src$n_col))
  }
  if (!normalized || isTRUE(as_normalization(src$normalize)$check_only)) {
    block <- normalize_rows(block, src$normalize, describe_source(src), first)
  }
  sparse <- methods::is(block, "dgCMatrix")
  check_finite_values(if (sparse) block@x else block, "x", function(t) {
    row <- if (sparse) block@i[t] + 1L else (t - 1L) %% nrow(block) + 1L
    sprintf("at %s %s of %s", if (src$by_columns) "column" else "row", format(first - 1L + row),
            describe_source(src))
  }, as.numeric(src$n_row) * src$n_col, small = FALSE)
  report_progress(src, first, last)
  block
}

report_progress <- function(src, first, last) {
  p <- src$progress
  if (!isTRUE(p$on)) return(invisible(NULL))
  now <- elapsed()
  if (first == 1L || is.null(p$start)) {
    # (the clock starts when the first block is done: the rate is that of
    # the rows read after it)
    p$start <- now
    p$base <- last
    p$blocks <- 0L
    p$said <- now
  }
  p$blocks <- p$blocks + 1L
  if (last < src$n_row && now - p$said < 2) return(invisible(NULL))
  p$said <- now
  rate <- if (last > p$base) (last - p$base) / max(now - p$start, 1e-9)
  message(sprintf("kmreduce:   read %d block%s, rows 1..%s of %s (%.0f%%)%s%s",
                  p$blocks, if (p$blocks > 1L) "s" else "", format(last), format(src$n_row),
                  100 * last / src$n_row,
                  if (is.null(rate)) "" else paste0(", ", format(round(rate), big.mark = ","), " rows/s"),
                  if (last < src$n_row && !is.null(rate)) sprintf(", about %.0f s left", (src$n_row - last) / rate) else ""))
  invisible(NULL)
}
