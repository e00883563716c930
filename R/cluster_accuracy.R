#' Clustering accuracy against known classes
#'
#' The fraction of rows whose cluster is matched to their class by the best
#' one-to-one matching of clusters to classes (the Hungarian method,
#' [clue::solve_LSAP()]), as reported in the papers. With more clusters than
#' classes (or the reverse) the extra ones are matched to nothing.
#'
#' @param cluster Clusters, one per observation.
#' @param truth Known classes, same length.
#' @return A number in `[0, 1]`.
#' @examples
#' cluster_accuracy(c(1, 1, 2, 2, 3), c("a", "a", "b", "b", "b"))
#' @export
cluster_accuracy <- function(cluster, truth) {
  pair <- check_label_pair(cluster, truth)
  s <- max(pair$na, pair$nb)
  if (s > max_matching_labels()) {
    stop_arg(sprintf(paste0("`cluster` and `truth` have %d and %d distinct labels: the best ",
                            "one-to-one matching would need a %d x %d table (%.1f GB) and ",
                            "time of order %d^3. Use adjusted_rand_index() or ",
                            "normalized_mutual_info(), which handle any number of labels."),
                     pair$na, pair$nb, s, s, 8 * s^2 / 2^30, s))
  }
  m <- matrix(0, s, s)
  m[cbind(pair$cell_a, pair$cell_b)] <- pair$count
  match <- clue::solve_LSAP(m, maximum = TRUE)
  sum(m[cbind(seq_len(s), as.integer(match))]) / pair$n
}

# Largest number of labels cluster_accuracy() matches (a 2000 x 2000 table is
# 31 MB and matched in seconds).
max_matching_labels <- function() 2000L
