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
  cat(sprintf("%s on reduced data: %d clusters of sizes %s\n",
              if (identical(x$algorithm, "minibatch")) "Mini-batch k-means" else "k-means", k,
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
#'   (`tot.withinss / ||A||_F^2`, as reported in the papers: the objective
#'   over the sum of squares of the data themselves, about zero rather than
#'   about their mean, so it is not `1 - between_total` unless the columns
#'   have mean zero), `between_total` (`betweenss / totss`), `iter`, `ifault`, `seed`, `timing` and, for
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
  structure(c(list(
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
    dims_auto = object$dims_auto),
    # (mini-batch k-means: its name; iter counts its batches)
    if (identical(object$algorithm, "minibatch")) list(algorithm = "minibatch")
  ), class = "summary.kmeans_reduced")
}

#' @rdname summary.kmeans_reduced
#' @export
print.summary.kmeans_reduced <- function(x, ...) {
  minibatch <- identical(x$algorithm, "minibatch")
  cat(sprintf("%s on reduced data (kmreduce)\n", if (minibatch) "Mini-batch k-means" else "k-means"))
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
  # (the papers' normalization: over the sum of squares of the data about
  # zero, not about their mean; so not 1 - between/total)
  cat(sprintf("  normalized:  %.6f (objective / ||A||_F^2, the sum of squares of the uncentred data, as in the papers)\n",
              x$normalized_objective))
  cat(sprintf("  between/total: %.4f\n", x$between_total))
  if (minibatch) {
    cat(sprintf("  mini-batch:  %d batches%s\n", x$iter,
                if (x$ifault == 2L) " (stopped by iter_max)" else ""))
  } else {
    cat(sprintf("  Lloyd:       %d iterations%s\n", x$iter,
                if (x$ifault == 2L) " (did not converge)" else ""))
  }
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
#'   `Matrix`, `bigmemory::big.matrix` or `DelayedMatrix` (read in blocks)
#'   with the columns of the data used in the fit, matched by name when both
#'   have column names (in any order; columns the fit did not have are left
#'   out), else by position. Such rows are taken as the values the fit
#'   clustered (normalized already, for a fit of normalized counts). Or new
#'   cells: a `SummarizedExperiment` (cells as columns), or, for a fit of
#'   cells from an assay, `t()` of a `TENxMatrix`, whose cells are assigned
#'   from the assay (or reduced dimension) the fit used, with its genes
#'   matched by name and its counts normalized as the fit normalized its
#'   cells: each cell by its own library size (or size factor) and the scale
#'   the fit recorded, so that a cell gets the same cluster and distances
#'   alone as in any batch (see [kmeans_reduced.SummarizedExperiment()]).
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
  hold_sources()  # (memory sources take outside R's heap: freed on return)
  on.exit(leave_sources(), add = TRUE)
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
  use_reading_threads(n_threads)  # (a 10x file's chunks decompressed on them)
  k <- if (is.null(object$assignment_centers)) nrow(object$reduced_centers) else
    nrow(object$assignment_centers)
  # (cells, a SummarizedExperiment's or a 10x file's: the fit's assay, its
  # genes by name, normalized as the fit normalized its cells)
  prepare <- NULL
  if (is_new_cells(newdata, object$input)) {
    cells <- new_cells(newdata, object)
    newdata <- cells$rows
    prepare <- cells$prepare
  }
  # (rows not in memory: block by block, source_predict())
  source_predict(as_row_source(newdata), object, n_threads, type, k, function(rows, first = 1L) {
    if (!is.null(prepare)) rows <- prepare(rows, first)
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
