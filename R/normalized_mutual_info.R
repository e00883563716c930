#' Normalized mutual information of two partitions
#'
#' Mutual information divided by the arithmetic mean of the two entropies
#' (the default normalisation of scikit-learn): 1 for identical partitions,
#' 0 for independent ones.
#'
#' @param cluster,truth Two partitions of the same observations.
#' @return A number in `[0, 1]`.
#' @references Strehl, A. and Ghosh, J. (2002). Cluster ensembles: a knowledge
#'   reuse framework for combining multiple partitions. *JMLR* 3, 583--617.
#' @examples
#' normalized_mutual_info(c(1, 1, 2, 2), c("b", "b", "a", "a"))
#' @export
normalized_mutual_info <- function(cluster, truth) {
  pair <- check_label_pair(cluster, truth)
  n <- pair$n
  p <- pair$count / n
  pa <- tabulate(pair$a) / n
  pb <- tabulate(pair$b) / n
  entropy <- function(q) -sum(q[q > 0] * log(q[q > 0]))
  mi <- sum(p * log(p / (pa[pair$cell_a] * pb[pair$cell_b])))
  h <- (entropy(pa) + entropy(pb)) / 2
  if (h == 0) return(1)  # both partitions have a single cluster
  max(0, min(1, mi / h))
}
