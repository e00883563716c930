# dims_path(): a grid of kmeans_reduced() runs, summarised and plotted.

test_that("every run equals the kmeans_reduced() fit with its seed", {
  m <- make_mixture(n = 200, d = 40, k = 3, sd = 2, sep = 3)
  p <- dims_path(m$x, 3, methods = c("sign", "leverage"), dims = c(4, 8), truth = m$truth,
                 seed = 5, repeats = 2, verbose = FALSE)
  expect_s3_class(p, "kmreduce_path")
  r <- as.data.frame(p)
  expect_identical(nrow(r), 2L + 2L * 2L * 2L)
  expect_identical(sort(unique(r$method)), c("leverage", "none", "sign"))
  expect_identical(r$dims[r$method == "none"], c(40L, 40L))
  for (i in c(1L, 4L, nrow(r))) {
    # the full k-means reference runs with reference_n_init = 10 starts
    fit <- kmeans_reduced(m$x, 3, method = r$method[i], dims = r$dims[i], seed = r$seed[i],
                          n_init = if (r$method[i] == "none") 10 else 1)
    expect_equal(r$objective[i], fit$tot.withinss)
    expect_equal(r$normalized[i], fit$tot.withinss / sum(m$x^2))
    expect_equal(r$accuracy[i], cluster_accuracy(fit$cluster, m$truth))
    expect_equal(r$ari[i], adjusted_rand_index(fit$cluster, m$truth))
    expect_equal(r$nmi[i], normalized_mutual_info(fit$cluster, m$truth))
  }
  expect_true(all(r$reduce_time >= 0 & r$cluster_time >= 0))
  # Seeds are whole numbers below 2^31 (they print as typed); times to 0.1 ms.
  expect_true(is.integer(r$seed) && all(r$seed >= 1L))
  expect_identical(r$total_time, round(r$total_time, 4))
  # The two repeats use different seeds; the same seed gives the same path.
  expect_false(r$seed[1] == r$seed[2])
  p2 <- dims_path(m$x, 3, methods = c("sign", "leverage"), dims = c(4, 8), truth = m$truth,
                  seed = 5, repeats = 2, verbose = FALSE)
  expect_identical(as.data.frame(p2)[c("objective", "accuracy")], r[c("objective", "accuracy")])
  s <- summary(p)
  expect_identical(nrow(s), 5L)
  expect_equal(s$objective[s$method == "sign" & s$dims == 4],
               mean(r$objective[r$method == "sign" & r$dims == 4]))
  expect_output(print(p), "kmreduce dims path: 200 x 40 data, k = 3, 10 runs")
})

test_that("without truth the scores are NA; too large dims are skipped", {
  sp <- make_sparse_mixture(n = 60, d = 30, k = 3)
  p <- dims_path(sp$x, 3, methods = c("sparse_embedding", "cssp"), dims = c(5, 100),
                 seed = 1, reference = FALSE, verbose = FALSE)
  r <- as.data.frame(p)
  expect_true(all(is.na(r$accuracy)))
  # a projection goes to at most ncol(x) = 30 dimensions, CSSP to min(dim(x))
  expect_identical(r$method, c("sparse_embedding", "cssp"))
  expect_false(any(r$method == "none"))
})

test_that("plot() draws the panels", {
  m <- make_mixture(n = 150, d = 30, k = 3)
  p <- dims_path(m$x, 3, methods = c("sign", "gaussian"), dims = c(3, 6), truth = m$truth,
                 seed = 1, verbose = FALSE)
  f <- tempfile(fileext = ".png")
  grDevices::png(f, width = 900, height = 300)
  expect_invisible(plot(p))
  plot(p, which = "objective")
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  expect_error(plot(p, which = "speed"), "`which` must be a subset of \"time\"")
  expect_error(plot(p, col = NA), "`col` must be colours")
})

test_that("bad arguments are named in the error", {
  m <- make_mixture(n = 50, d = 10, k = 2)
  expect_error(dims_path(m$x, 2, methods = "none", verbose = FALSE), "`methods` must be a character vector of")
  expect_error(dims_path(m$x, 2, dims = c(2, 2.5), verbose = FALSE), "`dims` must be a vector of whole numbers >= 1")
  expect_error(dims_path(m$x, 2, truth = 1:3, verbose = FALSE), "`truth` must be a vector of 50 labels")
  expect_error(dims_path(m$x, 2, repeats = 0, verbose = FALSE), "`repeats` must be a whole number")
  expect_error(dims_path(m$x, 2, reference = NA, verbose = FALSE), "`reference` must be TRUE or FALSE")
  expect_error(dims_path(m$x, 2, reference_n_init = 0, verbose = FALSE),
               "`reference_n_init` must be a whole number in \\[1, 10000\\]")
  expect_error(dims_path(m$x, 0, verbose = FALSE), "`k` must be a whole number")
  expect_error(dims_path(m$x, 2, methods = "svd", dims = 20, reference = FALSE, verbose = FALSE),
               "no run left")
})

test_that("the stats::kmeans() names passed through `...` are named as given", {
  m <- make_mixture(n = 50, d = 10, k = 2)
  # dims_path() sets `n_init` itself: `nstart` is refused by its own name
  expect_error(dims_path(m$x, 2, methods = "sign", dims = 2, nstart = 3, verbose = FALSE),
               "^`nstart` is not an argument of dims_path\\(\\): give `n_init`")
  # the paper's protocol sets the iterations, under either name
  for (arg in c("iter_max", "iter.max")) {
    expect_error(do.call(dims_path, c(list(m$x, 2, methods = "sign", dims = 2, protocol = "paper",
                                           verbose = FALSE), stats::setNames(list(50), arg))),
                 sprintf("^`protocol = \"paper\"` sets `%s`: give the protocol or them",
                         gsub(".", "\\.", arg, fixed = TRUE)))
  }
  # otherwise `iter.max` reaches kmeans_reduced() as given
  expect_warning(p <- dims_path(m$x, 2, methods = "sign", dims = 2, iter.max = 1, reference = FALSE,
                                seed = 1, verbose = FALSE, control = list(tol = 0)),
                 "increase `iter\\.max`")
  fit <- suppressWarnings(kmeans_reduced(m$x, 2, method = "sign", dims = 2, n_init = 1,
                                         iter_max = 1, seed = p$results$seed[1],
                                         control = list(tol = 0)))
  expect_equal(p$results$objective[1], fit$tot.withinss)
})

test_that("the reference is the best of reference_n_init starts", {
  m <- make_mixture(n = 200, d = 20, k = 6, sd = 2, sep = 2)
  p1 <- dims_path(m$x, 6, methods = "sign", dims = 5, seed = 3, reference_n_init = 1,
                  verbose = FALSE)
  p10 <- dims_path(m$x, 6, methods = "sign", dims = 5, seed = 3, verbose = FALSE)
  r1 <- as.data.frame(p1)
  r10 <- as.data.frame(p10)
  s <- r10$seed[r10$method == "none"]
  expect_equal(r10$objective[r10$method == "none"],
               kmeans_reduced(m$x, 6, method = "none", n_init = 10, seed = s)$tot.withinss)
  expect_lte(r10$objective[1], r1$objective[1])
})
