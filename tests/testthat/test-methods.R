m <- make_mixture(n = 240, d = 30, k = 4, sd = 2, sep = 4)

test_that("predict() on the training data returns the fitted clusters", {
  for (method in c("none", "sign", "leverage", "svd")) {
    fit <- kmeans_reduced(m$x, 4, method = method, seed = 2)
    expect_identical(predict(fit, m$x), fit$cluster)
    expect_identical(predict(fit), fit$cluster)
  }
  s <- make_sparse_mixture()
  fit <- kmeans_reduced(s$x, 3, method = "sign", seed = 2)
  expect_identical(predict(fit, s$x), fit$cluster)
  expect_identical(unname(predict(fit, s$dense)), unname(fit$cluster))
})

test_that("predict() assigns new rows to the nearest centre and checks columns", {
  fit <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  new <- m$centres + 0.01
  colnames(new) <- colnames(m$x)
  p <- predict(fit, new)
  # each true centre lands in the cluster that holds its points
  expect_identical(unname(p), unname(vapply(1:4, function(q) as.integer(names(which.max(table(fit$cluster[m$truth == q])))), 1L)))
  # columns matched by name, in any order
  expect_identical(predict(fit, new[, rev(colnames(new))]), p)
  expect_error(predict(fit, new[, -1]), "`newdata` must have the columns of the data the model was fitted to; missing: 'f1'")
  expect_error(predict(fit, unname(new[, -1])), "`newdata` must have 30 columns \\(as the data the model was fitted to\\), not 29")
  bad <- new; bad[1, 1] <- NA
  expect_error(predict(fit, bad), "`newdata` must contain only finite numbers")
})

test_that("fitted() follows stats::kmeans", {
  fit <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  expect_equal(fitted(fit), fit$centers[fit$cluster, ])
  expect_identical(fitted(fit, "classes"), fit$cluster)
})

test_that("print() and summary() report the fit", {
  fit <- kmeans_reduced(m$x, 4, method = "leverage", dims = 20, seed = 2)
  expect_output(print(fit), "k-means on reduced data: 4 clusters of sizes")
  expect_output(print(fit), "leverage-score feature selection, 30 -> 20 dimensions")
  capture_output(expect_invisible(print(fit)))
  s <- summary(fit)
  expect_s3_class(s, "summary.kmeans_reduced")
  expect_equal(s$normalized_objective, fit$tot.withinss / sum(m$x^2))
  expect_equal(sum(s$features$times), 20L)
  expect_true(all(s$features$name %in% colnames(m$x)))
  expect_output(print(s), "selected features: [0-9]+ distinct of 20 draws")
  expect_output(print(s), "normalized:")
  expect_output(print(fit$reducer), "leverage-score feature selection, 30 features -> 20 dimensions")
})

test_that("plot() draws without error and needs data for method none", {
  fit <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(fit))
  plot(fit, data = m$x)
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  none <- kmeans_reduced(m$x, 4, method = "none", seed = 2)
  expect_error(plot(none), "this fit keeps no reduced data: give the data, as in plot\\(fit, data = x\\)")
  grDevices::png(f)
  expect_invisible(plot(none, data = m$x))
  grDevices::dev.off()
})

test_that("factoextra::fviz_cluster works on the fit", {
  skip_if_not_installed("factoextra")
  fit <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  p <- factoextra::fviz_cluster(fit, data = m$x)
  expect_s3_class(p, "ggplot")
})

test_that("plot(which = \"scores\") shows the leverage scores with the selected features", {
  fit <- kmeans_reduced(m$x, 4, method = "leverage", dims = 6, seed = 2,
                        control = list(svd = "exact"))
  fs <- kmreduce:::feature_scores(fit)
  # The scores are the leverage scores of svd() of the centred data (k = 4
  # right singular vectors).
  v <- svd(scale(m$x, scale = FALSE), 0, 4)$v
  expect_equal(fs$score, rowSums(v^2) / 4, tolerance = 1e-8)
  expect_identical(fs$name, colnames(m$x))
  expect_identical(which(fs$selected), sort(unique(fit$reducer$features$index)))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(fit, which = "scores", n_labels = 3))
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  cs <- kmeans_reduced(m$x, 4, method = "cssp", dims = 5, seed = 2)
  expect_equal(sum(kmreduce:::feature_scores(cs)$selected), 5L)
  sg <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  expect_error(plot(sg, which = "scores"),
               "`which = \"scores\"` needs a feature-selection fit .*method \"sign\"")
  expect_error(plot(sg, which = "bars"), "`which` must be one of \"clusters\", \"centers\", \"scores\"")
})

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

test_that("autoplot() gives ggplot objects for both plots", {
  skip_if_not_installed("ggplot2")
  fit <- kmeans_reduced(m$x, 4, method = "leverage", dims = 6, seed = 2)
  p <- ggplot2::autoplot(fit)
  expect_s3_class(p, "ggplot")
  expect_identical(nrow(p$data), nrow(m$x))
  ps <- ggplot2::autoplot(fit, which = "scores", n_labels = 2)
  expect_s3_class(ps, "ggplot")
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  print(p)
  print(ps)
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
})

test_that("predict(type = \"distances\") gives the squared distances to the centres", {
  m <- make_mixture(n = 120, d = 10, k = 3, sd = 1, sep = 3)
  for (method in c("none", "sign", "leverage")) {
    fit <- kmeans_reduced(m$x, 3, method = method, dims = 4, seed = 1)
    d2 <- predict(fit, m$x, type = "distances")
    expect_identical(dim(d2), c(120L, 3L))
    space <- if (method == "none") m$x else fit$reduced
    ref <- sapply(1:3, function(q) rowSums(sweep(space, 2, fit$reduced_centers[q, ])^2))
    expect_equal(unname(d2), unname(ref), tolerance = 1e-8, label = method)
    expect_identical(unname(max.col(-d2, ties.method = "first")), unname(fit$cluster))
  }
  # after refine: distances in the original space, to the assignment centres
  fit <- kmeans_reduced(m$x, 3, method = "sign", dims = 4, seed = 1, refine = 2)
  d2 <- predict(fit, m$x, type = "distances")
  ref <- sapply(1:3, function(q) rowSums(sweep(m$x, 2, fit$assignment_centers[q, ])^2))
  expect_equal(unname(d2), unname(ref), tolerance = 1e-8)
  expect_error(predict(fit, type = "distances"), "`newdata` must be given")
  expect_error(predict(fit, m$x, type = "dist2"), "`type` must be")
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

test_that("plot(): legend, distinct colours, known labels, centres as images", {
  fit <- kmeans_reduced(m$x, 4, method = "sign", seed = 2)
  f <- tempfile(fileext = ".png")
  grDevices::png(f, width = 600, height = 500)
  expect_invisible(plot(fit, labels = m$truth))
  plot(fit, col = factor(letters[m$truth]))            # a factor of labels as `col`
  plot(fit, legend = FALSE, col = c("red", "blue", "green", "black"))
  expect_invisible(plot(fit, which = "centers"))       # heat map
  expect_invisible(plot(fit, which = "centers", image_dim = c(5, 6)))
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  expect_error(plot(fit, labels = 1:3), "`labels` must be 240 labels \\(one per row, no NA\\), not")
  expect_error(plot(fit, col = list(1)), "`col` must be colours")
  expect_error(plot(fit, which = "centers", image_dim = c(28, 28)),
               "`image_dim` must be the height and width of the images, two whole numbers whose product is the number of features \\(30\\)")
  expect_error(plot(fit, legend = NA), "`legend` must be TRUE or FALSE")
})

test_that("plot(which = \"centers\") draws images upright", {
  # A 4 x 6 picture with a bright top-left pixel and a dim bottom-right one.
  img <- matrix(0, 4, 6)
  img[1, 1] <- 1
  img[4, 6] <- 0.5
  # image() puts z[i, j] at x = i, y = j (upwards): the top-left pixel is at
  # x = 1, y = 4 and the bottom-right at x = 6, y = 1.
  for (byrow in c(TRUE, FALSE)) {
    v <- if (byrow) as.vector(t(img)) else as.vector(img)
    z <- kmreduce:::upright_image(v, 4, 6, byrow)
    expect_identical(dim(z), c(6L, 4L))
    expect_identical(z[1, 4], 1)
    expect_identical(z[6, 1], 0.5)
    expect_identical(sum(z), 1.5)
  }
})

test_that("predict() on sparse newdata far from the origin uses the fit's shift", {
  # "none" and refine fits on dense data far from the origin compare rows
  # minus a shift; sparse newdata (the same rows) must too.
  m <- make_mixture(n = 200, d = 4, k = 2, sd = 1, sep = 3, seed = 41)
  for (offset in c(1e6, 1e12)) {
    y <- m$x + offset
    ys <- Matrix::Matrix(y, sparse = TRUE)
    fits <- list(none = kmeans_reduced(y, 2, method = "none", seed = 1),
                 refine = kmeans_reduced(y, 2, method = "sign", dims = 2, refine = 2, seed = 1))
    for (f in names(fits)) {
      fit <- fits[[f]]
      label <- sprintf("%s, offset %g", f, offset)
      expect_identical(predict(fit, ys), fit$cluster, label = label)
      expect_identical(predict(fit, ys, type = "distances"), predict(fit, y, type = "distances"),
                       label = label)
      # in blocks of rows (the dense copy is made block by block)
      expect_identical(predict(fit, ys[c(5, 150, 17), ]), fit$cluster[c(5, 150, 17)], label = label)
    }
  }
})

test_that("a fit with duplicated or missing column names never matches renamed columns by position", {
  m <- make_mixture(n = 60, d = 3, k = 2, seed = 42)
  x <- m$x
  colnames(x) <- c("a", "a", "b")
  fit <- kmeans_reduced(x, 2, method = "none", seed = 1)
  expect_identical(predict(fit, x), fit$cluster)         # same names, same order
  expect_identical(predict(fit, unname(x)), fit$cluster)  # no names: by position
  msg <- "`newdata` has column names, but the data the model was fitted to have duplicated names \\('a'\\)"
  expect_error(predict(fit, x[, c(3, 1, 2)]), msg)
  expect_error(predict(fit, as.data.frame(x[, c(3, 1, 2)], optional = TRUE)), "`newdata` has column names")
  y <- x
  colnames(y) <- c("a", "b", "c")
  expect_error(predict(fit, y), msg)
  colnames(x) <- c("a", NA, "b")
  fit2 <- kmeans_reduced(x, 2, method = "none", seed = 1)
  expect_identical(predict(fit2, x), fit2$cluster)
  expect_error(predict(fit2, x[, c(3, 2, 1)]), "missing \\(NA or empty\\) names")
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
