test_that("randomized_svd matches svd() on low-rank-plus-noise matrices", {
  withr::with_seed(1, {
    x <- matrix(rnorm(300 * 8), 300, 8) %*% diag(c(50, 40, 30, 20, 10, 5, 3, 2)) %*%
      matrix(rnorm(8 * 120), 8, 120) + matrix(rnorm(300 * 120, sd = 0.1), 300, 120)
  })
  ref <- svd(x)
  s <- randomized_svd(x, 5, seed = 1)
  expect_equal(s$d, ref$d[1:5], tolerance = 1e-6)
  expect_equal(abs(colSums(s$u * ref$u[, 1:5])), rep(1, 5), tolerance = 1e-6)
  expect_equal(abs(colSums(s$v * ref$v[, 1:5])), rep(1, 5), tolerance = 1e-6)
  expect_equal(crossprod(s$v), diag(5), tolerance = 1e-10)
  # wide input and sparse input
  sw <- randomized_svd(t(x), 5, seed = 1)
  expect_equal(sw$d, ref$d[1:5], tolerance = 1e-6)
  sp <- Matrix::Matrix(x * (abs(x) > 20), sparse = TRUE)
  expect_equal(randomized_svd(sp, 3, seed = 2, power_iters = 4)$d,
               svd(as.matrix(sp))$d[1:3], tolerance = 1e-4)
})

test_that("randomized_svd is reproducible and checks its arguments", {
  x <- matrix(rnorm(50 * 20), 50, 20)
  expect_identical(randomized_svd(x, 3, seed = 4), randomized_svd(x, 3, seed = 4, n_threads = 2))
  expect_error(randomized_svd(x, 21), "`k` must be a whole number in \\[1, 20\\], not 21")
  expect_error(randomized_svd(x, 2, oversample = -1), "`oversample` must be a whole number")
  expect_error(randomized_svd(x, 2, power_iters = 1.5), "`power_iters` must be a whole number")
})

test_that("center = TRUE gives the SVD of the centred data, dense, sparse and streamed", {
  set.seed(8)
  x <- matrix(rnorm(60 * 3), 60, 3) %*% matrix(rnorm(3 * 25), 3, 25) + 1e6 +
    matrix(rnorm(60 * 25, sd = 0.01), 60, 25)
  ref <- svd(scale(x, scale = FALSE))
  s <- randomized_svd(x, 3, seed = 1, center = TRUE)
  expect_equal(s$d, ref$d[1:3], tolerance = 1e-6)
  expect_equal(abs(crossprod(s$v, ref$v[, 1:3])), diag(3), tolerance = 1e-6)
  sp <- Matrix::rsparsematrix(80, 30, 0.2)
  ref_sp <- svd(scale(as.matrix(sp), scale = FALSE))$d[1:3]
  expect_equal(randomized_svd(sp, 3, seed = 2, power_iters = 6, center = TRUE)$d, ref_sp,
               tolerance = 1e-3)
  skip_if_not_installed("bigmemory")
  b <- bigmemory::as.big.matrix(x)
  sb <- randomized_svd(b, 3, seed = 1, center = TRUE, block_rows = 7)
  expect_equal(sb$d, s$d, tolerance = 1e-6)
  expect_error(randomized_svd(x, 3, center = NA), "`center` must be TRUE or FALSE")
})
