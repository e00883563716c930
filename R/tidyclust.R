# kmreduce as an engine of tidyclust's k_means() (tidymodels), registered
# when tidyclust is loaded (a suggested package):
#
#   k_means(num_clusters = 10) |>
#     set_engine("kmreduce", method = "sign", dims = 50) |>
#     fit(~ ., data = df)
#
# num_clusters becomes `k`; every engine argument goes to kmeans_reduced().
# As for tidyclust's other engines, clusters are numbered in the order of
# their first row (Cluster_1 is the cluster of row 1), so that
# extract_cluster_assignment(), extract_centroids() and predict() agree.

register_tidyclust_engine <- function(...) {
  if (!requireNamespace("modelenv", quietly = TRUE)) return(invisible(FALSE))
  model <- "k_means"
  engines <- modelenv::get_from_env(paste0(model, "_fit"))
  if (!is.null(engines) && "kmreduce" %in% engines$engine) return(invisible(TRUE))
  modelenv::set_model_engine(model, "partition", "kmreduce")
  modelenv::set_dependency(model = model, mode = "partition", eng = "kmreduce",
                           pkg = "kmreduce")
  modelenv::set_fit(
    model = model, eng = "kmreduce", mode = "partition",
    value = list(interface = "matrix", data = c(x = "x"), protect = c("x", "k"),
                 func = c(pkg = "kmreduce", fun = ".k_means_fit_kmreduce"), defaults = list())
  )
  modelenv::set_encoding(
    model = model, eng = "kmreduce", mode = "partition",
    options = list(predictor_indicators = "traditional", compute_intercept = TRUE,
                   remove_intercept = TRUE, allow_sparse_x = FALSE)
  )
  modelenv::set_model_arg(
    model = model, eng = "kmreduce", exposed = "num_clusters", original = "k",
    func = list(pkg = "tidyclust", fun = "num_clusters"), has_submodel = FALSE
  )
  modelenv::set_pred(
    model = model, eng = "kmreduce", mode = "partition", type = "cluster",
    value = list(pre = NULL, post = tidyclust_clusters, func = c(fun = "predict"),
                 args = list(object = quote(object$fit), newdata = quote(new_data)))
  )
  invisible(TRUE)
}

#' Fit function of the tidyclust engine
#'
#' Called by tidyclust's `fit()` for `k_means() |> set_engine("kmreduce")`:
#' [kmeans_reduced()] with the clusters renumbered in the order of their
#' first row, tidyclust's convention.
#'
#' @param x Numeric matrix (the predictors).
#' @param k Number of clusters (`num_clusters`).
#' @param ... Engine arguments, passed to [kmeans_reduced()].
#' @return A `kmeans_reduced` object.
#' @keywords internal
#' @export
.k_means_fit_kmreduce <- function(x, k, ...) {
  relabel_by_appearance(kmeans_reduced(x, k, ...))
}

# The same fit with cluster j renamed to the rank of its first row.
relabel_by_appearance <- function(fit) {
  k <- length(fit$size)
  o <- unique(fit$cluster)
  o <- c(o, setdiff(seq_len(k), o))
  fit$cluster <- stats::setNames(order(o)[fit$cluster], names(fit$cluster))
  for (f in c("centers", "reduced_centers", "assignment_centers")) {
    if (!is.null(fit[[f]])) {
      fit[[f]] <- fit[[f]][o, , drop = FALSE]
      if (!is.null(rownames(fit[[f]]))) rownames(fit[[f]]) <- seq_len(k)
    }
  }
  fit$withinss <- fit$withinss[o]
  fit$size <- fit$size[o]
  fit
}

# Cluster numbers as tidyclust's factor of "Cluster_j" labels.
tidyclust_clusters <- function(res, object) {
  lev <- paste0("Cluster_", seq_along(object$fit$size))
  factor(lev[res], levels = lev)
}
