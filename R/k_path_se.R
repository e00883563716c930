#' Choose the number of cell types: k_path() of the cells of a SingleCellExperiment
#'
#' The methods of [k_path()] for Bioconductor's `SummarizedExperiment` and
#' `SingleCellExperiment`, and for `t()` of a `TENxMatrix` (the cells of a
#' 10x file as rows): the cells are read, normalized and reduced exactly as
#' [kmeans_reduced.SummarizedExperiment()] reads, normalizes and reduces
#' them (the same assay, normalization of counts and principal components
#' of a sample of cells, with the same arguments), once, and the path runs
#' on the reduced cells. So `path$fits[[k]]` is `kmeans_reduced(x, k, seed =
#' path$seed)` with the same other arguments, and `path$fits[[k]]$cluster`
#' goes straight into `colData(x)`. On many cells the path runs on a sample
#' of the reduced cells and only the chosen `k` is fitted to every cell (see
#' `path_rows` in [k_path()]).
#'
#' The optimality certificate is not computed by default here (`bound =
#' FALSE`): its spectrum is that of every cell and gene.
#'
#' @param x A `SummarizedExperiment` or `SingleCellExperiment` (features as
#'   rows, the cells as columns), or (the `DelayedMatrix` method) `t()` of a
#'   `TENxMatrix`; any other `DelayedMatrix` is taken by rows, as it is, by
#'   the default method.
#' @param k The numbers of clusters to compare (see [k_path()]).
#' @param ... Arguments of [k_path()]: `method`, `dims`, `B`, `seed`,
#'   `n_threads`, `control`, ...
#' @param bound Compute the optimality certificate (see [k_path()]); it
#'   needs the cells in memory.
#' @inheritParams kmeans_reduced.SummarizedExperiment
#' @return A `kmreduce_kpath` object (see [k_path()]); its `input` and each
#'   fit's record the assay, reduced dimension and normalization, as
#'   [kmeans_reduced.SummarizedExperiment()]'s fit does, so that
#'   [predict()] takes new cells.
#' @seealso [k_path()], [kmeans_reduced.SummarizedExperiment()].
#' @examples
#' if (requireNamespace("SummarizedExperiment", quietly = TRUE)) {
#'   set.seed(1)
#'   mu <- matrix(2, 100, 60)  # 3 types of 20 cells, each with genes of its own
#'   mu[1:20, 1:20] <- mu[21:40, 21:40] <- mu[41:60, 41:60] <- 12
#'   counts <- matrix(rpois(100 * 60, mu), 100, 60)
#'   se <- SummarizedExperiment::SummarizedExperiment(list(counts = counts))
#'   path <- k_path(se, k = 1:5, B = 5, seed = 1, n_threads = 1)
#'   path$chosen
#' }
#' @export
k_path.SummarizedExperiment <- function(x, k = 1:10, ..., bound = FALSE, assay = NULL,
                                        use_reduced_dim = NULL, normalize = NULL) {
  path <- cluster_cells(x, k, ..., bound = bound, assay = assay,
                        use_reduced_dim = use_reduced_dim, normalize = normalize,
                        fun = k_path.default, record = record_path_input, caller = "k_path()")
  path_calls(path, match.call())
}

#' @rdname k_path.SummarizedExperiment
#' @export
k_path.DelayedMatrix <- function(x, k = 1:10, ..., bound = NULL, normalize = NULL) {
  cells <- delayed_cells(x, normalize)
  if (is.null(cells)) {
    # (any other DelayedMatrix: its rows, as they are)
    return(path_calls(k_path.default(x, k, ..., bound = bound), match.call()))
  }
  path <- cluster_cells(cells$se, k, ..., bound = if (is.null(bound)) FALSE else bound,
                        normalize = normalize, subject = cells$subject,
                        fun = k_path.default, record = record_path_input, caller = "k_path()")
  path_calls(path, match.call())
}

# The record of the cells clustered (cluster_cells()): in the path and in
# each of its fits, for predict().
record_path_input <- function(path, input) {
  path$input <- input
  path$fits <- lapply(path$fits, function(f) if (!is.null(f)) record_input(f, input))
  if (!is.null(path$fit)) path$fit <- record_input(path$fit, input)
  path
}

# Each fit's call made that of kmeans_reduced() on the object given to
# k_path() (`call`, the method's call), not on the rows it made of it.
path_calls <- function(path, call) {
  named <- function(f) {
    if (!is.null(f) && !is.null(f$call)) f$call$x <- call$x
    f
  }
  path$fits <- lapply(path$fits, named)
  if (!is.null(path$fit)) path$fit <- named(path$fit)
  path
}
