# Mini-batch k-means (algorithm = "minibatch"; inst/include/kmreduce/cluster/minibatch.hpp).

# The update rule in plain R, fed the batches the C++ draws: each row of a
# batch to its nearest centre (before the batch), then each centre that got
# rows to (c v + sum) / (v + m), v += m (m: their number, or weight).
minibatch_reference <- function(x, centres, batches, w = NULL) {
  x <- as.matrix(x)
  k <- nrow(centres)
  v <- numeric(k)
  for (idx in batches) {
    xb <- x[idx, , drop = FALSE]
    wb <- if (is.null(w)) rep(1, length(idx)) else w[idx]
    d2 <- outer(rowSums(xb^2), rowSums(centres^2), "+") - 2 * xb %*% t(centres)
    lab <- max.col(-d2, ties.method = "first")
    for (q in seq_len(k)) {
      sel <- lab == q
      if (!any(sel)) next
      m <- sum(wb[sel])
      s <- colSums(xb[sel, , drop = FALSE] * wb[sel])
      centres[q, ] <- (centres[q, ] * v[q] + s) / (v[q] + m)
      v[q] <- v[q] + m
    }
  }
  centres
}

# Mini-batch from given centres through the C++ entry point: iter_max = 1
# pass of n / batch_size batches, no reassignment, no tol.
minibatch_from <- function(x, centres, batch_size, seed, weights = NULL, n_threads = 1L) {
  kmreduce:::lloyd_cpp(kmreduce:::cpp_source(rows = x, weights = weights), centres,
                       list(iter_max = 1L, tol = 0, n_threads = as.integer(n_threads),
                            algorithm = "minibatch", polish = "none",
                            batch_size = as.integer(batch_size), reassignment_ratio = 0,
                            seed = seed))
}

test_that("the batches are distinct rows, sorted, from the seed", {
  b <- kmreduce:::minibatch_batches_cpp(1000, 250, 4, 7)
  expect_length(b, 4L)
  for (idx in b) {
    expect_length(idx, 250L)
    expect_false(anyDuplicated(idx) > 0)
    expect_false(is.unsorted(idx))
    expect_true(all(idx >= 1 & idx <= 1000))
  }
  expect_identical(b, kmreduce:::minibatch_batches_cpp(1000, 250, 4, 7))
  expect_false(identical(b, kmreduce:::minibatch_batches_cpp(1000, 250, 4, 8)))
  # batch_size > n: every row once
  expect_identical(kmreduce:::minibatch_batches_cpp(10, 50, 1, 1)[[1]], as.numeric(1:10))
})

test_that("the centres follow the reference update rule on the same batches", {
  mix <- make_mixture(n = 1000, d = 6, k = 4, sd = 2, sep = 3)
  x <- mix$x
  start <- x[c(1, 2, 3, 4), ]
  batches <- kmreduce:::minibatch_batches_cpp(1000, 250, 4, 11)
  ref <- minibatch_reference(x, start, batches)
  fit <- minibatch_from(x, start, 250, 11)
  expect_equal(fit$iter, 4L)
  expect_equal(unname(fit$centers), unname(ref), tolerance = 1e-10)
  # the labels: every row to its nearest final centre
  d2 <- outer(rowSums(x^2), rowSums(fit$centers^2), "+") - 2 * x %*% t(fit$centers)
  expect_identical(fit$cluster, max.col(-d2, ties.method = "first"))
  expect_equal(fit$objective, sum(d2[cbind(seq_len(nrow(x)), fit$cluster)]), tolerance = 1e-10)

  # weighted: weighted sums and counts
  w <- withr::with_seed(3, runif(1000, 0.5, 2))
  refw <- minibatch_reference(x, start, batches, w)
  fitw <- minibatch_from(x, start, 250, 11, weights = w)
  expect_equal(unname(fitw$centers), unname(refw), tolerance = 1e-10)
  expect_false(isTRUE(all.equal(refw, ref)))

  # sparse rows (dgCMatrix)
  sp <- make_sparse_mixture(n = 600, d = 40, k = 3)
  s0 <- sp$dense[c(1, 2, 3), ]
  bs <- kmreduce:::minibatch_batches_cpp(600, 100, 6, 5)
  fits <- minibatch_from(sp$x, s0, 100, 5)
  expect_equal(unname(fits$centers), unname(minibatch_reference(sp$dense, s0, bs)),
               tolerance = 1e-10)
})

test_that("minibatch fits well-separated data as well as stats::kmeans()", {
  skip_on_cran()
  mix <- make_mixture(n = 6000, d = 10, k = 8, sd = 1, sep = 6)
  fit <- kmeans_reduced(mix$x, 8, method = "none", algorithm = "minibatch", n_init = 3,
                        seed = 1, n_threads = 2, control = list(batch_size = 512))
  ref <- withr::with_seed(1, stats::kmeans(mix$x, 8, nstart = 10, iter.max = 50))
  expect_s3_class(fit, "kmeans")
  expect_identical(fit$algorithm, "minibatch")
  expect_lt(fit$tot.withinss, ref$tot.withinss * 1.03)
  expect_equal(adjusted_rand_index(fit$cluster, mix$truth), 1)
  expect_equal(fit$tot.withinss, objective_r(mix$x, fit$cluster), tolerance = 1e-8)
  # predict() gives the fit's labels back
  expect_identical(unname(predict(fit, mix$x)), unname(fit$cluster))
  # after a reduction
  wide <- cbind(mix$x, withr::with_seed(2, matrix(rnorm(6000 * 100, sd = 0.3), 6000)))
  fr <- kmeans_reduced(wide, 8, method = "sparse_embedding", dims = 40, algorithm = "minibatch",
                       n_init = 3, seed = 1, control = list(batch_size = 512))
  expect_equal(adjusted_rand_index(fr$cluster, mix$truth), 1)
  expect_true(fr$iter >= 2L && fr$iter <= 100L * 6000 / 512)
})

test_that("dense, sparse, weighted and shifted data", {
  skip_on_cran()
  sp <- make_sparse_mixture(n = 900, d = 60, k = 3)
  fs <- kmeans_reduced(sp$x, 3, method = "none", algorithm = "minibatch", seed = 2,
                       control = list(batch_size = 128))
  fd <- kmeans_reduced(sp$dense, 3, method = "none", algorithm = "minibatch", seed = 2,
                       control = list(batch_size = 128))
  expect_equal(adjusted_rand_index(fs$cluster, sp$truth), 1)
  expect_equal(adjusted_rand_index(fd$cluster, sp$truth), 1)
  expect_equal(fs$tot.withinss, fd$tot.withinss, tolerance = 1e-8)

  # data far from the origin (method "none" on dense data runs on the rows
  # minus their column means): the same partition as the data near zero
  mix <- make_mixture(n = 2000, d = 8, k = 5, sd = 1, sep = 5)
  near <- kmeans_reduced(mix$x, 5, method = "none", algorithm = "minibatch", seed = 3,
                         control = list(batch_size = 256))
  far <- kmeans_reduced(mix$x + 1e7, 5, method = "none", algorithm = "minibatch", seed = 3,
                        control = list(batch_size = 256))
  expect_true(same_partition(near$cluster, far$cluster))
  expect_equal(far$tot.withinss, near$tot.withinss, tolerance = 1e-6)
  expect_equal(adjusted_rand_index(near$cluster, mix$truth), 1)

  # weights: whole weights fit as repeated rows would, in objective
  w <- rep(c(1, 3), length.out = 2000)
  fw <- kmeans_reduced(mix$x, 5, method = "none", algorithm = "minibatch", seed = 3,
                       weights = w, control = list(batch_size = 256))
  expect_equal(adjusted_rand_index(fw$cluster, mix$truth), 1)
  expect_equal(fw$weight, as.numeric(tapply(w, fw$cluster, sum)))
  expect_equal(fw$tot.withinss,
               sum(w * rowSums((mix$x - fw$centers[fw$cluster, ])^2)), tolerance = 1e-8)

  # given centres: the start
  fc <- kmeans_reduced(mix$x, mix$x[c(1, 2, 3, 4, 5), ], method = "none",
                       algorithm = "minibatch", seed = 3, control = list(batch_size = 256))
  expect_identical(fc$algorithm, "minibatch")
  expect_equal(adjusted_rand_index(fc$cluster, mix$truth), 1)
})

test_that("minibatch runs on the reduced rows of a big.matrix, and refine after it", {
  skip_if_not_installed("bigmemory")
  mix <- make_mixture(n = 1500, d = 30, k = 4, sd = 1, sep = 3, seed = 5)
  x <- unname(mix$x)
  b <- bigmemory::as.big.matrix(x)
  a <- kmeans_reduced(x, 4, method = "sign", dims = 12, algorithm = "minibatch", seed = 2,
                      control = list(batch_size = 200))
  s <- kmeans_reduced(b, 4, method = "sign", dims = 12, algorithm = "minibatch", seed = 2,
                      control = list(batch_size = 200, block_rows = 400))
  expect_identical(s$algorithm, "minibatch")
  expect_equal(adjusted_rand_index(s$cluster, mix$truth), 1)
  expect_equal(adjusted_rand_index(s$cluster, a$cluster), 1)
  expect_identical(predict(s, x), s$cluster)
  r <- kmeans_reduced(b, 4, method = "sign", dims = 12, algorithm = "minibatch", seed = 2,
                      refine = 2, control = list(batch_size = 200, block_rows = 400))
  expect_lte(r$tot.withinss, s$tot.withinss * (1 + 1e-12))
})

test_that("same seed, same bits whatever n_threads; R's RNG untouched", {
  skip_on_cran()
  mix <- make_mixture(n = 5000, d = 12, k = 6, sd = 2, sep = 3)
  run <- function(threads, x = mix$x, ...) {
    f <- kmeans_reduced(x, 6, method = "none", algorithm = "minibatch", n_init = 2, seed = 9,
                        n_threads = threads, ...)
    f[setdiff(names(f), c("timing", "call"))]
  }
  one <- run(1L)
  expect_identical(run(2L), one)
  expect_identical(run(1L), one)
  w <- withr::with_seed(1, runif(5000, 0.5, 2))
  expect_identical(run(2L, weights = w), run(1L, weights = w))
  sp <- make_sparse_mixture(n = 3000, d = 50, k = 6)
  expect_identical(run(2L, sp$x, control = list(batch_size = 300)),
                   run(1L, sp$x, control = list(batch_size = 300)))
  wide <- cbind(mix$x, withr::with_seed(4, matrix(rnorm(5000 * 60), 5000)))
  red <- function(threads) {
    f <- kmeans_reduced(wide, 6, method = "sign", dims = 30, algorithm = "minibatch",
                        seed = 9, n_threads = threads)
    f[setdiff(names(f), c("timing", "call"))]
  }
  expect_identical(red(2L), red(1L))

  set.seed(42)
  before <- .Random.seed
  run(2L)
  expect_identical(.Random.seed, before)
})

test_that("seeding \"auto\" is chosen by the size of the seeding sample", {
  ctl <- kmreduce:::algorithm_control(kmreduce:::check_control(NULL), "minibatch")
  # 1e6 rows x 30: k-means|| for the pipeline, but the sample has 3072 rows
  seeding <- function(control, k) {
    kmreduce:::kmeans_resolved(k, 3L, 1e6, kmreduce:::kmeans_settings(control))$seeding
  }
  expect_identical(seeding(ctl, 30), "k-means++")
  expect_identical(seeding(kmreduce:::check_control(NULL), 30), "k-means||")
  expect_identical(seeding(ctl, 400), "k-means||")
})

test_that("bad batch_size and reassignment_ratio are refused by name", {
  expect_error(kmeans_control(batch_size = 0), "`batch_size` must be a whole number")
  expect_error(kmeans_control(batch_size = 2.5), "`batch_size` must be a whole number")
  expect_error(kmeans_control(reassignment_ratio = -0.1), "`reassignment_ratio` must be a number in \\[0, 1\\)")
  expect_error(kmeans_control(reassignment_ratio = "a"), "`reassignment_ratio` must be a number")
  x <- make_mixture(n = 60, d = 3)$x
  expect_error(kmeans_reduced(x, 2, algorithm = "minibatch", control = list(batch_size = NA)),
               "`control\\$batch_size` must be a whole number")
  expect_error(kmeans_reduced(x, 2, algorithm = "minibatch", control = list(reassignment_ratio = 1)),
               "`control\\$reassignment_ratio` must be a number in \\[0, 1\\)")
  expect_error(kmeans_reduced(x, 2, dims = "auto", method = "sign", algorithm = "minibatch"),
               "`algorithm` \"minibatch\" runs on one reduction")
  expect_identical(kmreduce:::check_algorithm("mini"), "minibatch")
  f <- kmeans_reduced(x, 2, method = "none", algorithm = "minibatch", seed = 1)
  expect_output(print(f), "^Mini-batch k-means on reduced data")
  expect_output(print(summary(f)), "mini-batch: +[0-9]+ batches")
  expect_null(kmeans_reduced(x, 2, method = "none", seed = 1)$algorithm)
  expect_identical(kmeans_control()$batch_size, 1024L)
  expect_identical(kmeans_control()$reassignment_ratio, 0.01)
})

test_that("reassignment moves a centre that gets no rows", {
  # one start far from every row: without reassignment it never gets a row
  # in the batches (the final pass then re-seeds it, so that no cluster
  # comes back empty); with it, it is moved to a row of a batch
  mix <- make_mixture(n = 3000, d = 5, k = 2, sd = 0.5, sep = 10)
  start <- rbind(mix$x[1, ], rep(1e3, 5))
  fit <- function(ratio) {
    out <- utils::capture.output(
      f <- kmeans_reduced(mix$x, start, method = "none", algorithm = "minibatch", seed = 1,
                          trace = 1, control = list(batch_size = 200, reassignment_ratio = ratio)))
    moved <- as.numeric(sub(".* ([0-9]+) centres reassigned.*", "\\1",
                            grep("centres reassigned", out, value = TRUE)))
    list(fit = f, reassigned = max(c(0, moved)))
  }
  f0 <- fit(0)
  f1 <- fit(0.01)
  expect_identical(f0$reassigned, 0)
  expect_gte(f1$reassigned, 1)
  for (f in list(f0$fit, f1$fit)) {
    expect_true(all(f$size > 0))
    expect_identical(adjusted_rand_index(f$cluster, mix$truth), 1)
  }
})

test_that("no cluster comes back empty: the final pass re-seeds a centre left without rows", {
  # 12 points, 100 copies each, k = 12: two centres on the same point left
  # one of them without rows after the final assignment (seed 24 of these).
  p <- withr::with_seed(1, matrix(rnorm(12 * 3, sd = 5), 12, 3))
  truth <- withr::with_seed(1, sample(rep(1:12, each = 100)))
  x <- p[truth, ]
  for (s in 1:40) {
    fit <- suppressWarnings(kmeans_reduced(x, 12, algorithm = "minibatch", seed = s,
                                           control = list(batch_size = 64)))
    expect_true(all(fit$size > 0), label = s)
    expect_identical(adjusted_rand_index(fit$cluster, truth), 1, label = s)
  }
})

test_that("a reassigned centre splits a cluster: no cluster of one row in many dimensions", {
  # 5 groups in 150 dimensions, k = 30: a centre put on a random row (as
  # scikit-learn does) is farther from every other row than their centres
  # are, so it kept that row alone: 7 of 8 seeds ended with a cluster of 1
  # row. Moved 1 % of the way from the row's centre toward the row, it takes
  # about half of that cluster.
  skip_on_cran()
  x <- withr::with_seed(1, {
    centres <- matrix(rnorm(5 * 150, sd = 0.5), 5, 150)
    centres[sample(5, 8000, TRUE), ] + matrix(rnorm(8000 * 150), 8000, 150)
  })
  ref <- kmeans_reduced(x, 30, method = "none", seed = 1)
  for (s in 1:8) {
    fit <- suppressWarnings(kmeans_reduced(x, 30, method = "none", seed = s, algorithm = "minibatch"))
    expect_gte(min(fit$size), 10L, label = s)
    expect_lt(fit$tot.withinss, ref$tot.withinss * 1.01, label = s)
  }
})

test_that("edge cases run without a crash (child process)", {
  skip_on_cran()
  res <- run_child(
    c("set.seed(1); x <- matrix(rnorm(400), 100); x[1:50, ] <- x[1:50, ] + 5"),
    c("f <- function(...) { r <- kmeans_reduced(x, ..., method = 'none', algorithm = 'minibatch', seed = 1)",
      "  c(obj = r$tot.withinss, iter = r$iter, k = length(r$size)) }",
      "list(k_gt_batch = f(20, control = list(batch_size = 8)),",
      "     batch_gt_n = f(3, control = list(batch_size = 1000)),",
      "     k_one = f(1, control = list(batch_size = 16)),",
      "     n_eq_k = f(100, control = list(batch_size = 32)),",
      "     batch_one = f(4, control = list(batch_size = 1)),",
      "     sparse_k_gt_batch = { s <- Matrix::Matrix(x * (x > 1), sparse = TRUE)",
      "       r <- kmeans_reduced(s, 30, method = 'none', algorithm = 'minibatch', seed = 1,",
      "                           control = list(batch_size = 10)); r$tot.withinss })"))
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  v <- res$value
  expect_equal(unname(v$k_gt_batch["k"]), 20)
  expect_equal(unname(v$k_one["obj"]), sum(scale(matrix(withr::with_seed(1, rnorm(400)), 100) +
                                                   rep(c(5, 0), each = 50), scale = FALSE)^2))
  expect_equal(unname(v$n_eq_k["k"]), 100)
  expect_true(all(is.finite(unlist(v))))
})
