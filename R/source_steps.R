# The steps of the pipeline that read rows (R/row_source.R: the sources and
# what they can do): plain functions, each calling its C++ entry point with
# the source's description (to_cpp_source()), or reading the rows in memory,
# in blocks or on MPI ranks as the source's fields say (the MPI variants,
# mpi_*(), at the end). The C++ entry points of k-means, Lloyd, the
# statistics and the SVDs are called through cpp_kmeans(), cpp_lloyd(),
# cpp_stats(), cpp_svd() and cpp_rsvd() here only, with the options lists
# kmeans_cpp_options() and lloyd_cpp_options() build.

# The top right singular vectors of the (centred, weighted) rows, as
# top_right_vectors() takes them: `how` "exact" or "randomized" (rows not in
# memory: randomized).
source_svd <- function(src, k, how, oversample, power_iters, seed, n_threads, block_rows,
                       center, weights) {
  if (isTRUE(src$in_memory)) {
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
  if (isTRUE(src$in_memory)) {
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
  if (!is.null(src$mpi)) return(mpi_sample_rows(src, index, block_rows))
  rows <- if (isTRUE(src$in_memory)) src$data[index, , drop = FALSE] else rows_at(src, index, block_rows)
  list(rows = rows, index = index)
}

# The rows `index` (increasing) of the source, read in one pass by
# rows_at_cpp() (src/reduce.cpp: the blocks that hold none are not read),
# or kept by the pass that summed the library sizes (kept_sample()).
rows_at <- function(src, index, block_rows = NULL) {
  kept <- kept_sample(src, index)
  if (!is.null(kept)) return(kept)
  if (length(index) == 0L) return(read_block(src, 1L, 1L)[0L, , drop = FALSE])
  rows_at_cpp(cpp_source(read = function(first, last) read_block(src, first, last),
                         n = n_rows(src), d = n_cols(src),
                         block_rows = source_block_rows(src, block_rows)),
              index)
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
  if (!is.null(src$mpi)) return(mpi_robust_shift(src$data, src$mpi, n_threads))
  if (isTRUE(src$in_memory)) robust_shift_cpp(src$data, n_threads)
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
  if (!is.null(src$mpi)) return(mpi_collapsed(reduced, k))
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
  if (!is.null(src$mpi)) {
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
  if (isTRUE(src$in_memory)) return(one(src$data))
  if (!is.null(src$mpi)) return(one(src$mpi))
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
  if (isTRUE(src$in_memory)) return(src$data)
  if (!is.null(src$mpi)) return(src$mpi)
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

# k-means on rows in memory: replicates of the seeding, Lloyd, the polish.
cpp_kmeans <- function(cpp, k, n_init, iter_max, tol, seed, n_threads, verbose, limit, shift,
                       settings) {
  kmeans_cpp(cpp, kmeans_cpp_options(k, n_init, iter_max, tol, seed, n_threads, settings,
                                     verbose, limit), shift)
}

# Lloyd from given centres; with `settings` (kmeans_settings()), what its
# `algorithm` runs from them (MacQueen's updates, or Hartigan's moves after
# Lloyd: on rows in memory on one process).
cpp_lloyd <- function(cpp, centers, iter_max, tol, n_threads, shift, settings = NULL, seed = 0) {
  lloyd_cpp(cpp, centers, lloyd_cpp_options(iter_max, tol, n_threads, settings, seed), shift)
}

# The statistics of a partition (centres, withinss, size, totss, sumsq;
# weight with weights), whatever the source; `means`: Lloyd's centres when
# they are the cluster means of these labels (used by dense rows in memory).
cpp_stats <- function(cpp, cluster, k, n_threads, means = NULL) {
  cluster_stats_cpp(cpp, cluster, k, n_threads, means)
}

# Top singular vectors: exact (rows in memory, centred by the column means
# `mu`) or randomized (`center`: FALSE, TRUE for the centred rows, or their
# column means for rows in memory on one process).
cpp_svd <- function(rows, k, mu, weights, n_threads = 1L) top_svd_cpp(rows, k, mu, weights, n_threads)

cpp_rsvd <- function(cpp, k, oversample, power_iters, seed, n_threads, center) {
  randomized_svd_cpp(cpp, list(k = as.integer(k), oversample = as.integer(oversample),
                               power_iters = as.integer(power_iters), seed = as.double(seed),
                               n_threads = as.integer(n_threads),
                               center = if (is.null(center)) FALSE else center))
}

# The options of kmeans_cpp(): n_init replicates, each a seeding then Lloyd
# (as `settings` says, kmeans_settings(); by default those of
# kmeans_control()), from the random streams of `seed`; `verbose` prints a
# line per replicate, `limit` > 0 checks the values of dense rows while they
# are packed (see kmeans_cpp()).
kmeans_cpp_options <- function(k, n_init = 1L, iter_max = 100L, tol = 0, seed = 0,
                               n_threads = 1L, settings,
                               verbose = FALSE, limit = 0) {
  call <- list(k = as.integer(k), n_init = as.integer(n_init), iter_max = as.integer(iter_max),
               tol = as.double(tol), seed = as.double(seed), n_threads = as.integer(n_threads),
               verbose = isTRUE(verbose), limit = as.double(limit))
  c(call, settings[setdiff(names(settings), names(call))])
}

# The options of lloyd_cpp(): Lloyd from given centres, or with `settings`
# (kmeans_settings()) what stats::kmeans(algorithm = ) runs from them:
# MacQueen's updates, Hartigan's moves after Lloyd, or mini-batch k-means
# (its batches and `seed`).
lloyd_cpp_options <- function(iter_max, tol = 0, n_threads = 1L, settings = NULL, seed = 0) {
  out <- list(iter_max = as.integer(iter_max), tol = as.double(tol),
              n_threads = as.integer(n_threads), seed = as.double(seed))
  if (!is.null(settings)) {
    out <- c(out, settings[c("algorithm", "centres_polish", "batch_size", "reassignment_ratio")])
  }
  out
}

# What the core runs with for `n` rows (every "auto" chosen): for messages
# and tests.
kmeans_resolved <- function(k, n_init, n, settings) {
  kmeans_resolved_cpp(kmeans_cpp_options(k, n_init, settings = settings), n)
}

# The sample of one process on the stacked rows (control$svd_rows): the
# same global rows drawn on every rank (sample_index() of all the rows, a
# stream that does not depend on the rank), each rank reads those it holds,
# and every rank gets all of them in rank order (= row order)
# (sample_rows()).
mpi_sample_rows <- function(src, index, block_rows) {
  failed <- mpi_try(TRUE, part <- local_rows_at(src, held_rows(src, index), block_rows))
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  list(rows = bind_blocks(pbdMPI::allgather(part)), index = index)
}

# This rank's rows `index` (local, increasing): read in one pass from the
# rank's source of blocks, or taken from its rows in memory.
local_rows_at <- function(src, index, block_rows) {
  if (!is.null(src$local)) return(rows_at(src$local, index, block_rows))
  rows <- src$data[index, , drop = FALSE]
  if (!methods::is(rows, "dgCMatrix") && !is.double(rows)) storage.mode(rows) <- "double"
  rows
}

# The rows of `index` (global, increasing) this rank holds, as local rows.
held_rows <- function(src, index) {
  first <- src$mpi$offset
  index[index > first & index <= first + n_local_rows(src)] - first
}

# The reduced rows minus the shift of all the ranks' reduced rows
# (mpi_robust_shift(); reduce_source() on several ranks): each rank's rows
# in memory mapped at once, or its rows read in blocks mapped block by
# block and shifted block by block.
mpi_reduce_source <- function(src, reducer, n_threads, block_rows) {
  local <- src$local
  # (the local step may fail on one rank only, e.g. for memory: the ranks
  # agree before the collective sum)
  failed <- mpi_try(TRUE, if (is.null(local)) {
    raw <- apply_reducer(reducer, src$data, n_threads)
  } else {
    method_info(reducer$method)$memory(n_local_rows(src), reducer)
    reducer$shift <- NULL
    raw <- stream_reduce(reducer, local, source_block_rows(local, block_rows), n_threads)
  })
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  reducer$shift <- mpi_robust_shift(raw, src$mpi, n_threads)
  if (is.null(local)) {
    return(list(reducer = reducer, reduced = raw - rep(reducer$shift, each = nrow(raw))))
  }
  for_row_blocks_index(nrow(raw), source_block_rows(local, block_rows), function(rows) {
    raw[rows, ] <<- raw[rows, , drop = FALSE] - rep(reducer$shift, each = length(rows))
  })
  list(reducer = reducer, reduced = raw)
}

# (as one process on the stacked reduced rows: a rank with k distinct rows
# answers for all; otherwise the union of every rank's distinct rows, fewer
# than k each; reduced_collapsed())
mpi_collapsed <- function(reduced, k) {
  if (mpi_sum(as.numeric(has_distinct_rows_cpp(reduced, k))) > 0) return(FALSE)
  !has_distinct_rows_cpp(do.call(rbind, pbdMPI::allgather(unique(as.matrix(reduced)))), k)
}
