test_that("Lloyd from given centres matches stats::kmeans(algorithm = 'Lloyd')", {
  for (s in 1:3) {
    m <- make_mixture(n = 400, d = 15, k = 4, sd = 3, sep = 3, seed = s)
    c0 <- m$x[c(1, 2, 3, 4) + 10 * s, ]
    ref <- stats::kmeans(m$x, centers = c0, algorithm = "Lloyd", iter.max = 200)
    fit <- kmeans_reduced(m$x, c0, method = "none", iter_max = 200,
                          control = list(tol = 0), seed = 1)
    expect_identical(unname(fit$cluster), unname(ref$cluster))
    expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10)
    expect_equal(unname(fit$centers), unname(ref$centers), tolerance = 1e-10)
    expect_equal(fit$size, ref$size)
    expect_equal(fit$totss, ref$totss, tolerance = 1e-10)
  }
})

test_that("method = 'none' is no worse than stats::kmeans with nstart = 10", {
  for (s in 1:3) {
    m <- make_mixture(n = 500, d = 10, k = 6, sd = 4, sep = 4, seed = 10 + s)
    ref <- withr::with_seed(s, stats::kmeans(m$x, 6, nstart = 10, iter.max = 100))
    fit <- kmeans_reduced(m$x, 6, method = "none", n_init = 10, seed = s)
    expect_lte(fit$tot.withinss, ref$tot.withinss * 1.001)
  }
})

test_that("all fields of stats::kmeans are present and computed on the original data", {
  m <- make_mixture()
  for (method in c("none", "sign", "leverage", "svd")) {
    fit <- kmeans_reduced(m$x, 3, method = method, seed = 3)
    expect_s3_class(fit, c("kmeans_reduced", "kmeans"), exact = TRUE)
    expect_true(all(names(stats::kmeans(m$x, 3)) %in% names(fit)))
    expect_equal(fit$tot.withinss, objective_r(m$x, fit$cluster), tolerance = 1e-10)
    expect_equal(fit$totss, sum(sweep(m$x, 2, colMeans(m$x))^2), tolerance = 1e-10)
    expect_equal(fit$betweenss, fit$totss - fit$tot.withinss)
    expect_equal(fit$size, as.vector(table(factor(fit$cluster, levels = 1:3))))
    means <- rowsum(m$x, fit$cluster) / fit$size
    expect_equal(unname(fit$centers), unname(means), tolerance = 1e-12)
    expect_identical(colnames(fit$centers), colnames(m$x))
    expect_equal(fit$sumsq, sum(m$x^2))
    expect_true(same_partition(fit$cluster, m$truth))
    expect_identical(fit$method, method)
    expect_named(fit$timing, c("reduce", "cluster", "total"))
  }
})

test_that("default dims follow the documentation", {
  m <- make_mixture(d = 50)
  expect_identical(kmeans_reduced(m$x, 3, method = "sign", seed = 1)$dims, 30L)
  expect_identical(kmeans_reduced(m$x, 3, method = "leverage", seed = 1)$dims, 50L)  # min(d, 30 k)
  m2 <- make_mixture(d = 200)
  expect_identical(kmeans_reduced(m2$x, 3, method = "leverage", seed = 1)$dims, 90L)
  expect_identical(kmeans_reduced(m2$x, 3, method = "sign", seed = 1)$dims, 30L)
  expect_identical(kmeans_reduced(m$x, 3, method = "svd", seed = 1)$dims, 3L)
  expect_identical(kmeans_reduced(m$x, 3, method = "none", seed = 1)$dims, 50L)
  expect_identical(kmeans_reduced(m$x[, 1:12], 3, method = "sign", seed = 1)$dims, 12L)
  expect_identical(kmeans_reduced(m$x, 3, seed = 1)$method, "sign")
})

test_that("same seed gives identical results; threads do not change them", {
  m <- make_mixture(n = 1000, d = 40, k = 5, sd = 6, sep = 3)
  for (method in c("none", "sign", "leverage", "svd")) {
    a <- kmeans_reduced(m$x, 5, method = method, seed = 7, n_init = 3)
    b <- kmeans_reduced(m$x, 5, method = method, seed = 7, n_init = 3)
    c2 <- kmeans_reduced(m$x, 5, method = method, seed = 7, n_init = 3, n_threads = 2)
    for (f in c("cluster", "centers", "withinss", "reduced_centers", "reduced", "iter")) {
      expect_identical(a[[f]], b[[f]])
      expect_identical(a[[f]], c2[[f]])
    }
  }
  s <- make_sparse_mixture()
  a <- kmeans_reduced(s$x, 3, method = "none", seed = 1, n_init = 2)
  b <- kmeans_reduced(s$x, 3, method = "none", seed = 1, n_init = 2, n_threads = 2)
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$centers, b$centers)
})

test_that("a given seed leaves R's RNG untouched; NULL draws from it", {
  m <- make_mixture()
  set.seed(99)
  before <- .Random.seed
  kmeans_reduced(m$x, 3, method = "leverage", seed = 5)
  expect_identical(.Random.seed, before)
  set.seed(1)
  a <- kmeans_reduced(m$x, 3, method = "sign")
  set.seed(1)
  b <- kmeans_reduced(m$x, 3, method = "sign")
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$seed, b$seed)
  expect_false(identical(.Random.seed, before))
})

test_that("sparse and dense input give the same result", {
  s <- make_sparse_mixture()
  for (method in c("none", "sign", "leverage", "svd")) {
    a <- kmeans_reduced(s$x, 3, method = method, seed = 4, n_init = 2)
    b <- kmeans_reduced(s$dense, 3, method = method, seed = 4, n_init = 2)
    expect_identical(a$cluster, b$cluster)
    expect_equal(a$centers, b$centers, tolerance = 1e-12)
    expect_equal(a$tot.withinss, b$tot.withinss, tolerance = 1e-10)
    expect_equal(a$tot.withinss, objective_r(s$dense, a$cluster), tolerance = 1e-10)
  }
  # other sparse classes are converted
  tx <- methods::as(s$x, "TsparseMatrix")
  expect_identical(kmeans_reduced(tx, 3, method = "none", seed = 4, n_init = 2)$cluster,
                   kmeans_reduced(s$x, 3, method = "none", seed = 4, n_init = 2)$cluster)
})

test_that("data frames and integer matrices are accepted; names flow through", {
  df <- iris[, 1:4]
  rownames(df) <- paste0("r", seq_len(nrow(df)))
  fit <- kmeans_reduced(df, 3, method = "none", seed = 1)
  expect_identical(colnames(fit$centers), names(df))
  expect_identical(names(fit$cluster), rownames(df))
  ref <- withr::with_seed(1, stats::kmeans(df, 3, nstart = 10))
  expect_lte(fit$tot.withinss, ref$tot.withinss * 1.001)
  xi <- matrix(as.integer(round(as.matrix(df) * 10)), nrow(df))
  expect_silent(kmeans_reduced(xi, 3, method = "none", seed = 1))
})

test_that("the papers' reductions keep the objective close to full k-means", {
  m <- make_mixture(n = 600, d = 200, k = 5, sd = 5, sep = 2, seed = 5)
  full <- kmeans_reduced(m$x, 5, method = "none", seed = 1)
  for (method in c("sign", "leverage", "svd")) {
    fit <- kmeans_reduced(m$x, 5, method = method, seed = 1, dims = if (method == "svd") 5 else 50)
    expect_lte(fit$tot.withinss, full$tot.withinss * 1.05)
  }
})

test_that("edge cases: k = 1, k = n distinct rows, duplicated rows, constant data", {
  m <- make_mixture(n = 30, d = 5)
  fit1 <- kmeans_reduced(m$x, 1, method = "none", seed = 1)
  expect_true(all(fit1$cluster == 1L))
  expect_equal(fit1$tot.withinss, fit1$totss)
  fitn <- kmeans_reduced(m$x, 30, method = "none", seed = 1)
  expect_equal(sort(fitn$size), rep(1L, 30))
  expect_equal(fitn$tot.withinss, 0)
  dup <- rbind(m$x[1:3, ], m$x[1:3, ], m$x[1:3, ])
  fitd <- kmeans_reduced(dup, 3, method = "none", seed = 1)
  expect_equal(fitd$tot.withinss, 0)
  expect_equal(sort(fitd$size), c(3L, 3L, 3L))
  # leverage with few distinct projected rows still gives k non-empty clusters
  z <- cbind(rep(0:1, 10), 0, 0)
  expect_equal(sort(kmeans_reduced(z, 2, method = "leverage", seed = 1)$size), c(10L, 10L))
})

test_that("non-convergence warns and sets ifault = 2", {
  m <- make_mixture(n = 500, d = 10, k = 8, sd = 5, sep = 2)
  expect_warning(fit <- kmeans_reduced(m$x, 8, method = "none", iter_max = 1, seed = 1,
                                       control = list(tol = 0)),
                 "did not converge in 1 iteration")
  expect_identical(fit$ifault, 2L)
  expect_true(all(fit$size > 0))
})

test_that("tiny and huge scales, d = 1, n = k and rank-deficient data give correct partitions", {
  m <- make_mixture(n = 90, d = 6, k = 3, sd = 0.5, sep = 6)
  ref <- kmeans_reduced(m$x, 3, method = "none", seed = 1)$cluster
  for (s in c(1e-130, 1e150)) {  # (the accepted range starts at 6.7e-139)
    for (method in c("none", "sign", "srht", "sparse_embedding", "leverage", "rsvd")) {
      fit <- kmeans_reduced(m$x * s, 3, method = method, dims = 3, seed = 1)
      expect_true(same_partition(fit$cluster, m$truth), label = paste(method, s))
      expect_true(is.finite(fit$tot.withinss))
    }
  }
  x1 <- matrix(c(rnorm(20), rnorm(20, 50)), ncol = 1)
  expect_true(same_partition(kmeans_reduced(x1, 2, method = "none", seed = 1)$cluster, rep(1:2, each = 20)))
  expect_true(same_partition(kmeans_reduced(x1, 2, method = "sign", dims = 1, seed = 1)$cluster, rep(1:2, each = 20)))
  fit <- kmeans_reduced(m$x[1:3, ], 3, method = "none", seed = 1)
  expect_equal(sort(fit$size), c(1L, 1L, 1L))
  # rank 2 in 6 columns
  rd <- cbind(m$x[, 1:2], m$x[, 1:2] %*% matrix(rnorm(8), 2, 4))
  for (method in c("leverage", "cssp", "svd", "rsvd")) {
    expect_silent(kmeans_reduced(rd, 3, method = method, dims = 2, seed = 1))
  }
})

test_that("sparse matrices with more than 2^31 cells work with every sparse method", {
  skip_on_cran()
  big <- withr::with_seed(1, Matrix::sparseMatrix(
    i = sample(100000, 100000, TRUE), j = sample(50000, 100000, TRUE), x = 1,
    dims = c(100000, 50000)))
  # (every method but the exact SVD, which densifies, and CSSP, whose 40
  # repeats are slow at this size)
  for (method in setdiff(all_methods, c("svd", "cssp"))) {
    # (Lloyd may need more than 100 iterations on these random columns)
    fit <- withCallingHandlers(
      kmeans_reduced(big, 3, method = method, dims = 6, seed = 1, n_init = 1),
      warning = function(w) {
        if (grepl("did not converge", conditionMessage(w))) invokeRestart("muffleWarning")
      })
    expect_identical(length(fit$cluster), 100000L, label = method)
    expect_equal(sum(fit$size), 100000L)
  }
  expect_error(kmeans_reduced(big, 3, method = "svd", seed = 1), "exact SVD would densify it")
})

test_that("verbose = TRUE reports every stage and replicate, and changes nothing", {
  m <- make_mixture(n = 200, d = 30, k = 3)
  expect_silent(quiet <- kmeans_reduced(m$x, 3, method = "sign", dims = 6, n_init = 3, seed = 4))
  msgs <- testthat::capture_messages(
    loud <- kmeans_reduced(m$x, 3, method = "sign", dims = 6, n_init = 3, seed = 4, refine = 2, verbose = TRUE))
  expect_match(msgs[1], "kmreduce: reducing 200 x 30: random sign projection to 6 dimensions")
  expect_identical(sum(grepl("replicate [1-3]/3: [0-9]+ Lloyd iterations, objective", msgs)), 3L)
  expect_true(any(grepl("k = 3, 3 k-means\\+\\+ replicates\n", msgs)))
  msgs1 <- testthat::capture_messages(
    kmeans_reduced(m$x, 3, method = "none", n_init = 1, seed = 4, verbose = TRUE,
                   control = list(seeding = "k-means||")))
  expect_true(any(grepl("k = 3, 1 k-means\\|\\| replicate\n", msgs1)))
  expect_true(any(grepl("objective on the original data", msgs)))
  expect_true(any(grepl("refined with", msgs)))
  # the polish is reported whether or not it lowered the objective
  expect_true(any(grepl("Hartigan moves from the [1-3] best replicates?:", msgs)))
  ref <- kmeans_reduced(m$x, 3, method = "sign", dims = 6, n_init = 3, seed = 4, refine = 2)
  expect_identical(loud$cluster, ref$cluster)
  expect_identical(loud$centers, ref$centers)
  expect_identical(quiet$cluster, kmeans_reduced(m$x, 3, method = "sign", dims = 6, n_init = 3, seed = 4,
                                                  verbose = FALSE)$cluster)
  expect_error(kmeans_reduced(m$x, 3, verbose = "yes"), "`verbose` must be TRUE or FALSE, not \"yes\"")
})

test_that("method = 'none' takes its statistics in one pass from Lloyd's means, equal to the general two sweeps", {
  m <- make_mixture(n = 1003, d = 29)
  for (k in c(3L, 16L, 17L)) {
    fit <- kmeans_reduced(m$x, k, method = "none", n_init = 2, seed = 5,
                          control = list(tol = 0))
    two <- kmreduce:::cluster_stats_cpp(m$x, fit$cluster, k, 1L)
    expect_equal(unname(fit$centers), unname(two$centers), tolerance = 1e-13)
    expect_equal(fit$withinss, two$withinss, tolerance = 1e-13)
    expect_equal(fit$totss, two$totss, tolerance = 1e-13)
    expect_equal(fit$sumsq, two$sumsq, tolerance = 1e-13)
    expect_equal(fit$size, two$size)
    expect_equal(fit$tot.withinss, objective_r(m$x, fit$cluster), tolerance = 1e-12)
    # the one-pass path itself, with the means given
    one <- kmreduce:::cluster_stats_cpp(m$x, fit$cluster, k, 2L,
                                        rowsum(m$x, fit$cluster) / two$size)
    expect_equal(one$withinss, two$withinss, tolerance = 1e-13)
    expect_equal(one$totss, two$totss, tolerance = 1e-13)
  }
})

test_that("a reduction that merges rows into fewer than k distinct ones warns", {
  x <- cbind(rep(c(0, 1), each = 10), rep(c(0, 1), 10))
  expect_warning(kmeans_reduced(x, 4, method = "leverage", dims = 1, seed = 1,
                                control = list(sampling = "top")),
                 "fewer than k = 4 distinct rows")
  expect_warning(kmeans_reduced(x, 4, method = "none", seed = 1), NA)
})

test_that("an offset of 1e4, 1e8 or 1e12 gives the partition without offset, every method", {
  # k-means is translation invariant; distances computed as ||x||^2 + ||c||^2
  # - 2 x.c are not, unless the rows are centred (as they are here).
  m <- make_mixture(n = 240, d = 30, k = 3, sd = 1, sep = 3, seed = 21)
  for (method in c("none", all_methods)) {
    for (refine in c(0L, 2L)) {
      base <- kmeans_reduced(m$x, 3, method = method, dims = 6, seed = 4, n_init = 2,
                             refine = refine)
      for (offset in c(1e4, 1e8, 1e12)) {
        xo <- m$x + offset
        fit <- kmeans_reduced(xo, 3, method = method, dims = 6, seed = 4, n_init = 2,
                              refine = refine)
        label <- sprintf("%s, refine %d, offset %g", method, refine, offset)
        expect_identical(adjusted_rand_index(fit$cluster, base$cluster), 1, label = label)
        # (x + 1e12 itself holds the values to about 1e-4 only)
        expect_equal(fit$tot.withinss, base$tot.withinss, tolerance = 1e-5, label = label)
        expect_equal(fit$totss, base$totss, tolerance = 1e-5, label = label)
        expect_equal(fit$centers - offset, base$centers, tolerance = 1e-3, label = label,
                     ignore_attr = TRUE)
        expect_identical(predict(fit, xo), fit$cluster, label = label)
      }
    }
  }
})

test_that("one replicate on data far from the origin: labels nearest to the returned centres", {
  # Lloyd rounds its centres to the shift of the rows, so that they come back
  # exactly in the data's coordinates: no pass to relabel the rows after it.
  m <- make_mixture(n = 3000, d = 12, k = 9, sd = 1, sep = 1, seed = 23)
  for (offset in c(0, 0.1, 1e6, 1e10)) {
    xo <- m$x + offset
    for (seeding in c("k-means++", "k-means||")) {
      for (threads in 1:2) {
        fit <- kmeans_reduced(xo, 9, method = "none", seed = 3, n_init = 1, n_threads = threads,
                              control = list(seeding = seeding))
        label <- sprintf("offset %g, %s, %d threads", offset, seeding, threads)
        expect_identical(predict(fit, xo), fit$cluster, label = label)
        means <- rowsum(xo, fit$cluster) / as.vector(table(fit$cluster))
        expect_equal(unname(fit$centers), unname(means), tolerance = 1e-10,
                     label = label)
        expect_equal(fit$tot.withinss, objective_r(xo, fit$cluster),
                     tolerance = if (offset < 1e10) 1e-10 else 1e-6, label = label)
        if (threads == 1) one <- fit else expect_identical(fit$cluster, one$cluster, label = label)
      }
    }
  }
})

test_that("data far from the origin out of core give the in-memory partition", {
  skip_if_not_installed("bigmemory")
  m <- make_mixture(n = 150, d = 20, k = 3, sd = 1, sep = 3, seed = 22)
  xo <- unname(m$x) + 1e10
  b <- bigmemory::as.big.matrix(xo)
  for (method in c("sign", "rsvd")) {
    a <- kmeans_reduced(xo, 3, method = method, dims = 5, seed = 2, n_init = 2, refine = 1)
    s <- kmeans_reduced(b, 3, method = method, dims = 5, seed = 2, n_init = 2, refine = 1,
                        control = list(block_rows = 40))
    expect_identical(adjusted_rand_index(s$cluster, m$truth), 1, label = method)
    expect_identical(s$cluster, a$cluster, label = method)
    expect_identical(predict(s, xo), s$cluster, label = method)
  }
})

test_that("rows merged by the reduction: a warning, k clusters, predict() gives the labels back", {
  set.seed(5)
  # One column with two values carries all the variance: keeping only it
  # leaves two distinct reduced rows for k = 3.
  x <- cbind(a = rep(c(0, 10), length.out = 60), matrix(rnorm(60 * 9, sd = 0.01), 60, 9))
  for (tol in c(1e-6, 0)) {
    expect_warning(
      fit <- kmeans_reduced(x, 3, method = "leverage", dims = 1, seed = 1, iter_max = 50,
                            control = list(sampling = "top", tol = tol)),
      "fewer than k = 3 distinct rows.*refined on the original data")
    expect_identical(nrow(unique(fit$reduced)), 2L)
    expect_identical(fit$refine, 1L)
    expect_true(all(fit$size > 0))
    expect_identical(predict(fit, x), fit$cluster)
    # Lloyd on the merged rows stops instead of cycling to iter_max.
    expect_lt(fit$iter, 50L)
    expect_identical(fit$ifault, 0L)
  }
  # Lloyd itself, on data with fewer distinct rows than k and tol = 0: an
  # empty cluster is not re-seeded with a duplicate row over and over.
  y <- matrix(rep(c(0, 1), each = 10), 20, 1)
  km <- kmreduce:::kmeans_cpp(y, list(k = 3L, n_init = 1L, iter_max = 100L, tol = 0, seed = 1))
  expect_true(km$converged)
  expect_lt(km$iter, 100L)
})

test_that("the argument names of stats::kmeans() work, and a vector is one feature", {
  m <- make_mixture(n = 150, d = 8, k = 3, sd = 1, sep = 4)
  a <- kmeans_reduced(m$x, 3, method = "none", n_init = 4, iter_max = 20, seed = 2)
  b <- kmeans_reduced(m$x, centers = 3, nstart = 4, iter.max = 20, method = "none", seed = 2)
  expect_identical(b$cluster, a$cluster)
  expect_identical(b$centers, a$centers)
  # initial centres under their stats::kmeans() name
  init <- m$x[c(1, 2, 3), ]
  expect_identical(kmeans_reduced(m$x, centers = init, method = "none", seed = 1)$cluster,
                   kmeans_reduced(m$x, init, method = "none", seed = 1)$cluster)
  expect_error(kmeans_reduced(m$x, 3, centers = 3), "Give `k` or `centers`")
  expect_error(kmeans_reduced(m$x, 3, n_init = 2, nstart = 2), "Give `n_init` or `nstart`")
  expect_error(kmeans_reduced(m$x, 3, iter_max = 2, iter.max = 2), "Give `iter_max` or `iter.max`")
  expect_error(kmeans_reduced(m$x), "`k` \\(or `centers`")
  # one feature as a plain vector, as stats::kmeans() takes it
  v <- c(rnorm(50), rnorm(50, 10))
  fv <- kmeans_reduced(v, 2, method = "none", seed = 1)
  ref <- stats::kmeans(v, 2, nstart = 5)
  expect_equal(fv$tot.withinss, ref$tot.withinss, tolerance = 1e-10)
  expect_equal(adjusted_rand_index(fv$cluster, ref$cluster), 1)
  expect_identical(predict(fv, v), fv$cluster)
  # a single row of a fit with several features, as a vector
  expect_identical(predict(a, m$x[5, ]), unname(a$cluster[5]))
})

test_that("errors and warnings name `centers`, `nstart`, `iter.max` when those were given", {
  m <- make_mixture(n = 150, d = 8, k = 3, sd = 1, sep = 4)
  x <- m$x
  bad <- rbind(x[1:2, ], NA)
  # initial centres
  expect_error(kmeans_reduced(x, centers = bad), "^`centers` must contain only finite numbers")
  expect_error(kmeans_reduced(x, bad), "^`k` must contain only finite numbers")
  expect_error(kmeans_reduced(x, centers = x[1:2, 1:3]),
               "^`centers` given as a matrix of initial centres must have 8 columns")
  expect_error(kmeans_reduced(x, centers = rbind(x, x)),
               "^`centers` given as a matrix of initial centres must have at most 150 rows")
  expect_error(kmeans_reduced(x, centers = data.frame(a = c(1, NA), b = 1, c = 1, d = 1, e = 1,
                                                      f = 1, g = 1, h = 1)),
               "^`centers` must contain only finite numbers")
  expect_error(kmeans_reduced(x, centers = Matrix::Matrix(bad, sparse = TRUE)),
               "^`centers` must contain only finite numbers")
  # a number of clusters
  expect_error(kmeans_reduced(x, centers = 0), "^`centers` must be a whole number in \\[1, 150\\]")
  expect_error(kmeans_reduced(x, centers = 2.5), "^`centers` must be a whole number")
  expect_error(kmeans_reduced(x, centers = "a"), "^`centers` must be a whole number .*not \"a\"")
  expect_error(kmeans_reduced(x, 0), "^`k` must be a whole number in \\[1, 150\\]")
  expect_error(kmeans_reduced(rbind(x[1:3, ], x[1:3, ]), centers = 4),
               "^`centers` must be a whole number in \\[1, 3\\] \\(the number of distinct rows")
  # replicates and iterations
  expect_error(kmeans_reduced(x, 3, nstart = 0), "^`nstart` must be a whole number in \\[1, 1e\\+06\\], not 0")
  expect_error(kmeans_reduced(x, 3, n_init = 0), "^`n_init` must be a whole number")
  expect_error(kmeans_reduced(x, 3, iter.max = 0), "^`iter\\.max` must be a whole number in \\[1, 1e\\+08\\], not 0")
  expect_error(kmeans_reduced(x, 3, iter_max = 0), "^`iter_max` must be a whole number")
  expect_warning(kmeans_reduced(x, 8, method = "none", seed = 1, iter.max = 1),
                 "Lloyd did not converge in 1 iterations; increase `iter\\.max`\\.")
  expect_warning(kmeans_reduced(x, 8, method = "none", seed = 1, iter_max = 1),
                 "Lloyd did not converge in 1 iterations; increase `iter_max`\\.")
  expect_warning(kmeans_reduced(x, 8, method = "sign", seed = 1, iter.max = 1, dims = "auto"),
                 "increase `iter\\.max`")
  expect_warning(kmeans_reduced(x, 3, method = "none", seed = 1, algorithm = "minibatch",
                                iter.max = 1, control = list(batch_size = 10, tol = 0)),
                 "increase `iter\\.max`")
})

test_that("dims = \"auto\" clusters each size afresh and from the best so far", {
  m <- make_mixture(n = 300, d = 200, k = 4, sd = 3, sep = 1)
  fit <- kmeans_reduced(m$x, 4, method = "sign", dims = "auto", seed = 3)
  steps <- fit$dims_auto
  expect_identical(kmreduce:::auto_dims_schedule("sign", 4, 300, 200), c(8L, 16L, 32L, 64L, 100L))
  expect_identical(steps$dims, kmreduce:::auto_dims_schedule("sign", 4, 300, 200)[seq_len(nrow(steps))])
  expect_gte(nrow(steps), 2L)
  # each size: kmeans_reduced() at that dims with the seed (fresh), and from
  # the centres of the best partition so far (warm); the better is kept
  best <- Inf
  bests <- numeric(0)
  best_centres <- NULL
  for (i in seq_len(nrow(steps))) {
    fresh <- kmeans_reduced(m$x, 4, method = "sign", dims = steps$dims[i], seed = 3)
    expect_equal(steps$fresh[i], fresh$tot.withinss)
    run <- fresh
    if (i == 1L) {
      expect_true(is.na(steps$warm[i]))
    } else {
      warm <- kmeans_reduced(m$x, best_centres, method = "sign", dims = steps$dims[i], seed = 3,
                             n_init = 1)
      expect_equal(steps$warm[i], warm$tot.withinss)
      if (warm$tot.withinss < fresh$tot.withinss) run <- warm
    }
    expect_equal(steps$objective[i], run$tot.withinss)
    if (run$tot.withinss < best) {
      best <- run$tot.withinss
      best_centres <- run$centers
    }
    bests[i] <- best
    # it stopped at the first size where the best gained < 1 % over two
    # doublings, not before
    done <- i >= 3L && bests[i] >= bests[i - 2L] * 0.99
    if (i < nrow(steps)) expect_false(done, label = sprintf("stop rule at size %d", i))
  }
  if (nrow(steps) < 5L) expect_true(done)
  expect_identical(fit$dims, steps$dims[which.min(steps$objective)])
  expect_equal(fit$tot.withinss, min(steps$objective))
  expect_identical(predict(fit, m$x), fit$cluster)
  expect_output(print(summary(fit)), "chosen by dims = \"auto\" \\(tried 8, 16")
  # a looser tolerance stops no later
  f2 <- kmeans_reduced(m$x, 4, method = "sign", dims = "auto", seed = 3,
                       control = list(dims_tol = 0.5))
  expect_lte(nrow(f2$dims_auto), nrow(steps))
  # SVD extraction starts at k; every projection and selection method runs
  expect_identical(kmeans_reduced(m$x, 4, method = "rsvd", dims = "auto", seed = 1)$dims_auto$dims[1],
                   4L)
  for (method in c(methods_of("projection"), "leverage")) {
    f <- kmeans_reduced(m$x, 4, method = method, dims = "auto", seed = 1)
    expect_true(f$dims %in% f$dims_auto$dims, label = method)
  }
  expect_error(kmeans_reduced(m$x, 4, dims = "auto", n_reductions = 2),
               "`dims = \"auto\"` chooses one reduction")
  expect_error(reduce_dims(m$x, "sign", dims = "auto"), "`dims = \"auto\"` is for kmeans_reduced()")
  expect_error(kmeans_reduced(m$x, 4, dims = "auto", control = list(dims_tol = 2)),
               "`control\\$dims_tol` must be a number in \\[0, 1\\)")
})

test_that("dims = \"auto\" does not stop at the first size without a gain", {
  done <- kmreduce:::auto_dims_done
  # fewer than three sizes never stop it
  expect_false(done(100, 0.01))
  expect_false(done(c(100, 100), 0.01))
  # one doubling without a gain (the best stalls): goes on
  expect_false(done(c(110, 100, 100), 0.01))
  # a gain of 5 % over the last two doublings: goes on
  expect_false(done(c(105, 100, 100), 0.01))
  # the best stalled at the second size, gained at the third: goes on
  expect_false(done(c(110, 100, 100, 95), 0.01))
  # less than 1 % over two doublings: stops
  expect_true(done(c(110, 100, 99.5, 99.2), 0.01))
  expect_true(done(c(100, 100, 100), 0.01))
})

test_that("dims = \"auto\" ends no higher than warm starts alone, on a trap", {
  skip_on_cran()
  # Expression-like data: 120 samples, 2000 genes of unequal noise, 6 groups
  # differing on 100 genes. Warm starts alone (each size Lloyd from the best
  # partition of the smaller ones, stopping at the first doubling that gains
  # less than 1 %, the rule before) keep the partition of 12 selected
  # columns.
  x <- withr::with_seed(3, {
    lab <- rep_len(1:6, 120)
    mu <- matrix(0, 6, 2000)
    mu[, 1:100] <- matrix(rnorm(600), 6)
    mu[lab, ] + matrix(rnorm(120 * 2000), 120) * rep(rexp(2000), each = 120)
  })
  fit <- kmeans_reduced(x, 6, method = "leverage", dims = "auto", n_init = 3, seed = 2)
  sched <- kmreduce:::auto_dims_schedule("leverage", 6, 120, 2000)
  best <- kmeans_reduced(x, 6, method = "leverage", dims = sched[1], n_init = 3, seed = 2)
  for (dd in sched[-1]) {
    f <- kmeans_reduced(x, best$centers, method = "leverage", dims = dd, n_init = 3, seed = 2)
    gained <- f$tot.withinss < best$tot.withinss * 0.99
    if (f$tot.withinss < best$tot.withinss) best <- f
    if (!gained) break
  }
  expect_lt(fit$tot.withinss, best$tot.withinss)
})

test_that("dims = \"auto\" is identical for 1 and 2 threads", {
  m <- make_mixture(n = 400, d = 120, k = 3, sd = 2, sep = 1)
  f1 <- kmeans_reduced(m$x, 3, dims = "auto", seed = 5, n_threads = 1)
  f2 <- kmeans_reduced(m$x, 3, dims = "auto", seed = 5, n_threads = 2)
  cols <- c("dims", "objective", "fresh", "warm")
  expect_identical(f1$dims_auto[cols], f2$dims_auto[cols])
  expect_identical(f1$cluster, f2$cluster)
  expect_identical(f1$centers, f2$centers)
})

test_that("method = \"auto\" clusters narrow data as they are (d <= 10 k), and reduces wider data", {
  set.seed(3)
  x <- matrix(rnorm(200 * 30), 200)
  expect_identical(kmeans_reduced(x, 3, seed = 1)$method, "none")      # 30 <= 30
  expect_identical(kmeans_reduced(x, 2, seed = 1)$method, "sign")      # 30 > 20
  xs <- Matrix::rsparsematrix(200, 30, 0.2)
  expect_identical(kmeans_reduced(xs, 3, seed = 1)$method, "none")
  expect_identical(kmeans_reduced(xs, 2, seed = 1)$method, "sparse_embedding")
})

test_that("the default is never worse than stats::kmeans(nstart = 10) on small classic data sets", {
  sets <- list(iris = as.matrix(iris[, 1:4]), faithful = as.matrix(faithful),
               trees = as.matrix(trees), quakes = as.matrix(quakes[, 1:4]),
               USArrests = as.matrix(USArrests), swiss = as.matrix(swiss),
               attitude = as.matrix(attitude), rock = as.matrix(rock))
  for (nm in names(sets)) for (k in 2:5) for (s in 1:3) {
    x <- sets[[nm]]
    ref <- withr::with_seed(s, stats::kmeans(x, k, nstart = 10)$tot.withinss)
    fit <- kmeans_reduced(x, k, seed = s)
    expect_identical(fit$method, "none")
    expect_lte(fit$tot.withinss, ref * 1.001, label = sprintf("%s, k = %d, seed %d", nm, k, s))
  }
})

test_that("a fit stopped by iter_max keeps nearest-centre labels when its last pass empties a cluster", {
  # One Lloyd iteration from these centres re-seeds an empty cluster; the
  # final assignment then empties another, which used to be re-seeded after
  # the last assignment: equal rows in different clusters, predict() !=
  # cluster. Every fit: labels nearest to the centres predict() uses (ties
  # to the lowest index), `centers` the means of their rows.
  x <- matrix(c(4, 4, 3, 3, 1, 3, 1, 4, 4), ncol = 1)
  c0 <- matrix(c(0.3805565, 1.5486073, 0.3385992, 3.4325504), ncol = 1)
  check <- function(fit, label) {
    expect_identical(unname(predict(fit, x)), unname(fit$cluster), label = label)
    # equal rows share a cluster
    expect_true(all(tapply(fit$cluster, x[, 1], function(v) length(unique(v))) == 1L),
                label = label)
    used <- sort(unique(fit$cluster))
    means <- rowsum(x, fit$cluster) / as.vector(table(fit$cluster))
    expect_equal(unname(fit$centers[used, , drop = FALSE]), unname(means), label = label)
    expect_equal(fit$tot.withinss, objective_r(x, fit$cluster), label = label)
  }
  for (sparse in c(FALSE, TRUE)) {
    xs <- if (sparse) Matrix::Matrix(x, sparse = TRUE) else x
    check(suppressWarnings(kmeans_reduced(xs, c0, method = "none", iter_max = 1)),
          paste("none, sparse", sparse))
  }
  r <- kmreduce:::lloyd_cpp(x, c0, list(iter_max = 1L, tol = 0, n_threads = 1L))
  expect_identical(kmreduce:::predict_nearest_cpp(x, r$centers, 1L), r$cluster)
  rb <- kmreduce:::lloyd_cpp(kmreduce:::cpp_source(read = function(a, b) x[a:b, , drop = FALSE],
                                                   n = nrow(x), d = 1L, block_rows = 4),
                             c0, list(iter_max = 1L, tol = 0, n_threads = 1L))
  expect_identical(rb$cluster, r$cluster)
  # refine = 1 after reductions that merge rows, in memory and out of core:
  # the same invariant over many small data sets with many equal rows.
  has_big <- requireNamespace("bigmemory", quietly = TRUE)
  for (s in 1:40) {
    y <- withr::with_seed(s, matrix(as.double(sample(0:4, 24 * 3, TRUE)), 24, 3))
    k <- min(4L, nrow(unique(y)))
    fit <- suppressWarnings(kmeans_reduced(y, k, method = "sign", dims = 1, refine = 1,
                                           seed = s, n_init = 1))
    expect_identical(predict(fit, y), fit$cluster, label = paste("seed", s))
    means <- rowsum(y, fit$cluster) / as.vector(table(fit$cluster))
    expect_equal(unname(fit$centers[sort(unique(fit$cluster)), , drop = FALSE]), unname(means),
                 label = paste("seed", s))
    if (has_big) {
      fb <- suppressWarnings(kmeans_reduced(bigmemory::as.big.matrix(y), k, method = "sign",
                                            dims = 1, refine = 1, seed = s, n_init = 1,
                                            control = list(block_rows = 5)))
      # (its statistics sum in another order: on rows with many equal
      # distances the refinement may break a tie the other way)
      expect_identical(predict(fb, y), fb$cluster, label = paste("big, seed", s))
      means <- rowsum(y, fb$cluster) / as.vector(table(fb$cluster))
      expect_equal(unname(fb$centers[sort(unique(fb$cluster)), , drop = FALSE]), unname(means),
                   label = paste("big, seed", s))
    }
  }
})

test_that("scaling the data by 1e-100 or 1e100 gives the same partition, every method, with the polish", {
  # k-means is scale-equivariant. The split/merge polish normalised its power
  # iteration vectors by sqrt(sum(w^2)), which overflows or underflows far
  # from unit scale and changed the partition.
  m <- make_mixture(n = 400, d = 30, k = 8, sd = 1, sep = 1.5, seed = 31)
  for (method in c("none", all_methods)) {
    base <- kmeans_reduced(m$x, 6, method = method, n_init = 4, seed = 3)
    for (s in c(2^300, 2^-300, 1e100, 1e-100)) {
      fit <- kmeans_reduced(m$x * s, 6, method = method, n_init = 4, seed = 3)
      label <- sprintf("%s, scale %g", method, s)
      expect_identical(adjusted_rand_index(fit$cluster, base$cluster), 1, label = label)
      expect_equal(fit$tot.withinss / s^2, base$tot.withinss, tolerance = 1e-10, label = label)
      expect_equal(fit$centers / s, base$centers, tolerance = 1e-10, label = label)
    }
  }
  xs <- Matrix::Matrix(round(m$x), sparse = TRUE)
  base <- kmeans_reduced(xs, 6, method = "none", n_init = 4, seed = 3)
  for (s in c(2^300, 1e-100)) {
    fit <- kmeans_reduced(xs * s, 6, method = "none", n_init = 4, seed = 3)
    expect_identical(adjusted_rand_index(fit$cluster, base$cluster), 1, label = paste("sparse", s))
  }
})

test_that("data too small for their squares are refused, all zero data are not", {
  m <- make_mixture(n = 60, d = 4, k = 2)
  tiny <- m$x * 1e-140
  msg <- "`x` has no value larger than .* squared distances would underflow"
  for (method in c("none", "sign", "sparse_embedding")) {
    expect_error(kmeans_reduced(tiny, 2, method = method), msg, label = method)
    expect_error(kmeans_reduced(Matrix::Matrix(tiny, sparse = TRUE), 2, method = method), msg)
  }
  expect_error(k_path(tiny, k = 1:2, B = 0, verbose = FALSE), msg)
  expect_error(kmeans_objective(tiny, rep(1:2, 30)), msg)
  # the smallest accepted scale still gives the unit-scale partition
  lo <- kmreduce:::min_abs_value() / max(abs(m$x)) * 2
  expect_identical(kmeans_reduced(m$x * lo, 2, method = "none", seed = 1)$cluster,
                   kmeans_reduced(m$x, 2, method = "none", seed = 1)$cluster)
  expect_identical(kmeans_reduced(m$x * 0, 1)$tot.withinss, 0)
  # rows to assign may be of any size
  fit <- kmeans_reduced(m$x, 2, seed = 1)
  expect_identical(length(predict(fit, tiny[1:3, ])), 3L)
  skip_if_not_installed("bigmemory")
  expect_error(kmeans_reduced(bigmemory::as.big.matrix(tiny), 2, method = "sign"), msg)
  # a big.matrix whose first block is tiny but not the rest is accepted
  mixed <- rbind(tiny[1:30, ], m$x[31:60, ])
  expect_silent(kmeans_reduced(bigmemory::as.big.matrix(mixed), 2, method = "sign", seed = 1,
                               control = list(block_rows = 30)))
})

test_that("sparse data far from zero give the partition of the dense data (\"none\", refine)", {
  # Sparse rows are not shifted: at an offset of 1e8 the distances
  # ||x||^2 + ||c||^2 - 2 x.c of Lloyd on them (method "none", refine) had
  # no digit left. Such a matrix is nearly all nonzeros: clustered as dense.
  m <- make_mixture(n = 120, d = 5, k = 4, sd = 1, sep = 1, seed = 51)
  y <- round(m$x * 1024) / 1024
  sp <- function(v) methods::as(methods::as(v, "generalMatrix"), "CsparseMatrix")
  for (o in c(1e4, 1e8)) {
    for (args in list(list(method = "none"), list(method = "rsvd", dims = 2, refine = 2))) {
      base <- do.call(kmeans_reduced, c(list(y, 8, seed = 3, n_init = 1), args))
      fit <- do.call(kmeans_reduced, c(list(sp(y + o), 8, seed = 3, n_init = 1), args))
      label <- sprintf("%s, offset %g", args$method, o)
      expect_identical(adjusted_rand_index(fit$cluster, base$cluster), 1, label = label)
      expect_identical(predict(fit, sp(y + o)), fit$cluster, label = label)
      expect_equal(fit$tot.withinss, base$tot.withinss, tolerance = 1e-8, label = label)
    }
  }
  # (a sparse matrix near zero stays sparse)
  expect_s4_class(kmreduce:::dense_if_far_from_zero(sp(y)), "dgCMatrix")
})

test_that("empty clusters left by a merging reduction start refine at the grand mean, whatever the offset", {
  # An Achlioptas map of one column to one dimension is 0 with probability
  # 2/3: every reduced row equal, four of five clusters empty, refine forced.
  # Their statistics' centres were 0, wherever the data sit, so the
  # refinement depended on the offset (objective 405 at the origin, 1205 at
  # 1e4; a case of tools/fuzz/fuzz_invariants.R).
  y <- withr::with_seed(300064, {
    n <- sample(c(12, 40, 120, 300), 1L); d <- sample(c(1, 2, 5, 12, 40), 1L)
    K <- sample(1:6, 1L); sep <- sample(c(1, 3, 10), 1L)
    centres <- matrix(rnorm(K * d, sd = sep), K, d)
    round((centres[sample(K, n, TRUE), , drop = FALSE] + matrix(rnorm(n * d), n, d)) * 1024) / 1024
  })
  fit <- function(v) suppressWarnings(kmeans_reduced(v, 5, method = "achlioptas", dims = 1, n_init = 3,
                                                     seed = 495320, control = list(precision = "single")))
  f <- fit(y)
  expect_true(all(f$reduced == 0))
  expect_identical(f$refine, 1L)
  for (o in c(1e4, -1e8)) {
    fo <- fit(y + o)
    expect_identical(adjusted_rand_index(fo$cluster, f$cluster), 1, label = paste("offset", o))
    expect_equal(fo$tot.withinss, f$tot.withinss, tolerance = 1e-8, label = paste("offset", o))
  }
})

test_that("wide data with fewer rows than dims: the same partition in any units", {
  # CSSP's default dims on 12 x 40 data is 12, one more than the rank of the
  # centred rows: the 12th singular vector is any null vector, chosen by
  # rounding, and so was one selected column (x * 3 or x * 1e-10 gave another
  # partition). Greedy k-means++ then broke exact ties between candidates by
  # the rounding of their potentials. (Cases of tools/fuzz/fuzz_invariants.R.)
  for (s in 1:6) {
    x <- withr::with_seed(s, matrix(rnorm(12 * 40, sd = 3), 12, 40) +
                            matrix(rnorm(3 * 40, sd = 10), 3, 40)[rep(1:3, 4), ])
    for (method in c("cssp", "leverage", "svd", "rsvd")) {
      base <- kmeans_reduced(x, 6, method = method, seed = s, n_init = 1, refine = 2)
      for (sc in c(3, 1e-10, 1e-100)) {
        fit <- kmeans_reduced(x * sc, 6, method = method, seed = s, n_init = 1, refine = 2)
        label <- sprintf("%s, data %d, scale %g", method, s, sc)
        expect_identical(adjusted_rand_index(fit$cluster, base$cluster), 1, label = label)
        expect_equal(fit$tot.withinss / sc^2, base$tot.withinss, tolerance = 1e-9, label = label)
      }
    }
  }
  # the null directions are 0
  r <- reduce_dims(withr::with_seed(1, matrix(rnorm(12 * 40), 12)), "svd", dims = 12)
  expect_identical(unname(r$rotation[, 12]), rep(0, 40))
})

test_that("a partition with an empty cluster is an error, or a warning with fewer distinct rows than centres", {
  # (Lloyd and mini-batch k-means re-seed empty clusters and a merging
  # reduction is refined on the original rows: one left empty means
  # distances double precision cannot tell apart, or more centres given
  # than distinct rows)
  x <- make_mixture(n = 30, d = 2)$x
  src <- kmreduce:::as_row_source(x)
  expect_error(kmreduce:::check_no_empty(c(3L, 0L, 2L, 0L), src),
               "left 2 of the k = 4 clusters empty.*Rescale or transform `x`")
  expect_true(kmreduce:::check_no_empty(c(3L, 1L), src))
  y <- x[rep(1:2, 15), ]
  expect_warning(fit <- kmeans_reduced(y, y[1:3, ], method = "none"),
                 "`x` has fewer distinct rows than the k = 3 centres: 1 cluster is left empty")
  expect_identical(sort(unname(fit$size)), c(0L, 15L, 15L))
})
