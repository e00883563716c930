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
#' @examples
#' fit <- kmeans_reduced(fashion_mnist$x / 255, 10, dims = 50, seed = 1)
#' fit                      # print(fit)
#' print(fit, max_cols = 3)
#' @export
print.kmeans_reduced <- function(x, max_cols = 6L, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  k <- length(x$size)
  d <- ncol(x$centers)
  cat(sprintf("k-means on reduced data: %d clusters of sizes %s\n", k,
              paste(x$size, collapse = ", ")))
  cat(sprintf("Reduction: %s, %d -> %d dimensions\n", method_label(x$method),
              d, x$dims))
  if (!is.null(x$weight)) {
    cat(sprintf("Observation weights summing to %s by cluster\n",
                paste(format(x$weight, digits = 4), collapse = ", ")))
  }
  cat(sprintf("Within cluster sum of squares by cluster%s:\n",
              if (!is.null(x$weight)) " (weighted)" else ""))
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
#'   `bound` (a `kmreduce_bound`), and `dims_auto` (the steps of
#'   `dims = "auto"`, when used).
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, method = "leverage", dims = 60, seed = 1)
#' summary(fit)
#' # with the data: also the proven bound on how far from optimal the fit is
#' summary(fit, x)
#' s <- summary(fit)
#' head(s$features)   # the features the leverage scores selected
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
    bound = bound,
    dims_auto = object$dims_auto
  ), class = "summary.kmeans_reduced")
}

#' @rdname summary.kmeans_reduced
#' @export
print.summary.kmeans_reduced <- function(x, ...) {
  cat(sprintf("k-means on reduced data (kmreduce)\n"))
  cat(sprintf("  data:        %d rows x %d features\n", x$n, x$n_features))
  cat(sprintf("  reduction:   %s, %d dimensions (seed %s)\n",
              method_label(x$method), x$dims, format(x$seed, scientific = FALSE)))
  if (!is.null(x$dims_auto)) {
    cat(sprintf("  dims:        %d, chosen by dims = \"auto\" (tried %s)\n", x$dims,
                paste(x$dims_auto$dims, collapse = ", ")))
  }
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
  # (rows not in memory: block by block, source_predict())
  source_predict(as_row_source(newdata), object, n_threads, type, k, function(rows) {
    predict_rows(object, rows, n_threads, type, k)
  })
}

# predict() of rows in memory (k: the clusters).
predict_rows <- function(object, newdata, n_threads, type, k) {
  newdata <- check_newdata(newdata, object$reducer, "newdata")
  # Labels, norms and distances: a few numbers per row (k per row for the
  # distances).
  check_memory(8 * as.numeric(nrow(newdata)) * (3 + if (type == "distances") k else 0),
               sprintf("Assigning the %s rows of `newdata`", format(nrow(newdata))),
               "Predict blocks of rows in turn.")
  # The distances shift the rows as the fit did (see fit_reducer()): "none"
  # and refine on dense data ran on the rows minus a shift.
  if (is.null(object$assignment_centers)) {
    centers <- unname(object$reduced_centers)
    rows <- apply_reducer(object$reducer, newdata, n_threads)
    shift <- if (object$reducer$method == "none") object$reducer$shift
  } else {
    rows <- newdata
    centers <- unname(object$assignment_centers)
    shift <- object$assignment_shift
  }
  out <- shifted_assign(rows, centers, n_threads, shift, type)
  if (type == "distances") {
    dimnames(out) <- list(rownames(newdata), seq_len(k))
  } else {
    names(out) <- rownames(newdata)
  }
  out
}

# Nearest centres (or the squared distances to them) of the rows, minus
# `shift` as the fit computed them. Sparse rows cannot be shifted in place
# (they would become dense): with a shift they are assigned by blocks of
# rows made dense, so that a sparse copy of the training rows gets exactly
# the labels of the dense rows.
shifted_assign <- function(rows, centers, n_threads, shift, type) {
  one <- function(r) {
    if (type == "distances") centre_distances_cpp(r, centers, n_threads, shift)
    else predict_nearest_cpp(r, centers, n_threads, shift)
  }
  if (is.null(shift) || is.matrix(rows)) return(one(rows))
  n <- nrow(rows)
  out <- if (type == "distances") matrix(0, n, nrow(centers)) else integer(n)
  for_row_blocks_index(n, block_rows_for(rows), function(r) {
    block <- as.matrix(rows[r, , drop = FALSE])
    if (type == "distances") out[r, ] <<- one(block) else out[r] <<- one(block)
  })
  out
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
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, dims = 50, seed = 1)
#' head(fitted(fit, "classes"))
#' # Residuals from the cluster centres; their sum of squares is the objective
#' r <- x - fitted(fit)
#' all.equal(sum(r^2), fit$tot.withinss)
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
#' principal axes of the reduced data, coloured by cluster (or by known
#' labels, `labels`), with the cluster centres marked by their numbers and a
#' legend. `which = "centers"` draws the cluster centres in the original
#' space: as images when the features are the pixels of an image
#' (`image_dim`), otherwise as a heat map of centres by features.
#' `which = "scores"`, for the feature-selection methods (`"leverage"`,
#' `"cssp"`), draws the score of every feature (leverage score, or the
#' sampling probability of CSSP) with the selected features highlighted and
#' the highest-scoring of them labelled by name, as Figure 1 of Boutsidis,
#' Mahoney and Drineas (2009). Base graphics; see [autoplot.kmeans_reduced()]
#' for ggplot2.
#'
#' Cluster colours come from [cluster_colours()]: distinct for any `k`
#' (qualitative palettes up to 36 clusters, then hues spread by the golden
#' angle at alternating lightness), and the same in `plot()` and `autoplot()`.
#'
#' @param x A `kmeans_reduced` object.
#' @param data Optional data (with the columns used in the fit) to map and
#'   draw instead of the stored reduced data; needed when the fit keeps no
#'   reduced data (method `"none"` or `control$keep_reduced = FALSE`).
#' @param which `"clusters"`, `"centers"` or `"scores"`.
#' @param col Colours: one per cluster (or per level of `labels`) for
#'   `"clusters"`, a colour scale for `"centers"`. A factor with one value
#'   per row is taken as `labels`.
#' @param labels Optional known labels, one per row (a factor or a vector):
#'   the points are coloured by label instead of by cluster, and the legend
#'   names the labels.
#' @param legend Draw a legend (`"clusters"`; off by default above 30
#'   groups).
#' @param image_dim For `which = "centers"`: the height and width of the
#'   image whose pixels are the features, such as `c(28, 28)` for
#'   Fashion-MNIST; `NULL` draws a heat map.
#' @param byrow For `image_dim`: are the pixels stored row by row (as in
#'   MNIST and Fashion-MNIST, the default) or column by column (as an R
#'   matrix)?
#' @param pch,cex Point symbol and size.
#' @param main Title.
#' @param n_labels Number of selected features labelled (`which = "scores"`).
#' @param ... Passed to [graphics::plot()] (`"clusters"`, `"scores"`).
#' @return `x`, invisibly.
#' @references Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009).
#'   Unsupervised feature selection for the k-means clustering problem.
#'   *Advances in Neural Information Processing Systems* 22.
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, method = "leverage", dims = 60, seed = 1)
#' plot(fit)
#' plot(fit, labels = fashion_mnist$label)          # coloured by known class
#' plot(fit, which = "centers", image_dim = c(28, 28))
#' plot(fit, which = "scores")
#' @export
plot.kmeans_reduced <- function(x, data = NULL, which = c("clusters", "centers", "scores"),
                                col = NULL, labels = NULL, legend = NULL, image_dim = NULL,
                                byrow = TRUE, pch = 20, cex = 0.6, main = NULL,
                                n_labels = 10L, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  if (missing(which)) which <- "clusters"
  which <- check_choice(which, "which", c("clusters", "centers", "scores"))
  if (which == "scores") {
    feature_scores_plot(x, check_whole(n_labels, "n_labels", 0), main, ...)
    return(invisible(x))
  }
  if (which == "centers") {
    centres_plot(x, image_dim, check_flag(byrow, "byrow"), col, main)
    return(invisible(x))
  }
  k <- length(x$size)
  sc <- cluster_scores(x, data)
  p <- sc$points
  if (is.null(labels) && is.factor(col) && length(col) == nrow(p)) {
    labels <- col
    col <- NULL
  }
  group <- if (is.null(labels)) p$cluster else check_labels(labels, nrow(p), "labels")
  lev <- levels(group)
  col <- check_colours(col, length(lev), "col")
  legend <- if (is.null(legend)) length(lev) <= 30L else check_flag(legend, "legend")
  if (is.null(main)) main <- sprintf("kmeans_reduced: %d clusters, %s, %d dims",
                                     k, x$method, x$dims)
  xr <- range(p$PC1, sc$centres$PC1)
  # Room on the right for the legend, so that it covers no point.
  columns <- ceiling(length(lev) / 15)
  if (legend) xr[2L] <- xr[2L] + diff(xr) * 0.12 * columns * max(1, max(nchar(lev)) / 6)
  graphics::plot(p$PC1, p$PC2, col = col[as.integer(group)], pch = pch, cex = cex,
                 xlim = xr, xlab = sc$labels[1L], ylab = sc$labels[2L], main = main, ...)
  centre_fill <- if (is.null(labels)) col[seq_len(k)] else "white"
  graphics::points(sc$centres$PC1, sc$centres$PC2, pch = 21, bg = centre_fill,
                   col = "black", cex = 2.2, lwd = 2)
  graphics::text(sc$centres$PC1, sc$centres$PC2, labels = seq_len(k), cex = 0.7,
                 col = if (is.null(labels)) "white" else "black", font = 2)
  if (legend) {
    graphics::legend("topright", legend = lev, col = col, pch = 19, bty = "n",
                     cex = 0.8, ncol = columns,
                     title = if (is.null(labels)) "cluster" else "label")
  }
  invisible(x)
}

# The pixels v of an h x w picture as the z of image(), which puts z[i, j]
# at x = i, y = j (upwards): picture columns across, picture rows down.
upright_image <- function(v, h, w, byrow) {
  img <- matrix(v, nrow = h, ncol = w, byrow = byrow)
  t(img)[, h:1, drop = FALSE]
}

# The centres in the original space: images (image_dim) or a heat map.
centres_plot <- function(x, image_dim, byrow, col, main) {
  centres <- x$centers
  k <- nrow(centres)
  d <- ncol(centres)
  if (is.null(col)) {
    col <- if (is.null(image_dim)) grDevices::hcl.colors(64L, "viridis")
           else grDevices::gray.colors(64L, start = 1, end = 0)
  } else {
    col <- check_colours(col, length(col), "col")
  }
  if (is.null(image_dim)) {
    if (is.null(main)) main <- sprintf("Cluster centres (%d clusters x %d features)", k, d)
    graphics::image(seq_len(d), seq_len(k), t(centres), col = col, xlab = "feature",
                    ylab = "cluster", main = main, yaxt = "n")
    graphics::axis(2L, at = seq_len(k), labels = seq_len(k), las = 1L,
                   cex.axis = if (k > 20L) 0.6 else 1)
    return(invisible())
  }
  image_dim <- check_image_dim(image_dim, d)
  h <- image_dim[1L]
  w <- image_dim[2L]
  columns <- ceiling(sqrt(k * 1.5))
  rows <- ceiling(k / columns)
  old <- graphics::par(mfrow = c(rows, columns), mar = c(0.2, 0.2, 1.6, 0.2),
                       oma = c(0, 0, if (is.null(main)) 0 else 2, 0))
  on.exit(graphics::par(old))
  zr <- range(centres)
  for (j in seq_len(k)) {
    graphics::image(seq_len(w), seq_len(h), upright_image(centres[j, ], h, w, byrow),
                    col = col, zlim = zr, axes = FALSE, xlab = "", ylab = "", asp = 1)
    graphics::title(sprintf("%d (n = %d)", j, x$size[j]), cex.main = 0.9, font.main = 1)
  }
  if (!is.null(main)) graphics::mtext(main, outer = TRUE, cex = 1.1, font = 2)
  invisible()
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
    cat(sprintf("Residual ||A - P_C A||_%s^2 / ||A||_F^2 = %.4f\n",
                if (identical(x$residual_norm, "spectral")) "2" else "F", x$relative_residual))
  }
  if (identical(x$qr, "strong")) {
    cat(sprintf("Columns chosen by a strong rank-revealing QR (f = %g)\n", strong_rrqr_f()))
  }
  if (!is.null(x$density)) cat(sprintf("Density of the sparse Gaussian matrix: q = %.4g\n", x$density))
  invisible(x)
}

# ---- tidiers (generics) -----------------------------------------------------

#' Tidy a kmeans_reduced fit
#'
#' The tidiers of broom's `kmeans` methods, for `kmeans_reduced` fits (they
#' are generics of the `generics` package, so they work with and without
#' broom loaded). As in broom, they return tibbles when the tibble package is
#' installed, data frames otherwise.
#'
#' * `tidy()`: one row per cluster: `cluster`, `size`, `withinss`, then the
#'   original-space centre, one column per feature. The summary columns come
#'   first and keep their names: a feature called `cluster`, `size` or
#'   `withinss` (a word of a document-term matrix, say) is renamed by
#'   [make.unique()] (`size.1`), so `tidy(fit)$size` is always the cluster
#'   size.
#' * `glance()`: one row with `totss`, `tot.withinss`, `betweenss`, `iter`,
#'   and kmreduce's `method`, `dims` and `normalized_objective`.
#' * `augment()`: the data (or `newdata`) with a `.cluster` factor column.
#'   Sparse data (a `Matrix`, such as a `dgCMatrix` document-term matrix)
#'   stay sparse: the result is in long form, one row per non-zero entry
#'   with `.row`, `.column`, `value` and the row's `.cluster` (row and column
#'   names when the matrix has them, indices otherwise), as tidytext tidies a
#'   document-term matrix, so its size follows the non-zeros, not rows x
#'   columns.
#'
#' @param x A `kmeans_reduced` object.
#' @param col.names Names of the centre columns in `tidy()`.
#' @param data The data of the fit, for `augment()`.
#' @param newdata New rows for `augment()`, assigned with [predict()].
#' @param ... Ignored.
#' @return A tibble (a data frame without the tibble package).
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, 10, dims = 40, seed = 1)
#' glance(fit)
#' tidy(fit)[, c("cluster", "size", "withinss")]
#' head(augment(fit, fashion_mnist$x)$.cluster)
#'
#' # A sparse matrix stays sparse: one row per non-zero entry
#' s <- Matrix::rsparsematrix(200, 50, density = 0.05)
#' sfit <- kmeans_reduced(s, 3, method = "sparse_embedding", dims = 10, seed = 1)
#' head(augment(sfit, s))
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

# broom's convention: a tibble when tibble is installed.
as_tidy_frame <- function(df) {
  rownames(df) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df
}

#' @rdname tidiers
#' @method tidy kmeans_reduced
#' @export
tidy.kmeans_reduced <- function(x, col.names = colnames(x$centers), ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  k <- length(x$size)
  if (is.null(col.names)) col.names <- paste0("x", seq_len(ncol(x$centers)))
  if (!is.character(col.names) || length(col.names) != ncol(x$centers) || anyNA(col.names)) {
    stop_arg(sprintf("`col.names` must be %d names (one per column of the centres), not %s.",
                     ncol(x$centers), describe(col.names)))
  }
  summary_cols <- c("cluster", "size", "withinss")
  names <- make.unique(c(summary_cols, col.names))
  out <- data.frame(cluster = factor(seq_len(k)), size = as.integer(x$size),
                    withinss = x$withinss)
  centres <- as.data.frame(unname(x$centers))
  names(centres) <- names[-seq_along(summary_cols)]
  as_tidy_frame(cbind(out, centres))
}

#' @rdname tidiers
#' @method glance kmeans_reduced
#' @export
glance.kmeans_reduced <- function(x, ...) {
  check_reduced_fit(x, "x", fields = TRUE)
  as_tidy_frame(data.frame(totss = x$totss, tot.withinss = x$tot.withinss,
                           betweenss = x$betweenss, iter = as.integer(x$iter),
                           method = x$method, dims = as.integer(x$dims),
                           normalized_objective = x$tot.withinss / x$sumsq,
                           stringsAsFactors = FALSE))
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
  cluster <- factor(cluster, levels = seq_along(x$size))
  # (rows read in blocks: read into memory, the data frame holds them all)
  data <- rows_in_memory(as_row_source(data), if (is.null(newdata)) "data" else "newdata")
  if (methods::is(data, "Matrix")) return(augment_sparse(data, cluster))
  out <- as.data.frame(data, stringsAsFactors = FALSE)
  out$.cluster <- cluster
  as_tidy_frame(out)
}

# Long form of a Matrix: one row per stored non-zero entry with its row's
# cluster (never rows x columns).
augment_sparse <- function(data, cluster) {
  t <- methods::as(methods::as(data, "generalMatrix"), "TsparseMatrix")
  has_x <- methods::.hasSlot(t, "x")
  keep <- if (has_x) t@x != 0 else rep(TRUE, length(t@i))
  i <- t@i[keep] + 1L
  j <- t@j[keep] + 1L
  o <- order(i, j)
  i <- i[o]
  j <- j[o]
  rn <- rownames(data)
  cn <- colnames(data)
  value <- if (has_x) t@x[keep][o] else rep(TRUE, length(i))
  as_tidy_frame(data.frame(.row = if (is.null(rn)) i else rn[i],
                           .column = if (is.null(cn)) j else cn[j],
                           value = value, .cluster = cluster[i],
                           stringsAsFactors = FALSE))
}

# ---- ggplot2 (Suggests) -----------------------------------------------------

#' ggplot2 plots of a kmeans_reduced fit
#'
#' The plots of [plot.kmeans_reduced()] as `ggplot` objects: the clusters in
#' the first two principal axes of the reduced data (coloured by cluster or
#' by known `labels`), the centres as images or a heat map, or the feature
#' scores of a selection method with the selected features labelled. Needs
#' ggplot2 (a suggested package); the method is registered when ggplot2 is
#' loaded. Cluster colours are those of `plot()` ([cluster_colours()]).
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
#' autoplot(fit, labels = fashion_mnist$label)
#' autoplot(fit, which = "centers", image_dim = c(28, 28))
#' autoplot(fit, which = "scores")
#' @exportS3Method ggplot2::autoplot
autoplot.kmeans_reduced <- function(object, which = c("clusters", "centers", "scores"),
                                    data = NULL, labels = NULL, image_dim = NULL,
                                    byrow = TRUE, n_labels = 10L, ...) {
  check_reduced_fit(object, "object", fields = TRUE)
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    stop_arg("autoplot() needs the ggplot2 package: install.packages(\"ggplot2\").")
  }
  if (missing(which)) which <- "clusters"
  which <- check_choice(which, "which", c("clusters", "centers", "scores"))
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
  k <- length(object$size)
  if (which == "centers") return(centres_ggplot(object, image_dim, check_flag(byrow, "byrow")))
  sc <- cluster_scores(object, data)
  pts <- sc$points
  by_label <- !is.null(labels)
  pts$group <- if (by_label) check_labels(labels, nrow(pts), "labels") else pts$cluster
  ggplot2::ggplot(pts, ggplot2::aes(x = .data$PC1, y = .data$PC2, colour = .data$group)) +
    ggplot2::geom_point(size = 0.8, alpha = 0.7) +
    ggplot2::geom_label(data = sc$centres, ggplot2::aes(label = .data$cluster),
                        colour = "black", fontface = "bold", show.legend = FALSE) +
    ggplot2::scale_colour_manual(values = cluster_colours(nlevels(pts$group)),
                                 guide = if (nlevels(pts$group) > 30L) "none" else "legend") +
    ggplot2::labs(x = sc$labels[1L], y = sc$labels[2L],
                  colour = if (by_label) "label" else "cluster",
                  title = sprintf("kmeans_reduced: %d clusters, %s, %d dims",
                                  k, object$method, object$dims)) +
    ggplot2::theme_minimal()
}

# The centres as images (facets) or as a heat map, for autoplot().
centres_ggplot <- function(object, image_dim, byrow) {
  centres <- object$centers
  k <- nrow(centres)
  d <- ncol(centres)
  if (is.null(image_dim)) {
    df <- data.frame(cluster = factor(rep(seq_len(k), d)), feature = rep(seq_len(d), each = k),
                     value = as.vector(centres))
    return(ggplot2::ggplot(df, ggplot2::aes(x = .data$feature, y = .data$cluster,
                                            fill = .data$value)) +
      ggplot2::geom_raster() + ggplot2::scale_fill_viridis_c() +
      ggplot2::labs(title = sprintf("Cluster centres (%d clusters x %d features)", k, d)) +
      ggplot2::theme_minimal())
  }
  image_dim <- check_image_dim(image_dim, d)
  h <- image_dim[1L]
  w <- image_dim[2L]
  panel <- sprintf("%d (n = %d)", seq_len(k), object$size)
  # The same upright pictures as plot(): z[i, j] at x = i, y = j (upwards).
  df <- do.call(rbind, lapply(seq_len(k), function(j) {
    z <- upright_image(centres[j, ], h, w, byrow)
    data.frame(panel = panel[j], x = as.vector(row(z)), y = as.vector(col(z)),
               value = as.vector(z))
  }))
  df$panel <- factor(df$panel, levels = panel)
  ggplot2::ggplot(df, ggplot2::aes(x = .data$x, y = .data$y, fill = .data$value)) +
    ggplot2::geom_raster() +
    ggplot2::scale_fill_gradient(low = "white", high = "black") +
    ggplot2::facet_wrap(~panel) + ggplot2::coord_equal() +
    ggplot2::labs(title = "Cluster centres", x = NULL, y = NULL) +
    ggplot2::theme_void()
}
