test_that("kmeans_control() holds every option with its default, the same as control = list()", {
  ctl <- kmeans_control()
  expect_s3_class(ctl, "kmreduce_control")
  expect_identical(unclass(ctl), kmreduce:::check_control(list()))
  expect_identical(names(ctl), names(formals(kmeans_control)))
  expect_identical(ctl$polish, "auto")
  expect_null(ctl$local_search)
  # options as given, checked and normalised (whole numbers become integers)
  ctl <- kmeans_control(polish = "none", tries = 4, seeding = "k-means||")
  expect_identical(ctl$tries, 4L)
  expect_identical(ctl$seeding, "k-means||")
})

test_that("kmeans_control() refuses bad values by their argument name", {
  expect_error(kmeans_control(polish = "yes"),
               "`polish` must be one of \"auto\", \"split_merge\", \"hartigan\", \"none\", not \"yes\"")
  expect_error(kmeans_control(tol = -1), "`tol` must be a number in \\[0, 1\\), not -1")
  expect_error(kmeans_control(tries = 0), "`tries`")
  expect_error(kmeans_control(keep_reduced = NA), "`keep_reduced` must be TRUE or FALSE, not NA")
  expect_error(kmeans_control(polish_starts = "all"), "`polish_starts` must be \"auto\" or a whole number")
  expect_error(kmeans_control(polish_work = -1),
               "`polish_work` must be a number in \\[0, Inf\\], not -1")
  expect_error(kmeans_control(polish_work = NA), "`polish_work` must be a number in")
  expect_error(kmeans_control(polish_work = "all"), "`polish_work` must be a number in")
  expect_identical(kmeans_control(polish_work = Inf)$polish_work, Inf)
  expect_identical(kmeans_control(polish_work = 1L)$polish_work, 1)
  expect_error(kmeans_control(fjlt_density = 2), "`fjlt_density` must be NULL or a number in \\(0, 1\\]")
  expect_error(kmeans_control(poilsh = "none"), "unused argument")
  # as a plain list the names are those of control
  expect_error(kmeans_reduced(matrix(rnorm(20), 10), 2, control = list(polish = "yes")),
               "`control\\$polish` must be one of")
})

test_that("a kmeans_control() object and the same plain list give the same fit", {
  m <- make_mixture(n = 300, d = 8, k = 4, sd = 1, sep = 4, seed = 5)
  a <- kmeans_reduced(m$x, 4, n_init = 3, seed = 2, control = kmeans_control(polish = "none", tol = 0))
  b <- kmeans_reduced(m$x, 4, n_init = 3, seed = 2, control = list(polish = "none", tol = 0))
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$tot.withinss, b$tot.withinss)
  # and it reaches reduce_dims() too
  r1 <- reduce_dims(m$x, "leverage", dims = 5, k = 4, seed = 1, control = kmeans_control(sampling = "top"))
  r2 <- reduce_dims(m$x, "leverage", dims = 5, k = 4, seed = 1, control = list(sampling = "top"))
  expect_identical(r1$reduced, r2$reduced)
})

test_that("print() lists every option and marks those changed", {
  out <- capture.output(print(kmeans_control(tries = 5, polish = "hartigan")))
  expect_match(out[1], "changed from the default")
  expect_length(out, length(formals(kmeans_control)) + 1L)
  expect_match(grep("^  tries ", out, value = TRUE), "5  \\*$")
  expect_match(grep("^  polish ", out, value = TRUE), "\"hartigan\"  \\*$")
  expect_false(grepl("\\*", grep("^  tol ", out, value = TRUE)))
  expect_match(grep("^  local_search ", out, value = TRUE), "NULL$")
  out <- capture.output(x <- print(kmeans_control()))
  expect_false(any(grepl("\\*", out)))
  expect_s3_class(x, "kmreduce_control")
})

test_that("seeding = \"auto\" is k-means|| from n k = 1e6 up, greedy k-means++ below", {
  seeding <- function(control, k, n) {
    kmreduce:::kmeans_resolved(k, 3L, n, kmreduce:::kmeans_settings(control))$seeding
  }
  expect_identical(seeding(kmeans_control(), 10, 99999), "k-means++")
  expect_identical(seeding(kmeans_control(), 10, 1e5), "k-means||")
  expect_identical(seeding(kmeans_control(seeding = "k-means++"), 10, 1e7), "k-means++")
  x <- matrix(withr::with_seed(1, rnorm(1e5 * 2)), ncol = 2)
  # (structureless data: Lloyd may stop at iter_max, which warns)
  msg <- capture.output(type = "message", {
    a <- suppressWarnings(kmeans_reduced(x, 10, n_init = 1, seed = 3, n_threads = 1,
                                         verbose = TRUE))
  })
  expect_match(paste(msg, collapse = "\n"), "1 k-means\\|\\| replicate")
  b <- suppressWarnings(kmeans_reduced(x, 10, n_init = 1, seed = 3, n_threads = 1,
                                       control = list(seeding = "k-means||")))
  expect_identical(a$cluster, b$cluster)
  # below the threshold: the greedy k-means++ fit
  y <- x[1:2000, ]
  expect_identical(kmeans_reduced(y, 10, n_init = 2, seed = 3)$cluster,
                   kmeans_reduced(y, 10, n_init = 2, seed = 3,
                                  control = list(seeding = "k-means++"))$cluster)
})

test_that("file_cache is \"auto\" or a number of bytes", {
  expect_identical(kmeans_control()$file_cache, "auto")
  expect_identical(kmeans_control(file_cache = 2^30)$file_cache, 2^30)
  expect_error(kmeans_control(file_cache = -1),
               "`file_cache` must be \"auto\" or a number in \\[0, Inf\\], not -1")
  expect_error(kmeans_reduced(matrix(rnorm(40), 20), 2, control = list(file_cache = "all")),
               "`control\\$file_cache` must be \"auto\" or a number in \\[0, Inf\\]")
  # "auto": a tenth of the memory available, none when that is unknown
  expect_identical(kmreduce:::file_cache_budget(123), 123)
  avail <- kmreduce:::available_memory()
  budget <- kmreduce:::file_cache_budget("auto")
  if (is.na(avail)) {
    expect_identical(budget, 0)
  } else {
    expect_gt(budget, 0)
    expect_lt(budget, as.numeric(avail) / 5)  # (a tenth, as memory may move in between)
  }
})
