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
  tab <- table(pair$a, pair$b)
  m <- matrix(0, max(dim(tab)), max(dim(tab)))
  m[seq_len(nrow(tab)), seq_len(ncol(tab))] <- tab
  match <- clue::solve_LSAP(m, maximum = TRUE)
  sum(m[cbind(seq_len(nrow(m)), as.integer(match))]) / length(pair$a)
}
