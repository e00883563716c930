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
})

test_that("a DelayedMatrix with NA is an error naming it, found while reading", {
  skip_without_bioc("DelayedArray")
  x <- matrix(rnorm(200), 40)
  x[33, 2] <- NA
  expect_error(kmeans_reduced(DelayedArray::DelayedArray(x), 2, method = "sign", dims = 3,
                              seed = 1),
               "`x` must contain only finite numbers; found 1 non-finite value \\(NA/NaN at row 33 of a DelayedMatrix\\)")
})
