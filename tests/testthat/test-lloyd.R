# Lloyd (lloyd.hpp) on rows read in place or packed block by block, and
# its single-precision products (single.hpp), against stats::kmeans() and
# double products.

test_that("data too large to copy are read in place or packed block by block, with the same results", {
  set.seed(2)
  x <- matrix(rnorm(5003 * 21), 5003, 21) + 1e3  # far from the origin: shifted rows
  x[1:2000, ] <- x[1:2000, ] + 4
  # wider than one chunk of 48 columns, k above one group of 12 centres,
  # k-means|| seeding and the local search (second nearest labels)
  w <- matrix(rnorm(3001 * 61), 3001, 61) + rep(rnorm(15 * 61, sd = 0.7), length.out = 3001 * 61)
  wide <- function() {
    list(kmeans_reduced(w, 15, method = "none", seed = 5, n_init = 2,
                        control = list(seeding = "k-means||", local_search = 2)),
         kmeans_reduced(w, 15, method = "none", seed = 6, n_init = 2, n_threads = 2))
  }
  copied <- kmeans_reduced(x, 7, method = "none", seed = 3, n_init = 3)
  copied_wide <- wide()
  old <- kmreduce:::packed_copy_limit_cpp(0)  # no copy for any size
  on.exit(kmreduce:::packed_copy_limit_cpp(old))
  streamed <- kmeans_reduced(x, 7, method = "none", seed = 3, n_init = 3)
  streamed1 <- kmeans_reduced(x, 7, method = "none", seed = 3, n_init = 3, n_threads = 1)
  streamed_wide <- wide()
  expect_identical(streamed$cluster, copied$cluster)
  expect_identical(streamed$centers, copied$centers)
  expect_identical(streamed$tot.withinss, copied$tot.withinss)
  for (i in 1:2) {
    expect_identical(streamed_wide[[i]]$cluster, copied_wide[[i]]$cluster)
    expect_identical(streamed_wide[[i]]$centers, copied_wide[[i]]$centers)
    expect_identical(streamed_wide[[i]]$tot.withinss, copied_wide[[i]]$tot.withinss)
  }
  expect_identical(streamed1$cluster, streamed$cluster)
  expect_identical(streamed1$centers, streamed$centers)
  expect_identical(predict(streamed, x[1:50, ]), predict(copied, x[1:50, ]))
  # against stats::kmeans from the same centres
  ref <- stats::kmeans(x, streamed$centers, iter.max = 50, algorithm = "Lloyd")
  expect_identical(unname(ref$cluster), unname(streamed$cluster))
})

test_that("single-precision products match the double products to float accuracy, whatever the blocking", {
  m <- make_mixture(n = 203, d = 37, k = 4, sd = 1, sep = 3)
  x <- m$x + 50  # away from the origin: the shift matters
  shift <- colMeans(x)
  centres <- m$centres[c(1:4, 2, 3), ] + 50
  exact <- sweep(x, 2, shift) %*% t(sweep(centres, 2, shift))
  bound <- 2 * (ncol(x) + 2) * 2^-24 * outer(sqrt(rowSums(sweep(x, 2, shift)^2)),
                                            sqrt(rowSums(sweep(centres, 2, shift)^2)))
  p <- kmreduce:::single_products_cpp(x, centres, TRUE, 256L, 1L, shift)
  expect_true(all(abs(p - exact) <= bound))
  expect_gt(max(abs(p - exact)), 0)  # computed in float, not in double
  # rows in blocks of 5 (parts of tiles), tiles packed as needed, 2 threads:
  # every row gets the very same arithmetic
  expect_identical(kmreduce:::single_products_cpp(x, centres, FALSE, 5L, 2L, shift), p)
  expect_identical(kmreduce:::single_products_cpp(x, centres, TRUE, 8L, 1L, shift), p)
  # an exact power of two on the data scales the products exactly
  expect_identical(kmreduce:::single_products_cpp(x * 2^-600, centres * 2^-600, TRUE, 256L, 1L,
                                                  shift * 2^-600), p * 2^-1200)
  expect_identical(kmreduce:::single_products_cpp(x * 2^500, centres * 2^500, TRUE, 256L, 1L,
                                                  shift * 2^500) * 2^-1000, p)
  # no shift: the rows as they are
  expect_true(all(abs(kmreduce:::single_products_cpp(x, centres, TRUE, 256L, 1L) -
                        x %*% t(centres)) <=
                    2 * (ncol(x) + 2) * 2^-24 * outer(sqrt(rowSums(x^2)), sqrt(rowSums(centres^2)))))
})

test_that("control$precision = \"single\": a Lloyd fixed point in double, close to the double fit, any thread count", {
  m <- make_mixture(n = 5000, d = 24, k = 12, sd = 1, sep = 1.5, seed = 3)
  for (seeding in c("k-means++", "k-means||")) {
    ctl <- list(seeding = seeding, precision = "single")
    fs <- kmeans_reduced(m$x, 12, method = "none", seed = 2, n_init = 3, control = ctl)
    fd <- kmeans_reduced(m$x, 12, method = "none", seed = 2, n_init = 3,
                         control = list(seeding = seeding))
    # the result is a fixed point of Lloyd in double (stats::kmeans from its centres)
    ref <- stats::kmeans(m$x, fs$centers, algorithm = "Lloyd", iter.max = 50)
    expect_identical(unname(ref$cluster), unname(fs$cluster))
    expect_equal(ref$tot.withinss, fs$tot.withinss, tolerance = 1e-10)
    expect_equal(fs$tot.withinss, objective_r(m$x, fs$cluster), tolerance = 1e-10)
    expect_identical(unname(predict(fs, m$x)), unname(fs$cluster))
    # the search in float ends where the search in double ends (or as low)
    expect_lt(fs$tot.withinss, fd$tot.withinss * (1 + 1e-3))
    f2 <- kmeans_reduced(m$x, 12, method = "none", seed = 2, n_init = 3, n_threads = 2,
                         control = ctl)
    expect_identical(f2$cluster, fs$cluster)
    expect_identical(f2$centers, fs$centers)
  }
  # on the rows of a reduction, with data far from the origin, tiles packed as needed
  old <- kmreduce:::packed_copy_limit_cpp(0)
  on.exit(kmreduce:::packed_copy_limit_cpp(old))
  fg <- kmeans_reduced(m$x + 1e6, 12, method = "gaussian", dims = 12, seed = 4,
                       control = list(precision = "single"))
  kmreduce:::packed_copy_limit_cpp(old)
  fg2 <- kmeans_reduced(m$x + 1e6, 12, method = "gaussian", dims = 12, seed = 4,
                        control = list(precision = "single"))
  expect_identical(fg$cluster, fg2$cluster)
  expect_gt(adjusted_rand_index(fg$cluster, m$truth), 0.8)
})

test_that("control$precision = \"single\" on data of any scale, sparse rows and bad input", {
  m <- make_mixture(n = 600, d = 10, k = 4, sd = 1, sep = 3, seed = 5)
  ctl <- list(precision = "single")
  f1 <- kmeans_reduced(m$x, 4, method = "none", seed = 1, control = ctl)
  expect_identical(adjusted_rand_index(f1$cluster, m$truth), 1)
  for (s in c(2^-400, 1e-100, 1e100, 2^400)) {
    fs <- kmeans_reduced(m$x * s, 4, method = "none", seed = 1, control = ctl)
    expect_identical(unname(fs$cluster), unname(f1$cluster))
    expect_equal(fs$tot.withinss / s^2, f1$tot.withinss, tolerance = 1e-12)
  }
  # sparse rows stay in double: the same fit as without the option
  sx <- make_sparse_mixture()
  expect_identical(kmeans_reduced(sx$x, 3, method = "none", seed = 1, control = ctl)$cluster,
                   kmeans_reduced(sx$x, 3, method = "none", seed = 1)$cluster)
  bad <- m$x
  bad[7, 3] <- NA
  expect_error(kmeans_reduced(bad, 4, method = "none", control = ctl), "`x`.*NA")
  expect_error(kmeans_reduced(m$x, 4, control = list(precision = "half")),
               "`control\\$precision` must be one of \"double\", \"single\", not \"half\"")
})

test_that("an empty cluster is re-seeded even where the distances from the norms lost every digit", {
  # Rows far from the shift of their distances ||x||^2 + ||c||^2 - 2 x.c:
  # every distance to a centre came out 0 once clamped, so no row seemed
  # farther than 0 from its centre, and re-seeding left clusters empty. The
  # distances summed term by term find the farthest row.
  set.seed(3)
  x <- matrix(rnorm(3000 * 8), 3000, 8)
  centres <- rbind(x[1:31, ], rep(1e13, 8))  # the last one gets no row
  for (shift in c(1e9, 1e12)) {
    fit <- kmreduce:::lloyd_cpp(kmreduce:::cpp_source(rows = x), centres,
                                kmreduce:::lloyd_cpp_options(50L, 0, 1L), rep(shift, 8))
    expect_identical(sum(tabulate(fit$cluster, 32L) == 0L), 0L, label = shift)
  }
})
