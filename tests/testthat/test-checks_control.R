# The checks of `control` (R/checks_control.R).

test_that("a tiny eps uses the most accurate randomized SVD, not the least", {
  x <- withr::with_seed(5, matrix(rnorm(40 * 8), 40))
  fit <- expect_warning(kmeans_reduced(x, 2, control = list(eps = 1e-12), method = "leverage",
                                       dims = 4, seed = 1), NA)
  # min(n, d) test vectors: the randomized SVD is exact up to rounding.
  expect_equal(fit$reducer$scores, leverage_scores(x, 2, "exact"), tolerance = 1e-8)
})

test_that("an option given twice is refused, naming it, wherever `control` is read", {
  x <- withr::with_seed(1, matrix(rnorm(60 * 4), 60))
  # a plain list: two answers to one question (the last used to win silently)
  twice <- "`control` must give each option once, but gives 'polish' 2 times \\(\"none\", \"hartigan\"\\)\\.$"
  expect_error(kmeans_reduced(x, 3, control = list(polish = "none", polish = "hartigan")), twice)
  expect_error(kmeans_reduced(x, 3, seed = 1, control = list(tol = 0, polish = "none", tol = 0.1,
                                                             polish = "none")),
               "gives 'tol' 2 times \\(0, 0.1\\); also given more than once: 'polish'\\.$")
  # the same value twice is still given twice
  expect_error(kmeans_reduced(x, 3, control = list(tries = 2, tries = 2)),
               "`control` must give each option once, but gives 'tries' 2 times")
  # a kmeans_control() object with an option appended
  expect_error(kmeans_reduced(x, 3, control = c(kmeans_control(), list(polish = "none"))),
               "`control` must give each option once, but gives 'polish' 2 times \\(\"auto\", \"none\"\\)")
  # the methods' options, and every function that takes `control`
  expect_error(reduce_dims(x, "leverage", dims = 2, k = 2, control = list(eps = 0.5, eps = 0.2)),
               "`control` must give each option once, but gives 'eps' 2 times \\(0.5, 0.2\\)")
  expect_error(k_path(x, 1:2, B = 0, verbose = FALSE, control = list(tol = 0, tol = 1e-4)),
               "`control` .* gives 'tol' 2 times")
  expect_error(dims_path(x, 2, methods = "sign", dims = 2, verbose = FALSE,
                         control = list(tries = 1, tries = 2)),
               "`control` .* gives 'tries' 2 times")
  # kmeans_control(): R itself refuses a formal given twice, by its name
  expect_error(kmeans_control(polish = "none", polish = "hartigan"), "\"polish\" matched by multiple")
  # each name once is fine, and a modified kmeans_control() object too
  expect_silent(kmeans_reduced(x, 3, seed = 1, control = list(polish = "none", tol = 0)))
  expect_silent(kmeans_reduced(x, 3, seed = 1,
                               control = utils::modifyList(kmeans_control(), list(polish = "none"))))
})
