# Out-of-core input: a file-backed bigmemory::big.matrix read in row blocks
# gives the results of the in-memory matrix.

big_copy <- function(x) {
  dir <- tempfile("kmr-big")
  dir.create(dir)
  b <- bigmemory::filebacked.big.matrix(nrow(x), ncol(x), type = "double",
                                        backingfile = "x.bin", descriptorfile = "x.desc",
                                        backingpath = dir)
  b[, ] <- x
  b
}

test_that("projections of a file-backed matrix give the in-memory partition", {
  skip_if_not_installed("bigmemory")
  m <- make_mixture(n = 250, d = 70, k = 4, sd = 2, sep = 3)
  b <- big_copy(unname(m$x))
  for (method in methods_of("projection")) {
    a <- kmeans_reduced(unname(m$x), 4, method = method, dims = 12, n_init = 2, seed = 3)
    s <- kmeans_reduced(b, 4, method = method, dims = 12, n_init = 2, seed = 3,
                        control = list(block_rows = 37))
    expect_identical(s$cluster, a$cluster)
    expect_identical(s$reduced, a$reduced)
    expect_equal(s$centers, a$centers, tolerance = 1e-12)
    expect_equal(s$withinss, a$withinss, tolerance = 1e-12)
    expect_equal(s$totss, a$totss, tolerance = 1e-12)
    expect_equal(s$sumsq, a$sumsq, tolerance = 1e-12)
  }
  # The default block size (one block here) too.
  expect_identical(kmeans_reduced(b, 4, dims = 12, seed = 3)$cluster,
                   kmeans_reduced(unname(m$x), 4, dims = 12, seed = 3)$cluster)
})

test_that("randomized SVD, leverage and rsvd stream to rounding", {
  skip_if_not_installed("bigmemory")
  m <- make_mixture(n = 200, d = 50, k = 3, sd = 2, sep = 3)
  b <- big_copy(unname(m$x))
  s1 <- randomized_svd(unname(m$x), 5, seed = 2)
  s2 <- randomized_svd(b, 5, seed = 2, block_rows = 33)
  expect_equal(s2$d, s1$d, tolerance = 1e-10)
  expect_equal(abs(crossprod(s1$v, s2$v)), diag(5), tolerance = 1e-8)
  expect_equal(s2$d[1:3], svd(m$x, 0, 0)$d[1:3], tolerance = 1e-6)
  for (method in c("leverage", "rsvd")) {
    a <- kmeans_reduced(unname(m$x), 3, method = method, dims = 10, seed = 5)
    s <- kmeans_reduced(b, 3, method = method, dims = 10, seed = 5,
                        control = list(block_rows = 41))
    expect_true(same_partition(s$cluster, a$cluster))
    expect_equal(s$tot.withinss, a$tot.withinss, tolerance = 1e-8)
  }
})

test_that("refine, kmeans_objective and predict stream", {
  skip_if_not_installed("bigmemory")
  m <- make_mixture(n = 300, d = 40, k = 3, sd = 3, sep = 2)
  b <- big_copy(unname(m$x))
  a <- kmeans_reduced(unname(m$x), 3, dims = 4, seed = 1, refine = 5)
  s <- kmeans_reduced(b, 3, dims = 4, seed = 1, refine = 5, control = list(block_rows = 64))
  expect_lte(s$tot.withinss, s$objective_before_refine)
  expect_identical(s$cluster, a$cluster)
  expect_equal(s$tot.withinss, a$tot.withinss, tolerance = 1e-10)
  expect_equal(kmeans_objective(b, m$truth, block_rows = 50),
               kmeans_objective(m$x, m$truth), tolerance = 1e-12)
  expect_equal(kmeans_objective(b, m$truth, normalize = TRUE),
               objective_r(m$x, m$truth) / sum(m$x^2), tolerance = 1e-12)
  fit <- kmeans_reduced(b, 3, dims = 4, seed = 1)
  expect_identical(predict(fit, b), fit$cluster)
  r <- reduce_dims(b, "sparse_embedding", dims = 6, seed = 2, control = list(block_rows = 17))
  expect_identical(r$reduced, reduce_dims(unname(m$x), "sparse_embedding", dims = 6, seed = 2)$reduced)
})

test_that("refine on a big.matrix is the in-memory Lloyd, empty clusters included", {
  skip_if_not_installed("bigmemory")
  # Small awkward data: few distinct values, many clusters, so that Lloyd
  # empties clusters and re-seeds them (the out-of-core Lloyd used to keep
  # an emptied cluster's centre instead).
  set.seed(3)
  x <- matrix(sample(c(0, 1, 2, 10), 40 * 3, TRUE, prob = c(5, 3, 1, 1)), 40, 3)
  x <- x + matrix(rnorm(40 * 3, sd = 1e-3), 40, 3)
  b <- big_copy(x)
  for (seed in 1:40) {
    a <- kmeans_reduced(x, 8, method = "sign", dims = 1, seed = seed, n_init = 1, refine = 20)
    s <- kmeans_reduced(b, 8, method = "sign", dims = 1, seed = seed, n_init = 1, refine = 20,
                        control = list(block_rows = 7))
    expect_identical(s$cluster, a$cluster, label = paste("seed", seed))
    expect_equal(s$tot.withinss, a$tot.withinss, tolerance = 1e-10)
    expect_equal(s$assignment_centers, a$assignment_centers, tolerance = 1e-10)
    expect_true(all(s$size > 0))
  }
})

test_that("big.matrix input is checked and unsupported uses are refused", {
  skip_if_not_installed("bigmemory")
  m <- make_mixture(n = 60, d = 10, k = 2)
  x <- unname(m$x)
  x[45, 7] <- NA
  b <- big_copy(x)
  expect_error(kmeans_reduced(b, 2, dims = 3, control = list(block_rows = 20)),
               "`x` must contain only finite numbers; found 1 non-finite value \\(NA/NaN at row 45, column 7\\)")
  g <- big_copy(unname(m$x))
  expect_error(kmeans_reduced(g, 2, method = "none"), "`method` \"none\" needs the whole matrix in memory")
  expect_error(kmeans_reduced(g, 2, method = "cssp", dims = 3), "`method` \"cssp\" needs the whole matrix")
  expect_error(kmeans_reduced(g, 2, method = "leverage", dims = 3, control = list(svd = "exact")),
               "`control\\$svd` = \"exact\" needs the whole matrix")
  expect_error(dims_path(g, 2, verbose = FALSE), "`x` is a big.matrix; only kmeans_reduced\\(\\)")
  expect_error(kmeans_reduced(g, 2, control = list(block_rows = 0)), "`control\\$block_rows` must be NULL or a whole number")
  expect_error(kmeans_objective(g, m$truth, block_rows = -1), "`block_rows` must be a whole number")
  one <- big_copy(matrix(1, 10, 3))
  expect_error(kmeans_reduced(one, 2, dims = 2), "`k` must be a whole number in \\[1, 1\\] \\(the number of distinct rows of `x`\\), not 2")
})
