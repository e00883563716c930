#' Adjusted Rand index of two partitions
#'
#' The Rand index corrected for chance (Hubert and Arabie 1985): 1 for
#' identical partitions (up to relabelling), about 0 for independent ones.
#'
#' @param cluster,truth Two partitions of the same observations (vectors of
#'   labels of equal length).
#' @return A number, at most 1.
#' @references Hubert, L. and Arabie, P. (1985). Comparing partitions.
#'   *Journal of Classification* 2, 193--218.
#' @examples
#' adjusted_rand_index(c(1, 1, 2, 2), c("b", "b", "a", "a"))
#' @export
adjusted_rand_index <- function(cluster, truth) {
  pair <- check_label_pair(cluster, truth)
  tab <- table(pair$a, pair$b)
  choose2 <- function(v) v * (v - 1) / 2
  n <- length(pair$a)
  index <- sum(choose2(tab))
  rows <- sum(choose2(rowSums(tab)))
  cols <- sum(choose2(colSums(tab)))
  expected <- rows * cols / choose2(n)
  top <- (rows + cols) / 2
  if (top == expected) return(1)  # both partitions trivial (one cluster or all singletons)
  (index - expected) / (top - expected)
}
