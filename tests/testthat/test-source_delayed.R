# DelayedMatrix rows (R/source_delayed.R), read in blocks through
# DelayedArray: the labels of the same rows in memory.

test_that("a DelayedMatrix's rows give the labels of the matrix in memory", {
  skip_without_bioc(c("DelayedArray", "HDF5Array"))
  x <- withr::with_seed(1, rbind(matrix(rnorm(300 * 50), 300), matrix(rnorm(200 * 50, 3), 200)))
  dm <- DelayedArray::DelayedArray(x) * 2 - 1  # with delayed operations
  ref <- kmeans_reduced(x * 2 - 1, 2, method = "sign", dims = 20, n_init = 2, seed = 1)
  fit <- kmeans_reduced(dm, 2, method = "sign", dims = 20, n_init = 2, seed = 1,
                        control = list(block_rows = 77))
  expect_identical(fit$cluster, ref$cluster)
  expect_equal(fit$centers, ref$centers, tolerance = 1e-10)
  h5 <- HDF5Array::writeHDF5Array(x * 2 - 1, tempfile(fileext = ".h5"), "x")
  fit_h5 <- kmeans_reduced(h5, 2, method = "sign", dims = 20, n_init = 2, seed = 1)
  expect_identical(fit_h5$cluster, ref$cluster)
  # method "auto" on a dense DelayedMatrix: the signs
  expect_identical(kmeans_reduced(dm, 2, seed = 1, n_init = 1)$method, "sign")
  # k beyond the rows
  expect_error(kmeans_reduced(dm, 501), "`k` must be a whole number in \\[1, 500\\]")
  # the errors name `centers` when that was given
  expect_error(kmeans_reduced(dm, centers = 501), "^`centers` must be a whole number in \\[1, 500\\]")
  expect_error(kmeans_reduced(dm, centers = rbind(x[1:2, ], NA)),
               "^`centers` must contain only finite numbers")
  expect_error(kmeans_reduced(dm, centers = x[1:2, 1:3]),
               "^`centers` given as a matrix of initial centres must have 50 columns")
})

test_that("a DelayedMatrix with NA is an error naming it, found while reading", {
  skip_without_bioc("DelayedArray")
  x <- matrix(rnorm(200), 40)
  x[33, 2] <- NA
  expect_error(kmeans_reduced(DelayedArray::DelayedArray(x), 2, method = "sign", dims = 3,
                              seed = 1),
               "`x` must contain only finite numbers; found 1 non-finite value \\(NA/NaN at row 33 of a DelayedMatrix\\)")
})

test_that("values too large for the sums of squares of all the rows: the error of the matrix in memory", {
  # Each block was held to the limit of a block of one value (6.7e153), not
  # to that of all the rows: 100 rows at 1e153 gave totss Inf.
  skip_without_bioc("DelayedArray")
  x <- withr::with_seed(8, matrix(rnorm(3000 * 8), 3000, 8))
  x[1:100, ] <- 1e153
  msg <- "`x` has values as large as 1e\\+153 in absolute value.*values up to 4.33e\\+151 are supported"
  expect_error(kmeans_reduced(x, 3, seed = 1), msg)
  expect_error(kmeans_reduced(DelayedArray::DelayedArray(x), 3, seed = 1,
                              control = list(block_rows = 500)), msg)
})

test_that("the one-pass statistics of sparse blocks equal those in memory, with weights", {
  skip_without_bioc("DelayedArray")
  x <- withr::with_seed(4, Matrix::rsparsematrix(300, 40, 0.1))
  x[1:120, 1:5] <- x[1:120, 1:5] + 3
  x <- methods::as(x, "CsparseMatrix")
  w <- withr::with_seed(5, runif(300, 0.5, 2))
  for (weights in list(NULL, w)) {
    ref <- kmeans_reduced(x, 3, method = "sparse_embedding", dims = 10, seed = 1,
                          weights = weights)
    fit <- kmeans_reduced(DelayedArray::DelayedArray(x), 3, method = "sparse_embedding",
                          dims = 10, seed = 1, weights = weights,
                          control = list(block_rows = 70))
    expect_identical(fit$cluster, ref$cluster)
    expect_equal(fit$centers, ref$centers, tolerance = 1e-12)
    expect_equal(fit$withinss, ref$withinss, tolerance = 1e-10)
    expect_equal(fit$totss, ref$totss, tolerance = 1e-10)
    wr <- if (is.null(weights)) rep(1, 300) else weights
    within <- vapply(1:3, function(j) {
      r <- fit$cluster == j
      sum(wr[r] * rowSums(sweep(as.matrix(x[r, , drop = FALSE]), 2, fit$centers[j, ])^2))
    }, 0)
    expect_equal(fit$withinss, within, tolerance = 1e-9)
  }
})

test_that("the one-pass statistics equal those in memory, with weights and far from zero", {
  skip_without_bioc("DelayedArray")
  x <- withr::with_seed(2, rbind(matrix(rnorm(150 * 20), 150), matrix(rnorm(100 * 20, 2), 100)))
  w <- withr::with_seed(3, runif(250, 0.5, 2))
  for (shift in c(0, 1e6)) {
    xs <- x + shift
    ref <- kmeans_reduced(xs, 2, method = "sign", dims = 10, n_init = 2, seed = 1, weights = w)
    fit <- kmeans_reduced(DelayedArray::DelayedArray(xs), 2, method = "sign", dims = 10,
                          n_init = 2, seed = 1, weights = w, control = list(block_rows = 60))
    expect_identical(fit$cluster, ref$cluster)
    expect_equal(fit$centers, ref$centers, tolerance = 1e-12)
    expect_equal(fit$withinss, ref$withinss, tolerance = 1e-10)
    expect_equal(fit$totss, ref$totss, tolerance = 1e-10)
    expect_equal(fit$weight, ref$weight, tolerance = 1e-12)
    expect_identical(fit$size, ref$size)
    # against the definition (weighted squared deviations from the means)
    within <- vapply(1:2, function(j) {
      r <- fit$cluster == j
      sum(w[r] * rowSums(sweep(xs[r, , drop = FALSE], 2, fit$centers[j, ])^2))
    }, 0)
    expect_equal(fit$withinss, within, tolerance = 1e-9)
  }
})

test_that("k above the distinct rows of a DelayedMatrix is the error of the matrix in memory", {
  skip_without_bioc("DelayedArray")
  x <- withr::with_seed(2, matrix(rnorm(3 * 20), 3))[rep(1:3, 20), ]
  msg <- "`k` must be a whole number in \\[1, 3\\] \\(the number of distinct rows of `x`\\), not 4\\."
  for (method in c("sign", "sparse_embedding", "gaussian")) {
    expect_error(kmeans_reduced(x, 4, method = method, dims = 5, seed = 1), msg)
    expect_error(kmeans_reduced(DelayedArray::DelayedArray(x), 4, method = method, dims = 5,
                                seed = 1, control = list(block_rows = 7L)), msg)
  }
  # sparse blocks too
  s <- methods::as(x, "CsparseMatrix")
  expect_error(kmeans_reduced(DelayedArray::DelayedArray(s), 4, method = "sparse_embedding",
                              dims = 5, seed = 1), msg)
  # rows the reduction merges but the data tell apart: a warning and a fit
  # without empty clusters
  y <- rbind(diag(6), diag(6) * 2)
  fit <- suppressWarnings(kmeans_reduced(DelayedArray::DelayedArray(y), 6, method = "sign",
                                         dims = 1, seed = 1))
  expect_true(all(fit$size > 0))
})

test_that("an NA or NaN in a sparse DelayedMatrix is an error, as in memory (not read as 0)", {
  skip_without_bioc("DelayedArray")
  r <- withr::with_seed(2, Matrix::rsparsematrix(60, 8, 0.5, rand.x = function(n) rpois(n, 3) + 1))
  bad <- which(r@i == 7L)[1L]  # a value of row 8
  for (v in c(NaN, NA)) {
    x <- r
    x@x[bad] <- v
    msg <- "`x` must contain only finite numbers; found 1 non-finite value \\(NA/NaN at row 8"
    expect_error(kmeans_reduced(x, 3, method = "sparse_embedding", dims = 4, seed = 1), msg)
    expect_error(kmeans_reduced(DelayedArray::DelayedArray(x), 3, method = "sparse_embedding",
                                dims = 4, seed = 1, control = list(block_rows = 7L)), msg)
  }
  skip_without_bioc(c("DelayedArray", "SingleCellExperiment"))
  x <- r
  x@x[bad] <- NaN
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = DelayedArray::DelayedArray(Matrix::t(x))))
  expect_error(kmeans_reduced(sce, 3, normalize = "log1p_cpm", dims = 4, seed = 1),
               "needs counts \\(finite numbers >= 0\\) but the assay \"counts\" has NaN at cell 8")
  # sparse blocks read this way give the same fit as before
  fit <- kmeans_reduced(DelayedArray::DelayedArray(r), 3, method = "sparse_embedding", dims = 4,
                        seed = 1, control = list(block_rows = 7L))
  ref <- kmeans_reduced(r, 3, method = "sparse_embedding", dims = 4, seed = 1)
  expect_identical(unname(fit$cluster), unname(ref$cluster))
})
