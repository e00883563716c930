# dims_for(): the dimensions of the papers' theorems, with their constants.

test_that("the constants of Boutsidis et al. (2015) and the others", {
  d <- dims_for(k = 10, eps = 0.3, n = 70000)
  one <- function(m, col = "dims") d[d$method == m, col][1]
  # Theorem 12: r = 3330 * 15^2 k / eps^2
  expect_identical(one("sign"), ceiling(3330 * 225 * 10 / 0.09))
  expect_identical(one("sign", "guarantee"), "2 + eps")
  # Theorem 11: r = c1 4 k ln(200 k) / eps^2 with c1 = 16e6 (delta = 0.01)
  expect_identical(one("leverage"), ceiling(16e6 * 4 * 10 * log(200 * 10) / 0.09))
  expect_identical(one("leverage", "guarantee"), "3 + eps")
  lev <- d[d$method == "leverage", ]
  expect_identical(nrow(lev), 2L)
  expect_true(is.na(lev$dims[2]) && !lev$constant_stated[2])   # the 2009 Theta()
  # Theorem 13 and the exact SVD: k
  expect_identical(one("rsvd"), 10)
  expect_identical(one("svd"), 10)
  expect_match(one("rsvd", "formula"), "k \\+ ceiling\\(k / eps \\+ 1\\) = 45 columns")
  # Johnson-Lindenstrauss (Theorem 16)
  expect_identical(one("gaussian"), ceiling(36 * log(70000) * log(100) / 0.09))
  # Liu et al.: the O() constant is not stated (taken as 1, marked)
  ep <- 0.3 / 2.3
  expect_identical(one("sparse_embedding"), ceiling(max((10 + log2(100)) / ep^2, 6 / (ep^2 * 0.01))))
  expect_false(one("sparse_embedding", "constant_stated"))
  expect_true(is.na(one("srht")))
  # the FJLT: Ailon and Chazelle's lemma states no constant
  expect_true(is.na(one("fjlt")) && !one("fjlt", "constant_stated"))
  expect_identical(one("fjlt", "guarantee"), "1 + eps (all pairwise distances)")
  # the theory is far above what is used: 10 k = 100
  expect_true(all(d$dims[d$method %in% c("sign", "leverage")] > 1e6, na.rm = TRUE))
  # it grows as 1 / eps^2 and with k
  expect_equal(dims_for("sign", k = 10, eps = 0.15)$dims / dims_for("sign", k = 10, eps = 0.3)$dims,
               4, tolerance = 1e-6)
  expect_identical(dims_for("svd", k = 3)$dims, 3)
})

test_that("bad arguments are named in the error", {
  expect_error(dims_for("magic", k = 3), "`method` must be NULL or some of")
  expect_error(dims_for("sign", k = 0), "`k` must be a whole number")
  expect_error(dims_for("sign", k = 3, eps = 1), "`eps` must be a number in \\(0, 1\\)")
  expect_error(dims_for("sign", k = 3, delta = 0), "`delta` must be a number in \\(0, 1\\)")
  expect_error(dims_for("gaussian", k = 3),
               "`n` \\(the number of rows\\) is needed for the Johnson-Lindenstrauss bound of \"gaussian\" and \"achlioptas\"\\.$")
  expect_error(dims_for(c("sign", "achlioptas"), k = 3), "`n` \\(the number of rows\\) is needed")
  with_n <- dims_for(k = 3, n = 100)$method
  expect_identical(dims_for(k = 3)$method, with_n[!with_n %in% c("gaussian", "achlioptas")])
  expect_identical(nrow(dims_for(k = 3)), 9L)   # without n: no Johnson-Lindenstrauss rows
})

test_that("tiny eps: the sketch size is printed as a number, without a warning", {
  expect_silent(r <- dims_for("rsvd", k = 10, eps = 1e-300))
  expect_match(r$formula, "= 1e\\+301 columns", fixed = FALSE)
  expect_match(dims_for("rsvd", k = 10, eps = 0.3)$formula, "= 45 columns")
})
