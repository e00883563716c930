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

test_that("power_iters = \"auto\" is one iteration unless the test vectors span the data", {
  pif <- kmreduce:::power_iters_for
  # k = 5 with 3k + 1 extra vectors (eps = 1/3): 21 columns
  expect_identical(pif("auto", 5, 16, 57, 22283), 1L)
  expect_identical(pif("auto", 5, 16, 1000, 21), 0L)
  expect_identical(pif("auto", 5, 16, 20, 1000), 0L)
  expect_identical(pif(3L, 5, 16, 57, 22283), 3L)
  expect_identical(kmreduce:::check_control(list())$power_iters, "auto")
  m <- make_mixture(n = 200, d = 60, k = 4, sd = 1, sep = 3)
  # the default is one iteration here (17 test vectors < 60 columns) ...
  auto <- kmeans_reduced(m$x, 4, method = "leverage", seed = 3)
  one <- kmeans_reduced(m$x, 4, method = "leverage", seed = 3, control = list(power_iters = 1))
  none <- kmeans_reduced(m$x, 4, method = "leverage", seed = 3, control = list(power_iters = 0))
  expect_identical(auto$reducer$scores, one$reducer$scores)
  expect_identical(auto$cluster, one$cluster)
  expect_false(identical(auto$reducer$scores, none$reducer$scores))
  expect_identical(leverage_scores(m$x, 4, seed = 3), auto$reducer$scores)
  expect_identical(leverage_scores(m$x, 4, seed = 3, power_iters = 0), none$reducer$scores)
  # ... and none on 15 columns (17 test vectors span them: the SVD is exact)
  narrow <- m$x[, 1:15]
  a15 <- kmeans_reduced(narrow, 4, method = "leverage", dims = 10, seed = 3)
  z15 <- kmeans_reduced(narrow, 4, method = "leverage", dims = 10, seed = 3,
                        control = list(power_iters = 0))
  expect_identical(a15$reducer$scores, z15$reducer$scores)
  expect_equal(unname(a15$reducer$scores), unname(leverage_scores(narrow, 4, "exact")),
               tolerance = 1e-8)
  # rsvd and cssp take it too; explicit numbers still work
  r_auto <- kmeans_reduced(m$x, 4, method = "rsvd", seed = 3)
  r_one <- kmeans_reduced(m$x, 4, method = "rsvd", seed = 3, control = list(power_iters = 1L))
  expect_identical(r_auto$cluster, r_one$cluster)
  expect_identical(r_auto$reducer$singular_values, r_one$reducer$singular_values)
  expect_silent(kmeans_reduced(m$x, 4, method = "cssp", dims = 5, seed = 3,
                               control = list(power_iters = 4)))
  # the same for 1 and 2 threads
  expect_identical(kmeans_reduced(m$x, 4, method = "leverage", seed = 3, n_threads = 2)$cluster,
                   auto$cluster)
  expect_error(kmeans_reduced(m$x, 4, method = "leverage", control = list(power_iters = "many")),
               "`control\\$power_iters` must be \"auto\" or a whole number in \\[0, 100\\], not \"many\"")
  expect_error(leverage_scores(m$x, 4, power_iters = -1),
               "`power_iters` must be \"auto\" or a whole number")
})
