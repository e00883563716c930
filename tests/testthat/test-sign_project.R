test_that("sign_project equals x %*% sign_matrix() for both algorithms", {
  for (n in c(1, 7, 65, 130)) for (d in c(1, 9, 64, 200)) for (dims in c(1, 7, 8, 9, 63, 64, 65, 130)) {
    x <- matrix(rnorm(n * d), n, d)
    s <- sign_matrix(d, dims, seed = 3)
    ref <- x %*% s
    for (algorithm in c("mailman", "gemm")) {
      p <- sign_project(x, dims, seed = 3, algorithm = algorithm)
      expect_equal(p, ref, tolerance = 1e-12, label = sprintf("%s n=%d d=%d dims=%d", algorithm, n, d, dims))
    }
  }
})

test_that("sparse input, threads and algorithms agree", {
  s <- make_sparse_mixture(n = 150, d = 90)
  ref <- s$dense %*% sign_matrix(90, 37, seed = 5)
  for (algorithm in c("mailman", "gemm")) {
    a <- sign_project(s$x, 37, seed = 5, algorithm = algorithm)
    b <- sign_project(s$x, 37, seed = 5, algorithm = algorithm, n_threads = 2)
    expect_equal(a, ref, tolerance = 1e-12)
    expect_identical(a, b)
    expect_identical(sign_project(s$dense, 37, seed = 5, algorithm = algorithm),
                     sign_project(s$dense, 37, seed = 5, algorithm = algorithm, n_threads = 2))
  }
  expect_identical(sign_project(s$dense, 37, seed = 5),
                   sign_project(s$dense, 37, seed = 5, algorithm = "mailman"))
})

test_that("sign_matrix is +-1/sqrt(dims), defined by the seed", {
  s <- sign_matrix(300, 50, seed = 2)
  expect_true(all(abs(s) == 1 / sqrt(50)))
  expect_equal(mean(s > 0), 0.5, tolerance = 0.03)
  expect_identical(s, sign_matrix(300, 50, seed = 2))
  expect_false(identical(s, sign_matrix(300, 50, seed = 3)))
  set.seed(1); before <- .Random.seed
  sign_matrix(3, 3, seed = 1)
  expect_identical(.Random.seed, before)
})

test_that("bad arguments are refused", {
  x <- matrix(rnorm(20), 4, 5)
  expect_error(sign_project(x, .Machine$integer.max), "`dims` must be a whole number in \\[1, ")
  expect_error(sign_project(x, 0), "`dims` must be a whole number")
  expect_error(sign_project(x, 3, algorithm = "blas"), "`algorithm` must be one of \"auto\", \"mailman\", \"gemm\", not \"blas\"")
  expect_error(sign_matrix(1e6, 1e4), "`d \\* dims` must be at most 2\\^31 - 1")
})

test_that("no d x dims matrix of doubles is allocated", {
  skip_on_cran()
  skip_if_not(file.exists("/proc/self/status"))
  # d = 1e6, dims = 1000: the sign matrix as doubles would take 8 GB.
  code <- paste(
    "library(kmreduce)",
    "x <- matrix(rnorm(4 * 1e6), 4, 1e6)",
    "p <- sign_project(x, 1000, seed = 1)",
    "stopifnot(all(dim(p) == c(4, 1000)), all(is.finite(p)))",
    "hwm <- grep('VmHWM', readLines('/proc/self/status'), value = TRUE)",
    "cat(as.numeric(gsub('[^0-9]', '', hwm)) / 2^20, '\\n')",
    sep = "; ")
  out <- system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)),
                 stdout = TRUE, env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  peak_gb <- as.numeric(utils::tail(out, 1))
  expect_lt(peak_gb, 2)
})
