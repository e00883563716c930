# The C++ entry points of the steps that read rows, each called from here
# only (by the pipeline's steps, R/source_steps.R and R/source_*.R), so a
# change of their arguments is made in one place. Each takes the rows as one
# description, whatever their source: `cpp` is to_cpp_source() of the source,
# or the reduced rows in memory with the source's MPI ranks and weights
# (cpp_rows_like(); both and cpp_source() in R/row_source.R);
# src/sources.h (glue::SourceSpec) reads it.
# `settings`: kmeans_settings().

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
