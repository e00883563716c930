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
  expect_error(kmeans_reduced(iris, 2), "`x` must have numeric columns only; column 'Species' is factor")
  expect_error(kmeans_reduced(data.frame(a = 1:3, b = letters[1:3]), 2), "column 'b' is character")
  expect_error(kmeans_reduced(matrix(letters[1:6], 3), 2), "`x` must be a numeric matrix, data frame or dgCMatrix, not a character matrix")
  expect_error(kmeans_reduced(matrix(TRUE, 3, 2), 2), "`x` must be a numeric matrix.*logical matrix")
  expect_error(kmeans_reduced(list(1, 2), 2), "`x` must be a numeric matrix.*a list")
  expect_error(kmeans_reduced(1:10, 2), "`x` must be a numeric matrix.*integer vector")
  expect_error(kmeans_reduced(m$x[0, ], 1), "`x` must have at least one row and one column, not 0 x 6")
  expect_error(kmeans_reduced(m$x[, 0], 1), "`x` must have at least one row and one column, not 50 x 0")
  expect_error(kmeans_reduced(data.frame(a = 1:3, b = c(TRUE, FALSE, TRUE)), 2), "column 'b' is logical")
  expect_error(kmeans_reduced(Matrix::Matrix(m$x[, 1] > 0, 10, 5), 2) , NA)
  expect_error(kmeans_reduced(m$x * 1e160, 2), "`x` has values as large as .* squared distances would overflow")
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
                   "`x` has values as large as 1e\\+160 in absolute value; squared distances would overflow")
    }
    # Just under the limit: accepted, as by the scan.
    ok <- big; ok[7, 1] <- 0.9 * sqrt(.Machine$double.xmax / (4 * ncol(big)))
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
  for (method in c("none", "sign", "leverage", "cssp", "rsvd", "sparse_embedding", "srht")) {
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
