# S3 methods of "kmeans_reduced" (and its summary).

method_label <- function(method) {
  switch(method,
    none = "none (original features)",
    sign = "random sign projection",
    gaussian = "Gaussian random projection",
    achlioptas = "Achlioptas sparse random projection",
    srht = "subsampled randomized Hadamard transform",
    sparse_embedding = "sparse embedding (CountSketch)",
    leverage = "leverage-score feature selection",
    cssp = "two-stage column subset selection",
    svd = "SVD extraction (exact)",
    rsvd = "SVD extraction (randomized)",
    method)
}

#' Print a kmeans_reduced fit
#'
#' Prints the method, the cluster sizes, the share of the total sum of
#' squares between clusters and the first columns of the centres. The full
#' centres are in `x$centers`.
#'
#' @param x A `kmeans_reduced` object.
#' @param max_cols Number of centre columns shown.
#' @param ... Ignored.
#' @return `x`, invisibly.
#' @export
print.kmeans_reduced <- function(x, max_cols = 6L, ...) {
  k <- length(x$size)
  d <- ncol(x$centers)
  cat(sprintf("k-means on reduced data: %d clusters of sizes %s\n", k,
              paste(x$size, collapse = ", ")))
  cat(sprintf("Reduction: %s, %d -> %d dimensions\n", method_label(x$method),
              d, x$dims))
  cat(sprintf("Within cluster sum of squares by cluster:\n"))
  print(x$withinss)
  if (x$totss > 0) {
    cat(sprintf(" (between_SS / total_SS = %5.1f %%)\n\n", 100 * x$betweenss / x$totss))
  } else {
    cat(" (total_SS = 0: all rows are equal)\n\n")
  }
  shown <- min(d, max_cols)
  cat(sprintf("Cluster means (original space%s):\n",
              if (shown < d) sprintf(", first %d of %d columns", shown, d) else ""))
  print(x$centers[, seq_len(shown), drop = FALSE], digits = 4)
  cat("\nAvailable components:\n")
  print(names(x))
  invisible(x)
}

#' Summarise a kmeans_reduced fit
#'
#' @param object A `kmeans_reduced` object.
#' @param x For `print()`: a `summary.kmeans_reduced` object. For
#'   `summary()`: optionally the data of the fit; when given, the
#'   summary includes the optimality certificate of [optimality_bound()]
#'   (costs one Gram matrix or a few passes over `x`).
#' @param ... Ignored, or for `summary()` passed to [optimality_bound()].
#' @return An object of class `summary.kmeans_reduced`: a list with `method`,
#'   `dims`, `n_features`, `k`, `size`, `tot.withinss`, `normalized_objective`
#'   (`tot.withinss / ||A||_F^2`, as reported in the papers), `between_total`
#'   (`betweenss / totss`), `iter`, `ifault`, `seed`, `timing` and, for
#'   feature selection, `features` (selected features with the number of
#'   times each was drawn and its scale factor) and, when `x` is given,
#'   `bound` (a `kmreduce_bound`).
#' @export
summary.kmeans_reduced <- function(object, x = NULL, ...) {
  bound <- if (!is.null(x)) optimality_bound(object, x, ...) else NULL
  features <- NULL
  if (!is.null(object$reducer$features)) {
    f <- object$reducer$features
    counts <- table(factor(f$index, levels = unique(f$index)))
    first <- match(as.integer(names(counts)), f$index)
    features <- data.frame(name = f$name[first], index = f$index[first],
                           times = as.integer(counts), scale = f$scale[first],
                           stringsAsFactors = FALSE)
    features <- features[order(-features$times, features$index), , drop = FALSE]
    rownames(features) <- NULL
  }
  structure(list(
    method = object$method,
    dims = object$dims,
    n_features = ncol(object$centers),
    n = length(object$cluster),
    k = length(object$size),
    size = object$size,
    tot.withinss = object$tot.withinss,
    normalized_objective = object$tot.withinss / object$sumsq,
    between_total = object$betweenss / object$totss,
    iter = object$iter,
    ifault = object$ifault,
    seed = object$seed,
    timing = object$timing,
    features = features,
    bound = bound
  ), class = "summary.kmeans_reduced")
}

#' @rdname summary.kmeans_reduced
#' @export
print.summary.kmeans_reduced <- function(x, ...) {
  cat(sprintf("k-means on reduced data (kmreduce)\n"))
  cat(sprintf("  data:        %d rows x %d features\n", x$n, x$n_features))
  cat(sprintf("  reduction:   %s, %d dimensions (seed %s)\n",
              method_label(x$method), x$dims, format(x$seed, scientific = FALSE)))
  cat(sprintf("  clusters:    %d, sizes %s\n", x$k, paste(x$size, collapse = ", ")))
  cat(sprintf("  objective:   %s (tot.withinss on the original data)\n",
              format(x$tot.withinss, digits = 6)))
  cat(sprintf("  normalized:  %.6f (objective / ||A||_F^2)\n", x$normalized_objective))
  cat(sprintf("  between/total: %.4f\n", x$between_total))
  cat(sprintf("  Lloyd:       %d iterations%s\n", x$iter,
              if (x$ifault == 2L) " (did not converge)" else ""))
  cat(sprintf("  time (s):    reduce %.3f, cluster %.3f, total %.3f\n",
              x$timing[["reduce"]], x$timing[["cluster"]], x$timing[["total"]]))
  if (!is.null(x$bound)) {
    cat(sprintf("  optimality:  optimum >= %s, so the objective is at most %s x optimal (%s bound)\n",
                format(x$bound$lower, digits = 6), format(x$bound$ratio, digits = 4),
                x$bound$method))
  }
  if (!is.null(x$features)) {
    f <- utils::head(x$features, 10L)
    cat(sprintf("  selected features: %d distinct of %d draws; most drawn:\n",
                nrow(x$features), x$dims))
    cat(paste0("    ", format(f$name), "  x", f$times, "  scale ",
               format(f$scale, digits = 3), collapse = "\n"), "\n")
  }
  invisible(x)
}

#' Predict clusters of new rows
#'
#' Maps `newdata` with the fitted reduction (the same projection, selected
#' columns or rotation) and assigns each row to the nearest reduced centre,
#' exactly as the rows of the training data were assigned:
#' `predict(fit, x)` equals `fit$cluster`. For a fit with `refine > 0` rows
#' are assigned to the nearest original-space centre, as in the refinement.
#'
#' @param object A `kmeans_reduced` object.
#' @param newdata Rows to assign: a numeric matrix, data frame or sparse
#'   `Matrix` with the columns of the data used in the fit (matched by name
#'   when both have column names).
#' @param n_threads Number of threads.
#' @param ... Ignored.
#' @return Integer vector of clusters, one per row of `newdata`.
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x[1:2000, ], k = 10, dims = 40, n_init = 2, seed = 1)
#' table(predict(fit, x[2001:3000, ]))
#' @export
predict.kmeans_reduced <- function(object, newdata, n_threads = 1L, ...) {
  if (missing(newdata)) return(object$cluster)
  newdata <- check_newdata(newdata, object$reducer, "newdata")
  n_threads <- check_n_threads(n_threads)
  cl <- if (is.null(object$assignment_centers)) {
    reduced <- apply_reducer(object$reducer, newdata, n_threads)
    predict_nearest_cpp(reduced, unname(object$reduced_centers), n_threads)
  } else {
    predict_nearest_cpp(newdata, unname(object$assignment_centers), n_threads)
  }
  names(cl) <- rownames(newdata)
  cl
}

#' Fitted values of a kmeans_reduced fit
#'
#' As for [stats::kmeans()]: the centre (in the original space) of each row's
#' cluster, or the clusters.
#'
#' @param object A `kmeans_reduced` object.
#' @param method `"centers"` (a matrix with one row per observation) or
#'   `"classes"` (the cluster of each row).
#' @param ... Ignored.
#' @return A matrix or an integer vector.
#' @export
fitted.kmeans_reduced <- function(object, method = c("centers", "classes"), ...) {
  method <- match.arg(method)
  if (method == "centers") object$centers[object$cluster, , drop = FALSE]
  else object$cluster
}

#' Plot a kmeans_reduced fit
#'
#' Draws the rows in the first two principal axes of the reduced data,
#' coloured by cluster, with the cluster centres marked (base graphics).
#'
#' @param x A `kmeans_reduced` object.
#' @param data Optional data (with the columns used in the fit) to map and
#'   draw instead of the stored reduced data; needed when the fit keeps no
#'   reduced data (method `"none"` or `control$keep_reduced = FALSE`).
#' @param col Colours, one per cluster.
#' @param pch,cex Point symbol and size.
#' @param main Title.
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @export
plot.kmeans_reduced <- function(x, data = NULL, col = NULL, pch = 20, cex = 0.6,
                                main = NULL, ...) {
  k <- length(x$size)
  if (!is.null(data)) {
    data <- check_newdata(data, x$reducer, "data")
    reduced <- apply_reducer(x$reducer, data)
    cluster <- predict(x, data)
  } else if (!is.null(x$reduced)) {
    reduced <- x$reduced
    cluster <- x$cluster
  } else {
    stop_arg("this fit keeps no reduced data: give the data, as in plot(fit, data = x).")
  }
  reduced <- as.matrix(reduced)
  centres <- x$reduced_centers
  if (ncol(reduced) >= 2L) {
    mu <- colMeans(reduced)
    sv <- svd(sweep(reduced, 2L, mu), nu = 0L, nv = 2L)
    scores <- sweep(reduced, 2L, mu) %*% sv$v
    cscores <- sweep(centres, 2L, mu) %*% sv$v
    share <- 100 * sv$d[1:2]^2 / sum(sv$d^2)
    labs <- sprintf("PC%d of the reduced data (%.1f%%)", 1:2, share)
  } else {
    scores <- cbind(reduced[, 1L], 0)
    cscores <- cbind(centres[, 1L], 0)
    labs <- c("reduced dimension 1", "")
  }
  if (is.null(col)) col <- grDevices::hcl.colors(k, "Dark 3")
  if (is.null(main)) main <- sprintf("kmeans_reduced: %d clusters, %s, %d dims",
                                     k, x$method, x$dims)
  graphics::plot(scores[, 1L], scores[, 2L], col = col[cluster], pch = pch,
                 cex = cex, xlab = labs[1L], ylab = labs[2L], main = main, ...)
  graphics::points(cscores[, 1L], cscores[, 2L], pch = 21, bg = col[seq_len(k)],
                   col = "black", cex = 2.2, lwd = 2)
  graphics::text(cscores[, 1L], cscores[, 2L], labels = seq_len(k), cex = 0.7,
                 col = "white", font = 2)
  invisible(x)
}

#' Map new rows with a fitted reduction
#'
#' Applies the reduction fitted by [reduce_dims()] (the same random matrix,
#' selected columns and scale factors, or rotation) to new rows:
#' `predict(reducer, x)` equals `reducer$reduced`.
#'
#' @param object A `kmreduce_reducer` from [reduce_dims()].
#' @param newdata Rows with the columns of the data the reducer was fitted to
#'   (matched by name when both have column names).
#' @param n_threads Number of threads.
#' @param ... Ignored.
#' @return The reduced rows, a `nrow(newdata) x dims` matrix.
#' @export
predict.kmreduce_reducer <- function(object, newdata, n_threads = 1L, ...) {
  if (missing(newdata)) return(object$reduced)
  newdata <- check_newdata(newdata, object, "newdata")
  apply_reducer(object, newdata, check_n_threads(n_threads))
}

#' @rdname predict.kmreduce_reducer
#' @param x A `kmreduce_reducer`.
#' @export
print.kmreduce_reducer <- function(x, ...) {
  cat(sprintf("kmreduce reducer: %s, %d features -> %d dimensions (seed %s)\n",
              method_label(x$method), x$n_features, x$dims,
              format(x$seed, scientific = FALSE)))
  if (!is.null(x$features)) {
    top <- utils::head(sort(table(x$features$name), decreasing = TRUE), 10L)
    cat("Most often selected features:", paste0(names(top), " (", top, ")", collapse = ", "), "\n")
  }
  if (!is.null(x$relative_residual)) {
    cat(sprintf("Residual ||A - P_C A||_F^2 / ||A||_F^2 = %.4f\n", x$relative_residual))
  }
  invisible(x)
}
