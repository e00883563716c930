# Where kmeans_reduced() reads its rows: one pipeline, three sources.
#
#   memory  a matrix, data frame or sparse Matrix
#   big     a bigmemory::big.matrix, read block by block by the C++ core
#           (block_reader(), the RBlockSource of src/sources.h)
#   mpi     mpi_rows(): each MPI rank holds some rows; the C++ core combines
#           the ranks' work through pbdMPI's allreduce (mpi_info(), the
#           RCombine of src/sources.h)
#
# Each step of the pipeline that reads the data calls one function here,
# which calls the same C++ algorithm for every source (row_source.hpp).

source_kind <- function(x) {
  if (inherits(x, "kmreduce_mpi")) "mpi" else if (is_big(x)) "big" else "memory"
}

# The rows as the pipeline sees them: the data (this rank's rows for MPI),
# the number of rows of all sources together, the columns, and the
# observation weights (NULL: none; checked, one per row; not on MPI rows),
# which every step below then uses.
row_source <- function(x, weights = NULL) {
  kind <- source_kind(x)
  data <- if (kind == "mpi") x$x else x
  list(kind = kind, data = data, n = if (kind == "mpi") x$n else nrow(x), d = ncol(data),
       mpi = if (kind == "mpi") x, weights = weights)
}

# Is `method` available for this source (the registry's `sources`)?
check_source_method <- function(method, src, control) {
  ok <- registered_methods(source = src$kind)
  if (!(method %in% ok)) {
    where <- switch(src$kind, big = "needs the whole matrix in memory; a big.matrix `x` works with",
                    mpi = "is not available on distributed rows; use one of", "is not available; use")
    stop_arg(sprintf("`method` \"%s\" %s %s.", method, where,
                     paste0("\"", ok, "\"", collapse = ", ")))
  }
  if (src$kind != "memory" && method == "leverage" && control$svd == "exact") {
    stop_arg(sprintf("`control$svd` = \"exact\" needs the whole matrix in memory; use \"randomized\" with %s.",
                     if (src$kind == "big") "a big.matrix `x`" else "distributed rows"))
  }
  invisible(TRUE)
}

# The reducer of `method` fitted to the rows of the source.
fit_source_reducer <- function(src, method, dims, k, seed, n_threads, control) {
  if (src$kind == "mpi" && method %in% c("leverage", "rsvd")) {
    return(mpi_fit_svd_reducer(src$mpi, method, dims, k, seed, n_threads, control))
  }
  reducer <- fit_reducer(src$data, method, dims, k, seed, n_threads, control, src$weights)
  if (src$kind == "mpi" && method == "fjlt") {
    # q from the rows of all ranks, so every rank maps with the same matrix
    reducer$density <- fjlt_density(src$n, reducer$n_features, control$fjlt_density)
  }
  if (src$kind == "mpi" && method == "none") {
    # the column means of all the ranks' rows
    reducer$shift <- if (is.matrix(src$data)) mpi_sum(colSums(src$data)) / src$n
  }
  reducer
}

# reduce_training() for the source: the reduced rows, centred by the column
# means of all the rows (of all ranks).
reduce_source <- function(reducer, src, n_threads, block_rows, limit) {
  # (one rank: its own column means are those of all rows)
  if (src$kind != "mpi" || reducer$method == "none" || src$mpi$size == 1L) {
    return(reduce_training(reducer, src$data, n_threads, block_rows, limit, src$weights))
  }
  # (the local step may fail on one rank only, e.g. for memory: the ranks
  # agree before the collective sum)
  failed <- mpi_try(TRUE, raw <- apply_reducer(reducer, src$data, n_threads))
  mpi_agree(src$mpi, failed, "kmeans_reduced()", NULL)
  reducer$shift <- mpi_sum(colSums(raw)) / src$n
  list(reducer = reducer, reduced = raw - rep(reducer$shift, each = nrow(raw)))
}

# k-means (n_init replicates of k-means++ and Lloyd) on the reduced rows, or
# Lloyd from given centres; `shift` for "none" (see fit_reducer()).
source_kmeans <- function(src, reduced, k, centers0, n_init, iter_max, tol, seed, n_threads,
                          verbose, limit, shift, seeding) {
  if (src$kind == "mpi") {
    return(mpi_kmeans_cpp(reduced, kmeans_cpp_options(k, n_init, iter_max, tol, seed, n_threads,
                                                      seeding), mpi_info(src$mpi), shift))
  }
  if (is.null(centers0)) {
    return(kmeans_cpp(reduced, kmeans_cpp_options(k, n_init, iter_max, tol, seed, n_threads,
                                                  seeding, verbose, limit), shift, src$weights))
  }
  # (from given centres: Lloyd; with `algorithm`, MacQueen's updates, or
  # Hartigan's moves after Lloyd)
  lloyd_from_cpp(reduced, centers0, lloyd_cpp_options(iter_max, tol, n_threads, seeding), shift,
                 src$weights)
}

# The statistics of a partition on the original rows; `means`: Lloyd's
# centres when they are the cluster means of in-memory dense rows.
source_stats <- function(src, cluster, k, n_threads, block_rows, means = NULL) {
  switch(src$kind,
    mpi = mpi_stats_cpp(src$data, cluster, k, n_threads, mpi_info(src$mpi)),
    big = stream_stats(src$data, cluster, k, block_rows_for(src$data, block_rows), n_threads,
                       src$weights),
    if (!is.null(src$weights)) {
      cluster_stats_cpp(src$data, cluster, k, n_threads, NULL, src$weights)
    } else if (!is.null(means) && is.matrix(src$data)) {
      cluster_stats_cpp(src$data, cluster, k, n_threads, means)
    } else {
      cluster_stats_cpp(src$data, cluster, k, n_threads)
    })
}

# Lloyd on the original rows from given centres (refine), rows minus `shift`.
source_lloyd <- function(src, centers, iter_max, n_threads, block_rows, shift) {
  switch(src$kind,
    mpi = mpi_lloyd_cpp(src$data, centers, lloyd_cpp_options(iter_max, 0, n_threads),
                        mpi_info(src$mpi), shift),
    big = stream_lloyd(src$data, centers, iter_max, block_rows_for(src$data, block_rows),
                       n_threads, shift, src$weights),
    lloyd_from_cpp(src$data, centers, lloyd_cpp_options(iter_max, 0, n_threads), shift,
                   src$weights))
}
