# optimality_bound(): a valid lower bound on the optimal k-means objective.

best_kmeans <- function(x, k, restarts = 30L) {
  x <- as.matrix(x)
  withr::with_seed(11, min(vapply(seq_len(restarts), function(r) {
    suppressWarnings(stats::kmeans(x, k, nstart = 1L, iter.max = 100L))$tot.withinss
  }, numeric(1))))
}

test_that("the Gram bound is ||A_c||^2 minus the top k - 1 squared singular values (svd())", {
  m <- make_mixture(n = 120, d = 15, k = 4, sep = 3)
  fit <- kmeans_reduced(m$x, 4, method = "none", seed = 1)
  b <- optimality_bound(fit, m$x)
  xc <- scale(m$x, scale = FALSE)
  s2 <- svd(xc, 0, 0)$d^2
  expect_equal(b$totss, sum(xc^2), tolerance = 1e-12)
  expect_equal(b$lower, sum(s2) - sum(s2[1:3]), tolerance = 1e-10)
  expect_gt(b$margin, 0)
  expect_lt(b$margin, 1e-9 * b$totss)
  expect_equal(b$ratio, fit$tot.withinss / b$lower)
  expect_identical(b$method, "gram")
  # The wide side (n < d) gives the same bound.
  xt <- m$x[1:30, ]
  f2 <- kmeans_reduced(cbind(xt, xt), 3, method = "none", seed = 1)
  s2 <- svd(scale(cbind(xt, xt), scale = FALSE), 0, 0)$d^2
  expect_equal(optimality_bound(f2, cbind(xt, xt))$lower, sum(s2[-(1:2)]), tolerance = 1e-9)
})

test_that("the bound never exceeds the best of many stats::kmeans restarts", {
  shapes <- list(c(80, 5, 2), c(60, 40, 4), c(25, 100, 3), c(150, 12, 6))
  for (s in shapes) {
    x <- withr::with_seed(s[1] + s[2], matrix(rnorm(s[1] * s[2]), s[1], s[2]))
    best <- best_kmeans(x, s[3])
    fit <- kmeans_reduced(x, s[3], method = "none", seed = 2)
    for (meth in c("gram", "krylov")) {
      b <- optimality_bound(fit, x, method = meth, seed = 3)
      expect_lte(b$lower, best)
      expect_gte(b$lower, 0)
    }
  }
  sp <- make_sparse_mixture(n = 90, d = 40, k = 3)
  best <- best_kmeans(sp$dense, 3)
  fit <- kmeans_reduced(sp$x, 3, method = "none", seed = 1)
  for (meth in c("gram", "krylov")) {
    expect_lte(optimality_bound(fit, sp$x, method = meth, seed = 1)$lower, best)
  }
})

test_that("the ratio is close to 1 on a well separated mixture", {
  # The bound misses the noise inside the k - 1 signal directions: the ratio
  # is about d / (d - k + 1) for isotropic noise, near 1 when d >> k.
  m <- make_mixture(n = 600, d = 200, k = 5, sep = 10)
  fit <- kmeans_reduced(m$x, 5, method = "none", n_init = 3, seed = 1)
  b <- optimality_bound(fit, m$x)
  expect_gt(b$ratio, 1)
  expect_lt(b$ratio, 1.05)
  bk <- optimality_bound(fit, m$x, method = "krylov", seed = 1)
  expect_lte(bk$lower, b$lower * (1 + 1e-9))
  expect_lt(bk$ratio, 1.05)
})

test_that("sparse input gives the dense bound without densifying", {
  sp <- make_sparse_mixture(n = 120, d = 50, k = 3)
  fit <- kmeans_reduced(sp$x, 3, method = "none", seed = 1)
  bs <- optimality_bound(fit, sp$x)
  bd <- optimality_bound(fit, sp$dense)
  expect_equal(bs$lower, bd$lower, tolerance = 1e-10)
  wide <- Matrix::t(sp$x)[, 1:40]
  fw <- kmeans_reduced(wide, 2, method = "none", seed = 1)
  s2 <- svd(scale(as.matrix(wide), scale = FALSE), 0, 0)$d^2
  expect_equal(optimality_bound(fw, wide)$lower, sum(s2[-1]), tolerance = 1e-9)
})

test_that("k = 1 is certified optimal and stats::kmeans fits are accepted", {
  m <- make_mixture()
  f1 <- kmeans_reduced(m$x, 1, method = "none", seed = 1)
  b <- optimality_bound(f1, m$x)
  expect_equal(b$lower, sum(scale(m$x, scale = FALSE)^2), tolerance = 1e-12)
  expect_equal(b$ratio, 1, tolerance = 1e-12)
  km <- withr::with_seed(1, stats::kmeans(m$x, 3, nstart = 5))
  bk <- optimality_bound(km, m$x)
  expect_lte(bk$lower, km$tot.withinss)
  expect_output(print(bk), "lower bound on optimum")
})

test_that("summary(fit, x = x) shows the certificate", {
  m <- make_mixture()
  fit <- kmeans_reduced(m$x, 3, dims = 5, seed = 1)
  s <- summary(fit, x = m$x)
  expect_s3_class(s$bound, "kmreduce_bound")
  expect_equal(s$bound$lower, optimality_bound(fit, m$x)$lower)
  expect_output(print(s), "optimality:  optimum >=")
  expect_null(summary(fit)$bound)
})

test_that("bad arguments are named in the error", {
  m <- make_mixture()
  fit <- kmeans_reduced(m$x, 3, dims = 5, seed = 1)
  expect_error(optimality_bound(list(), m$x), "`fit` must be a k-means fit")
  expect_error(optimality_bound(fit, m$x[-1, ]), "`x` must be the data of `fit`: 300 rows x 20 columns, not 299 x 20")
  expect_error(optimality_bound(fit, m$x, method = "lanczos"), "`method` must be one of \"auto\", \"gram\", \"krylov\"")
  expect_error(optimality_bound(fit, m$x, max_gram = 0), "`max_gram` must be a whole number")
  expect_error(optimality_bound(fit, m$x, power_iters = -1), "`power_iters`")
  expect_error(optimality_bound(fit, m$x, seed = "a"), "`seed`")
})

test_that("data of the fit's shape but not its values are refused, not certified", {
  # (the ratio of a fit of x to the bound of x * 1e150 was 1.8e-300)
  x <- make_mixture(n = 60, d = 4, k = 3)$x
  fit <- kmeans_reduced(x, 3, seed = 1)
  expect_error(optimality_bound(fit, x * 1e150), "`x` must be the data of `fit`: the fit's clusters of `x` have the objective")
  expect_error(summary(fit, x[withr::with_seed(1, sample(60)), ]), "`x` must be the data of `fit`")
  expect_gte(optimality_bound(fit, x)$ratio, 1)
  expect_gte(optimality_bound(stats::kmeans(x, 3, nstart = 2), x)$ratio, 1)
})
