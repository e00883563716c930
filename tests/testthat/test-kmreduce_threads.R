test_that("the default thread count follows the option, then OMP_NUM_THREADS, capped by the cores", {
  cores <- attr(kmreduce_threads(), "cores")
  expect_true(cores >= 1L)
  withr::local_envvar(OMP_NUM_THREADS = NA, OMP_THREAD_LIMIT = NA)
  withr::local_options(kmreduce.threads = NULL)
  n <- kmreduce_threads()
  expect_identical(as.integer(n), cores)
  expect_identical(attr(n, "source"), "available cores")

  withr::with_options(list(kmreduce.threads = 1), {
    expect_identical(as.integer(kmreduce_threads()), 1L)
    expect_identical(attr(kmreduce_threads(), "source"), "options(kmreduce.threads)")
  })
  withr::with_options(list(kmreduce.threads = 1000), {
    expect_identical(as.integer(kmreduce_threads()), cores)
  })
  withr::with_envvar(c(OMP_NUM_THREADS = "1,4"), {
    expect_identical(as.integer(kmreduce_threads()), 1L)
    expect_identical(attr(kmreduce_threads(), "source"), "OMP_NUM_THREADS")
  })
  withr::with_envvar(c(OMP_NUM_THREADS = "64"), {
    expect_identical(as.integer(kmreduce_threads()), cores)
  })
  withr::with_envvar(c(OMP_THREAD_LIMIT = "1"), {
    expect_identical(as.integer(kmreduce_threads()), 1L)
    expect_identical(attr(kmreduce_threads(), "cores"), 1L)
  })
  withr::with_options(list(kmreduce.threads = 0), {
    expect_error(kmreduce_threads(), "`options\\(kmreduce.threads\\)` must be a whole number >= 1, not 0")
  })
  withr::with_options(list(kmreduce.threads = "two"), {
    expect_error(kmeans_reduced(matrix(rnorm(40), 20), 2, seed = 1),
                 "`options\\(kmreduce.threads\\)` must be a whole number")
  })
})

test_that("n_threads = NULL uses the default and gives the same result as 1 thread", {
  m <- make_mixture(n = 300, d = 20, k = 3)
  a <- kmeans_reduced(m$x, 3, seed = 1, n_threads = 1)
  b <- withr::with_options(list(kmreduce.threads = 2), kmeans_reduced(m$x, 3, seed = 1))
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$centers, b$centers)
})

test_that("n_threads above the cores is lowered with a message, never an error", {
  m <- make_mixture(n = 300, d = 20, k = 3)
  a <- kmeans_reduced(m$x, 3, seed = 1, n_threads = 1)
  expect_message(b <- kmeans_reduced(m$x, 3, seed = 1, n_threads = 1024),
                 "`n_threads` = 1024 is more than the \\d+ cores? available; using \\d+")
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$centers, b$centers)
  expect_message(reduce_dims(m$x, "sign", dims = 5, seed = 1, n_threads = 1e6), "`n_threads`")
  expect_error(kmeans_reduced(m$x, 3, n_threads = 1.5), "`n_threads` must be a whole number >= 1")
  expect_error(kmeans_reduced(m$x, 3, n_threads = NA), "`n_threads` must be a whole number >= 1")
})

test_that("n_threads = 1024 under a memory cap gives a result, not a dead session", {
  skip_on_os("windows")
  skip_on_cran()
  # AddressSanitizer reserves terabytes of address space: no cap possible.
  skip_if(grepl("asan", Sys.getenv("LD_PRELOAD")), "under AddressSanitizer")
  res <- run_child(
    "set.seed(1); x <- matrix(rnorm(20000 * 20), 20000)",
    "suppressMessages(kmeans_reduced(x, 5, seed = 1, n_threads = 1024)$tot.withinss)",
    prefix = "ulimit -v 3000000;")
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  expect_true(is.finite(res$value))
})

test_that("forked children after a threaded call in the parent give the parent's result", {
  skip_on_os("windows")
  skip_on_cran()
  # In a child process: a hang would otherwise hang the test run.
  res <- run_child(
    c("set.seed(1); x <- matrix(rnorm(20000 * 50), 20000)",
      "p <- kmeans_reduced(x, 5, n_init = 3, n_threads = 2, seed = 1)",
      "q <- kmeans_reduced(x, 5, method = 'sign', dims = 20, n_threads = 2, seed = 1)"),
    c("r <- parallel::mclapply(1:4, function(i) list(",
      "  a = kmeans_reduced(x, 5, n_init = 3, n_threads = 2, seed = 1)$cluster,",
      "  b = kmeans_reduced(x, 5, method = 'sign', dims = 20, seed = 1)$cluster,",
      "  threads = kmreduce_threads()), mc.cores = 2)",
      "list(same = vapply(r, function(z) identical(z$a, p$cluster) && identical(z$b, q$cluster), TRUE),",
      "     threads = vapply(r, function(z) as.integer(z$threads), 1L),",
      "     source = vapply(r, function(z) attr(z$threads, 'source'), ''),",
      "     parent = kmeans_reduced(x, 5, n_init = 3, n_threads = 2, seed = 1)$cluster, p = p$cluster)"),
    wait = 120)
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  expect_identical(res$value$same, rep(TRUE, 4))
  expect_identical(res$value$threads, rep(1L, 4))
  expect_identical(res$value$source, rep("forked child", 4))
  expect_identical(res$value$parent, res$value$p)  # the parent's pool still works
})

test_that("every long step answers Ctrl-C (SIGINT) within 2 seconds", {
  skip_on_os("windows")
  skip_on_cran()
  cases <- list(
    gaussian = c("x <- matrix(rnorm(2500 * 10000), 2500)",
                 "reduce_dims(x, 'gaussian', dims = 10000, seed = 1, n_threads = 2)"),
    sign = c("x <- matrix(rnorm(2000 * 16000), 2000)",
             "reduce_dims(x, 'sign', dims = 16000, seed = 1, n_threads = 2)"),
    exact_svd = c("x <- matrix(rnorm(2000 * 1200), 2000)",
                  "kmeans_reduced(x, 5, method = 'svd', seed = 1, n_threads = 1)"),
    lloyd = c("x <- matrix(rnorm(50000 * 100), 50000)",
              "kmeans_reduced(x, 300, method = 'none', n_init = 20, seed = 1, n_threads = 2)"),
    kmeans_parallel = c("x <- matrix(rnorm(100000 * 20), 100000)",
                        paste("kmeans_reduced(x, 2000, method = 'none', n_init = 20, seed = 1,",
                              "n_threads = 2, control = list(seeding = 'k-means||'))")),
    split_merge = c("x <- matrix(rnorm(20000 * 50), 20000)",
                    paste("kmeans_reduced(x, 30, method = 'none', n_init = 2, seed = 1,",
                          "n_threads = 2, control = list(tries = 1000))")),
    cssp = c("x <- matrix(rnorm(3000 * 3000), 3000)",
             "kmeans_reduced(x, 50, method = 'cssp', dims = 500, seed = 1, n_threads = 2)"),
    rsvd = c("x <- matrix(rnorm(5000 * 3000), 5000)",
             "randomized_svd(x, 300, power_iters = 20, seed = 1, n_threads = 2)"),
    bound = c("x <- matrix(rnorm(3000 * 2500), 3000); f <- kmeans_reduced(x, 5, seed = 1)",
              "optimality_bound(f, x, method = 'gram', n_threads = 1)")
  )
  for (nm in names(cases)) {
    res <- interrupt_child(c("set.seed(1)", cases[[nm]][1]), cases[[nm]][2], after = 1)
    expect_identical(res$status, "interrupted", label = nm)
    expect_lt(res$latency, 2, label = nm)
  }
})
