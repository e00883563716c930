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
