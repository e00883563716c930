#' k-means objective of a partition
#'
#' The sum of squared distances of the rows of `x` to the means of their
#' clusters (`tot.withinss` of [stats::kmeans()]), computed on the data given,
#' dense or sparse (a sparse `x` is never densified). With `weights`, the
#' weighted objective \eqn{\sum_i w_i \|x_i - c_{(i)}\|^2}{sum_i w_i ||x_i - c(i)||^2}
#' with weighted means \eqn{c}{c}, as [kmeans_reduced()] minimises it.
#'
#' @param x A numeric matrix, data frame, sparse `Matrix` or
#'   `bigmemory::big.matrix` (read in blocks of `block_rows` rows).
#' @param cluster Cluster of each row: integer, character or factor, one per
#'   row of `x`.
#' @param normalize If `TRUE`, divide by \eqn{\|A\|_F^2}{||A||_F^2}, the sum of
#'   squares of `x`, as the papers report it.
#' @param block_rows Rows per block for a `big.matrix` (default: about 64 MB).
#' @param weights `NULL`, or observation weights: one positive finite number
#'   per row of `x` (see [kmeans_reduced()]). With `normalize = TRUE` the
#'   weighted objective is divided by the weighted sum of squares
#'   \eqn{\sum_i w_i \|x_i\|^2}{sum_i w_i ||x_i||^2}.
#' @return A number.
#' @examples
#' x <- fashion_mnist$x[1:500, ] / 255
#' kmeans_objective(x, fashion_mnist$label[1:500], normalize = TRUE)
#' @export
kmeans_objective <- function(x, cluster, normalize = FALSE, block_rows = NULL,
                             weights = NULL) {
  hold_sources()  # (memory sources take outside R's heap: freed on return)
  on.exit(leave_sources(), add = TRUE)
  if (!is.null(block_rows)) block_rows <- check_whole(block_rows, "block_rows", 1)
  x <- check_data(x, "x", big = TRUE, block_rows = block_rows)
  cluster <- check_cluster(cluster, nrow(x), "cluster")
  if (!is.logical(normalize) || length(normalize) != 1L || is.na(normalize)) {
    stop_arg(sprintf("`normalize` must be TRUE or FALSE, not %s.", describe(normalize)))
  }
  src <- set_weights(as_row_source(x), weights, NULL)
  st <- partition_stats(src, as.integer(cluster), nlevels(cluster), 1L, block_rows)
  obj <- sum(st$withinss)
  if (normalize) obj / st$sumsq else obj
}
