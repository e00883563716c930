# The checks of the data, k, weights, centres and new rows (R/checks_input.R).

m <- make_mixture(n = 50, d = 6)

test_that("bad data is refused with a message naming `x`", {
  bad <- m$x; bad[2, 3] <- NA
  expect_error(kmeans_reduced(bad, 2), "`x` must contain only finite numbers; found 1 non-finite value \\(NA/NaN at row 2, column 3\\)")
  bad[2, 3] <- Inf
  expect_error(kmeans_reduced(bad, 2), "`x`.*Inf")
  bad[2, 3] <- NaN
  expect_error(kmeans_reduced(bad, 2), "`x`.*NA/NaN")
  sp <- Matrix::Matrix(m$x, sparse = TRUE); sp@x[5] <- NaN
  expect_error(kmeans_reduced(sp, 2), "`x` must contain only finite numbers.*row 5, column 1")
  bad2 <- m$x; bad2[c(3, 7), 2] <- c(Inf, NA)
  expect_error(kmeans_reduced(bad2, 2), "found 2 non-finite values \\(the first: Inf at row 3, column 2\\)")
  expect_error(kmeans_reduced(iris, 2), "`x` column 'Species' must be numeric, not a factor")
  expect_error(kmeans_reduced(data.frame(a = 1:3, b = letters[1:3]), 2), "column 'b' must be numeric, not a character vector")
  expect_error(kmeans_reduced(matrix(letters[1:6], 3), 2), "`x` must be a numeric matrix, data frame or dgCMatrix, not a character matrix")
  expect_error(kmeans_reduced(matrix(TRUE, 3, 2), 2), "`x` must be a numeric matrix.*logical matrix")
  expect_error(kmeans_reduced(list(1, 2), 2), "`x` must be a numeric matrix.*a list")
  # (a numeric vector is one feature, as in stats::kmeans(); other vectors are refused)
  expect_identical(length(kmeans_reduced(1:10, 2, seed = 1)$cluster), 10L)
  expect_error(kmeans_reduced(letters, 2), "`x` must be a numeric matrix.*character vector")
  expect_error(kmeans_reduced(m$x[0, ], 1), "`x` must have at least one row and one column, not 0 x 6")
  expect_error(kmeans_reduced(m$x[, 0], 1), "`x` must have at least one row and one column, not 50 x 0")
  expect_error(kmeans_reduced(data.frame(a = 1:3, b = c(TRUE, FALSE, TRUE)), 2), "column 'b' must be numeric, not a logical vector")
  expect_error(kmeans_reduced(Matrix::Matrix(m$x[, 1] > 0, 10, 5), 2) , NA)
  expect_error(kmeans_reduced(m$x * 1e160, 2), "`x` has values as large as .* squared distances and sums of squares would overflow")
})

test_that("methods that check the values on their way give the same messages", {
  # "none" and "sparse_embedding" check a dense x while packing or embedding
  # it, with no scan of their own; the message is the scan's. The data are
  # large enough for whole tiles and vector loops, and one bad value sits in
  # the tail rows that plain loops handle.
  big <- make_mixture(n = 203, d = 37)$x
  for (method in c("none", "sparse_embedding")) {
    for (threads in 1:2) {
      bad <- big; bad[150, 30] <- NA
      expect_error(kmeans_reduced(bad, 3, method = method, dims = 5, n_threads = threads, seed = 1),
                   "`x` must contain only finite numbers; found 1 non-finite value \\(NA/NaN at row 150, column 30\\)")
      bad <- big; bad[202, 2] <- -Inf
      expect_error(kmeans_reduced(bad, 3, method = method, dims = 5, n_threads = threads, seed = 1),
                   "found 1 non-finite value \\(Inf at row 202, column 2\\)")
      bad <- big; bad[7, 1] <- 1e160
      expect_error(kmeans_reduced(bad, 3, method = method, dims = 5, n_threads = threads, seed = 1),
                   "`x` has values as large as 1e\\+160 in absolute value; squared distances and sums of squares would overflow")
    }
    # Just under the limit: accepted, as by the scan.
    ok <- big; ok[7, 1] <- 0.9 * sqrt(.Machine$double.xmax / (4 * nrow(big) * ncol(big)))
    expect_s3_class(kmeans_reduced(ok, 2, method = method, dims = 5, seed = 1), "kmeans_reduced")
  }
})

test_that("bad k is refused", {
  expect_error(kmeans_reduced(m$x, 0), "`k` must be a whole number in \\[1, 50\\].*not 0")
  expect_error(kmeans_reduced(m$x, 2.5), "`k` must be a whole number.*not 2.5")
  expect_error(kmeans_reduced(m$x, "a"), "`k` must be a whole number.*not \"a\"")
  expect_error(kmeans_reduced(m$x, c(2, 3)), "`k` must be a whole number.*vector of length 2")
  expect_error(kmeans_reduced(m$x, 51), "`k` must be a whole number in \\[1, 50\\]")
  dup <- rbind(m$x[1:3, ], m$x[1:3, ])
  expect_error(kmeans_reduced(dup, 4), "`k` must be a whole number in \\[1, 3\\] \\(the number of distinct rows of `x`\\), not 4")
  expect_error(kmeans_reduced(m$x, m$x[1:2, 1:3]), "`k` given as a matrix of initial centres must have 6 columns")
})

test_that("constant columns and all-zero data are valid input", {
  z <- matrix(0, 12, 4)
  for (method in c("none", all_methods)) {
    fit <- kmeans_reduced(z, 1, method = method, dims = 2, seed = 1)
    expect_equal(fit$tot.withinss, 0, label = method)
  }
  expect_equal(unname(leverage_scores(cbind(m$x[, 1:3], 0), 2, "exact")[4]), 0)
  fit <- kmeans_reduced(cbind(m$x, 7), 3, method = "leverage", seed = 1)
  expect_true(all(fit$size > 0))
})

test_that("a dgCMatrix with edited slots gets a clear error, never a crash (child process)", {
  skip_on_cran()
  res <- run_child(
    c("set.seed(1); x <- Matrix::rsparsematrix(60, 30, 0.2)",
      "edits <- list(",
      "  neg_i = function(m) { m@i[1] <- -1L; m },",
      "  big_i = function(m) { m@i[3] <- 1000L; m },",
      "  na_i = function(m) { m@i[2] <- NA_integer_; m },",
      "  long_p = function(m) { m@p <- c(m@p, m@p[length(m@p)]); m },",
      "  big_p = function(m) { m@p[length(m@p)] <- m@p[length(m@p)] + 50L; m },",
      "  dec_p = function(m) { m@p[5] <- m@p[5] + 40L; m },",
      "  short_x = function(m) { m@x <- m@x[-1]; m },",
      "  big_dim = function(m) { m@Dim <- c(60L, 40L); m },",
      "  small_dim = function(m) { m@Dim <- c(10L, 30L); m },",
      "  unsorted_i = function(m) { j <- which(diff(m@p) >= 2)[1]; t <- m@p[j] + 1:2; m@i[t] <- rev(m@i[t]); m })",
      "calls <- list(",
      "  kmeans_reduced = function(m) kmeans_reduced(m, 3, seed = 1),",
      "  sign_project = function(m) sign_project(m, 5, seed = 1),",
      "  randomized_svd = function(m) randomized_svd(m, 3, seed = 1),",
      "  reduce_dims = function(m) reduce_dims(m, 'sparse_embedding', dims = 5, seed = 1),",
      "  predict = function(m) predict(fit, m))",
      "fit <- kmeans_reduced(x, 3, seed = 1)"),
    c("out <- character(0)",
      "for (e in names(edits)) for (f in names(calls)) {",
      "  m <- edits[[e]](x)",
      "  msg <- tryCatch({ calls[[f]](m); 'no error' }, error = function(err) conditionMessage(err))",
      "  out[paste(e, f)] <- msg",
      "}",
      "out"))
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  for (nm in names(res$value)) {
    expect_match(res$value[[nm]], "`(x|newdata)` is not a valid dgCMatrix|is not a valid|invalid class",
                 label = nm)
  }
  expect_length(res$value, 50L)
})

test_that("classed number columns are converted or refused by name", {
  df <- data.frame(a = c(1, 2, 10, 11), b = c(5, 6, 50, 60))
  df$t <- as.difftime(c(1, 2, 30, 31), units = "mins")
  fit <- kmeans_reduced(df, 2, method = "none", seed = 1)
  expect_equal(unname(fit$centers[order(fit$centers[, 1]), "t"]), c(1.5, 30.5))
  df$d <- as.Date("2020-01-01") + 0:3
  expect_error(kmeans_reduced(df, 2, seed = 1), "`x` column 'd' is a Date vector; convert it")
  skip_if_not_installed("bit64")
  df <- data.frame(a = c(1, 2, 10, 11))
  df$i <- bit64::as.integer64(c(1000, 1001, 5000, 5001))
  fit <- kmeans_reduced(df, 2, method = "none", seed = 1)
  expect_equal(sort(unname(fit$centers[, "i"])), c(1000.5, 5000.5))
  df$i <- bit64::as.integer64("9007199254740993") + 0:3
  expect_error(kmeans_reduced(df, 2, seed = 1), "column 'i' is an integer64 vector with values beyond 2\\^53")
})

test_that("predict() matches columns by name only when the names identify them", {
  x <- m$x
  fit <- kmeans_reduced(x, 3, method = "sign", dims = 5, seed = 1)
  perm <- x[, rev(seq_len(ncol(x)))]
  expect_identical(unname(predict(fit, perm)), unname(fit$cluster))
  dup <- cbind(x, x[, 1, drop = FALSE])
  expect_error(predict(fit, dup), "`newdata` has duplicated column names.*'f1'")
  y <- x
  colnames(y)[c(1, 2)] <- c("a", "a")
  fit2 <- kmeans_reduced(y, 3, method = "sign", dims = 5, seed = 1)
  expect_identical(unname(predict(fit2, y)), unname(fit2$cluster))  # by position
  colnames(y)[1:2] <- c("", NA)
  fit3 <- kmeans_reduced(y, 3, method = "sign", dims = 5, seed = 1)
  expect_identical(unname(predict(fit3, y)), unname(fit3$cluster))
})

test_that("sparse initial centres are accepted; the seed limit is stated", {
  st <- m$x[c(1, 2, 3), ]
  a <- kmeans_reduced(m$x, st, method = "none")
  b <- kmeans_reduced(m$x, Matrix::Matrix(st, sparse = TRUE), method = "none")
  expect_identical(a$cluster, b$cluster)
  expect_error(kmeans_reduced(m$x, 2, seed = 2^60), "\\|seed\\| <= 2\\^53")
})

test_that("every accepted value gives finite statistics", {
  # The largest accepted magnitude for 1000 x 1 data, +- on half the rows.
  lim <- 0.999 * sqrt(.Machine$double.xmax / (4 * 1000))
  x <- matrix(rep(c(-lim, lim), 500), ncol = 1)
  fit <- kmeans_reduced(x, 2, method = "none", seed = 1)
  expect_true(all(is.finite(c(fit$totss, fit$tot.withinss, fit$betweenss, fit$withinss))))
  expect_equal(fit$betweenss / fit$totss, 1)
  expect_error(kmeans_reduced(x * 1.01 / 0.999, 2, seed = 1), "values up to .* are supported for data of this size")
})

test_that("data frames become matrices column by column, as as.matrix() makes them", {
  # (checked in linear time: `x[] <- lapply()` was quadratic in the columns;
  # the time itself is in bench/speed/checks_wide.R)
  d <- data.frame(a = 1:4, b = c(0.5, -1, 2, 3), c = as.difftime(1:4, units = "mins"))
  m <- kmreduce:::check_data(d, "x")
  expect_identical(m, cbind(a = c(1, 2, 3, 4), b = d$b, c = 1:4 + 0))
  rownames(d) <- c("w", "x", "y", "z")
  expect_identical(rownames(kmreduce:::check_data(d, "x")), c("w", "x", "y", "z"))
  d$m <- I(matrix(1:8, 4))
  expect_identical(colnames(kmreduce:::check_data(d, "x")), c("a", "b", "c", "m.1", "m.2"))
  wide <- as.data.frame(matrix(rnorm(2 * 20000), 2))
  expect_identical(kmreduce:::check_data(wide, "x"), as.matrix(wide))
  expect_error(kmreduce:::check_data(data.frame(a = 1:2, b = c("p", "q")), "x"),
               "`x` column 'b' must be numeric")
})

test_that("distributed rows given where only in-memory data are read: a clear error", {
  x <- matrix(rnorm(40), 20)
  fake <- structure(list(x = x, rank = 0L, size = 1L, n = 20, offset = 0, n_local = 20L),
                    class = "kmreduce_mpi")
  msg <- "`x` is a set of distributed rows \\(mpi_rows\\(\\)\\); only kmeans_reduced\\(\\) takes them"
  expect_error(k_path(fake, k = 1:2, verbose = FALSE),
               "`x` is a set of distributed rows \\(mpi_rows\\(\\)\\); k_path\\(\\) runs in one process")
  expect_error(reduce_dims(fake, "sign", dims = 1), msg)
  expect_error(optimality_bound(kmeans_reduced(x, 2, seed = 1), fake), msg)
  expect_error(randomized_svd(fake, 1), msg)
  expect_error(predict(kmeans_reduced(x, 2, seed = 1), fake),
               "`newdata` is a set of distributed rows")
})

test_that("the scan of the values counts what R counts at every SIMD level (child process)", {
  skip_on_cran()
  skip_if(nzchar(Sys.getenv("KMREDUCE_SIMD")), "KMREDUCE_SIMD is set for this run")
  # lengths around the 2048-value chunks; Inf, -Inf, NaN and NA placed in
  # whole chunks, in the partial last one and at chunk edges; each vector's
  # scan beside R's count of the same vector
  body <- c(
    "reference <- function(w) {",
    "  bad <- which(!is.finite(w))",
    "  list(nonfinite = length(bad), first = if (length(bad)) bad[1] else NA,",
    "       maxabs = max(abs(w[is.finite(w)])))",
    "}",
    "out <- list()",
    "for (n in c(7, 2048, 2049, 4096 + 16, 10000)) {",
    "  set.seed(n); v <- rnorm(n) * 10^sample(-3:3, n, TRUE)",
    "  vs <- list(v)",
    "  for (bad in list(Inf, -Inf, NaN, NA_real_)) for (at in unique(pmin(n, c(1, 2048, 2049, n)))) {",
    "    w <- v; w[at] <- bad; w[max(1, n - 3)] <- bad",
    "    vs[[length(vs) + 1]] <- w",
    "  }",
    "  for (w in vs) out[[length(out) + 1]] <- list(got = kmreduce:::scan_values_cpp(w),",
    "                                             want = reference(w))",
    "}",
    "out")
  for (level in c("portable", "avx2", "avx512")) {
    res <- run_child(sprintf("Sys.setenv(KMREDUCE_SIMD = %s)", deparse(level)), body)
    expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
    expect_length(res$value, 65L)  # (9 + 9 + 13 + 17 + 17 vectors by length)
    for (i in seq_along(res$value)) {
      got <- res$value[[i]]$got
      want <- res$value[[i]]$want
      info <- paste(level, i)
      expect_equal(got$nonfinite, want$nonfinite, info = info)
      expect_equal(got$maxabs, want$maxabs, info = info)
      if (want$nonfinite > 0) expect_equal(got$first, want$first, info = info)
    }
  }
})
