# The shift of the rows (data/row_shift.hpp): a point among the rows that
# k-means subtracts from them (method "none", the reduced rows of every
# reducer, refine) so that ||x||^2 + ||c||^2 - 2 x.c keeps its digits. One
# row far from the others used to pull a mean-based shift away from every
# other row: clusters came back empty and the objective depended on the
# order of the rows.

# The data of the tests: n distinct rows near the origin, with row `at`
# moved to `far` in every column.
far_rows <- function(n, d, far, at = 1L, seed = 11) {
  x <- withr::with_seed(seed, matrix(rnorm(n * d), n, d))
  x[at, ] <- far
  x
}

# The rows in another order: the far row (first) second.
swap12 <- function(x) x[c(2L, 1L, seq_len(nrow(x))[-(1:2)]), , drop = FALSE]

# A fit (k-means on x itself) that stats::kmeans()'s Lloyd, which sums
# (x - c)^2 term by term, leaves where it is: its centres are the means of
# its rows and every row is nearest its own.
expect_lloyd_fixed_point <- function(fit, x, label) {
  ref <- stats::kmeans(x, fit$centers, iter.max = 20L, algorithm = "Lloyd")
  expect_equal(ref$tot.withinss, fit$tot.withinss, tolerance = 1e-10, label = label)
  expect_true(same_partition(ref$cluster, fit$cluster), label = label)
}

test_that("the shift is the columns' lower medians over at most 256 rows chosen by content", {
  for (n in c(40L, 256L)) {
    x <- far_rows(n, 5, 1e12)
    expect_identical(kmreduce:::robust_shift_cpp(x), lower_medians(x), label = n)
  }
  # Above 256 rows: 256 of them, the same whatever the order of the rows
  # and the threads, among the bulk of the rows even with 10 % far ones.
  for (n in c(257L, 5000L)) {
    x <- far_rows(n, 6, 1e12)
    x[seq(2L, n, by = 10L), ] <- 1e12
    s <- kmreduce:::robust_shift_cpp(x, 1L)
    perm <- withr::with_seed(5, sample(n))
    expect_identical(kmreduce:::robust_shift_cpp(x[perm, ], 2L), s, label = n)
    expect_true(all(abs(s) < 5), label = n)
    # (each a value of its column)
    expect_true(all(vapply(seq_along(s), function(j) s[j] %in% x[, j], TRUE)), label = n)
  }
})

test_that("one far row: Lloyd from given centres is stats::kmeans()'s, in any order (\"none\")", {
  # (on both sides of the 256-row sample)
  for (n in c(200L, 4000L)) {
    for (far in c(1e12, 1e30)) {
      label <- sprintf("n = %d, far = %g", n, far)
      x <- far_rows(n, 8, far)
      start <- x[c(1L, seq(5L, n, length.out = 15L)), ]
      ref <- stats::kmeans(x, start, iter.max = 100L, algorithm = "Lloyd")
      for (v in list(x, swap12(x))) {
        fit <- kmeans_reduced(v, start, iter_max = 100L, algorithm = "Lloyd",
                              control = list(tol = 0))
        expect_identical(fit$method, "none")
        expect_identical(unname(fit$size), ref$size, label = label)
        expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-12, label = label)
        expect_equal(unname(fit$centers), unname(ref$centers), tolerance = 1e-12, label = label)
      }
    }
  }
})

test_that("one far row: no empty cluster, the far row alone, a Lloyd fit of the others (\"none\")", {
  # (the example: 20000 rows, k = 64; its objective was 16.6 times that of
  # the rows in another order, with 2 empty clusters, 62 at 1e30)
  for (n in c(200L, 4000L)) {
    for (far in c(1e12, 1e30)) {
      for (seeding in c("k-means++", "k-means||")) {
        label <- sprintf("n = %d, far = %g, %s", n, far, seeding)
        x <- far_rows(n, 8, far)
        fit <- function(v) {
          kmeans_reduced(v, 16, seed = 1, control = list(seeding = seeding, tol = 0))
        }
        f1 <- fit(x)
        f2 <- fit(swap12(x))
        expect_identical(f1$method, "none")
        expect_true(all(f1$size > 0) && all(f2$size > 0), label = label)
        expect_identical(f1$size[f1$cluster[1L]], 1L, label = label)
        expect_lloyd_fixed_point(f1, x, label)
        # (another order draws other seeds: another local optimum, not
        # another scale)
        expect_equal(f1$tot.withinss, f2$tot.withinss, tolerance = 0.03, label = label)
      }
    }
  }
})

test_that("one far row: the reduced rows keep their digits (projections, refine)", {
  # The reduced rows minus their column means sat at -1e12 / n: every digit
  # of their distances lost, the reduced rows "merged".
  for (far in c(1e12, 1e30)) {
    x <- far_rows(600, 60, far, seed = 12)
    for (refine in c(0L, 100L)) {
      label <- sprintf("far = %g, refine = %d", far, refine)
      fit <- function(v) kmeans_reduced(v, 8, method = "sign", dims = 20, seed = 2, refine = refine)
      expect_no_warning(f1 <- fit(x))
      f2 <- fit(swap12(x))
      expect_true(all(f1$size > 0), label = label)
      expect_equal(f1$tot.withinss, f2$tot.withinss, tolerance = 1e-12, label = label)
      expect_identical(nrow(unique(f1$reduced)), 600L, label = label)
      if (refine == 0L) {
        # Lloyd's fixed point in the reduced space
        ref <- stats::kmeans(f1$reduced, f1$reduced_centers, iter.max = 20L, algorithm = "Lloyd")
        expect_true(same_partition(ref$cluster, f1$cluster), label = label)
      } else {
        # refine: Lloyd's fixed point on x
        expect_lloyd_fixed_point(f1, x, label)
      }
    }
  }
})

test_that("one far row: sparse, big.matrix and DelayedArray rows give the in-memory fit", {
  skip_on_cran()
  x <- far_rows(3000, 8, 1e12, seed = 13)
  # Sparse rows are not shifted; far from zero (an offset of 1e6) they are
  # clustered as the dense rows, which one far row no longer hides.
  y <- x
  y[-1L, ] <- y[-1L, ] + 1e6
  dense <- kmeans_reduced(y, 12, seed = 3)
  sp <- kmeans_reduced(Matrix::Matrix(y, sparse = TRUE), 12, seed = 3)
  expect_identical(sp$cluster, dense$cluster)
  expect_true(all(dense$size > 0))
  expect_lloyd_fixed_point(dense, y, "dense, offset 1e6")
  sp2 <- kmeans_reduced(Matrix::Matrix(swap12(y), sparse = TRUE), 12, seed = 3)
  expect_equal(sp2$tot.withinss, sp$tot.withinss, tolerance = 1e-12)
  # rows read in blocks: the projection's reduced rows and refine's shift
  mem <- kmeans_reduced(x, 12, method = "sign", dims = 6, seed = 3, refine = 100)
  expect_true(all(mem$size > 0))
  expect_lloyd_fixed_point(mem, x, "in memory, refine")
  blocks <- list()
  if (requireNamespace("bigmemory", quietly = TRUE)) {
    blocks$big <- function(v) bigmemory::as.big.matrix(v)
  }
  if (requireNamespace("DelayedArray", quietly = TRUE)) {
    blocks$delayed <- function(v) DelayedArray::DelayedArray(v)
  }
  for (b in names(blocks)) {
    for (v in list(x, swap12(x))) {
      fb <- kmeans_reduced(blocks[[b]](v), 12, method = "sign", dims = 6, seed = 3, refine = 100,
                           control = list(block_rows = 700))
      expect_true(all(fb$size > 0), label = b)
      expect_equal(fb$tot.withinss, mem$tot.withinss, tolerance = 1e-12, label = b)
    }
  }
})

test_that("one far row: float products (precision \"single\", k-means|| rounds) give way to double", {
  # The float tiles are scaled by a power of two set by the largest value:
  # with one row at 1e30 the other rows' products vanished below float's
  # range, and the search saw distances of 0 (6.5 % above the double fit).
  for (far in c(1e30, 1e100)) {
    x <- far_rows(4000, 8, far)
    double <- kmeans_reduced(x, 64, seed = 1)
    single <- kmeans_reduced(x, 64, seed = 1, control = list(precision = "single"))
    expect_identical(single$cluster, double$cluster, label = far)
    expect_identical(single$tot.withinss, double$tot.withinss, label = far)
  }
  # k-means|| takes float products from k = 64 on: the same seeds whatever
  # the far row's magnitude
  fits <- lapply(c(1e30, 1e100), function(far) {
    kmeans_reduced(far_rows(4000, 8, far), 64, seed = 1, control = list(seeding = "k-means||"))
  })
  expect_identical(fits[[2]]$cluster, fits[[1]]$cluster)
  expect_true(all(fits[[1]]$size > 0))
})
