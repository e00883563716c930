#' Fashion-MNIST: 3000 labelled images of clothing
#'
#' The first 3000 images of the Fashion-MNIST test set, 28 x 28 grey-scale
#' pictures of ten kinds of clothing, one image per row. A small real data set
#' for examples and the package demo: k-means on it is a 784-dimensional
#' problem with ten true classes.
#'
#' @format A list with two components:
#' \describe{
#'   \item{x}{integer matrix, 3000 rows (images) by 784 columns (pixels, row
#'     by row: `r01c01` is the top-left pixel, `r28c28` the bottom-right),
#'     grey levels from 0 (background) to 255.}
#'   \item{label}{factor of length 3000 with the ten classes: T-shirt/top,
#'     Trouser, Pullover, Dress, Coat, Sandal, Shirt, Sneaker, Bag, Ankle boot.}
#' }
#' @source Zalando Research, Fashion-MNIST
#'   (<https://github.com/zalandoresearch/fashion-mnist>), as packaged in
#'   Debian's `dataset-fashion-mnist` (files `t10k-images-idx3-ubyte.gz` and
#'   `t10k-labels-idx1-ubyte.gz`; first 3000 images in file order; built by
#'   `data-raw/fashion_mnist.R` in the package sources).
#'   Copyright 2017 Zalando SE, released under the MIT licence: Permission is
#'   hereby granted, free of charge, to any person obtaining a copy of this
#'   software and associated documentation files, to deal in them without
#'   restriction, subject to including the copyright notice and this
#'   permission notice in all copies or substantial portions.
#' @references Xiao, H., Rasul, K. and Vollgraf, R. (2017). Fashion-MNIST: a
#'   novel image dataset for benchmarking machine learning algorithms.
#'   arXiv:1708.07747.
#' @examples
#' dim(fashion_mnist$x)
#' table(fashion_mnist$label)
#' # Pixels are stored row by row; image() draws z[i, j] at x = i, y = j
#' # upwards, so transpose and flip the rows to see the picture upright:
#' img <- matrix(fashion_mnist$x[1, ], 28, 28, byrow = TRUE)
#' image(t(img)[, 28:1], col = grey.colors(256, rev = TRUE), axes = FALSE, asp = 1)
#' fashion_mnist$label[1]
#'
#' # Cluster centres drawn as images
#' fit <- kmeans_reduced(fashion_mnist$x / 255, 10, dims = 50, seed = 1)
#' plot(fit, which = "centers", image_dim = c(28, 28))
"fashion_mnist"
