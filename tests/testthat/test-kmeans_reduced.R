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

# Squared distances of every row to every centre, by definition.
brute_dist2 <- function(x, centres) {
  outer(seq_len(nrow(x)), seq_len(nrow(centres)),
        Vectorize(function(i, q) sum((x[i, ] - centres[q, ])^2)))
}

test_that("data too large to copy are read in place or packed block by block, with the same results", {
  set.seed(2)
  x <- matrix(rnorm(5003 * 21), 5003, 21) + 1e3  # far from the origin: shifted rows
  x[1:2000, ] <- x[1:2000, ] + 4
  # wider than one chunk of 48 columns, k above one group of 12 centres,
  # k-means|| seeding and the local search (second nearest labels)
  w <- matrix(rnorm(3001 * 61), 3001, 61) + rep(rnorm(15 * 61, sd = 0.7), length.out = 3001 * 61)
  wide <- function() {
    list(kmeans_reduced(w, 15, method = "none", seed = 5, n_init = 2,
                        control = list(seeding = "k-means||", local_search = 2)),
         kmeans_reduced(w, 15, method = "none", seed = 6, n_init = 2, n_threads = 2))
  }
  copied <- kmeans_reduced(x, 7, method = "none", seed = 3, n_init = 3)
  copied_wide <- wide()
  old <- kmreduce:::packed_copy_limit_cpp(0)  # no copy for any size
  on.exit(kmreduce:::packed_copy_limit_cpp(old))
  streamed <- kmeans_reduced(x, 7, method = "none", seed = 3, n_init = 3)
  streamed1 <- kmeans_reduced(x, 7, method = "none", seed = 3, n_init = 3, n_threads = 1)
  streamed_wide <- wide()
  expect_identical(streamed$cluster, copied$cluster)
  expect_identical(streamed$centers, copied$centers)
  expect_identical(streamed$tot.withinss, copied$tot.withinss)
  for (i in 1:2) {
    expect_identical(streamed_wide[[i]]$cluster, copied_wide[[i]]$cluster)
    expect_identical(streamed_wide[[i]]$centers, copied_wide[[i]]$centers)
    expect_identical(streamed_wide[[i]]$tot.withinss, copied_wide[[i]]$tot.withinss)
  }
  expect_identical(streamed1$cluster, streamed$cluster)
  expect_identical(streamed1$centers, streamed$centers)
  expect_identical(predict(streamed, x[1:50, ]), predict(copied, x[1:50, ]))
  # against stats::kmeans from the same centres
  ref <- stats::kmeans(x, streamed$centers, iter.max = 50, algorithm = "Lloyd")
  expect_identical(unname(ref$cluster), unname(streamed$cluster))
})

test_that("greedy k-means++ keeps the candidate of lowest potential, exactly as by brute force", {
  # rows spread over several 256-row blocks, duplicated rows (a candidate at
  # distance 0 from a seed) and k large enough for 8 candidates per step
  # (wide rows, d >= 16 trials: the blocks where most rows move keep their
  # distances instead of recomputing them)
  for (case in list(list(seed = 1, k = 40, n = 700, dup = 0, d = 4),
                    list(seed = 2, k = 25, n = 600, dup = 150, d = 4),
                    list(seed = 3, k = 3, n = 300, dup = 0, d = 4),
                    list(seed = 4, k = 6, n = 600, dup = 40, d = 70))) {
    m <- make_mixture(n = case$n, d = case$d, k = 6, sd = 1, sep = 3)
    x <- unname(m$x)
    if (case$dup > 0) x[seq_len(case$dup), ] <- x[rep(1:5, length.out = case$dup), ]
    res <- kmreduce:::kmeanspp_trace_cpp(x, case$k, case$seed, 1L)
    expect_length(res$trace, case$k - 1L)
    first <- which(apply(x, 1, function(r) all(r == res$seeds[1, ])))
    expect_true(length(first) >= 1L)
    dmin <- rowSums(sweep(x, 2, res$seeds[1, ])^2)
    for (q in seq_along(res$trace)) {
      st <- res$trace[[q]]
      expect_length(st$candidates, 2L + floor(log(case$k)))
      # the potential with each candidate, by definition
      pots <- vapply(st$candidates, function(r) sum(pmin(dmin, rowSums(sweep(x, 2, x[r, ])^2))), 0)
      expect_equal(st$potentials, pots, tolerance = 1e-12)
      expect_identical(st$chosen, as.numeric(which.min(st$potentials)))
      chosen <- x[st$candidates[st$chosen], ]
      expect_identical(res$seeds[q + 1, ], chosen)
      dmin <- pmin(dmin, rowSums(sweep(x, 2, chosen)^2))
    }
    # the assignment handed to Lloyd: nearest and second nearest seed
    dd <- brute_dist2(x, res$seeds)
    srt <- t(apply(dd, 1, sort))
    expect_equal(res$nearest, srt[, 1], tolerance = 1e-9)
    if (case$k > 1) expect_equal(res$second, srt[, 2], tolerance = 1e-9)
    expect_equal(dd[cbind(seq_len(nrow(x)), res$label)], srt[, 1], tolerance = 1e-9)
    # every seed is in its own cluster, duplicated rows or not
    expect_setequal(unique(res$label), seq_len(case$k))
    expect_identical(kmreduce:::kmeanspp_trace_cpp(x, case$k, case$seed, 2L), res)
  }
})

test_that("local search after k-means++ takes the best swap of its candidates and never raises the cost", {
  for (case in list(list(seed = 1, k = 8, sep = 2), list(seed = 2, k = 5, sep = 4),
                    list(seed = 3, k = 12, sep = 1))) {
    m <- make_mixture(n = 240, d = 5, k = case$k, sd = 1, sep = case$sep)
    x <- unname(m$x)
    res <- kmreduce:::local_search_cpp(x, case$k, 12L, case$seed, 1L)
    centres <- res$seeds
    cost_of <- function(cc) sum(apply(brute_dist2(x, cc), 1, min))
    before <- numeric(0)
    for (st in res$trace) {
      now <- cost_of(centres)
      expect_equal(st$before, now, tolerance = 1e-9)
      before <- c(before, now)
      # every (candidate, centre) swap by brute force: the reported one is the best
      costs <- outer(seq_along(st$candidates), seq_len(case$k), Vectorize(function(t, q) {
        cc <- centres
        cc[q, ] <- x[st$candidates[t], ]
        cost_of(cc)
      }))
      expect_equal(st$after, min(costs), tolerance = 1e-9)
      expect_equal(costs[st$candidate, st$centre], min(costs), tolerance = 1e-9)
      expect_identical(st$swapped, st$after < st$before * (1 - 1e-12))
      if (st$swapped) centres[st$centre, ] <- x[st$candidates[st$candidate], ]
    }
    expect_true(all(diff(before) <= 0))
    expect_identical(res$centers, centres)
    expect_true(res$swaps >= 1L)
    # the assignment handed to Lloyd is the nearest / second nearest centre
    dd <- brute_dist2(x, centres)
    srt <- t(apply(dd, 1, sort))
    expect_equal(res$nearest, srt[, 1], tolerance = 1e-9)
    expect_equal(res$second, srt[, 2], tolerance = 1e-9)
    expect_identical(res$label, max.col(-dd, ties.method = "first"))
    expect_equal(cost_of(centres), min(res$cost, cost_of(centres)), tolerance = 1e-9)
    # the same result with 2 threads
    expect_identical(kmreduce:::local_search_cpp(x, case$k, 12L, case$seed, 2L), res)
  }
})

test_that("replicates with local search lower the objective on a noisy wide mixture", {
  m <- withr::with_seed(4, {
    centres <- matrix(rnorm(10 * 200, sd = 0.5), 10, 200)
    truth <- sample(10, 3000, TRUE)
    list(x = centres[truth, ] + matrix(rnorm(3000 * 200), 3000, 200), truth = truth)
  })
  planted <- kmeans_objective(m$x, m$truth)
  obj <- function(ls, s) {
    # the local search alone (without the split/merge polish, which reaches
    # the planted partition from both)
    kmeans_reduced(m$x, 10, method = "none", n_init = 2, seed = s,
                   control = list(local_search = ls, polish = "none"))$tot.withinss
  }
  without <- vapply(1:6, function(s) obj(0, s), numeric(1))
  with <- vapply(1:6, function(s) obj(NULL, s), numeric(1))
  expect_lt(mean(with / planted), mean(without / planted))
  # k steps: most runs reach the planted partition
  longer <- vapply(1:6, function(s) obj(10, s), numeric(1))
  expect_lt(median(longer / planted), 1 + 1e-6)
  # one replicate: plain k-means++, the local search does nothing
  expect_identical(
    kmeans_reduced(m$x, 10, method = "none", n_init = 1, seed = 3)$cluster,
    kmeans_reduced(m$x, 10, method = "none", n_init = 1, seed = 3,
                   control = list(local_search = 0))$cluster)
  expect_error(kmeans_reduced(m$x, 10, control = list(local_search = -1)),
               "`control\\$local_search` must be a whole number in \\[0, 1e\\+06\\], not -1")
})

test_that("k-means|| seeding: candidates, weights, costs and the seeds' assignment agree with brute force", {
  for (case in list(list(seed = 1, k = 6, sep = 3, ell = 2, rounds = 5, n = 400),
                    list(seed = 2, k = 10, sep = 1, ell = 0.5, rounds = 3, n = 400),
                    list(seed = 3, k = 1, sep = 2, ell = 2, rounds = 2, n = 400),
                    list(seed = 4, k = 23, sep = 2, ell = 2, rounds = 3, n = 1013))) {
    m <- make_mixture(n = case$n, d = 6, k = max(2, case$k), sd = 1, sep = case$sep)
    x <- unname(m$x)
    res <- kmreduce:::kmeans_parallel_cpp(x, case$k, case$seed, case$ell, case$rounds, 1L)
    cand <- res$candidates
    expect_false(res$fallback)
    expect_true(all(cand >= 1 & cand <= nrow(x) & cand == round(cand)))
    expect_false(anyDuplicated(cand) > 0)
    expect_length(res$phi, case$rounds + 1L)
    # the cost after the first candidate, and after the last round
    expect_equal(res$phi[1], sum(brute_dist2(x, x[cand[1], , drop = FALSE])), tolerance = 1e-9)
    dc <- brute_dist2(x, x[cand, , drop = FALSE])
    expect_equal(tail(res$phi, 1), sum(apply(dc, 1, min)), tolerance = 1e-9)
    expect_true(all(diff(res$phi) <= 1e-9 * res$phi[1]))
    # weights: the rows nearest to each candidate
    expect_equal(res$weights, tabulate(max.col(-dc, ties.method = "first"), length(cand)))
    # the seeds: a fixed point of weighted Lloyd on the candidates
    cc <- x[cand, , drop = FALSE]
    dq <- brute_dist2(cc, res$seeds)
    near <- max.col(-dq, ties.method = "first")
    for (q in unique(near)) {
      w <- res$weights[near == q]
      expect_equal(res$seeds[q, ], colSums(cc[near == q, , drop = FALSE] * w) / sum(w),
                   tolerance = 1e-9)
    }
    # the assignment handed to Lloyd (and the local search)
    dd <- brute_dist2(x, res$seeds)
    expect_equal(res$nearest, apply(dd, 1, min), tolerance = 1e-9)
    if (case$k > 1) {
      expect_equal(res$second, apply(dd, 1, function(v) sort(v)[2]), tolerance = 1e-9)
      expect_identical(res$label, max.col(-dd, ties.method = "first"))
      expect_identical(res$second_label, apply(dd, 1, function(v) order(v)[2]))
    } else {
      expect_true(all(is.infinite(res$second)))
    }
    # the same for any number of threads
    expect_identical(kmreduce:::kmeans_parallel_cpp(x, case$k, case$seed, case$ell,
                                                    case$rounds, 2L), res)
  }
})

test_that("k-means|| samples each row with probability min(1, l D^2 / phi)", {
  m <- make_mixture(n = 300, d = 4, k = 5, sd = 1, sep = 2)
  x <- unname(m$x)
  k <- 5
  ell <- 1.5
  z <- vapply(1:300, function(s) {
    res <- kmreduce:::kmeans_parallel_cpp(x, k, s, ell / k, 1L, 1L)
    d2 <- brute_dist2(x, x[res$candidates[1], , drop = FALSE])[, 1]
    p <- pmin(1, ell * d2 / sum(d2))
    c(length(res$candidates) - 1, sum(p), sum(p * (1 - p)))
  }, numeric(3))
  # the number sampled in round 1: a sum of independent Bernoulli draws
  expect_lt(abs(sum(z[1, ] - z[2, ])) / sqrt(sum(z[3, ])), 4)
})

test_that("kmeans_reduced() with k-means|| seeding: a Lloyd fixed point, the planted partition, any thread count", {
  m <- make_mixture(n = 6000, d = 12, k = 8, sd = 1, sep = 4)
  fit <- kmeans_reduced(m$x, 8, method = "none", seed = 5, n_init = 3,
                        control = list(seeding = "k-means||"))
  expect_identical(adjusted_rand_index(fit$cluster, m$truth), 1)
  ref <- stats::kmeans(m$x, fit$centers, algorithm = "Lloyd", iter.max = 50)
  expect_identical(unname(ref$cluster), unname(fit$cluster))
  expect_equal(ref$tot.withinss, fit$tot.withinss, tolerance = 1e-10)
  fit2 <- kmeans_reduced(m$x, 8, method = "none", seed = 5, n_init = 3, n_threads = 2,
                         control = list(seeding = "k-means||"))
  expect_identical(fit2$cluster, fit$cluster)
  expect_identical(fit2$centers, fit$centers)
  # reduced data and options
  fs <- kmeans_reduced(m$x, 8, method = "gaussian", dims = 6, seed = 5,
                       control = list(seeding = "k-means||", oversampling = 4, rounds = 2))
  expect_gt(adjusted_rand_index(fs$cluster, m$truth), 0.95)
  expect_error(kmeans_reduced(m$x, 8, control = list(seeding = "kmeans||")),
               "`control\\$seeding` must be one of \"auto\", \"k-means\\+\\+\", \"k-means\\|\\|\", not \"kmeans\\|\\|\"")
  expect_error(kmeans_reduced(m$x, 8, control = list(oversampling = 0)),
               "`control\\$oversampling` must be a number in \\(0, 1e\\+06\\), not 0")
  expect_error(kmeans_reduced(m$x, 8, control = list(rounds = 0)),
               "`control\\$rounds` must be a whole number in \\[1, 1000\\], not 0")
})

test_that("k-means|| falls back to k-means++ when too few candidates have rows", {
  x <- cbind(rep(c(0, 5, 10), each = 40), 0)
  res <- kmreduce:::kmeans_parallel_cpp(x, 3L, 1, 2, 5L, 1L)
  expect_false(res$fallback)
  expect_setequal(res$seeds[, 1], c(0, 5, 10))
  # four seeds from three distinct rows: greedy k-means++ on the rows
  res <- kmreduce:::kmeans_parallel_cpp(x, 4L, 1, 2, 5L, 1L)
  expect_true(res$fallback)
  expect_true(all(res$seeds[, 1] %in% c(0, 5, 10)))
  fit <- kmeans_reduced(x, 3, method = "none", seed = 1, control = list(seeding = "k-means||"))
  expect_equal(fit$tot.withinss, 0)
})

# Brute force for Hartigan's moves: the objective of a labelling, and every
# single-row move's change, each computed from scratch.
objective_of <- function(x, cl) {
  sum(vapply(split(seq_len(nrow(x)), cl), function(i) {
    sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2)
  }, 0))
}
best_single_move <- function(x, cl, k) {
  base <- objective_of(x, cl)
  best <- 0
  for (r in seq_len(nrow(x))) {
    if (sum(cl == cl[r]) < 2) next
    for (q in setdiff(seq_len(k), cl[r])) {
      cl2 <- cl
      cl2[r] <- q
      best <- min(best, objective_of(x, cl2) - base)
    }
  }
  best
}

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

test_that("the default search (split/merge, then Hartigan) never ends above the best replicate and is a fixed point of both moves", {
  set.seed(3)
  x <- rbind(matrix(rnorm(60 * 5, 0), 60), matrix(rnorm(50 * 5, 2.5), 50),
             matrix(rnorm(40 * 5, -2.5), 40), matrix(rnorm(30 * 5, 5), 30))
  for (s in 1:3) {
    opt <- list(k = 5L, n_init = 4L, iter_max = 100L, tol = 0, seed = s, n_threads = 1L,
                local_search = 2L, polish = "split_merge", tries = 10L, split_rounds = 5L)
    r <- kmreduce:::kmeans_cpp(x, opt)
    expect_lte(r$objective, min(r$objectives) * (1 + 1e-12))
    expect_equal(r$objective, objective_of(x, r$cluster), tolerance = 1e-10)
    expect_gte(best_single_move(x, r$cluster, 5L), -1e-9 * r$objective)
    # the split/merge moves tried are each at least the result
    expect_true(all(r$split_objectives >= r$objective * (1 - 1e-12)))
    expect_identical(
      kmreduce:::kmeans_cpp(x, modifyList(opt, list(n_threads = 2L))),
      r)
  }
})

test_that("polish_starts = \"auto\" polishes the best replicates until the lowest result is reached twice", {
  # uniform data: many optima close together, so the polished starts often
  # disagree (seeds 2, 5) or agree at once (seed 13)
  # (no bound on the polish's work here: the test after this one has it)
  fit <- function(x, s, starts, threads = 1L) {
    kmreduce:::kmeans_cpp(x, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                  n_threads = threads, local_search = 2L, polish = "split_merge",
                                  tries = 5L, split_rounds = 5L, polish_work = -1,
                                  polish_starts = if (starts == 0L) "auto" else starts))
  }
  used <- integer()
  for (s in c(2, 5, 13)) {
    set.seed(s)
    x <- matrix(runif(300 * 4), 300)
    auto <- fit(x, s, 0L)
    m <- auto$polish_starts
    used <- c(used, m)
    expect_true(m >= 2L && m <= 6L)
    # the same as polishing that many (the passes aside: "auto" also scans
    # the replicates it did not polish), and never above polishing two
    expect_identical(fit(x, s, m)[names(auto) != "passes"], auto[names(auto) != "passes"])
    expect_lte(auto$objective, fit(x, s, 2L)$objective * (1 + 1e-12))
    expect_identical(fit(x, s, 0L, threads = 2L), auto)
    # stopped before the last replicate: the last start polished tied with
    # the lowest (it did not lower it), so one start fewer gives the same
    if (m < 6L) {
      expect_equal(fit(x, s, m - 1L)$objective, auto$objective, tolerance = 1e-10)
    }
  }
  # both ways of stopping occur: at two starts, and later
  expect_true(any(used == 2L))
  expect_true(any(used > 2L))
  # seed 5: the extra starts find a lower objective than the two best
  set.seed(5)
  x <- matrix(runif(300 * 4), 300)
  expect_lt(fit(x, 5, 0L)$objective, fit(x, 5, 2L)$objective * (1 - 1e-4))
})

test_that("polish_starts = \"auto\" polishes a start after the first only while the polish's passes are below the replicates' iterations", {
  fit <- function(x, s, starts, threads = 1L, work = NULL) {
    kmreduce:::kmeans_cpp(x, c(list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                    n_threads = threads, local_search = 2L,
                                    polish = "split_merge", tries = 5L, split_rounds = 5L,
                                    polish_starts = if (starts == 0L) "auto" else starts),
                               if (!is.null(work)) list(polish_work = work)))
  }
  # uniform data, seed 5: without a bound "auto" polishes more than two starts
  set.seed(5)
  x <- matrix(runif(300 * 4), 300)
  free <- fit(x, 5, 0L, work = -1)
  expect_gt(free$polish_starts, 2L)
  # the default bound: at least the best replicate, at most as many as unbounded
  auto <- fit(x, 5, 0L)
  expect_true(auto$polish_starts >= 1L && auto$polish_starts <= free$polish_starts)
  expect_lte(auto$objective, min(auto$objectives))
  expect_identical(fit(x, 5, 0L, threads = 2L), auto)
  expect_identical(fit(x, 5, 0L), auto)
  # a bound of no work: the best replicate alone is polished, as with
  # polish_starts = 1, and no other replicate gets Hartigan's moves
  none <- fit(x, 5, 0L, work = 0)
  expect_identical(none$polish_starts, 1L)
  one <- fit(x, 5, 1L)
  expect_identical(none$cluster, one$cluster)
  expect_identical(none$objective, one$objective)
  # a bound the polish never reaches: the same as no bound
  expect_identical(fit(x, 5, 0L, work = 1e6), free)
  expect_error(fit(x, 5, 0L, work = "a"), "polish_work")
  # the R option: Inf is no bound, 0 the best replicate alone
  r_fit <- function(work) {
    kmeans_reduced(x, 8, method = "none", n_init = 6, seed = 5,
                   control = list(polish_work = work, local_search = 2L, tries = 5L))
  }
  expect_lte(r_fit(2)$tot.withinss, r_fit(0)$tot.withinss * (1 + 1e-12))
  expect_identical(r_fit(Inf)$cluster, r_fit(1e9)$cluster)
})

test_that("polish_starts = \"auto\" stops when two starts reach the same split/merge result", {
  fit <- function(x, s, confirm, threads = 1L) {
    kmreduce:::kmeans_cpp(x, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                  n_threads = threads, local_search = 2L,
                                  polish = "split_merge", tries = 5L, split_rounds = 5L,
                                  polish_starts = "auto", polish_work = -1,
                                  split_confirm = confirm))
  }
  set.seed(5)
  x <- matrix(runif(300 * 4), 300)
  never <- fit(x, 5, -1)
  expect_gt(never$polish_starts, 2L)
  # a tolerance every pair of results meets: the second start confirms
  expect_identical(fit(x, 5, 1)$polish_starts, 2L)
  # the default tolerance (1e-6) stops no later than none
  def <- fit(x, 5, 1e-6)
  expect_lte(def$polish_starts, never$polish_starts)
  expect_lte(def$objective, min(def$objectives))
  expect_identical(fit(x, 5, 1e-6, threads = 2L), def)
})

test_that("polish_starts = \"auto\": a lowest replicate reached twice gets Hartigan's moves only, identical for 1 and 2 threads", {
  fit <- function(x, polish, starts, threads = 1L, n_init = 6L) {
    kmreduce:::kmeans_cpp(x, list(k = 5L, n_init = n_init, iter_max = 100L, tol = 1e-6, seed = 3,
                                  n_threads = threads, local_search = 1L,
                                  polish = c("none", "hartigan", "split_merge")[polish + 1L],
                                  tries = 3L, split_rounds = 5L,
                                  polish_starts = if (starts == 0L) "auto" else starts))
  }
  # separated clusters: every replicate ends at the same partition
  set.seed(21)
  x <- matrix(rnorm(1000 * 6), 1000) + rep(rnorm(5 * 6, sd = 8), each = 200)
  auto <- fit(x, 2L, 0L)
  expect_true(sum(abs(auto$objectives - min(auto$objectives)) <= 1e-10 * min(auto$objectives)) >= 2L)
  expect_identical(auto$polish_starts, 1L)
  expect_identical(auto$split_tries, 0L)
  # the same as Hartigan's moves from the best replicate
  hw <- fit(x, 1L, 1L)
  expect_identical(auto$cluster, hw$cluster)
  expect_identical(auto$objective, hw$objective)
  # bitwise the same for 2 threads and a second run
  expect_identical(fit(x, 2L, 0L, threads = 2L), auto)
  expect_identical(fit(x, 2L, 0L), auto)
  # one replicate reaching the lowest: split/merge runs
  set.seed(5)
  u <- matrix(runif(300 * 4), 300)
  one <- kmreduce:::kmeans_cpp(u, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = 5,
                                       n_threads = 1L, local_search = 2L, polish = "split_merge",
                                       tries = 5L, split_rounds = 5L, polish_starts = "auto",
                                       polish_work = -1))
  expect_gte(one$polish_starts, 2L)
})

test_that("the polish never raises the objective (split/merge, Hartigan, auto starts)", {
  for (s in 1:6) {
    set.seed(100 + s)
    k <- 3L + s
    x <- matrix(rnorm(400 * 5), 400) + rep(rnorm(k * 5, sd = 1.5), length.out = 400 * 5)
    x[sample(length(x), 20)] <- rnorm(20, sd = 10)
    base <- kmeans_reduced(x, k, method = "none", n_init = 5, seed = s,
                           control = list(polish = "none"))
    for (p in c("auto", "split_merge", "hartigan")) {
      for (starts in list("auto", 1L, 3L)) {
        f <- kmeans_reduced(x, k, method = "none", n_init = 5, seed = s,
                            control = list(polish = p, polish_starts = starts))
        expect_lte(f$tot.withinss, base$tot.withinss * (1 + 1e-12))
      }
    }
  }
})

test_that("control$polish: auto is split/merge for several replicates, none for one; results independent of threads", {
  set.seed(8)
  x <- matrix(rnorm(600 * 30), 600) + rep(rnorm(6 * 30, sd = 0.6), each = 100)
  one <- kmeans_reduced(x, 6, method = "none", n_init = 1, seed = 4)
  expect_identical(kmeans_reduced(x, 6, method = "none", n_init = 1, seed = 4,
                                  control = list(polish = "none"))$cluster, one$cluster)
  fits <- lapply(c("auto", "split_merge", "hartigan", "none"), function(p) {
    kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4, control = list(polish = p))
  })
  expect_identical(fits[[1]]$cluster, fits[[2]]$cluster)
  expect_lte(fits[[2]]$tot.withinss, fits[[3]]$tot.withinss * (1 + 1e-12))
  expect_lte(fits[[3]]$tot.withinss, fits[[4]]$tot.withinss * (1 + 1e-12))
  two <- kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4, n_threads = 2)
  expect_identical(two$cluster, fits[[1]]$cluster)
  expect_identical(two$centers, fits[[1]]$centers)
  # the fit is a Hartigan fixed point on the data (the Hartigan-Wong of
  # stats::kmeans from its centres moves nothing)
  hw <- stats::kmeans(x, fits[[1]]$centers, iter.max = 50)
  expect_equal(hw$tot.withinss, fits[[1]]$tot.withinss, tolerance = 1e-10)
  # polishing the 3 best replicates: the first two are polished as by the
  # default (2), so
  # never higher
  three <- kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4,
                          control = list(polish_starts = 3))
  expect_lte(three$tot.withinss, fits[[1]]$tot.withinss * (1 + 1e-12))
  expect_identical(kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4, n_threads = 2,
                                  control = list(polish_starts = 3))$cluster, three$cluster)
  expect_error(kmeans_reduced(x, 6, control = list(polish_starts = 0)), "control\\$polish_starts")
  expect_error(kmeans_reduced(x, 6, control = list(polish_starts = "all")), "control\\$polish_starts")
  expect_identical(kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4,
                                  control = list(polish_starts = "auto"))$cluster, fits[[1]]$cluster)
  # on reduced rows (for speed) "auto" is two starts
  expect_identical(kmeans_reduced(x, 6, method = "sign", dims = 8, n_init = 6, seed = 4)$cluster,
                   kmeans_reduced(x, 6, method = "sign", dims = 8, n_init = 6, seed = 4,
                                  control = list(polish_starts = 2))$cluster)
  msgs <- testthat::capture_messages(
    kmeans_reduced(x, 6, method = "sign", dims = 8, n_init = 6, seed = 4, verbose = TRUE))
  expect_true(any(grepl("moves from the [12] best replicates?:", msgs)))
  expect_error(kmeans_reduced(x, 6, control = list(polish = "swap")), "control\\$polish")
  expect_error(kmeans_reduced(x, 6, control = list(tries = 0)), "control\\$tries")
  expect_error(kmeans_reduced(x, 6, control = list(split_rounds = NA)), "control\\$split_rounds")
})

test_that("single-precision products match the double products to float accuracy, whatever the blocking", {
  m <- make_mixture(n = 203, d = 37, k = 4, sd = 1, sep = 3)
  x <- m$x + 50  # away from the origin: the shift matters
  shift <- colMeans(x)
  centres <- m$centres[c(1:4, 2, 3), ] + 50
  exact <- sweep(x, 2, shift) %*% t(sweep(centres, 2, shift))
  bound <- 2 * (ncol(x) + 2) * 2^-24 * outer(sqrt(rowSums(sweep(x, 2, shift)^2)),
                                            sqrt(rowSums(sweep(centres, 2, shift)^2)))
  p <- kmreduce:::single_products_cpp(x, centres, TRUE, 256L, 1L, shift)
  expect_true(all(abs(p - exact) <= bound))
  expect_gt(max(abs(p - exact)), 0)  # computed in float, not in double
  # rows in blocks of 5 (parts of tiles), tiles packed as needed, 2 threads:
  # every row gets the very same arithmetic
  expect_identical(kmreduce:::single_products_cpp(x, centres, FALSE, 5L, 2L, shift), p)
  expect_identical(kmreduce:::single_products_cpp(x, centres, TRUE, 8L, 1L, shift), p)
  # an exact power of two on the data scales the products exactly
  expect_identical(kmreduce:::single_products_cpp(x * 2^-600, centres * 2^-600, TRUE, 256L, 1L,
                                                  shift * 2^-600), p * 2^-1200)
  expect_identical(kmreduce:::single_products_cpp(x * 2^500, centres * 2^500, TRUE, 256L, 1L,
                                                  shift * 2^500) * 2^-1000, p)
  # no shift: the rows as they are
  expect_true(all(abs(kmreduce:::single_products_cpp(x, centres, TRUE, 256L, 1L) -
                        x %*% t(centres)) <=
                    2 * (ncol(x) + 2) * 2^-24 * outer(sqrt(rowSums(x^2)), sqrt(rowSums(centres^2)))))
})

test_that("control$precision = \"single\": a Lloyd fixed point in double, close to the double fit, any thread count", {
  m <- make_mixture(n = 5000, d = 24, k = 12, sd = 1, sep = 1.5, seed = 3)
  for (seeding in c("k-means++", "k-means||")) {
    ctl <- list(seeding = seeding, precision = "single")
    fs <- kmeans_reduced(m$x, 12, method = "none", seed = 2, n_init = 3, control = ctl)
    fd <- kmeans_reduced(m$x, 12, method = "none", seed = 2, n_init = 3,
                         control = list(seeding = seeding))
    # the result is a fixed point of Lloyd in double (stats::kmeans from its centres)
    ref <- stats::kmeans(m$x, fs$centers, algorithm = "Lloyd", iter.max = 50)
    expect_identical(unname(ref$cluster), unname(fs$cluster))
    expect_equal(ref$tot.withinss, fs$tot.withinss, tolerance = 1e-10)
    expect_equal(fs$tot.withinss, objective_r(m$x, fs$cluster), tolerance = 1e-10)
    expect_identical(unname(predict(fs, m$x)), unname(fs$cluster))
    # the search in float ends where the search in double ends (or as low)
    expect_lt(fs$tot.withinss, fd$tot.withinss * (1 + 1e-3))
    f2 <- kmeans_reduced(m$x, 12, method = "none", seed = 2, n_init = 3, n_threads = 2,
                         control = ctl)
    expect_identical(f2$cluster, fs$cluster)
    expect_identical(f2$centers, fs$centers)
  }
  # on the rows of a reduction, with data far from the origin, tiles packed as needed
  old <- kmreduce:::packed_copy_limit_cpp(0)
  on.exit(kmreduce:::packed_copy_limit_cpp(old))
  fg <- kmeans_reduced(m$x + 1e6, 12, method = "gaussian", dims = 12, seed = 4,
                       control = list(precision = "single"))
  kmreduce:::packed_copy_limit_cpp(old)
  fg2 <- kmeans_reduced(m$x + 1e6, 12, method = "gaussian", dims = 12, seed = 4,
                        control = list(precision = "single"))
  expect_identical(fg$cluster, fg2$cluster)
  expect_gt(adjusted_rand_index(fg$cluster, m$truth), 0.8)
})

test_that("control$precision = \"single\" on data of any scale, sparse rows and bad input", {
  m <- make_mixture(n = 600, d = 10, k = 4, sd = 1, sep = 3, seed = 5)
  ctl <- list(precision = "single")
  f1 <- kmeans_reduced(m$x, 4, method = "none", seed = 1, control = ctl)
  expect_identical(adjusted_rand_index(f1$cluster, m$truth), 1)
  for (s in c(2^-400, 1e-100, 1e100, 2^400)) {
    fs <- kmeans_reduced(m$x * s, 4, method = "none", seed = 1, control = ctl)
    expect_identical(unname(fs$cluster), unname(f1$cluster))
    expect_equal(fs$tot.withinss / s^2, f1$tot.withinss, tolerance = 1e-12)
  }
  # sparse rows stay in double: the same fit as without the option
  sx <- make_sparse_mixture()
  expect_identical(kmeans_reduced(sx$x, 3, method = "none", seed = 1, control = ctl)$cluster,
                   kmeans_reduced(sx$x, 3, method = "none", seed = 1)$cluster)
  bad <- m$x
  bad[7, 3] <- NA
  expect_error(kmeans_reduced(bad, 4, method = "none", control = ctl), "`x`.*NA")
  expect_error(kmeans_reduced(m$x, 4, control = list(precision = "half")),
               "`control\\$precision` must be one of \"double\", \"single\", not \"half\"")
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
  r <- kmreduce:::lloyd_from_cpp(x, c0, list(iter_max = 1L, tol = 0, n_threads = 1L))
  expect_identical(kmreduce:::predict_nearest_cpp(x, r$centers, 1L), r$cluster)
  rb <- kmreduce:::lloyd_blocks_cpp(function(a, b) x[a:b, , drop = FALSE], nrow(x), 1L, 4,
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
