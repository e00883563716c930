# S3 methods of "kmreduce_reducer" (reduce_dims() and every fit's reducer).

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
