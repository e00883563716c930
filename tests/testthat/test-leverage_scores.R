test_that("leverage scores sum to 1 and match svd() of the centred data", {
  m <- make_mixture(n = 200, d = 40, k = 4, sd = 0.5, sep = 5)
  ref <- rowSums(svd(scale(m$x, scale = FALSE))$v[, 1:4]^2) / 4
  ex <- leverage_scores(m$x, 4, "exact")
  expect_equal(unname(ex), ref, tolerance = 1e-10)
  expect_identical(names(ex), colnames(m$x))
  expect_equal(sum(ex), 1, tolerance = 1e-12)
  # Four clusters span three dimensions once centred: the randomized scores
  # of rank 3 are close to the exact ones.
  rn <- leverage_scores(m$x, 3, seed = 1, power_iters = 2)
  expect_equal(unname(rn), rowSums(svd(scale(m$x, scale = FALSE))$v[, 1:3]^2) / 3,
               tolerance = 1e-6)
  # The default is the reducer's: same seed, same scores.
  fit <- kmeans_reduced(m$x, 4, method = "leverage", dims = 10, seed = 7)
  expect_identical(leverage_scores(m$x, 4, seed = 7), fit$reducer$scores)
  s <- make_sparse_mixture()
  expect_equal(leverage_scores(s$x, 3, "exact"), leverage_scores(s$dense, 3, "exact"),
               tolerance = 1e-10)
  expect_error(leverage_scores(m$x, 4, "fast"), "`method` must be one of \"randomized\", \"exact\", not \"fast\"")
  expect_error(leverage_scores(m$x, 0), "`k` must be a whole number")
})
