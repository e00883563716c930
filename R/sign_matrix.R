#' The random sign matrix of a seed
#'
#' The `d x dims` matrix of \eqn{\pm 1/\sqrt{dims}}{+-1/sqrt(dims)} used by
#' [sign_project()] and `method = "sign"`: each sign is one bit of a
#' counter-based hash of `(seed, feature, column)`, so the matrix is defined by
#' `(seed, dims)` alone and any block of it can be generated on its own.
#' Materialised here for testing and for users; the projections never store
#' it as doubles.
#'
#' @param d Number of rows (features).
#' @param dims Number of columns.
#' @param seed `NULL` or a whole number.
#' @return A `d x dims` numeric matrix.
#' @examples
#' s <- sign_matrix(5, 3, seed = 1)
#' s * sqrt(3)
#' @export
sign_matrix <- function(d, dims, seed = NULL) {
  d <- check_whole(d, "d", 1, .Machine$integer.max)
  dims <- check_whole(dims, "dims", 1, .Machine$integer.max)
  if (as.numeric(d) * dims > 2^31 - 1) {
    stop_arg(sprintf("`d * dims` must be at most 2^31 - 1 for a dense matrix, not %.0f.",
                     as.numeric(d) * dims))
  }
  seed <- resolve_seed(seed)
  sign_matrix_cpp(d, dims, seed)
}
