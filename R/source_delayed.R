# Row source: a Bioconductor DelayedMatrix (any seed: an HDF5Matrix, a
# delayed log-normalisation, ...), or a matrix-like assay of a
# SummarizedExperiment, read in blocks of whole rows through DelayedArray's
# own realization (`x[rows, ]` or, cells as columns, `x[, cells]`, made a
# dgCMatrix when the matrix is sparse), never whole. The defaults of
# R/row_source.R do the rest: the C++ core calls read_block() for each block.
#
#   by_columns  the rows kmeans_reduced() clusters are the matrix's columns
#               (the cells of a SummarizedExperiment); each block is read as
#               columns and transposed
#   normalize   a choice of normalize_choices() or a normalization
#               (as_normalization(), R/normalize_counts.R), block by block
#
# Values are checked as each block is read (finite; counts for normalize):
# no pass of its own. A 10x HDF5 file (a TENxMatrix) is read straight from
# the file instead (R/source_tenx.R, a source_delayed too).

new_source_delayed <- function(x, by_columns = FALSE, normalize = "none", what = NULL,
                               class = NULL) {
  check_delayed_files(x)
  dims <- dim(x)
  dn <- dimnames(x)
  if (is.null(dn)) dn <- list(NULL, NULL)
  if (by_columns) {
    dims <- rev(dims)
    dn <- rev(dn)
  }
  sparse <- is_sparse_matrix(x)
  new_row_source(x, c(class, "source_delayed"), by_columns = by_columns,
                 normalize = normalize, n_row = as.integer(dims[1L]), n_col = as.integer(dims[2L]),
                 names = dn, sparse = sparse, checks_blocks = TRUE,
                 # (blocks of about 2^24 values; sparse: 2 % of the columns
                 # stored, single-cell counts; source_block_rows())
                 block_values = 2^24,
                 values_per_row = if (sparse) 0.02 * dims[2L] else dims[2L],
                 what = if (is.null(what)) "a DelayedMatrix" else what,
                 progress = new.env(parent = emptyenv()),
                 # (what a pass keeps for a later step: source_library_sizes())
                 cache = new.env(parent = emptyenv()))
}

# A DelayedMatrix given as `x`: its rows, read straight from the file when
# it is t() of a TENxMatrix.
new_source_delayed_rows <- function(x) {
  seed <- tenx_seed(x, transposed = TRUE)
  if (!is.null(seed)) return(new_source_tenx(x, seed, cells_first = TRUE))
  new_source_delayed(x, what = sprintf("a %s", class(x)[1L]))
}

is_delayed <- function(x) isS4(x) && methods::is(x, "DelayedMatrix")

# The HDF5 files behind the seeds of the DelayedArray `x` (an HDF5Matrix, a
# TENxMatrix, ... under any delayed operations), checked before anything
# reads them: a file removed, or one HDF5 cannot open (truncated,
# overwritten), is an error naming it and the dataset or group, as a 10x
# file is named by read_tenx_layout(), instead of what fails first
# (DelayedArray::type(), dimnames(), a block's realization).
check_delayed_files <- function(x) {
  if (!is_delayed(x)) return(invisible(NULL))
  for (s in DelayedArray::seedApply(x, identity)) {
    label <- h5_seed_label(s)
    if (!is.null(label)) check_h5_file(s@filepath, label)
  }
  invisible(NULL)
}

# How errors name the file of an HDF5Array seed ("The 10x file 'F' (group
# \"G\")"), or NULL for a seed of another kind or a file that is not local
# (a URL).
h5_seed_label <- function(s) {
  file <- if (methods::.hasSlot(s, "filepath")) s@filepath
  if (!is.character(file) || length(file) != 1L || is.na(file) || grepl("^[A-Za-z0-9+.-]+://", file)) {
    return(NULL)
  }
  if (methods::is(s, "H5ADMatrixSeed")) {
    sprintf("The .h5ad file '%s' (%s \"%s\")", file,
            if (methods::.hasSlot(s, "group")) "group" else "dataset",
            if (methods::.hasSlot(s, "group")) s@group else s@name)
  } else if (methods::is(s, "TENxMatrixSeed")) {
    sprintf("The 10x file '%s' (group \"%s\")", file, s@group)
  } else if (methods::is(s, "H5SparseMatrixSeed")) {
    sprintf("The HDF5 file '%s' (group \"%s\")", file, s@group)
  } else if (methods::is(s, "HDF5ArraySeed")) {
    sprintf("The HDF5 file '%s' (dataset \"%s\")", file, s@name)
  }
}

is_sparse_matrix <- function(x) {
  if (methods::is(x, "sparseMatrix")) return(TRUE)
  isS4(x) && methods::is(x, "DelayedArray") && requireNamespace("DelayedArray", quietly = TRUE) &&
    isTRUE(DelayedArray::is_sparse(x))
}

n_rows.source_delayed <- function(src) src$n_row
n_cols.source_delayed <- function(src) src$n_col
dim_names.source_delayed <- function(src) list(src$names[[1L]], src$names[[2L]])
describe_source.source_delayed <- function(src) src$what

read_block.source_delayed <- function(src, first, last) {
  cells <- first:last
  # (a failure to read, e.g. a file removed or damaged since the source was
  # made, names the source, and the file when it is the cause)
  block <- tryCatch({
    block <- if (src$by_columns) src$data[, cells, drop = FALSE] else src$data[cells, , drop = FALSE]
    if (src$sparse) sparse_block(block) else as.matrix(block)
  }, error = function(e) {
    check_delayed_files(src$data)
    stop_arg(sprintf("%s could not be read (%s %d..%d): %s", describe_source(src),
                     if (src$by_columns) "columns" else "rows", first, last, conditionMessage(e)))
  })
  if (src$by_columns) block <- Matrix::t(block)
  finish_block(src, block, first, last)
}

# The library sizes of the cells of a block source: one pass over the
# counts as they are (checked: counts), for "log1p_size_factors" without
# size factors (its mean library size). `sample`: NULL, or list(index) of
# cells whose counts the same pass keeps (src$cache$sample), for
# sample_rows() to normalize instead of reading them again.
# A source with its own pass over the counts as stored has the hook
# library_sizes (source_tenx).
source_library_sizes <- function(src, sample = NULL) {
  if (!is.null(src$hooks$library_sizes)) return(src$hooks$library_sizes(src, sample))
  # (the counts checked, not normalized)
  src$normalize <- list(how = as_normalization(src$normalize)$how, target = 0, check_only = TRUE)
  # (one C++ pass over the blocks: library_sizes_cpp(), src/reduce.cpp)
  out <- library_sizes_cpp(cpp_source(read = function(first, last) read_block(src, first, last),
                                      n = n_rows(src), d = n_cols(src),
                                      block_rows = source_block_rows(src)),
                           if (is.null(sample)) numeric(0) else sample$index)
  if (!is.null(sample)) src$cache$sample <- list(index = sample$index, counts = out$rows)
  out$sizes
}

# A block of a sparse DelayedMatrix as a dgCMatrix, with its NA and NaN
# (DelayedArray's own coercion to dgCMatrix drops them, and the value
# checks must see them): from its non-zero entries.
sparse_block <- function(block) {
  if (methods::is(block, "dgCMatrix")) return(block)
  s <- DelayedArray::extract_sparse_array(block, list(NULL, NULL))
  Matrix::sparseMatrix(i = s@nzindex[, 1L], j = s@nzindex[, 2L], x = as.double(s@nzdata),
                       dims = dim(block), dimnames = dimnames(block))
}

# The rows read block by block (to_cpp_source.row_source()), costly to read
# again: the statistics of a partition in one pass over the blocks where it
# keeps the digits (cluster_stats.hpp; counts and log-counts sit near the
# origin).
to_cpp_source.source_delayed <- function(src, block_rows = NULL) {
  cpp <- NextMethod()
  cpp$one_pass <- TRUE
  cpp
}

## Progress on long reads ---------------------------------------------------
