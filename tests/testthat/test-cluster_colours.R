test_that("cluster_colours() gives n distinct, valid colours for any n", {
  for (n in c(1, 2, 9, 10, 11, 20, 33, 34, 50, 100, 500, 10000)) {
    cc <- cluster_colours(n)
    expect_length(cc, n)
    rgb <- grDevices::col2rgb(cc)
    expect_false(anyDuplicated(t(rgb)) > 0, label = sprintf("duplicated colour for n = %d", n))
  }
  # Up to 36 clusters every colour is readable on white (no near-white).
  lum <- colSums(grDevices::col2rgb(cluster_colours(33)) * c(0.299, 0.587, 0.114)) / 255
  expect_true(all(lum < 0.8))
  # At k = 10 (the case where the old default reused a colour) the ten
  # colours differ by a visible amount: the closest pair is >= 40 apart in RGB.
  rgb <- grDevices::col2rgb(cluster_colours(10))
  expect_gte(min(stats::dist(t(rgb))), 40)
  expect_identical(cluster_colours(0), character(0))
  expect_error(cluster_colours(-1), "`n` must be a whole number in \\[0, 1e\\+06\\]")
})
