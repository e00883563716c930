test_that("leverage scores equal rowSums(svd(x_c)$v[, 1:k]^2) / k of the centred x", {
  m <- make_mixture(n = 100, d = 25, k = 3)
  fit <- kmeans_reduced(m$x, 3, method = "leverage", dims = 40, seed = 1,
                        control = list(svd = "exact"))
  xc <- scale(m$x, scale = FALSE)
  ref <- rowSums(svd(xc)$v[, 1:3]^2) / 3
  expect_equal(unname(fit$reducer$scores), ref, tolerance = 1e-8)
  expect_equal(sum(fit$reducer$scores), 1, tolerance = 1e-12)
  expect_equal(fit$reducer$singular_values, svd(xc)$d[1:3], tolerance = 1e-10)
  # the reduced data are the sampled columns rescaled by 1/sqrt(dims p_i),
  # minus their means (the reducer's shift)
  f <- fit$reducer$features
  expect_equal(f$scale, 1 / sqrt(40 * ref[f$index]), tolerance = 1e-8)
  raw <- m$x[, f$index] %*% diag(f$scale)
  expect_equal(fit$reducer$shift, unname(colMeans(raw)), tolerance = 1e-12)
  expect_equal(unname(fit$reduced), unname(scale(raw, scale = FALSE)), tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_identical(f$name, colnames(m$x)[f$index])
})

test_that("leverage sampling follows the probabilities", {
  p <- c(0.5, 0.3, 0.2, 0)
  idx <- kmreduce:::leverage_sample_cpp(p, 20000, 1)
  freq <- tabulate(idx, 4) / 20000
  expect_equal(freq, p, tolerance = 0.02)
  expect_identical(freq[4], 0)
})

test_that("svd reduction is A V_k with the exact right singular vectors", {
  m <- make_mixture(n = 80, d = 12, k = 3)
  fit <- kmeans_reduced(m$x, 3, method = "svd", seed = 1)
  xc <- scale(m$x, scale = FALSE)  # the principal components of x
  v <- svd(xc)$v[, 1:3]
  expect_equal(abs(unname(fit$reduced)), abs(unname(xc %*% v)), tolerance = 1e-8)
  fit5 <- kmeans_reduced(m$x, 3, method = "svd", dims = 5, seed = 1)
  expect_identical(ncol(fit5$reduced), 5L)
})

test_that("sign projection is x times a +-1/sqrt(dims) matrix defined by the seed", {
  m <- make_mixture(n = 50, d = 140, k = 2)
  s <- kmreduce:::sign_matrix_cpp(140, 130, 9)
  expect_true(all(abs(s) == 1 / sqrt(130)))
  expect_equal(mean(s > 0), 0.5, tolerance = 0.02)
  expect_identical(s, kmreduce:::sign_matrix_cpp(140, 130, 9))
  expect_false(identical(s, kmreduce:::sign_matrix_cpp(140, 130, 10)))
  # column j does not depend on dims beyond the 64-bit word layout of a row
  fit <- kmeans_reduced(m$x, 2, method = "sign", dims = 130, seed = 9)
  # (centred: minus the column means, the reducer's shift)
  expect_equal(unname(fit$reduced), unname(scale(m$x %*% s, scale = FALSE)), tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_equal(fit$reducer$shift, colMeans(m$x %*% s), tolerance = 1e-12)
  expect_equal(unname(reduce_dims(m$x, "sign", dims = 130, seed = 9)$reduced), m$x %*% s,
               tolerance = 1e-12)
  sp <- Matrix::Matrix(m$x * (abs(m$x) > 5), sparse = TRUE)
  expect_equal(sign_project(sp, 130, seed = 9, algorithm = "gemm", n_threads = 2L),
               as.matrix(sp) %*% s, tolerance = 1e-12)
})

test_that("random sign projection preserves squared norms in expectation (JL)", {
  x <- matrix(rnorm(20 * 300), 20, 300)
  ratios <- vapply(1:40, function(s) {
    sum(sign_project(x, 50, seed = s)^2) / sum(x^2)
  }, numeric(1))
  expect_equal(mean(ratios), 1, tolerance = 0.03)
})
