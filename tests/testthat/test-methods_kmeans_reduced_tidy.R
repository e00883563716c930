# tidy(), glance() and augment() of a fit (R/methods_kmeans_reduced_tidy.R).

m <- make_mixture(n = 240, d = 30, k = 4, sd = 2, sep = 4)

test_that("tidy(), glance() and augment() follow broom's kmeans tidiers", {
  fit <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  td <- tidy(fit)
  expect_s3_class(td, "data.frame")
  if (requireNamespace("tibble", quietly = TRUE)) {
    expect_s3_class(td, "tbl_df")
    expect_s3_class(glance(fit), "tbl_df")
    expect_s3_class(augment(fit, data = m$x), "tbl_df")
  }
  expect_identical(names(td)[1:3], c("cluster", "size", "withinss"))
  expect_identical(nrow(td), 4L)
  expect_equal(as.matrix(td[, colnames(m$x)]), unname(fit$centers), ignore_attr = TRUE)
  expect_identical(td$size, as.integer(fit$size))
  expect_identical(td$withinss, fit$withinss)
  expect_identical(levels(td$cluster), as.character(1:4))
  expect_named(tidy(fit, col.names = paste0("c", 1:30))[4:5], c("c1", "c2"))
  expect_error(tidy(fit, col.names = "a"), "`col.names` must be 30 names")
  gl <- glance(fit)
  expect_identical(nrow(gl), 1L)
  expect_equal(gl$tot.withinss, fit$tot.withinss)
  expect_equal(gl$totss, fit$totss)
  expect_equal(gl$betweenss, fit$betweenss)
  expect_identical(gl$method, "sign")
  au <- augment(fit, data = m$x)
  expect_identical(as.integer(au$.cluster), fit$cluster)
  expect_identical(ncol(au), ncol(m$x) + 1L)
  an <- augment(fit, newdata = m$x[1:7, ])
  expect_identical(as.integer(an$.cluster), predict(fit, m$x[1:7, ]))
  expect_error(augment(fit), "`data` must be given")
  expect_error(augment(fit, data = m$x[1:3, ]), "`data` must have the 240 rows of the fit, not 3")
  # Same columns as broom's kmeans tidiers where broom is installed.
  skip_if_not_installed("broom")
  km <- stats::kmeans(m$x, fit$centers)
  expect_true(all(names(broom::glance(km)) %in% names(gl)))
  expect_true(all(names(broom::tidy(km)) %in% names(td)))
})

test_that("tidy(): feature names cannot shadow the summary columns", {
  # A document-term matrix with the words "cluster", "size" and "withinss".
  x <- m$x
  colnames(x)[1:4] <- c("cluster", "size", "withinss", "size.1")
  fit <- kmeans_reduced(x, 4, method = "sign", seed = 2)
  td <- tidy(fit)
  expect_identical(td$size, as.integer(fit$size))
  expect_identical(td$withinss, fit$withinss)
  expect_identical(levels(td$cluster), as.character(1:4))
  expect_false(anyDuplicated(names(td)) > 0)
  # the word columns are there, renamed, with the centres' values
  expect_identical(names(td)[4:7], c("cluster.1", "size.2", "withinss.1", "size.1"))
  expect_equal(td[["size.2"]], unname(fit$centers[, 2]))
  expect_equal(td[["size.1"]], unname(fit$centers[, 4]))
  expect_equal(as.matrix(td[, -(1:3)]), unname(fit$centers), ignore_attr = TRUE)
})

test_that("augment() keeps sparse data sparse: one row per non-zero entry", {
  s <- make_sparse_mixture()
  x <- s$x
  rownames(x) <- paste0("doc", seq_len(nrow(x)))
  colnames(x) <- paste0("w", seq_len(ncol(x)))
  fit <- kmeans_reduced(x, 3, method = "sparse_embedding", dims = 10, seed = 2)
  au <- augment(fit, data = x)
  expect_identical(nrow(au), length(x@x[x@x != 0]))
  expect_identical(names(au), c(".row", ".column", "value", ".cluster"))
  # the triplets rebuild the matrix; each entry carries its row's cluster
  back <- Matrix::sparseMatrix(i = match(au$.row, rownames(x)), j = match(au$.column, colnames(x)),
                               x = au$value, dims = dim(x), dimnames = dimnames(x))
  expect_equal(as.matrix(back), as.matrix(x))
  expect_identical(as.integer(au$.cluster), unname(fit$cluster[match(au$.row, rownames(x))]))
  # without names: indices; newdata: predicted clusters
  an <- augment(fit, newdata = unname(x[1:5, ]))
  expect_true(is.integer(an$.row) && all(an$.row %in% 1:5))
  expect_identical(as.integer(an$.cluster), unname(predict(fit, x[1:5, ])[an$.row]))
  # the long form is never rows x columns: memory follows the non-zeros
  big <- withr::with_seed(1, Matrix::rsparsematrix(4000, 2000, density = 0.002))
  bfit <- kmeans_reduced(big, 3, method = "sparse_embedding", dims = 10, seed = 1)
  ab <- augment(bfit, big)
  expect_identical(nrow(ab), Matrix::nnzero(big))
  expect_lt(as.numeric(utils::object.size(ab)), 0.02 * 8 * prod(dim(big)))
})

test_that("augment() reads a big.matrix's rows into the data frame it returns", {
  skip_if_not_installed("bigmemory")
  m <- make_mixture(n = 50, d = 3, k = 2, seed = 44)
  fit <- kmeans_reduced(m$x, 2, seed = 1)
  b <- bigmemory::as.big.matrix(unname(m$x))
  a <- augment(fit, newdata = b)
  expect_identical(as.integer(a$.cluster), unname(predict(fit, m$x)))
  expect_equal(unname(as.matrix(a[, 1:3])), unname(m$x))
  expect_identical(as.integer(augment(fit, data = b)$.cluster), unname(fit$cluster))
})
