
# kmeans_reduced(algorithm = ) with the meaning stats::kmeans() gives it:
# from the same initial centres the same partition as stats::kmeans(); from
# k-means++ the package's controls it stands for. The algorithms behind
# `control` have files of their own: test-lloyd.R, test-seeding.R,
# test-hartigan.R, test-polish.R (and test-minibatch.R, test-sketch.R).

# Clusters that touch, so that the algorithms have work to do.
algorithm_case <- function(n = 400, d = 4, k = 5, seed = 21) {
  m <- make_mixture(n = n, d = d, k = k, sd = 1.6, sep = 3, seed = seed)
  starts <- withr::with_seed(seed, sample(n, k))
  list(x = m$x, k = k, centres = m$x[starts, ])
}

test_that("from the same centres, Lloyd, Forgy and MacQueen give the partition of stats::kmeans()", {
  for (seed in c(21, 22, 23)) {
    cs <- algorithm_case(seed = seed)
    for (alg in c("Lloyd", "Forgy", "MacQueen")) {
      info <- paste(alg, seed)
      ref <- stats::kmeans(cs$x, cs$centres, iter.max = 100, algorithm = alg)
      fit <- kmeans_reduced(cs$x, cs$centres, method = "none", iter_max = 100, algorithm = alg,
                            control = list(tol = 0))
      expect_identical(unname(fit$cluster), unname(ref$cluster), info = info)
      expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10, info = info)
      expect_equal(unname(fit$centers), unname(ref$centers), tolerance = 1e-10, info = info)
      expect_equal(fit$size, ref$size, info = info)
      # the stats::kmeans() names run unchanged
      again <- kmeans_reduced(cs$x, centers = cs$centres, iter.max = 100, algorithm = alg,
                              method = "none", control = list(tol = 0))
      expect_identical(again$cluster, fit$cluster, info = info)
    }
  }
})

test_that("Hartigan-Wong from the same centres mostly stops where stats::kmeans() does", {
  # Both end at a partition no single move improves, by different sequences
  # of moves: on these touching clusters the same partition from most
  # starts, a nearby optimum (within 1 %, lower or higher) from the others.
  same <- 0
  for (seed in 21:40) {
    cs <- algorithm_case(seed = seed)
    ref <- stats::kmeans(cs$x, cs$centres, iter.max = 100, algorithm = "Hartigan-Wong")
    fit <- kmeans_reduced(cs$x, cs$centres, method = "none", iter_max = 100,
                          algorithm = "Hartigan-Wong", control = list(tol = 0))
    if (identical(unname(fit$cluster), unname(ref$cluster))) {
      same <- same + 1
      expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10, info = seed)
      expect_equal(unname(fit$centers), unname(ref$centers), tolerance = 1e-10, info = seed)
    }
    expect_lt(abs(fit$tot.withinss / ref$tot.withinss - 1), 0.01)
  }
  expect_gte(same, 12)
})

test_that("Hartigan-Wong ends at a Hartigan fixed point no higher than Lloyd's", {
  cs <- algorithm_case(n = 600, d = 6, k = 8, seed = 5)
  lloyd <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = "Lloyd")
  hw <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = "Hartigan-Wong")
  expect_lte(hw$tot.withinss, lloyd$tot.withinss * (1 + 1e-12))
  # no single move of a row lowers the objective
  x <- cs$x
  cl <- hw$cluster
  n_q <- tabulate(cl, cs$k)
  d2 <- as.matrix(dist(rbind(hw$centers, x)))[-seq_len(cs$k), seq_len(cs$k)]^2
  own <- d2[cbind(seq_along(cl), cl)]
  leave <- ifelse(n_q[cl] > 1, n_q[cl] / (n_q[cl] - 1), 0) * own
  join <- sweep(d2, 2, n_q / (n_q + 1), `*`)
  join[cbind(seq_along(cl), cl)] <- Inf
  expect_true(all(apply(join, 1, min) >= leave * (1 - 1e-9)))
})

test_that("with k-means++ seeding, algorithm stands for the package's controls", {
  cs <- algorithm_case(seed = 8)
  fit <- function(...) {
    f <- kmeans_reduced(cs$x, cs$k, method = "none", n_init = 4, seed = 3, ...)
    f[c("cluster", "centers", "tot.withinss", "iter")]
  }
  expect_identical(fit(algorithm = "Lloyd"),
                   fit(control = list(polish = "none", local_search = 0)))
  expect_identical(fit(algorithm = "Forgy"), fit(algorithm = "Lloyd"))
  expect_identical(fit(algorithm = "Hartigan-Wong"),
                   fit(control = list(polish = "hartigan", local_search = 0)))
  # algorithm overrides those controls
  expect_identical(fit(algorithm = "Lloyd", control = list(polish = "split_merge")),
                   fit(algorithm = "Lloyd"))
  # Hartigan's moves also after a single replicate
  one <- kmeans_reduced(cs$x, cs$k, method = "none", n_init = 1, seed = 3,
                        algorithm = "Hartigan-Wong")
  lloyd <- kmeans_reduced(cs$x, cs$k, method = "none", n_init = 1, seed = 3, algorithm = "Lloyd")
  expect_lte(one$tot.withinss, lloyd$tot.withinss)
  # stats::kmeans()'s whole default vector and partial names, as match.arg()
  expect_identical(fit(algorithm = c("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")),
                   fit(algorithm = "Hartigan-Wong"))
  expect_identical(fit(algorithm = "Mac"), fit(algorithm = "MacQueen"))
})

test_that("MacQueen from k-means++ reaches a fixed point, the same on 1 and 2 threads", {
  cs <- algorithm_case(n = 900, d = 8, k = 6, seed = 13)
  for (method in c("none", "sign")) {
    a <- kmeans_reduced(cs$x, cs$k, method = method, dims = 5, n_init = 3, seed = 2,
                        algorithm = "MacQueen", n_threads = 1)
    b <- kmeans_reduced(cs$x, cs$k, method = method, dims = 5, n_init = 3, seed = 2,
                        algorithm = "MacQueen", n_threads = 2)
    for (f in c("cluster", "centers", "tot.withinss", "iter", "reduced_centers")) {
      expect_identical(b[[f]], a[[f]], info = paste(method, f))
    }
    expect_identical(predict(a, cs$x), a$cluster)
    expect_equal(a$ifault, 0L)
  }
  # sparse rows and single precision take it too
  sp <- make_sparse_mixture(n = 300, d = 60, k = 3)
  s <- kmeans_reduced(sp$x, 3, method = "none", algorithm = "MacQueen", n_init = 2, seed = 1)
  expect_true(same_partition(s$cluster, sp$truth))
  f <- kmeans_reduced(cs$x, cs$k, method = "none", algorithm = "MacQueen", n_init = 2, seed = 1,
                      control = list(precision = "single"))
  expect_identical(predict(f, cs$x), f$cluster)
})

test_that("algorithm with weights: MacQueen and Hartigan-Wong minimise the weighted objective", {
  cs <- algorithm_case(n = 300, seed = 31)
  w <- withr::with_seed(2, runif(300, 0.2, 3))
  for (alg in c("MacQueen", "Hartigan-Wong", "Lloyd")) {
    fit <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = alg, weights = w)
    expect_equal(fit$tot.withinss, kmeans_objective(cs$x, fit$cluster, weights = w),
                 tolerance = 1e-12, info = alg)
    lloyd <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = "Lloyd", weights = w)
    if (alg == "Hartigan-Wong") expect_lte(fit$tot.withinss, lloyd$tot.withinss * (1 + 1e-12))
  }
})

test_that("a bad algorithm is refused by name", {
  x <- make_mixture(n = 40, d = 3)$x
  expect_error(kmeans_reduced(x, 2, algorithm = "Elkan"),
               "`algorithm` must be NULL \\(the package's default\\), one of \"Hartigan-Wong\", \"Lloyd\", \"Forgy\", \"MacQueen\" \\(as in stats::kmeans\\(\\)\\) or \"minibatch\", not \"Elkan\"")
  expect_error(kmeans_reduced(x, 2, algorithm = 1), "`algorithm` must be .* not 1")
  expect_error(kmeans_reduced(x, 2, algorithm = NA_character_), "`algorithm` must be")
  expect_error(kmeans_reduced(x, 2, algorithm = c("Lloyd", "MacQueen")),
               "`algorithm` must be .*not a character vector of length 2")
  expect_error(kmeans_reduced(x, 2, algorithm = ""), "`algorithm` must be")
  fake <- structure(list(x = x, n = nrow(x)), class = "kmreduce_mpi")
  expect_error(kmeans_reduced(fake, 2, algorithm = "MacQueen"),
               "`algorithm` \"MacQueen\" .*not available on distributed rows")
})
