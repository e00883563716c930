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
      "p <- kmeans_reduced(x, 5, n_init = 2, n_threads = 2, seed = 1)",
      "q <- kmeans_reduced(x, 5, method = 'sign', dims = 20, n_init = 2, n_threads = 2, seed = 1)"),
    c("r <- parallel::mclapply(1:4, function(i) list(",
      "  a = kmeans_reduced(x, 5, n_init = 2, n_threads = 2, seed = 1)$cluster,",
      "  b = kmeans_reduced(x, 5, method = 'sign', dims = 20, n_init = 2, seed = 1)$cluster,",
      "  threads = kmreduce_threads()), mc.cores = 2)",
      "list(same = vapply(r, function(z) identical(z$a, p$cluster) && identical(z$b, q$cluster), TRUE),",
      "     threads = vapply(r, function(z) as.integer(z$threads), 1L),",
      "     source = vapply(r, function(z) attr(z$threads, 'source'), ''),",
      "     parent = kmeans_reduced(x, 5, n_init = 2, n_threads = 2, seed = 1)$cluster, p = p$cluster)"),
    wait = 600)
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  expect_identical(res$value$same, rep(TRUE, 4))
  expect_identical(res$value$threads, rep(1L, 4))
  expect_identical(res$value$source, rep("forked child", 4))
  expect_identical(res$value$parent, res$value$p)  # the parent's pool still works
})

test_that("every long step answers Ctrl-C (SIGINT)", {
  skip_on_os("windows")
  skip_on_cran()
  # Each case runs again and again until interrupted, so it is running when
  # the signal comes however fast the machine; the interrupt must be raised
  # inside the compiled step (which checks for it), not by R after the step
  # returned (see interrupt_child(); a signal that lands in R code between
  # steps is sent again). No time limit but a hang's: how fast each step
  # answers is measured by bench/scale/interrupt.R (a busy machine may delay
  # any process).
  cases <- interrupt_cases()
  for (nm in names(cases)) {
    res <- interrupt_child(c("set.seed(1)", cases[[nm]][1]), cases[[nm]][2], after = 1)
    info <- paste(c(nm, res$missed, res$log), collapse = "\n")
    expect_identical(res$status, "interrupted", info = info)
    expect_match(res$compiled, "_cpp$", info = info)
  }
})

test_that("KMREDUCE_SIMD lowers the SIMD level, never raises it", {
  skip_on_cran()
  skip_if(nzchar(Sys.getenv("KMREDUCE_SIMD")), "KMREDUCE_SIMD is set for this run")
  here <- kmreduce:::simd_level_cpp()
  level_in_child <- function(value) {
    res <- run_child(
      c(sprintf("Sys.setenv(KMREDUCE_SIMD = %s)", deparse(value)),
        "set.seed(1); x <- matrix(rnorm(2000 * 20), 2000)"),
      c("fit <- kmeans_reduced(x, 4, method = 'none', seed = 1, n_threads = 1)",
        "list(level = kmreduce:::simd_level_cpp(), size = sum(fit$size))"))
    expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
    expect_identical(res$value$size, 2000L)
    res$value$level
  }
  expect_identical(level_in_child("portable"), "portable")
  expect_identical(level_in_child("avx512"), here)  # the highest: never above this machine's
  expect_identical(level_in_child("avx2"), if (here == "portable") "portable" else "avx2")
})

test_that("the FJLT's dense Gaussian matrix is built on the threads: Ctrl-C answered, memory checked", {
  skip_on_os("windows")
  skip_on_cran()
  # P of 1500 x 65536 (fjlt_density = 1) was drawn serially without a check
  # for interrupts (6-30 s) and ended in a bare std::bad_alloc under a cap.
  setup <- c("set.seed(1)", "x <- matrix(rnorm(60 * 65536), 60)")
  res <- interrupt_child(setup, paste("reduce_dims(x, 'fjlt', dims = 1500, seed = 1,",
                                      "n_threads = 2, control = list(fjlt_density = 1))"),
                         after = 0.5)
  expect_identical(res$status, "interrupted", info = paste(res$log, collapse = "\n"))
  expect_match(res$compiled, "_cpp$", info = paste(res$missed, collapse = "\n"))
  skip_if(grepl("asan", Sys.getenv("LD_PRELOAD")), "under AddressSanitizer")
  res <- run_child(setup, paste("reduce_dims(x, 'fjlt', dims = 4000, seed = 1,",
                                "control = list(fjlt_density = 1))"),
                   prefix = "ulimit -v 1500000;")
  expect_match(res$status, paste("error: The FJLT to 4000 dimensions .* would need about 2\\.0 GB",
                                 "of memory, more than the .* GB available under this process's",
                                 "address-space limit"))
  # the same P for any thread count, and the same as the transform of each row
  y <- matrix(rnorm(30 * 100), 30)
  for (q in c(1, 0.3)) {
    a <- reduce_dims(y, "fjlt", dims = 20, seed = 3, n_threads = 1, control = list(fjlt_density = q))
    b <- reduce_dims(y, "fjlt", dims = 20, seed = 3, n_threads = 2, control = list(fjlt_density = q))
    expect_identical(a$reduced, b$reduced)
  }
})
