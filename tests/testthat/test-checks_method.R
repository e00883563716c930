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

test_that("a kmeans() call written positionally gets an error that says how to name it", {
  # kmeans(x, 3, 20) runs (iter.max = 20); here the third argument is
  # `method`, and the error says that iter.max and nstart must be named.
  expect_error(kmeans_reduced(m$x, 2, 20),
               "`method` must be one of .*not 20\\. The third argument of kmeans_reduced\\(\\) is `method`, where stats::kmeans\\(\\) has `iter.max`.*kmeans_reduced\\(x, 3, iter.max = 20, nstart = 5\\)")
  expect_error(kmeans_reduced(m$x, 2, 20, 5), "`method` must be one of .*not 20\\. The third argument")
  # (a misspelt method name keeps the plain message)
  expect_error(kmeans_reduced(m$x, 2, "pca"), "`method` must be one of .*not \"pca\"\\.$")
  # The calls the help says carry over run, with kmeans()'s names, and give
  # kmeans()'s partition from the same centres.
  c0 <- m$x[c(1, 30), ]
  ref <- stats::kmeans(m$x, c0, iter.max = 20, algorithm = "Lloyd")
  fit <- kmeans_reduced(m$x, c0, iter.max = 20, algorithm = "Lloyd", trace = FALSE)
  expect_equal(fit$tot.withinss, ref$tot.withinss)
  expect_identical(as.vector(fit$cluster), as.vector(ref$cluster))
  ref <- withr::with_seed(1, stats::kmeans(m$x, 2, iter.max = 20, nstart = 5))
  fit <- kmeans_reduced(m$x, 2, iter.max = 20, nstart = 5, seed = 1)
  expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-8)
})
