# The checks of method, dims and the counts (R/checks_method.R).

m <- make_mixture(n = 50, d = 6)

test_that("bad method, dims, counts, seed and control are refused", {
  expect_error(kmeans_reduced(m$x, 2, method = "pca"), "`method` must be one of \"auto\", \"none\".*not \"pca\"")
  expect_error(kmeans_reduced(m$x, 2, method = c("sign", "svd")), "`method` must be one of")
  expect_error(kmeans_reduced(m$x, 2, method = "sign", dims = 0), "`dims` must be a whole number >= 1|`dims` must be a whole number in \\[1")
  expect_error(kmeans_reduced(m$x, 2, method = "sign", dims = NA), "`dims` must be a whole number.*not NA")
  expect_error(kmeans_reduced(m$x, 2, method = "svd", dims = 7), "`dims` must be a whole number in \\[1, 6\\], not 7")
  expect_error(kmeans_reduced(m$x, 2, n_init = 0), "`n_init` must be a whole number in \\[1, 1e\\+06\\], not 0")
  expect_error(kmeans_reduced(m$x, 2, iter_max = -1), "`iter_max` must be a whole number")
  expect_error(kmeans_reduced(m$x, 2, n_threads = 0), "`n_threads` must be a whole number >= 1, not 0")
  expect_error(kmeans_reduced(m$x, 2, seed = "x"), "`seed` must be NULL or a single whole number, not \"x\"")
  expect_error(kmeans_reduced(m$x, 2, seed = 1.5), "`seed` must be NULL or a single whole number, not 1.5")
  expect_error(kmeans_reduced(m$x, 2, seed = c(1, 2)), "`seed` must be NULL or a single whole number")
  expect_error(kmeans_reduced(m$x, 2, control = list(tolerance = 1)), "`control` has unknown name 'tolerance'; known names: 'tol', 'keep_reduced'")
  expect_error(kmeans_reduced(m$x, 2, control = list(1)), "`control` must be a named list")
  expect_error(kmeans_reduced(m$x, 2, control = list(tol = -1)), "`control\\$tol` must be a number in \\[0, 1\\), not -1")
  expect_error(kmeans_reduced(m$x, 2, control = list(keep_reduced = NA)), "`control\\$keep_reduced` must be TRUE or FALSE")
})
