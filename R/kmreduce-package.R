#' kmreduce: fast k-means on high-dimensional data
#'
#' k-means clustering for wide data: [kmeans_reduced()] first reduces the
#' number of features with a randomized method that has an approximation
#' guarantee for the k-means objective, clusters the reduced data with a fast
#' multi-threaded Lloyd algorithm (k-means++ seeding, replicates), then
#' evaluates the partition on the original data. The result is compatible with
#' [stats::kmeans()].
#'
#' @references
#' Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P. (2015).
#' Randomized dimensionality reduction for k-means clustering.
#' *IEEE Transactions on Information Theory* 61(2), 1045--1062.
#' arXiv:1110.2897.
#'
#' Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009). Unsupervised feature
#' selection for the k-means clustering problem. *Advances in Neural
#' Information Processing Systems 22*, 153--161.
#'
#' @keywords internal
#' @useDynLib kmreduce, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom methods as is
#' @importFrom Matrix Matrix
#' @importFrom stats prcomp predict
"_PACKAGE"

# Column names used inside ggplot2::aes() in autoplot().
utils::globalVariables(".data")
