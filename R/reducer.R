# Reducers: what a method learns from the data (fit_reducer) and how it maps
# any rows with the same columns to the reduced space (apply_reducer). The
# reducer is stored in the fit, so predict() maps new rows exactly as the
# training rows were mapped.

new_reducer <- function(method, dims, seed, x, ...) {
  structure(list(method = method, dims = as.integer(dims), seed = seed,
                 n_features = ncol(x), feature_names = colnames(x), ...),
            class = "kmreduce_reducer")
}

fit_reducer <- function(x, method, dims, k, seed, n_threads) {
  switch(method,
    none = new_reducer("none", ncol(x), seed, x),
    sign = new_reducer("sign", dims, seed, x),
    leverage = {
      # Algorithm 1 of Boutsidis et al. (2014) with the exact top-k right
      # singular vectors (Boutsidis, Mahoney and Drineas 2009).
      k_svd <- min(k, nrow(x), ncol(x))
      sv <- top_svd_cpp(x, k_svd)
      scores <- rowSums(sv$v^2) / k_svd
      if (!(sum(scores) > 0)) {
        stop_arg("`x` has no nonzero singular value: leverage scores are undefined (all data are zero).")
      }
      index <- leverage_sample_cpp(scores, dims, seed)
      p <- scores[index] / sum(scores)
      features <- data.frame(
        index = index,
        name = if (is.null(colnames(x))) paste0("V", index) else colnames(x)[index],
        scale = 1 / sqrt(dims * p),
        stringsAsFactors = FALSE
      )
      names(scores) <- colnames(x)
      new_reducer("leverage", dims, seed, x, features = features, scores = scores,
                  singular_values = sv$d)
    },
    svd = {
      # C = A V_k, the exact SVD extraction (Drineas et al. 1999; Algorithm 3
      # of Boutsidis et al. 2014 with Z = V_k).
      sv <- top_svd_cpp(x, dims)
      rownames(sv$v) <- colnames(x)
      colnames(sv$v) <- paste0("SV", seq_len(dims))
      new_reducer("svd", dims, seed, x, rotation = sv$v, singular_values = sv$d)
    },
    stop_arg(sprintf("unknown method \"%s\".", method))
  )
}

apply_reducer <- function(reducer, x, n_threads = 1L) {
  out <- switch(reducer$method,
    none = return(x),
    sign = sign_project_cpp(x, reducer$dims, reducer$seed, n_threads),
    leverage = gather_columns_cpp(x, reducer$features$index, reducer$features$scale, n_threads),
    svd = multiply_cpp(x, reducer$rotation, n_threads)
  )
  colnames(out) <- switch(reducer$method,
    sign = paste0("S", seq_len(reducer$dims)),
    leverage = make.unique(reducer$features$name),
    svd = colnames(reducer$rotation)
  )
  rownames(out) <- rownames(x)
  out
}

#' @export
print.kmreduce_reducer <- function(x, ...) {
  cat(sprintf("kmreduce reducer: method \"%s\", %d features -> %d dimensions (seed %s)\n",
              x$method, x$n_features, x$dims, format(x$seed, scientific = FALSE)))
  if (!is.null(x$features)) {
    top <- utils::head(sort(table(x$features$name), decreasing = TRUE), 10L)
    cat("Most often selected features:", paste0(names(top), " (", top, ")", collapse = ", "), "\n")
  }
  invisible(x)
}
