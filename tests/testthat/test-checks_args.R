# How errors are raised and values described (R/checks_args.R).

m <- make_mixture(n = 50, d = 6)

test_that("errors come before any computation and have no call", {
  err <- tryCatch(kmeans_reduced(m$x, 0), error = identity)
  expect_null(conditionCall(err))
})

test_that("odd objects are described plainly in errors", {
  expect_error(kmeans_reduced(new.env(), 2), "not an environment")
  expect_error(kmeans_reduced(array(1, c(2, 2, 2)), 2), "not a 3-dimensional double array \\(2 x 2 x 2\\)")
  expect_error(kmeans_reduced(data.frame(), 2), "at least one row and one column, not a data frame of 0 x 0")
})
