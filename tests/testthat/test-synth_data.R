test_that("synth_data() follows section 7 of Boutsidis et al. (2015)", {
  s <- synth_data(seed = 1)
  expect_identical(dim(s$x), c(1000L, 2000L))
  expect_identical(s$truth, rep(1:5, each = 200))
  expect_identical(dim(s$centers), c(5L, 2000L))
  expect_true(all(s$centers >= 0 & s$centers <= 2000))
  # unit-variance Gaussians around the centres (the centres not in the data)
  noise <- s$x - s$centers[s$truth, ]
  expect_equal(mean(noise), 0, tolerance = 0.01)
  expect_equal(stats::var(as.vector(noise)), 1, tolerance = 0.01)
  expect_false(any(apply(s$x, 1, function(r) any(colSums(abs(t(s$centers) - r)) == 0))))
  # centres spread uniformly over [0, 2000]
  expect_equal(mean(s$centers), 1000, tolerance = 0.02)
  # a seed reproduces the data and leaves R's random number state alone
  withr::with_seed(7, {
    before <- .Random.seed
    s2 <- synth_data(n_per = 10, k = 3, d = 20, seed = 1)
    expect_identical(.Random.seed, before)
  })
  expect_identical(synth_data(n_per = 10, k = 3, d = 20, seed = 1), s2)
  expect_false(identical(synth_data(n_per = 10, k = 3, d = 20, seed = 2)$x, s2$x))
  # every method finds the five well separated clusters at 20 dimensions
  fit <- kmeans_reduced(s$x, 5, dims = 20, seed = 1)
  expect_identical(cluster_accuracy(fit$cluster, s$truth), 1)
  expect_error(synth_data(side = 0), "`side` must be a positive number")
  expect_error(synth_data(k = 0), "`k` must be a whole number")
})

test_that("dims_path(protocol = \"paper\") runs the paper's protocol", {
  s <- synth_data(n_per = 20, k = 3, d = 60, side = 20, seed = 2)
  p <- dims_path(s$x, 3, methods = "sign", dims = c(5, 10), truth = s$truth, seed = 4,
                 protocol = "paper", verbose = FALSE)
  r <- as.data.frame(p)
  # five runs per method and dims, and of the reference
  expect_identical(as.integer(table(paste(r$method, r$dims))), c(5L, 5L, 5L))
  for (i in c(1L, 7L)) {
    fit <- kmeans_reduced(s$x, 3, method = r$method[i], dims = r$dims[i], seed = r$seed[i],
                          n_init = 5, iter_max = 500)
    expect_equal(r$objective[i], fit$tot.withinss)
  }
  expect_error(dims_path(s$x, 3, methods = "sign", dims = 5, protocol = "paper", n_init = 2,
                         verbose = FALSE),
               "`protocol = \"paper\"` sets `n_init`: give the protocol or them, not both")
  expect_error(dims_path(s$x, 3, methods = "sign", dims = 5, protocol = "book", verbose = FALSE),
               "`protocol` must be one of \"custom\", \"paper\"")
})

test_that("distinct seeds give distinct data; seeds set.seed() cannot take are refused", {
  # seed %% .Machine$integer.max mapped 0 and 2^31 - 1 (and -1 and 2^31 - 2)
  # to the same data.
  one <- function(seed) synth_data(n_per = 3, k = 2, d = 4, seed = seed)$x
  expect_false(identical(one(0), one(2^31 - 1)))
  expect_false(identical(one(-1), one(2^31 - 2)))
  expect_false(identical(one(-(2^31 - 1)), one(2^31 - 1)))
  expect_identical(one(7), one(7))
  for (bad in list(2^31, -2^31, 2^40, 1.5, NA, "1")) {
    expect_error(synth_data(seed = bad), "`seed` must be NULL or a whole number in \\[-2147483647, 2147483647\\]")
  }
})
