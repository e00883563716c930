# Tests of kmeans_objective(), cluster_accuracy(), adjusted_rand_index() and
# normalized_mutual_info() against independent formulas and known values.

test_that("kmeans_objective matches the objective recomputed in R, dense and sparse", {
  m <- make_mixture()
  expect_equal(kmeans_objective(m$x, m$truth), objective_r(m$x, m$truth), tolerance = 1e-12)
  expect_equal(kmeans_objective(m$x, letters[m$truth], normalize = TRUE),
               objective_r(m$x, m$truth) / sum(m$x^2), tolerance = 1e-12)
  s <- make_sparse_mixture()
  expect_equal(kmeans_objective(s$x, s$truth), objective_r(s$dense, s$truth), tolerance = 1e-10)
  fit <- kmeans_reduced(m$x, 3, seed = 1)
  expect_equal(kmeans_objective(m$x, fit$cluster), fit$tot.withinss, tolerance = 1e-12)
  expect_error(kmeans_objective(m$x, 1:3), "`cluster` must be a vector of 300 labels")
  expect_error(kmeans_objective(m$x, m$truth, normalize = NA), "`normalize` must be TRUE or FALSE")
})

test_that("cluster_accuracy uses the best one-to-one matching", {
  expect_equal(cluster_accuracy(c(1, 1, 2, 2, 3), c("a", "a", "b", "b", "b")), 0.8)
  expect_equal(cluster_accuracy(c(2, 2, 1, 1), c(1, 1, 2, 2)), 1)
  # brute force over all matchings of 3 clusters to 3 classes
  withr::with_seed(1, {
    a <- sample(3, 60, TRUE)
    b <- sample(3, 60, TRUE)
  })
  perms <- list(1:3, c(1, 3, 2), c(2, 1, 3), c(2, 3, 1), c(3, 1, 2), c(3, 2, 1))
  brute <- max(vapply(perms, function(p) mean(p[a] == b), 0))
  expect_equal(cluster_accuracy(a, b), brute)
  expect_error(cluster_accuracy(1:3, 1:2), "`truth` must have the length of `cluster` \\(3\\), not 2")
})

test_that("adjusted_rand_index has its known values", {
  expect_equal(adjusted_rand_index(c(1, 1, 2, 2), c(2, 2, 1, 1)), 1)
  # example of Hubert and Arabie's formula computed by hand:
  # table [[2,1],[0,2]]: index = 1 + 1 = 2, rows = 3 + 1 = 4, cols = 1 + 3 = 4,
  # expected = 16 / 10, max = 4: ARI = (2 - 1.6) / (4 - 1.6) = 1/6
  expect_equal(adjusted_rand_index(c(1, 1, 1, 2, 2), c(1, 1, 2, 2, 2)), 1 / 6)
  withr::with_seed(2, expect_lt(abs(adjusted_rand_index(sample(4, 2000, TRUE), sample(4, 2000, TRUE))), 0.01))
})

test_that("normalized_mutual_info has its known values", {
  expect_equal(normalized_mutual_info(c(1, 1, 2, 2), c(2, 2, 1, 1)), 1)
  expect_equal(normalized_mutual_info(c(1, 1, 2, 2), c(1, 2, 1, 2)), 0)
  # by hand: p = [[1/2, 0], [1/4, 1/4]]
  a <- c(1, 1, 2, 2); b <- c(1, 1, 1, 2)
  pa <- c(.5, .5); pb <- c(.75, .25)
  mi <- .5 * log(.5 / (.5 * .75)) + .25 * log(.25 / (.5 * .75)) + .25 * log(.25 / (.5 * .25))
  h <- (-sum(pa * log(pa)) - sum(pb * log(pb))) / 2
  expect_equal(normalized_mutual_info(a, b), mi / h)
})

test_that("refine never increases the objective and predict follows it", {
  m <- make_mixture(n = 600, d = 100, k = 5, sd = 5, sep = 1.5, seed = 3)
  for (method in c("sign", "leverage", "sparse_embedding")) {
    fit <- kmeans_reduced(m$x, 5, method = method, dims = 4, seed = 2, refine = 5)
    expect_lte(fit$tot.withinss, fit$objective_before_refine * (1 + 1e-12))
    expect_equal(fit$tot.withinss, objective_r(m$x, fit$cluster), tolerance = 1e-10)
    expect_identical(predict(fit, m$x), fit$cluster)
  }
  expect_error(kmeans_reduced(m$x, 5, refine = -1), "`refine` must be a whole number")
})

test_that("the label metrics never build a dense labels x labels table", {
  a <- rep(1:7000, 2)
  b <- c(1:7000, 7000:1)
  expect_error(cluster_accuracy(a, b),
               "`cluster` and `truth` have 7000 and 7000 distinct labels.*0.4 GB.*adjusted_rand_index\\(\\)")
  # ARI and NMI on the nonzero cells only, against the dense formulas.
  withr::with_seed(3, {
    x <- sample(300, 5000, TRUE)
    y <- sample(250, 5000, TRUE)
  })
  tab <- table(x, y)
  choose2 <- function(v) v * (v - 1) / 2
  idx <- sum(choose2(tab)); r <- sum(choose2(rowSums(tab))); s <- sum(choose2(colSums(tab)))
  e <- r * s / choose2(5000)
  expect_equal(adjusted_rand_index(x, y), (idx - e) / ((r + s) / 2 - e))
  p <- tab / 5000; pa <- rowSums(p); pb <- colSums(p); nz <- p > 0
  h <- (-sum(pa * log(pa)) - sum(pb * log(pb))) / 2
  expect_equal(normalized_mutual_info(x, y), sum(p[nz] * log(p[nz] / outer(pa, pb)[nz])) / h)
  expect_equal(adjusted_rand_index(a, a), 1)
  expect_equal(normalized_mutual_info(a, a), 1)
})

test_that("labels that print alike are distinct labels; one object is a perfect match", {
  expect_equal(adjusted_rand_index(1, 1), 1)
  expect_equal(cluster_accuracy(1, 1), 1)
  expect_equal(cluster_accuracy(c(1, 1 + 2^-52), c(1, 2)), 1)
  expect_equal(adjusted_rand_index(c(1, 1 + 2^-52, 1), c(1, 2, 1)), 1)
})

test_that("sparse statistics equal the dense ones far from zero (no cancellation)", {
  # The closed form n c^2 + sum((v - c)^2 - c^2) for the zeros lost every
  # digit when a column sits far from zero (1150 for 610.58 at 1e8).
  # (at 1e12 the data hold about 4 digits after the point: the dense sums
  # themselves agree to about 1e-7 there)
  m <- make_mixture(n = 200, d = 3, k = 2, sd = 1, sep = 3, seed = 43)
  for (offset in c(0, 1e4, 1e8, -1e8, 1e12)) {
    y <- m$x + offset
    if (offset == -1e8) y[1:20, 1] <- 0   # zeros among values far from zero
    tol <- if (abs(offset) < 1e12) 1e-8 else 1e-6
    ys <- Matrix::Matrix(y, sparse = TRUE)
    label <- paste("offset", offset)
    expect_equal(kmeans_objective(ys, m$truth), objective_r(y, m$truth), tolerance = tol,
                 label = label)
    expect_equal(kmeans_objective(ys, m$truth), kmeans_objective(y, m$truth), tolerance = tol,
                 label = label)
    d <- kmreduce:::cluster_stats_cpp(y, m$truth, 2L, 1L)
    s <- kmreduce:::cluster_stats_cpp(ys, m$truth, 2L, 2L)
    expect_equal(s$withinss, d$withinss, tolerance = tol, label = label)
    expect_equal(s$totss, d$totss, tolerance = tol, label = label)
    # the block form (out of core and MPI ranks): one rank holding all rows
    # of a two-rank job
    info <- list(allreduce = function(v) v, rank = 0L, size = 2L, offset = 0, n = nrow(y))
    b <- kmreduce:::cluster_stats_cpp(kmreduce:::cpp_source(rows = ys, mpi = info), m$truth, 2L,
                                      1L)
    expect_equal(b$withinss, d$withinss, tolerance = tol, label = label)
    expect_equal(b$totss, d$totss, tolerance = tol, label = label)
    # with observation weights likewise
    w <- seq(0.5, 3, length.out = nrow(y))
    expect_equal(kmeans_objective(ys, m$truth, weights = w),
                 kmeans_objective(y, m$truth, weights = w), tolerance = tol, label = label)
    wmeans <- apply(y, 2, function(v) tapply(v * w, m$truth, sum) / tapply(w, m$truth, sum))
    expect_equal(kmeans_objective(ys, m$truth, weights = w),
                 sum(w * rowSums((y - wmeans[m$truth, ])^2)), tolerance = tol, label = label)
    fit <- kmeans_reduced(ys, 2, method = "sparse_embedding", dims = 2, seed = 1)
    expect_equal(fit$tot.withinss, kmeans_objective(y, fit$cluster), tolerance = tol, label = label)
    expect_equal(fit$totss, sum(scale(y, scale = FALSE)^2), tolerance = tol, label = label)
  }
})
