# The options of the C++ k-means cross as one named list (kmeans_cpp_options()
# of R/source_steps.R builds it; the core's table of options checks it, kmeans_options() in
# src/kmeans_glue.h).

test_that("no C++ entry point takes more than 8 arguments", {
  ns <- asNamespace("kmreduce")
  entry <- grep("^[a-z].*_cpp$", ls(ns, all.names = TRUE), value = TRUE)
  entry <- entry[vapply(entry, function(f) is.function(get(f, envir = ns)), logical(1))]
  expect_gt(length(entry), 40L)
  n_args <- vapply(entry, function(f) length(formals(get(f, envir = ns))), integer(1))
  expect_true(all(n_args[c("kmeans_cpp", "lloyd_cpp", "cluster_stats_cpp",
                           "randomized_svd_cpp")] <= 8L))
  # (no entry point takes more: options cross as named lists)
  expect_identical(names(n_args)[n_args > 8L], character())
})

test_that("kmeans_cpp_options() gives the list the C++ side takes, with names instead of codes", {
  control <- kmreduce:::check_control(NULL)
  opt <- kmreduce:::kmeans_cpp_options(4L, 3L, 50L, 1e-6, 7, 1L,
                                       kmreduce:::kmeans_settings(control))
  # ("auto" crosses as it is: the core chooses for the rows at hand)
  expect_identical(opt$seeding, "auto")
  expect_identical(opt$polish, "auto")
  resolved <- kmreduce:::kmeans_resolved_cpp(opt, 200)
  expect_identical(resolved$seeding, "k-means++")
  expect_identical(resolved$polish, "split_merge")
  expect_identical(resolved$polish_starts, 3L)  # (every replicate: n k <= 10^4)
  expect_identical(resolved$local_search, 2L)
  # each "auto" on both sides of the size where it switches (the core's
  # resolve_options()): every replicate polished to n k = 10^4, the
  # adaptive rule above; k-means|| from n k = 10^6; sketches of
  # m = max(2000, 100 k) rows from 10 m rows
  at <- function(n) kmreduce:::kmeans_resolved_cpp(opt, n)
  expect_identical(at(2500)$polish_starts, 3L)
  expect_identical(at(2501)$polish_starts, "auto")
  expect_identical(at(249999)$seeding, "k-means++")
  expect_identical(at(250000)$seeding, "k-means||")
  expect_identical(at(19999)$sketch_rows, 0)
  expect_identical(at(20000)$sketch_rows, 2000)
  set.seed(1)
  x <- matrix(rnorm(200 * 3), 200)
  fit <- kmreduce:::kmeans_cpp(x, opt)
  expect_identical(length(fit$objectives), 3L)
  # the seedings R accepts are the core's
  for (name in kmreduce:::kmeans_seedings_cpp())
    expect_identical(kmeans_control(seeding = name)$seeding, name)
  expect_true(all(c("k-means++", "k-means||") %in% kmreduce:::kmeans_seedings_cpp()))
  # (one replicate, one Lloyd step: the centres show the seeds)
  one <- modifyList(opt, list(n_init = 1L, iter_max = 1L, polish = "none", local_search = 0L))
  pp <- kmreduce:::kmeans_cpp(x, one)
  par <- kmreduce:::kmeans_cpp(x, modifyList(one, list(seeding = "k-means||")))
  expect_false(identical(par$centers, pp$centers))
})

test_that("an unknown option, a wrong type or an unknown name is an error naming the option", {
  x <- matrix(as.double(1:40), 20)
  opt <- list(k = 2L, n_init = 1L, seed = 1)
  run <- function(...) kmreduce:::kmeans_cpp(x, modifyList(opt, list(...)))
  expect_error(run(seedng = "k-means++"), "unknown k-means option `seedng`")
  expect_error(run(seeding = 1L), "option `seeding` must be one string")
  expect_error(run(seeding = "kmeans++"),
               sprintf("option `seeding` must be one of %s, not \"kmeans++\"",
                       paste0("\"", c("auto", kmreduce:::kmeans_seedings_cpp()), "\"",
                              collapse = ", ")),
               fixed = TRUE)
  expect_error(run(polish = 2L), "option `polish` must be one string")
  expect_error(run(polish = "split-merge"), "option `polish` must be one of")
  expect_error(run(algorithm = "hartigan"), "option `algorithm` must be one of \"lloyd\", \"macqueen\"")
  expect_error(run(precision = "half"), "option `precision`")
  expect_error(run(polish_starts = "all"),
               "option `polish_starts` must be \"auto\" or a whole number in [1, 1000000]", fixed = TRUE)
  expect_error(run(polish_starts = 0L),
               "option `polish_starts` must be \"auto\" or a whole number in [1, 1000000]", fixed = TRUE)
  expect_error(run(k = "2"), "option `k` must be a whole number in [1, 2147483647]", fixed = TRUE)
  expect_error(run(k = 2.5), "option `k` must be a whole number in [1, 2147483647]", fixed = TRUE)
  expect_error(run(n_init = c(1L, 2L)), "option `n_init` must be a whole number in")
  expect_error(run(tol = -1), "option `tol` must be a number in [0, 1)", fixed = TRUE)
  expect_error(run(oversampling = 0), "option `oversampling` must be a number in (0, 1000000)",
               fixed = TRUE)
  expect_error(run(verbose = NA), "option `verbose` must be TRUE or FALSE")
  expect_error(kmreduce:::kmeans_cpp(x, list(2L)), "named list")
  expect_error(kmreduce:::lloyd_cpp(x, x[1:2, ], list(iter_max = 10L, update = "lloyd")),
               "unknown k-means option `update`")
  # a whole double is a whole number
  expect_identical(run(k = 2)$cluster, run(k = 2L)$cluster)
})

test_that("lloyd_cpp_options(): Hartigan's moves from given centres only for algorithm = \"Hartigan-Wong\"", {
  control <- kmreduce:::check_control(NULL)
  expect_null(kmreduce:::lloyd_cpp_options(10L)$centres_polish)
  hw <- kmreduce:::algorithm_control(control, "Hartigan-Wong")
  expect_identical(kmreduce:::lloyd_cpp_options(10L, 0, 1L, kmreduce:::kmeans_settings(hw))$centres_polish,
                   "hartigan")
  user <- modifyList(control, list(polish = "hartigan"))
  expect_identical(kmreduce:::lloyd_cpp_options(10L, 0, 1L, kmreduce:::kmeans_settings(user))$centres_polish,
                   "none")
  mq <- kmreduce:::algorithm_control(control, "MacQueen")
  expect_identical(kmreduce:::lloyd_cpp_options(10L, 0, 1L, kmreduce:::kmeans_settings(mq))$algorithm,
                   "macqueen")
  # from given centres the polish is Hartigan's moves or none, whatever `polish`
  x <- matrix(withr::with_seed(3, rnorm(300)), 100)
  plain <- kmreduce:::lloyd_cpp(x, x[1:3, ], kmreduce:::lloyd_cpp_options(10L, 0, 1L,
                                                                        kmreduce:::kmeans_settings(user)))
  ref <- stats::kmeans(x, x[1:3, ], iter.max = 10, algorithm = "Lloyd")
  expect_identical(as.vector(plain$cluster), as.vector(ref$cluster))
})
