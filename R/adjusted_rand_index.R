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
  choose2 <- function(v) v * (v - 1) / 2
  n <- pair$n
  if (n < 2L) return(1)  # one object: both partitions are the same
  index <- sum(choose2(pair$count))
  rows <- sum(choose2(tabulate(pair$a)))
  cols <- sum(choose2(tabulate(pair$b)))
  expected <- rows * cols / choose2(n)
  top <- (rows + cols) / 2
  if (top == expected) return(1)  # both partitions trivial (one cluster or all singletons)
  (index - expected) / (top - expected)
}
