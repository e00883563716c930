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

test_that("bad method, dims, counts, seed and control are refused", {
  expect_error(kmeans_reduced(m$x, 2, method = "pca"), "`method` must be one of \"auto\", \"none\".*not \"pca\"")
  expect_error(kmeans_reduced(m$x, 2, method = c("sign", "svd")), "`method` must be one of")
  expect_error(kmeans_reduced(m$x, 2, method = "sign", dims = 0), "`dims` must be a whole number >= 1|`dims` must be a whole number in \\[1")
  expect_error(kmeans_reduced(m$x, 2, method = "sign", dims = NA), "`dims` must be a whole number.*not NA")
  expect_error(kmeans_reduced(m$x, 2, method = "svd", dims = 7), "`dims` must be a whole number in \\[1, 6\\], not 7")
  expect_error(kmeans_reduced(m$x, 2, n_init = 0), "`n_init` must be a whole number in \\[1, 1e\\+06\\], not 0")
  expect_error(kmeans_reduced(m$x, 2, iter_max = -1), "`iter_max` must be a whole number")
  expect_error(kmeans_reduced(m$x, 2, n_threads = 0), "`n_threads` must be a whole number >= 1, not 0")
  expect_error(kmeans_reduced(m$x, 2, seed = "x"), "`seed` must be NULL or a single whole number, not \"x\"")
  expect_error(kmeans_reduced(m$x, 2, seed = 1.5), "`seed` must be NULL or a single whole number, not 1.5")
  expect_error(kmeans_reduced(m$x, 2, seed = c(1, 2)), "`seed` must be NULL or a single whole number")
  expect_error(kmeans_reduced(m$x, 2, control = list(tolerance = 1)), "`control` has unknown name 'tolerance'; known names: 'tol', 'keep_reduced'")
  expect_error(kmeans_reduced(m$x, 2, control = list(1)), "`control` must be a named list")
  expect_error(kmeans_reduced(m$x, 2, control = list(tol = -1)), "`control\\$tol` must be a number in \\[0, 1\\), not -1")
  expect_error(kmeans_reduced(m$x, 2, control = list(keep_reduced = NA)), "`control\\$keep_reduced` must be TRUE or FALSE")
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

test_that("errors come before any computation and have no call", {
  err <- tryCatch(kmeans_reduced(m$x, 0), error = identity)
  expect_null(conditionCall(err))
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

test_that("predict() and plot() check the fit before C++ reads it", {
  skip_on_cran()
  res <- run_child(
    c("set.seed(1); x <- matrix(rnorm(600), 100)",
      "fit <- kmeans_reduced(x, 3, method = 'sign', dims = 4, seed = 1)",
      "full <- kmeans_reduced(x, 3, method = 'sign', dims = 4, refine = 2, seed = 1)",
      "lev <- kmeans_reduced(x, 3, method = 'leverage', dims = 4, seed = 1)",
      "tamper <- list(",
      "  empty_centres = function(f) { f$reduced_centers <- f$reduced_centers[0, , drop = FALSE]; f },",
      "  wrong_columns = function(f) { f$reduced_centers <- cbind(f$reduced_centers, 1); f },",
      "  na_centres = function(f) { f$reduced_centers[1, 1] <- NA; f },",
      "  not_matrix = function(f) { f$reduced_centers <- 'a'; f },",
      "  dims = function(f) { f$reducer$dims <- 1e6L; f },",
      "  method = function(f) { f$reducer$method <- 'magic'; f },",
      "  no_reducer = function(f) { f$reducer <- NULL; f },",
      "  n_features = function(f) { f$reducer$n_features <- -1; f })"),
    c("out <- character(0)",
      "for (t in names(tamper)) {",
      "  out[t] <- tryCatch({ predict(tamper[[t]](fit), x); 'no error' }, error = function(e) conditionMessage(e))",
      "  out[paste(t, 'plot')] <- tryCatch({ pdf(NULL); plot(tamper[[t]](fit), data = x); 'no error' },",
      "                                     error = function(e) conditionMessage(e))",
      "}",
      "g <- full; g$assignment_centers <- g$assignment_centers[, 1:2]",
      "out['assignment'] <- tryCatch({ predict(g, x); 'no error' }, error = function(e) conditionMessage(e))",
      "l <- lev; l$reducer$features$index[1] <- 99",
      "out['features'] <- tryCatch({ predict(l, x); 'no error' }, error = function(e) conditionMessage(e))",
      "fj <- kmeans_reduced(x, 3, method = 'fjlt', dims = 4, seed = 1)",
      "for (q in list(0, 2, NA, 'a', NULL, c(0.1, 0.2))) {",
      "  f <- fj; f$reducer['density'] <- list(q)",
      "  out[paste('fjlt density', format(q))] <- tryCatch({ predict(f, x); 'no error' },",
      "                                                   error = function(e) conditionMessage(e))",
      "}",
      "out"))
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  for (nm in names(res$value)) {
    expect_match(res$value[[nm]], "is not a valid kmeans_reduced fit|is not a valid kmreduce reducer",
                 label = nm)
  }
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

test_that("odd objects are described plainly in errors", {
  expect_error(kmeans_reduced(new.env(), 2), "not an environment")
  expect_error(kmeans_reduced(array(1, c(2, 2, 2)), 2), "not a 3-dimensional double array \\(2 x 2 x 2\\)")
  expect_error(kmeans_reduced(data.frame(), 2), "at least one row and one column, not a data frame of 0 x 0")
})

test_that("a tiny eps uses the most accurate randomized SVD, not the least", {
  x <- withr::with_seed(5, matrix(rnorm(40 * 8), 40))
  fit <- expect_warning(kmeans_reduced(x, 2, control = list(eps = 1e-12), method = "leverage",
                                       dims = 4, seed = 1), NA)
  # min(n, d) test vectors: the randomized SVD is exact up to rounding.
  expect_equal(fit$reducer$scores, leverage_scores(x, 2, "exact"), tolerance = 1e-8)
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
  expect_error(k_path(fake, k = 1:2, verbose = FALSE), msg)
  expect_error(reduce_dims(fake, "sign", dims = 1), msg)
  expect_error(optimality_bound(kmeans_reduced(x, 2, seed = 1), fake), msg)
  expect_error(randomized_svd(fake, 1), msg)
  expect_error(predict(kmeans_reduced(x, 2, seed = 1), fake),
               "`newdata` is a set of distributed rows")
})
