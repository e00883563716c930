# The checks of `control` (R/checks_control.R).

test_that("a tiny eps uses the most accurate randomized SVD, not the least", {
  x <- withr::with_seed(5, matrix(rnorm(40 * 8), 40))
  fit <- expect_warning(kmeans_reduced(x, 2, control = list(eps = 1e-12), method = "leverage",
                                       dims = 4, seed = 1), NA)
  # min(n, d) test vectors: the randomized SVD is exact up to rounding.
  expect_equal(fit$reducer$scores, leverage_scores(x, 2, "exact"), tolerance = 1e-8)
})
