# plot() and autoplot() of a fit (R/methods_kmeans_reduced_plot.R).

m <- make_mixture(n = 240, d = 30, k = 4, sd = 2, sep = 4)

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
