# print(), summary(), predict() and fitted() of a fit (R/methods_kmeans_reduced.R).

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
  # (the line says what it is normalized by: the uncentred sum of squares,
  # sum(x^2) above, not totss)
  expect_output(print(s), "normalized: +[0-9.]+ \\(objective / \\|\\|A\\|\\|_F\\^2, the sum of squares of the uncentred data")
  expect_output(print(fit$reducer), "leverage-score feature selection, 30 features -> 20 dimensions")
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
