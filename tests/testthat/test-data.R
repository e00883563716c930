test_that("fashion_mnist is the documented subset", {
  expect_identical(dim(fashion_mnist$x), c(3000L, 784L))
  expect_true(is.integer(fashion_mnist$x))
  expect_true(all(fashion_mnist$x >= 0 & fashion_mnist$x <= 255))
  expect_identical(nlevels(fashion_mnist$label), 10L)
  expect_identical(length(fashion_mnist$label), 3000L)
  expect_true(all(table(fashion_mnist$label) > 250))
})

test_that("clustering fashion_mnist beats chance by far", {
  x <- fashion_mnist$x[1:1000, ] / 255
  fit <- kmeans_reduced(x, 10, method = "sign", dims = 50, n_init = 2, seed = 1)
  tab <- table(fit$cluster, fashion_mnist$label[1:1000])
  purity <- sum(apply(tab, 1, max)) / 1000
  expect_gt(purity, 0.45)
})
