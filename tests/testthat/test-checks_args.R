# How errors are raised and values described (R/checks_args.R).

m <- make_mixture(n = 50, d = 6)

test_that("errors come before any computation and have no call", {
  err <- tryCatch(kmeans_reduced(m$x, 0), error = identity)
  expect_null(conditionCall(err))
})

test_that("odd objects are described plainly in errors", {
  expect_error(kmeans_reduced(new.env(), 2), "not an environment")
  expect_error(kmeans_reduced(array(1, c(2, 2, 2)), 2), "not a 3-dimensional double array \\(2 x 2 x 2\\)")
  expect_error(kmeans_reduced(data.frame(), 2), "at least one row and one column, not a data frame of 0 x 0")
})

# Steps refused before they allocate what the machine lacks (check_memory()).

test_that("steps that cannot get their memory are refused with the figure, before allocating", {
  tall <- methods::new("dgCMatrix", i = c(0L, 2147483646L), p = c(0L, 1L, 2L, 2L, 2L, 2L),
                       x = c(1, 2), Dim = c(2147483647L, 5L))
  expect_error(randomized_svd(tall, 2, seed = 1),
               "The randomized SVD of the 2147483647 x 5 `x` \\(5 test vectors\\) would need")
  expect_error(leverage_scores(tall, 2, seed = 1), "The randomized SVD of the 2147483647 x 5 `x`")
  # predict() on such rows: per-row labels and distances (48 GB), refused
  # first where they do not fit (in a child process: the R session used to
  # be killed for memory here).
  if (isTRUE(kmreduce:::available_memory() < 40 * 2^30)) {
    res <- run_child(
      c("tall <- methods::new('dgCMatrix', i = c(0L, 2147483646L), p = c(0L, 1L, 2L, 2L, 2L, 2L),",
        "                     x = c(1, 2), Dim = c(2147483647L, 5L))",
        "fit5 <- kmeans_reduced(matrix(rnorm(50 * 5), 50), 2, method = 'none', seed = 1)"),
      "tryCatch({ predict(fit5, tall); 'no error' }, error = function(e) conditionMessage(e))")
    expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
    expect_match(res$value, "Assigning the 2147483647 rows of `newdata` would need about")
  }
  if (isTRUE(kmreduce:::available_memory() < 40 * 2^30)) {
    res <- run_child(
      c("tall <- methods::new('dgCMatrix', i = c(0L, 2147483646L), p = c(0L, 1L, 2L, 2L, 2L, 2L),",
        "                     x = c(1, 2), Dim = c(2147483647L, 5L))",
        "red <- reduce_dims(matrix(rnorm(50 * 5), 50), 'gaussian', dims = 3, seed = 1)"),
      "tryCatch({ predict(red, tall); 'no error' }, error = function(e) conditionMessage(e))")
    expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
    expect_match(res$value,
                 "The reduced data \\(2147483647 rows x 3 dimensions\\) would need about .* GB of memory")
  }
})

test_that("the exact SVD is refused up front when its dense copy and LAPACK's workspace do not fit", {
  x <- Matrix::sparseMatrix(i = 1:20000, j = 1:20000, x = 1)
  # (36 GB: dense copies of 3.2 GB each, U, V and dgesdd's workspace)
  need <- kmreduce:::exact_svd_bytes(20000, 20000)
  skip_if_not(isTRUE(kmreduce:::available_memory() < need), "this machine could run it")
  msg <- paste0("The exact SVD \\(method = \"svd\", or control\\$svd = \"exact\"\\) of the 20000 x 20000 ",
                "`x` \\(a dense copy and LAPACK's workspace\\) would need about 3[0-9]\\.[0-9] GB of memory, ",
                "more than the .* available.*Use the randomized SVD \\(method = \"rsvd\"")
  expect_error(kmeans_reduced(x, 3, method = "svd", seed = 1), msg)
  expect_error(reduce_dims(x, "leverage", dims = 10, k = 3, seed = 1, control = list(svd = "exact")),
               "The exact SVD .* of the 20000 x 20000 `x`")
})
