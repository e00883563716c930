# Row sources: where kmeans_reduced() reads its rows. One pipeline, one S3
# class per source, one file each:
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
#   source_tenx    a 10x HDF5 file (a TENxMatrix), read with rhdf5 in blocks
#                  of whole cells (R/source_tenx.R; a source_delayed)
#
# Every source is a list with `data` (the object as given) and `weights`
# (NULL or one per row, set by set_weights()), of class c(<its class>,
# "row_source"). The interface a source implements:
#
#   n_rows(src), n_cols(src)   the rows (of all ranks) and the columns
#   read_block(src, first, last)  rows first..last as a double matrix
#   to_cpp_source(src, block_rows)  what the C++ core reads the rows through:
#                              one description, cpp_source() of R/cpp_steps.R
#   describe_source(src)       a phrase for messages ("a big.matrix")
#
# and the pipeline steps that read rows are generics too (below). Their
# defaults, the methods of "row_source", read the rows in blocks through
# read_block() (the C++ core calls back for each block: to_cpp_source() ->
# RBlockSource of src/sources.h), so a new source read in blocks implements
# read_block() and describe_source() (n_rows() and n_cols() too when its
# object has no nrow() and ncol()) and nothing else; in-memory and MPI
# sources override the steps that read rows differently. The registry's `sources`
# (R/registry.R) lists the classes a method runs on ("row_source": every
# source, read in blocks by these defaults).
#
# A new source: one file with its constructor and methods, and one line in
# row_source_types() below.

# The sources as_row_source() tries, in order: a test on the object and the
# constructor of its source. The last entry takes everything else as
# in-memory data (whose checks, check_data(), then say what is wrong).
row_source_types <- function() {
  c(registered_sources$types, list(
    list(is = function(x) inherits(x, "row_source"), new = identity),
    list(is = function(x) inherits(x, "kmreduce_mpi"), new = new_source_mpi),
    list(is = is_big, new = new_source_big),
    list(is = is_delayed, new = new_source_delayed_rows),
    list(is = function(x) isS4(x) && methods::is(x, "sparseMatrix"), new = new_source_sparse),
    list(is = function(x) TRUE, new = new_source_matrix)
  ))
}

# Sources registered at run time (before the package's own; a test's toy
# source): register_row_source(test, constructor).
registered_sources <- new.env(parent = emptyenv())
registered_sources$types <- list()

register_row_source <- function(is, new) {
  registered_sources$types <- c(list(list(is = is, new = new)), registered_sources$types)
  invisible(NULL)
}

# The row source of `x` (a given `weights` already checked).
as_row_source <- function(x, weights = NULL) {
  for (type in row_source_types()) {
    if (isTRUE(type$is(x))) {
      src <- type$new(x)
      if (!is.null(weights)) src$weights <- weights
      return(src)
    }
  }
}

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

# All the rows of the source mapped by the reducer, read in blocks of
# `block_rows` (stream_reduce()): map_rows() of each block
# read_block_transient() gives, into one matrix. A source may map the rows as
# it stores them, without making the blocks (its hook reduce_rows, NULL
# where it does not: source_tenx).
reduce_rows <- function(src, reducer, block_rows, n_threads) {
  if (!is.null(src$hooks$reduce_rows)) {
    out <- src$hooks$reduce_rows(src, reducer, block_rows, n_threads)
    if (!is.null(out)) return(out)
  }
  out <- NULL
  for_source_blocks(src, block_rows, function(block, rows) {
    r <- map_rows(reducer, block, n_threads, 0)
    if (is.null(out)) {
      out <<- matrix(0, n_rows(src), ncol(r), dimnames = list(NULL, colnames(r)))
    }
    out[rows, ] <<- r
  })
  out
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


## The pipeline steps that read rows ----------------------------------------

# Step 3: the reducer of `method` fitted to the rows (fit_reducer()). Its
# singular values and residual are of the weights as given (those of the
# core's weights times the square root of src$weight_unit, or times it:
# exact, an even power of two).
fit_source_reducer <- function(src, method, dims, k, seed, n_threads, control) {
  reducer <- fit_reducer(src, method, dims, k, seed, n_threads, control, src$weights)
  unit <- weight_unit(src)
  if (unit != 1) {
    if (!is.null(reducer$singular_values)) {
      reducer$singular_values <- reducer$singular_values * sqrt(unit)
    }
    if (!is.null(reducer$residual)) reducer$residual <- reducer$residual * unit
  }
  reducer
}

# The top right singular vectors of the (centred, weighted) rows, as
# top_right_vectors() takes them: `how` "exact" or "randomized" (rows not in
# memory: randomized).
source_svd <- function(src, k, how, oversample, power_iters, seed, n_threads, block_rows,
                       center, weights) {
  if (in_memory(src)) {
    return(memory_svd(src$data, k, how, oversample, power_iters, seed, n_threads, center,
                      weights))
  }
  sv <- source_rsvd(src, k, oversample, power_iters, seed, n_threads, block_rows, center,
                    weights)
  list(d = sv$d, v = sv$v)
}

# The randomized SVD of the rows (randomized_svd()): d, u and v. Rows not
# in memory: its products taken block by block (randomized_svd_blocks() of
# rsvd.hpp: the same test matrix and steps as in memory, equal to
# rounding), or on every rank.
source_rsvd <- function(src, k, oversample, power_iters, seed, n_threads, block_rows, center,
                        weights = NULL) {
  if (in_memory(src)) {
    return(cpp_rsvd(cpp_source(rows = src$data, weights = weights), k, oversample, power_iters,
                    seed, n_threads, if (center) column_means(src$data, n_threads)))
  }
  src$weights <- weights
  cpp_rsvd(to_cpp_source(src, block_rows), k, oversample, power_iters, seed, n_threads, center)
}

# m rows of the source drawn uniformly at random without replacement
# (from the seed, sample_index(); R's random numbers are not used), in their
# order: list(rows, index). Rows not in memory: read in one pass
# (rows_at()); on MPI ranks, the same rows of all ranks on every rank
# (mpi_sample_rows()).
sample_rows <- function(src, m, seed, block_rows = NULL) {
  index <- sample_index(n_rows(src), m, seed)
  if (on_ranks(src)) return(mpi_sample_rows(src, index, block_rows))
  rows <- if (in_memory(src)) src$data[index, , drop = FALSE] else rows_at(src, index, block_rows)
  list(rows = rows, index = index)
}

# The rows `index` (increasing) of the source, read in one pass (or kept by
# the pass that summed the library sizes: kept_sample()).
rows_at <- function(src, index, block_rows = NULL) {
  kept <- kept_sample(src, index)
  if (!is.null(kept)) return(kept)
  parts <- list()
  for_row_blocks_index(n_rows(src), source_block_rows(src, block_rows), function(rows) {
    local <- sample_in_block(list(index = index), rows)
    if (length(local) == 0L) return()
    block <- read_block(src, rows[1L], rows[length(rows)])
    parts[[length(parts) + 1L]] <<- block[local, , drop = FALSE]
  })
  if (length(parts) == 0L) return(read_block(src, 1L, 1L)[0L, , drop = FALSE])
  bind_blocks(parts)
}

# The shift of method "none": the rows minus it in Lloyd's distances
# (fit_reducer()); NULL: none. Dense rows in memory (on MPI ranks, those of
# all ranks: mpi_robust_shift()) minus a point among them
# (robust_shift_cpp(): in each column the median of at most 256 rows chosen
# by their content); not their mean, which one far row moves away from all
# the others. Sparse rows stay zeros; rows read in blocks ("none" runs on
# their reduction, which is in memory) have none.
none_shift <- function(src, n_threads = 1L) {
  if (!is.matrix(src$data) || !is.null(src$local)) return(NULL)
  if (on_ranks(src)) return(mpi_robust_shift(src$data, src$mpi, n_threads))
  if (in_memory(src)) robust_shift_cpp(src$data, n_threads)
}

# Step 4: the rows mapped by the reducer (apply_reducer()): in memory (on
# MPI ranks, each rank's rows) at once, else block by block.
source_apply_reducer <- function(src, reducer, n_threads, block_rows, limit) {
  if (in_memory(src) || (on_ranks(src) && is.null(src$local))) {
    return(map_rows(reducer, src$data, n_threads, limit))
  }
  blocks <- if (is.null(src$local)) src else src$local
  stream_reduce(reducer, blocks, source_block_rows(blocks, block_rows), n_threads)
}

# Step 4 for the fit: the reduced rows, centred by the column means of all
# the rows; list(reducer, reduced) (reduce_training()). On several MPI
# ranks: minus the shift of all the ranks' reduced rows
# (mpi_reduce_source()).
reduce_source <- function(src, reducer, n_threads, block_rows, limit) {
  # ("none": the rows themselves, which are in memory where "none" runs)
  if (reducer$method == "none") return(list(reducer = reducer, reduced = src$data))
  if (on_ranks(src)) {
    if (src$mpi$size > 1L) return(mpi_reduce_source(src, reducer, n_threads, block_rows))
    # (one rank: the numbers of one process)
    if (!is.null(src$local)) src <- src$local
  }
  reduce_training(reducer, src, n_threads, block_rows, limit)
}

# Does a reduction leave fewer than k distinct reduced rows? On MPI ranks,
# as one process on the stacked reduced rows (mpi_collapsed()). Rows whose
# values are checked as they are read: when it does, either the reduction
# merged rows (TRUE: a warning, and the fit refined on the original rows)
# or the rows themselves have fewer than k distinct ones, which is the
# error of a matrix in memory (the blocks are read until k distinct rows
# are seen).
reduced_collapsed <- function(src, reduced, k) {
  if (k <= 1L) return(FALSE)
  if (on_ranks(src)) return(mpi_collapsed(reduced, k))
  if (has_distinct_rows_cpp(reduced, k)) return(FALSE)
  if (isTRUE(src$checks_blocks)) {
    has <- big_has_distinct(src, k, source_block_rows(src))
    if (!has) stop_too_few_distinct(k, attr(has, "distinct"))
  }
  TRUE
}

# Step 5: k-means (n_init replicates of k-means++ and Lloyd) on the reduced
# rows, which are in memory (on the source's MPI ranks, with its weights),
# or Lloyd from given centres; `shift` for "none" (see fit_reducer()). On
# MPI ranks: no messages per replicate on every rank, no value limit (each
# rank would stop alone); from given centres (dims = "auto": Lloyd from the
# best partition so far, as one process), no Hartigan's moves, which run on
# one process only.
source_kmeans <- function(src, reduced, k, centers0, n_init, iter_max, tol, seed, n_threads,
                          verbose, limit, shift, settings) {
  if (on_ranks(src)) {
    settings$centres_polish <- "none"
    verbose <- FALSE
    limit <- 0
  }
  rows <- cpp_rows_like(src, reduced)
  if (is.null(centers0)) {
    return(cpp_kmeans(rows, k, n_init, iter_max, tol, seed, n_threads, verbose, limit, shift,
                      settings))
  }
  # (from given centres: Lloyd; with `algorithm`, MacQueen's updates, or
  # Hartigan's moves after Lloyd)
  cpp_lloyd(rows, centers0, iter_max, tol, n_threads, shift, settings, seed)
}

# Step 6: the statistics of a partition on the original rows, whatever the
# source: one C++ entry (cluster_stats.hpp) reads the rows as its
# description says (to_cpp_source(): in memory, in blocks, a 10x file's
# cells as stored, on MPI ranks; in one pass for rows costly to read again,
# where it keeps the digits); `means`: Lloyd's centres when they are the
# cluster means of these labels (dense rows in memory on one process then
# skip the sums; not on MPI ranks, each holding only its own rows). As the
# fit reports them: in the units of the weights as given, those of the
# core's weights times src$weight_unit (a power of two: exact). Statistics
# that do not fit in a double are an error, never Inf or NaN.
partition_stats <- function(src, cluster, k, n_threads, block_rows, means = NULL) {
  cpp <- to_cpp_source(src, block_rows)
  if (!is.null(cpp$mpi)) means <- NULL
  st <- cpp_stats(cpp, cluster, k, n_threads, means)
  unit <- weight_unit(src)
  if (unit != 1) {
    for (f in c("withinss", "totss", "sumsq", "weight")) st[[f]] <- st[[f]] * unit
  }
  check_stats_finite(st, !is.null(src$weights))
  st
}

# The power of two the core's weights are in (set_weights()).
weight_unit <- function(src) if (is.null(src$weight_unit)) 1 else src$weight_unit

check_stats_finite <- function(st, weighted) {
  sums <- c(totss = st$totss, tot.withinss = sum(st$withinss), sumsq = st$sumsq,
            weight = sum(st$weight))
  bad <- names(sums)[!is.finite(sums)]
  if (length(bad) == 0L && all(is.finite(st$centers))) return(invisible(st))
  what <- if (length(bad) > 0L) sprintf("`%s`", bad[1L]) else "the centres"
  if (weighted) {
    stop_arg(sprintf(paste0("`weights` are too large for the statistics of this fit: %s would ",
                            "exceed the largest double (%s). Divide the weights by a common ",
                            "factor: the partition depends on their ratios alone."),
                     what, format(.Machine$double.xmax, digits = 3)))
  }
  stop_arg(sprintf("`x` is too large for the statistics of this fit: %s would exceed the largest double (%s). Rescale `x`.",
                   what, format(.Machine$double.xmax, digits = 3)))
}

# Step 8 (refine): Lloyd on the original rows from given centres, rows
# minus `shift`, whatever their source.
source_lloyd <- function(src, centers, iter_max, n_threads, block_rows, shift) {
  cpp_lloyd(to_cpp_source(src, block_rows), centers, iter_max, 0, n_threads, shift)
}

# predict(): the clusters (or distances) of the rows; `one(rows, first)`
# predicts in-memory rows (`first`: the number of the first of them).
# Rows in memory at once (rows on MPI ranks are not read: check_newdata()
# says only kmeans_reduced() takes them); others block by block, each
# block's columns the fit's, matched by name as in memory
# (newdata_columns()).
source_predict <- function(src, object, n_threads, type, k, one) {
  if (in_memory(src)) return(one(src$data))
  if (on_ranks(src)) return(one(src$mpi))
  index <- newdata_columns(col_names(src), n_cols(src), object$reducer, "newdata")
  n <- n_rows(src)
  out <- if (type == "cluster") integer(n) else matrix(0, n, k)
  for_source_blocks(src, source_block_rows(src), function(block, rows) {
    if (!is.null(index)) block <- block[, index, drop = FALSE]
    p <- one(block, rows[1L])
    if (type == "cluster") out[rows] <<- p else out[rows, ] <<- p
  })
  # (named by the rows, as predict() names rows in memory)
  if (type == "distances") {
    dimnames(out) <- list(row_names(src), seq_len(k))
  } else {
    names(out) <- row_names(src)
  }
  out
}

# The rows in memory (augment()): `what` names them in a message. Rows
# read in blocks are read whole (in their own type where the source keeps
# it: its hook all_rows).
rows_in_memory <- function(src, what) {
  if (in_memory(src)) return(src$data)
  if (on_ranks(src)) return(src$mpi)
  check_rows_memory(src, what)
  if (!is.null(src$hooks$all_rows)) return(src$hooks$all_rows(src))
  read_block(src, 1L, n_rows(src))
}

# (the rows read into memory: the data frame holds them all)
check_rows_memory <- function(src, what) {
  check_memory(2 * 8 * as.numeric(n_rows(src)) * n_cols(src),
               sprintf("augment() on the %s x %s %s `%s`", format(n_rows(src)),
                       format(n_cols(src)), sub("^an? ", "", describe_source(src)), what),
               sprintf("Use predict(fit, newdata), which reads %s in blocks, for the clusters alone.",
                       describe_source(src)))
}
