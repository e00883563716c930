# The C++ entry points of the steps that read rows, each called from here
# only (by the pipeline's steps, R/row_source.R and R/source_*.R), so a
# change of their arguments is made in one place. Each takes the rows as one
# description, whatever their source: `cpp` is to_cpp_source() of the source
# (R/row_source.R), or the reduced rows in memory with the source's MPI ranks
# and weights (cpp_rows_like()); src/sources.h (glue::SourceSpec) reads it.
# `settings`: kmeans_settings().

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
