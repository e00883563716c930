# The C++ entry points of the steps that read rows, each called from here
# only (by the row sources' methods, R/row_source.R and R/source_*.R), so a
# change of their arguments is made in one place. `cpp`: to_cpp_source() of
# the source (a matrix; list(read, n, d) for rows read in blocks;
# list(rows, mpi) for MPI ranks; list(read, n, d, mpi) for MPI ranks reading
# their rows in blocks). `settings`: kmeans_settings().

# k-means on the reduced rows (in memory): replicates of the seeding, Lloyd,
# the polish.
cpp_kmeans <- function(reduced, k, n_init, iter_max, tol, seed, n_threads, verbose, limit,
                       shift, settings, weights) {
  kmeans_cpp(reduced, kmeans_cpp_options(k, n_init, iter_max, tol, seed, n_threads, settings,
                                         verbose, limit), shift, weights)
}
cpp_kmeans_mpi <- function(reduced, k, n_init, iter_max, tol, seed, n_threads, mpi, shift,
                           settings) {
  mpi_kmeans_cpp(reduced, kmeans_cpp_options(k, n_init, iter_max, tol, seed, n_threads, settings),
                 mpi, shift)
}

# Lloyd from given centres; with `settings` (kmeans_settings()), what its
# `algorithm` runs from them (MacQueen's updates, or Hartigan's moves after
# Lloyd).
cpp_lloyd <- function(rows, centers, iter_max, tol, n_threads, shift, weights, settings = NULL) {
  lloyd_from_cpp(rows, centers, lloyd_cpp_options(iter_max, tol, n_threads, settings), shift,
                 weights)
}
cpp_lloyd_blocks <- function(cpp, block_rows, centers, iter_max, n_threads, shift, weights) {
  lloyd_blocks_cpp(cpp$read, cpp$n, cpp$d, block_rows, centers,
                   lloyd_cpp_options(iter_max, 0, n_threads), shift, weights)
}
cpp_lloyd_mpi_blocks <- function(cpp, block_rows, centers, iter_max, n_threads, shift) {
  mpi_lloyd_blocks_cpp(cpp$read, cpp$n, cpp$d, block_rows, centers,
                       lloyd_cpp_options(iter_max, 0, n_threads), cpp$mpi, shift)
}
cpp_lloyd_mpi <- function(cpp, centers, iter_max, n_threads, shift, tol = 0, settings = NULL) {
  mpi_lloyd_cpp(cpp$rows, centers, lloyd_cpp_options(iter_max, tol, n_threads, settings), cpp$mpi,
                shift)
}

# The statistics of a partition (centres, withinss, totss, sumsq).
cpp_stats <- function(rows, cluster, k, n_threads, means = NULL, weights = NULL) {
  cluster_stats_cpp(rows, cluster, k, n_threads, means, weights)
}
cpp_stats_blocks <- function(cpp, block_rows, cluster, k, n_threads, weights) {
  stats_blocks_cpp(cpp$read, cpp$n, cpp$d, block_rows, cluster, k, n_threads, weights)
}
# The one-pass moments of one block by cluster: list(sums, size, sq).
cpp_label_moments <- function(block, cluster, k, n_threads, weights = NULL) {
  label_moments_cpp(block, cluster, k, n_threads, weights)
}
cpp_stats_mpi_blocks <- function(cpp, block_rows, cluster, k, n_threads) {
  mpi_stats_blocks_cpp(cpp$read, cpp$n, cpp$d, block_rows, cluster, k, n_threads, cpp$mpi)
}
cpp_stats_mpi <- function(cpp, cluster, k, n_threads) {
  mpi_stats_cpp(cpp$rows, cluster, k, n_threads, cpp$mpi)
}

# Top singular vectors: exact, randomized, randomized in blocks or on MPI
# ranks (centred by the column means `mu` or, `center`, of all rows).
cpp_svd <- function(rows, k, mu, weights, n_threads = 1L) top_svd_cpp(rows, k, mu, weights, n_threads)
cpp_rsvd <- function(rows, k, oversample, power_iters, seed, n_threads, mu, weights = NULL) {
  randomized_svd_cpp(rows, k, oversample, power_iters, seed, n_threads, mu, weights)
}
cpp_rsvd_blocks <- function(cpp, block_rows, k, oversample, power_iters, seed, n_threads,
                            center, weights = NULL) {
  rsvd_blocks_cpp(cpp$read, cpp$n, cpp$d, block_rows,
                  list(k = k, oversample = oversample, power_iters = power_iters, seed = seed,
                       n_threads = n_threads, center = center), weights)
}
cpp_rsvd_mpi_blocks <- function(cpp, block_rows, k, oversample, power_iters, seed, n_threads,
                                center) {
  mpi_rsvd_blocks_cpp(cpp$read, cpp$n, cpp$d, block_rows,
                      list(k = k, oversample = oversample, power_iters = power_iters, seed = seed,
                           n_threads = n_threads, center = center), cpp$mpi)
}
cpp_rsvd_mpi <- function(cpp, k, oversample, power_iters, seed, n_threads, center) {
  mpi_rsvd_cpp(cpp$rows, k, oversample, power_iters, seed, n_threads, center, cpp$mpi)
}
