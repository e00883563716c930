# Checks of labels, partitions and plot arguments (colours, image sizes).

# Labels of a partition of n rows, as a factor without unused levels.
check_cluster <- function(cluster, n, arg = "cluster") {
  if (!(is.numeric(cluster) || is.character(cluster) || is.factor(cluster)) ||
      length(cluster) != n || anyNA(cluster)) {
    stop_arg(sprintf("`%s` must be a vector of %d labels without NA (one per row), not %s.",
                     arg, n, describe(cluster)))
  }
  factor(cluster, levels = unique(cluster))
}

# Two partitions of the same observations.
check_label_pair <- function(a, b) {
  if (!(is.numeric(a) || is.character(a) || is.factor(a)) || length(a) == 0L || anyNA(a)) {
    stop_arg(sprintf("`cluster` must be a non-empty vector of labels without NA, not %s.", describe(a)))
  }
  if (length(b) != length(a)) {
    stop_arg(sprintf("`truth` must have the length of `cluster` (%d), not %d.", length(a), length(b)))
  }
  if (!(is.numeric(b) || is.character(b) || is.factor(b)) || anyNA(b)) {
    stop_arg(sprintf("`truth` must be a vector of labels without NA, not %s.", describe(b)))
  }
  # Integer codes by exact value (a factor would merge labels that print
  # alike, such as 1 and 1 + 2^-52).
  if (is.factor(a)) a <- as.character(a)
  if (is.factor(b)) b <- as.character(b)
  ia <- match(a, unique(a))
  ib <- match(b, unique(b))
  # The nonzero cells of the contingency table, never the dense table.
  o <- order(ia, ib)
  sa <- ia[o]
  sb <- ib[o]
  n <- length(sa)
  new <- c(TRUE, sa[-1L] != sa[-n] | sb[-1L] != sb[-n])
  list(a = ia, b = ib, n = n, na = max(ia), nb = max(ib),
       cell_a = sa[new], cell_b = sb[new], count = tabulate(cumsum(new)))
}

# Known labels for colouring, as a factor (unused levels dropped).
check_labels <- function(labels, n, arg) {
  if (!is.atomic(labels) || length(labels) != n || anyNA(labels)) {
    stop_arg(sprintf("`%s` must be %d labels (one per row, no NA), not %s.", arg, n,
                     describe(labels)))
  }
  droplevels(as.factor(labels))
}

# Colours for n groups: the default palette, or the user's (recycled).
check_colours <- function(col, n, arg) {
  if (is.null(col)) return(cluster_colours(n))
  ok <- (is.character(col) || is.numeric(col)) && length(col) > 0L && !anyNA(col) &&
    !inherits(try(grDevices::col2rgb(col), silent = TRUE), "try-error")
  if (!ok) {
    stop_arg(sprintf("`%s` must be colours (names, \"#RRGGBB\" or palette numbers), not %s.",
                     arg, describe(col)))
  }
  rep_len(col, n)
}

# Height and width of the images whose pixels are the d features.
check_image_dim <- function(image_dim, d) {
  if (!is.numeric(image_dim) || length(image_dim) != 2L || anyNA(image_dim) ||
      any(image_dim < 1) || any(image_dim != round(image_dim)) || prod(image_dim) != d) {
    stop_arg(sprintf(paste0("`image_dim` must be the height and width of the images, two whole ",
                            "numbers whose product is the number of features (%d), not %s."),
                     d, describe(image_dim)))
  }
  as.integer(image_dim)
}
