# S3 methods of "kmeans_reduced" (and its summary).

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
  check_reduced_fit(x, "x", fields = TRUE)
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
  check_reduced_fit(object, "object", fields = TRUE)
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
#' @param newdata Rows to assign: a numeric matrix, data frame, sparse
#'   `Matrix` or `bigmemory::big.matrix` (read in blocks) with the columns of
#'   the data used in the fit (matched by name when both have column names).
#' @param n_threads Number of threads, or `NULL` for [kmreduce_threads()].
#' @param type `"cluster"` (the default): the cluster of each row.
#'   `"distances"`: the squared Euclidean distances of each row to the `k`
#'   centres in the space where rows are assigned (the reduced space, or the
#'   original space after `refine`), as scikit-learn's `transform()` (which
#'   gives them unsquared); the cluster is the column of the smallest.
#' @param ... Ignored.
#' @return For `type = "cluster"`, an integer vector of clusters, one per row
#'   of `newdata`; for `"distances"`, a `nrow(newdata) x k` matrix.
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x[1:2000, ], k = 10, dims = 40, n_init = 2, seed = 1)
#' table(predict(fit, x[2001:3000, ]))
#' d2 <- predict(fit, x[2001:2005, ], type = "distances")  # 5 x 10
#' max.col(-d2) == predict(fit, x[2001:2005, ])
#' @export
predict.kmeans_reduced <- function(object, newdata, n_threads = NULL,
                                   type = c("cluster", "distances"), ...) {
  if (!is.character(type) || length(type) < 1L || anyNA(type)) {
    stop_arg(sprintf("`type` must be \"cluster\" or \"distances\", not %s.", describe(type)))
  }
  type <- check_choice(type[1L], "type", c("cluster", "distances"))
  if (missing(newdata)) {
    if (type == "cluster") return(object$cluster)
    stop_arg("`newdata` must be given for type = \"distances\" (the fit keeps no rows).")
  }
  check_reduced_fit(object, "object")
  n_threads <- check_n_threads(n_threads)
  k <- if (is.null(object$assignment_centers)) nrow(object$reduced_centers) else
    nrow(object$assignment_centers)
  if (is_big(newdata)) {
    # Out of core: block by block.
    if (ncol(newdata) != object$reducer$n_features) {
      stop_arg(sprintf("`newdata` must have %d columns (as the data the model was fitted to), not %d.",
                       object$reducer$n_features, ncol(newdata)))
    }
    out <- if (type == "cluster") integer(nrow(newdata)) else matrix(0, nrow(newdata), k)
    for_row_blocks(newdata, block_rows_for(newdata), function(block, rows) {
      p <- predict.kmeans_reduced(object, block, n_threads, type = type)
      if (type == "cluster") out[rows] <<- p else out[rows, ] <<- p
    })
    if (type == "distances") colnames(out) <- seq_len(k)
    return(out)
  }
  newdata <- check_newdata(newdata, object$reducer, "newdata")
  # Labels, norms and distances: a few numbers per row (k per row for the
  # distances).
  check_memory(8 * as.numeric(nrow(newdata)) * (3 + if (type == "distances") k else 0),
               sprintf("Assigning the %s rows of `newdata`", format(nrow(newdata))),
               "Predict blocks of rows in turn.")
  # The distances shift the rows as the fit did (dense rows; see fit_reducer()).
  dense <- is.matrix(newdata)
  if (is.null(object$assignment_centers)) {
    rows <- apply_reducer(object$reducer, newdata, n_threads)
    centers <- unname(object$reduced_centers)
    shift <- if (object$reducer$method == "none" && dense) object$reducer$shift
  } else {
    rows <- newdata
    centers <- unname(object$assignment_centers)
    shift <- if (dense) object$assignment_shift
  }
  if (type == "distances") {
    out <- centre_distances_cpp(rows, centers, n_threads, shift)
    dimnames(out) <- list(rownames(newdata), seq_len(k))
    return(out)
  }
  cl <- predict_nearest_cpp(rows, centers, n_threads, shift)
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
  check_reduced_fit(object, "object", fields = TRUE)
  method <- match.arg(method)
  if (method == "centers") object$centers[object$cluster, , drop = FALSE]
  else object$cluster
}

#' Plot a kmeans_reduced fit
#'
#' `which = "clusters"` (the default) draws the rows in the first two
#' principal axes of the reduced data, coloured by cluster, with the cluster
#' centres marked. `which = "scores"`, for the feature-selection methods
#' (`"leverage"`, `"cssp"`), draws the score of every feature (leverage
#' score, or the sampling probability of CSSP) with the selected features
#' highlighted and the highest-scoring of them labelled by name, as Figure 1
#' of Boutsidis, Mahoney and Drineas (2009). Base graphics; see
#' [autoplot.kmeans_reduced()] for ggplot2.
#'
#' @param x A `kmeans_reduced` object.
#' @param data Optional data (with the columns used in the fit) to map and
#'   draw instead of the stored reduced data; needed when the fit keeps no
#'   reduced data (method `"none"` or `control$keep_reduced = FALSE`).
#' @param which `"clusters"` or `"scores"`.
#' @param col Colours, one per cluster.
#' @param pch,cex Point symbol and size.
#' @param main Title.
#' @param n_labels Number of selected features labelled (`which = "scores"`).
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @references Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009).
#'   Unsupervised feature selection for the k-means clustering problem.
#'   *Advances in Neural Information Processing Systems* 22.
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, method = "leverage", dims = 60, seed = 1)
#' plot(fit)
#' plot(fit, which = "scores")
#' @export
plot.kmeans_reduced <- function(x, data = NULL, which = c("clusters", "scores"),
                                col = NULL, pch = 20, cex = 0.6, main = NULL,
                                n_labels = 10L, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  if (missing(which)) which <- "clusters"
  which <- check_choice(which, "which", c("clusters", "scores"))
  if (which == "scores") {
    feature_scores_plot(x, check_whole(n_labels, "n_labels", 0), main, ...)
    return(invisible(x))
  }
  k <- length(x$size)
  sc <- cluster_scores(x, data)
  if (is.null(col)) col <- grDevices::hcl.colors(k, "Dark 3")
  if (is.null(main)) main <- sprintf("kmeans_reduced: %d clusters, %s, %d dims",
                                     k, x$method, x$dims)
  p <- sc$points
  graphics::plot(p$PC1, p$PC2, col = col[p$cluster], pch = pch, cex = cex,
                 xlab = sc$labels[1L], ylab = sc$labels[2L], main = main, ...)
  graphics::points(sc$centres$PC1, sc$centres$PC2, pch = 21, bg = col[seq_len(k)],
                   col = "black", cex = 2.2, lwd = 2)
  graphics::text(sc$centres$PC1, sc$centres$PC2, labels = seq_len(k), cex = 0.7,
                 col = "white", font = 2)
  invisible(x)
}

# Rows and centres in the first two principal axes of the reduced data.
cluster_scores <- function(x, data) {
  k <- length(x$size)
  if (!is.null(data)) {
    check_reduced_fit(x, "x")
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
  list(points = data.frame(PC1 = scores[, 1L], PC2 = scores[, 2L],
                           cluster = factor(cluster, levels = seq_len(k))),
       centres = data.frame(PC1 = cscores[, 1L], PC2 = cscores[, 2L],
                            cluster = factor(seq_len(k))),
       labels = labs)
}

# The feature scores of a selection fit, as a data frame (also for autoplot).
feature_scores <- function(x) {
  r <- x$reducer
  if (is.null(r$scores)) {
    stop_arg(sprintf(paste0("`which = \"scores\"` needs a feature-selection fit ",
                            "(method \"leverage\" or \"cssp\"); this fit used method \"%s\"."),
                     x$method))
  }
  s <- as.numeric(r$scores)
  name <- names(r$scores)
  if (is.null(name)) name <- as.character(seq_along(s))
  data.frame(index = seq_along(s), name = name, score = s,
             selected = seq_along(s) %in% r$features$index, stringsAsFactors = FALSE)
}

score_label <- function(method) {
  if (method == "cssp") "sampling probability (CSSP)" else "leverage score"
}

feature_scores_plot <- function(x, n_labels, main, ...) {
  fs <- feature_scores(x)
  if (is.null(main)) main <- sprintf("%s: %d features selected of %d",
                                     method_label(x$method), sum(fs$selected), nrow(fs))
  graphics::plot(fs$index, fs$score, type = "h", col = "grey65", xlab = "feature",
                 ylab = score_label(x$method), main = main, ...)
  sel <- fs[fs$selected, , drop = FALSE]
  graphics::points(sel$index, sel$score, pch = 20, col = "firebrick", cex = 0.8)
  top <- utils::head(sel[order(-sel$score), , drop = FALSE], n_labels)
  if (nrow(top) > 0L) {
    graphics::text(top$index, top$score, labels = top$name, pos = 3, cex = 0.7,
                   col = "firebrick", xpd = NA)
  }
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
#' @param n_threads Number of threads, or `NULL` for [kmreduce_threads()].
#' @param ... Ignored.
#' @return The reduced rows, a `nrow(newdata) x dims` matrix.
#' @export
predict.kmreduce_reducer <- function(object, newdata, n_threads = NULL, ...) {
  if (missing(newdata)) return(object$reduced)
  check_reducer(object, "object")
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

# ---- tidiers (generics) -----------------------------------------------------

#' Tidy a kmeans_reduced fit
#'
#' The tidiers of broom's `kmeans` methods, for `kmeans_reduced` fits (they
#' are generics of the `generics` package, so they work with and without
#' broom loaded). Data frames are returned (broom returns tibbles; convert
#' with `tibble::as_tibble()` if wanted).
#'
#' * `tidy()`: one row per cluster with the original-space centre (one
#'   column per feature), `size`, `withinss` and `cluster`.
#' * `glance()`: one row with `totss`, `tot.withinss`, `betweenss`, `iter`,
#'   and kmreduce's `method`, `dims` and `normalized_objective`.
#' * `augment()`: the data (or `newdata`) with a `.cluster` factor column.
#'
#' @param x A `kmeans_reduced` object.
#' @param col.names Names of the centre columns in `tidy()`.
#' @param data The data of the fit, for `augment()`.
#' @param newdata New rows for `augment()`, assigned with [predict()].
#' @param ... Ignored.
#' @return A data frame.
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, dims = 40, seed = 1)
#' glance(fit)
#' tidy(fit)[, c("size", "withinss", "cluster")]
#' head(augment(fit, fashion_mnist$x)$.cluster)
#' @name tidiers
NULL

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

#' @rdname tidiers
#' @method tidy kmeans_reduced
#' @export
tidy.kmeans_reduced <- function(x, col.names = colnames(x$centers), ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  centres <- as.data.frame(x$centers)
  if (is.null(col.names)) col.names <- paste0("x", seq_len(ncol(centres)))
  if (length(col.names) != ncol(centres)) {
    stop_arg(sprintf("`col.names` must have %d names (one per column of the centres), not %s.",
                     ncol(centres), describe(col.names)))
  }
  names(centres) <- col.names
  out <- cbind(centres, size = as.integer(x$size), withinss = x$withinss,
               cluster = factor(seq_along(x$size)))
  rownames(out) <- NULL
  out
}

#' @rdname tidiers
#' @method glance kmeans_reduced
#' @export
glance.kmeans_reduced <- function(x, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  data.frame(totss = x$totss, tot.withinss = x$tot.withinss,
             betweenss = x$betweenss, iter = as.integer(x$iter),
             method = x$method, dims = as.integer(x$dims),
             normalized_objective = x$tot.withinss / x$sumsq,
             stringsAsFactors = FALSE)
}

#' @rdname tidiers
#' @method augment kmeans_reduced
#' @export
augment.kmeans_reduced <- function(x, data = NULL, newdata = NULL, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  if (!is.null(newdata)) {
    cluster <- predict(x, newdata)
    data <- newdata
  } else {
    if (is.null(data)) {
      stop_arg("`data` must be given: augment(fit, data = x) adds the clusters to the data of the fit.")
    }
    if (NROW(data) != length(x$cluster)) {
      stop_arg(sprintf("`data` must have the %d rows of the fit, not %d.",
                       length(x$cluster), NROW(data)))
    }
    cluster <- x$cluster
  }
  if (methods::is(data, "Matrix")) data <- as.matrix(data)
  out <- as.data.frame(data, stringsAsFactors = FALSE)
  out$.cluster <- factor(cluster, levels = seq_along(x$size))
  out
}

# ---- ggplot2 (Suggests) -----------------------------------------------------

#' ggplot2 plots of a kmeans_reduced fit
#'
#' The two plots of [plot.kmeans_reduced()] as `ggplot` objects: the
#' clusters in the first two principal axes of the reduced data, or the
#' feature scores of a selection method with the selected features labelled.
#' Needs ggplot2 (a suggested package); the method is registered when
#' ggplot2 is loaded.
#'
#' @param object A `kmeans_reduced` object.
#' @inheritParams plot.kmeans_reduced
#' @param ... Ignored.
#' @return A `ggplot` object.
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' library(ggplot2)
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, method = "leverage", dims = 60, seed = 1)
#' autoplot(fit)
#' autoplot(fit, which = "scores")
#' @exportS3Method ggplot2::autoplot
autoplot.kmeans_reduced <- function(object, which = c("clusters", "scores"),
                                    data = NULL, n_labels = 10L, ...) {
  check_reduced_fit(object, "object", fields = TRUE)
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    stop_arg("autoplot() needs the ggplot2 package: install.packages(\"ggplot2\").")
  }
  if (missing(which)) which <- "clusters"
  which <- check_choice(which, "which", c("clusters", "scores"))
  n_labels <- check_whole(n_labels, "n_labels", 0)
  if (which == "scores") {
    fs <- feature_scores(object)
    top <- utils::head(fs[fs$selected, , drop = FALSE][order(-fs$score[fs$selected]), ,
                                                       drop = FALSE], n_labels)
    return(ggplot2::ggplot(fs, ggplot2::aes(x = .data$index, y = .data$score)) +
      ggplot2::geom_segment(ggplot2::aes(xend = .data$index, yend = 0), colour = "grey65") +
      ggplot2::geom_point(data = fs[fs$selected, , drop = FALSE], colour = "firebrick") +
      ggplot2::geom_text(data = top, ggplot2::aes(label = .data$name), vjust = -0.6,
                         size = 3, colour = "firebrick") +
      ggplot2::labs(x = "feature", y = score_label(object$method),
                    title = sprintf("%s: %d features selected of %d",
                                    method_label(object$method), sum(fs$selected),
                                    nrow(fs))) +
      ggplot2::theme_minimal())
  }
  sc <- cluster_scores(object, data)
  ggplot2::ggplot(sc$points, ggplot2::aes(x = .data$PC1, y = .data$PC2,
                                          colour = .data$cluster)) +
    ggplot2::geom_point(size = 0.8, alpha = 0.7) +
    ggplot2::geom_label(data = sc$centres, ggplot2::aes(label = .data$cluster),
                        fontface = "bold", show.legend = FALSE) +
    ggplot2::labs(x = sc$labels[1L], y = sc$labels[2L], colour = "cluster",
                  title = sprintf("kmeans_reduced: %d clusters, %s, %d dims",
                                  length(object$size), object$method, object$dims)) +
    ggplot2::theme_minimal()
}
