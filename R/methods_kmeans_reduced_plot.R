# Plots of a kmeans_reduced fit: base graphics (plot) and ggplot2 (autoplot).

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
#' Mahoney and Drineas (2009). Base graphics; see [autoplot()][autoplot.kmeans_reduced]
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
                            "(method %s); this fit used method \"%s\"."),
                     paste0("\"", selection_methods(), "\"", collapse = " or "), x$method))
  }
  s <- as.numeric(r$scores)
  name <- names(r$scores)
  if (is.null(name)) name <- as.character(seq_along(s))
  data.frame(index = seq_along(s), name = name, score = s,
             selected = seq_along(s) %in% r$features$index, stringsAsFactors = FALSE)
}

# The name of a selection's feature scores (its registry entry's).
score_label <- function(method) {
  label <- method_info(method)$score_label
  if (is.null(label)) "feature score" else label
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
#' @usage
#' \method{autoplot}{kmeans_reduced}(object, which = c("clusters", "centers", "scores"),
#'   data = NULL, labels = NULL, image_dim = NULL, byrow = TRUE, n_labels = 10L, ...)
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
