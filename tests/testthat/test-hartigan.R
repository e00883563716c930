# Hartigan's moves (hartigan.hpp) against brute force: every single-row
# move's change computed from scratch (helper-algorithms.R).

test_that("Hartigan's moves lower the objective to a fixed point that no single move improves (brute force)", {
  withr::local_seed(11)
  x <- rbind(matrix(rnorm(40 * 3), 40), matrix(rnorm(30 * 3, 2), 30))
  for (k in c(2L, 4L)) {
    cl <- sample(rep_len(seq_len(k), nrow(x)))
    before <- objective_of(x, cl)
    h <- kmreduce:::hartigan_cpp(x, cl, k, 1000L, 1L)
    after <- objective_of(x, h$cluster)
    expect_true(h$converged)
    expect_gt(h$moves, 0)
    expect_lt(after, before)
    # the moves' exact changes add up to the change of the objective
    expect_equal(after - before, h$change, tolerance = 1e-8)
    expect_equal(unname(h$centers), unname(as.matrix(aggregate(x, list(h$cluster), mean)[, -1])),
                 tolerance = 1e-10)
    # no single move lowers it (brute force over all n (k - 1) moves)
    expect_gte(best_single_move(x, h$cluster, k), -1e-9 * after)
    # a Hartigan fixed point is a Lloyd fixed point: every row is nearest to
    # its own cluster's mean
    d2 <- as.matrix(dist(rbind(h$centers, x)))[-(1:k), 1:k]^2
    expect_identical(max.col(-d2, ties.method = "first"), h$cluster)
    expect_identical(kmreduce:::hartigan_cpp(x, cl, k, 1000L, 2L), h)
  }
})

test_that("Hartigan's moves escape Lloyd fixed points that are not Hartigan fixed points, as stats::kmeans's Hartigan-Wong does", {
  # Lloyd's fixed points from random starts (stats::kmeans, algorithm
  # "Lloyd"), then Hartigan's moves: some of them move rows, none raises the
  # objective, and the Hartigan-Wong of stats::kmeans finds nothing to move.
  set.seed(5)
  x <- matrix(rnorm(300 * 4), 300) + rep(c(0, 3), each = 150)
  escaped <- 0
  for (s in 1:10) {
    set.seed(s)
    l <- stats::kmeans(x, 6, algorithm = "Lloyd", iter.max = 200)
    h <- kmreduce:::hartigan_cpp(x, l$cluster, 6L, 1000L, 1L)
    expect_lte(objective_of(x, h$cluster), l$tot.withinss * (1 + 1e-12))
    if (h$moves > 0) escaped <- escaped + 1
    # stats::kmeans (Hartigan-Wong) from our fixed point moves nothing
    hw <- stats::kmeans(x, h$centers, iter.max = 100)
    expect_equal(hw$tot.withinss, objective_of(x, h$cluster), tolerance = 1e-10)
  }
  expect_gt(escaped, 0)
})

test_that("Hartigan's sweeps after the first, which skip the rows their bounds rule out, end at a fixed point (the exact criterion in R)", {
  # Overlapping clusters from a few Lloyd steps: many sweeps, most rows
  # ruled out by their bounds after the first. At the end no single move
  # lowers the objective: for every row and every other cluster b,
  # n_b / (n_b + 1) ||x - c_b||^2 >= n_a / (n_a - 1) ||x - c_a||^2.
  withr::local_seed(21)
  k <- 8L
  centres <- matrix(rnorm(k * 10, sd = 1.5), k)
  x <- centres[sample(k, 3000, TRUE), ] + matrix(rnorm(3000 * 10), 3000)
  l <- suppressWarnings(stats::kmeans(x, k, algorithm = "Lloyd", iter.max = 2))
  h <- kmreduce:::hartigan_cpp(x, l$cluster, k, 1000L, 1L)
  expect_true(h$converged)
  expect_gt(h$sweeps, 3)
  cl <- h$cluster
  m <- as.matrix(aggregate(x, list(cl), mean)[, -1])
  size <- tabulate(cl, k)
  d2 <- outer(rowSums(x^2), rep(1, k)) - 2 * x %*% t(m) + outer(rep(1, nrow(x)), rowSums(m^2))
  own <- d2[cbind(seq_len(nrow(x)), cl)] * ifelse(size[cl] > 1, size[cl] / (size[cl] - 1), 0)
  join <- sweep(d2, 2, size / (size + 1), "*")
  join[cbind(seq_len(nrow(x)), cl)] <- Inf
  expect_gte(min(apply(join, 1, min) - own), -1e-9 * sum(d2[cbind(seq_len(nrow(x)), cl)]))
  expect_equal(objective_of(x, cl) - objective_of(x, l$cluster), h$change, tolerance = 1e-8)
  expect_identical(kmreduce:::hartigan_cpp(x, l$cluster, k, 1000L, 2L), h)
})

test_that("hartigan_cpp rejects labels out of range", {
  x <- matrix(rnorm(20), 10)
  expect_error(kmreduce:::hartigan_cpp(x, c(rep(1L, 9), 3L), 2L, 10L, 1L), "labels")
})
