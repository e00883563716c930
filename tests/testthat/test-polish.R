# The polish of the best replicates (split_merge.hpp, then Hartigan's
# moves; polish_starts, polish_work, control$polish): never above the best
# replicate, a fixed point of both moves, independent of the threads.

test_that("the default search (split/merge, then Hartigan) never ends above the best replicate and is a fixed point of both moves", {
  set.seed(3)
  x <- rbind(matrix(rnorm(60 * 5, 0), 60), matrix(rnorm(50 * 5, 2.5), 50),
             matrix(rnorm(40 * 5, -2.5), 40), matrix(rnorm(30 * 5, 5), 30))
  for (s in 1:3) {
    opt <- list(k = 5L, n_init = 4L, iter_max = 100L, tol = 0, seed = s, n_threads = 1L,
                local_search = 2L, polish = "split_merge", tries = 10L, split_rounds = 5L)
    r <- kmreduce:::kmeans_cpp(x, opt)
    expect_lte(r$objective, min(r$objectives) * (1 + 1e-12))
    expect_equal(r$objective, objective_of(x, r$cluster), tolerance = 1e-10)
    expect_gte(best_single_move(x, r$cluster, 5L), -1e-9 * r$objective)
    # the split/merge moves tried are each at least the result
    expect_true(all(r$split_objectives >= r$objective * (1 - 1e-12)))
    expect_identical(
      kmreduce:::kmeans_cpp(x, modifyList(opt, list(n_threads = 2L))),
      r)
  }
})

test_that("polish_starts = \"auto\" polishes the best replicates until the lowest result is reached twice", {
  # uniform data: many optima close together, so the polished starts often
  # disagree (seeds 2, 5) or agree at once (seed 13); 1300 rows, so that
  # "auto" is the adaptive rule (n k > 10^4: below, every replicate)
  # (no bound on the polish's work here: the test after this one has it)
  fit <- function(x, s, starts, threads = 1L) {
    kmreduce:::kmeans_cpp(x, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                  n_threads = threads, local_search = 2L, polish = "split_merge",
                                  tries = 5L, split_rounds = 5L, polish_work = Inf,
                                  polish_starts = if (starts == 0L) "auto" else starts))
  }
  used <- integer()
  for (s in c(2, 5, 13)) {
    set.seed(s)
    x <- matrix(runif(1300 * 4), 1300)
    auto <- fit(x, s, 0L)
    m <- auto$polish_starts
    used <- c(used, m)
    expect_true(m >= 2L && m <= 6L)
    # the same as polishing that many (the passes aside: "auto" also scans
    # the replicates it did not polish), and never above polishing two
    expect_identical(fit(x, s, m)[names(auto) != "passes"], auto[names(auto) != "passes"])
    expect_lte(auto$objective, fit(x, s, 2L)$objective * (1 + 1e-12))
    expect_identical(fit(x, s, 0L, threads = 2L), auto)
    # stopped before the last replicate: the last start polished tied with
    # the lowest (it did not lower it), so one start fewer gives the same
    if (m < 6L) {
      expect_equal(fit(x, s, m - 1L)$objective, auto$objective, tolerance = 1e-10)
    }
  }
  # both ways of stopping occur: at two starts, and later
  expect_true(any(used == 2L))
  expect_true(any(used > 2L))
  # seed 29: the extra starts find a lower objective than the two best
  set.seed(29)
  x <- matrix(runif(1300 * 4), 1300)
  expect_lt(fit(x, 29, 0L)$objective, fit(x, 29, 2L)$objective * (1 - 1e-4))
})

test_that("polish_starts = \"auto\" polishes a start after the first only while the polish's passes are below the replicates' iterations", {
  fit <- function(x, s, starts, threads = 1L, work = NULL) {
    kmreduce:::kmeans_cpp(x, c(list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                    n_threads = threads, local_search = 2L,
                                    polish = "split_merge", tries = 5L, split_rounds = 5L,
                                    polish_starts = if (starts == 0L) "auto" else starts),
                               if (!is.null(work)) list(polish_work = work)))
  }
  # uniform data, seed 5: without a bound "auto" polishes more than two starts
  set.seed(5)
  x <- matrix(runif(1300 * 4), 1300)
  free <- fit(x, 5, 0L, work = Inf)
  expect_gt(free$polish_starts, 2L)
  # the default bound: at least the best replicate, at most as many as unbounded
  auto <- fit(x, 5, 0L)
  expect_true(auto$polish_starts >= 1L && auto$polish_starts <= free$polish_starts)
  expect_lte(auto$objective, min(auto$objectives))
  expect_identical(fit(x, 5, 0L, threads = 2L), auto)
  expect_identical(fit(x, 5, 0L), auto)
  # a bound of no work: the best replicate alone is polished, as with
  # polish_starts = 1, and no other replicate gets Hartigan's moves
  none <- fit(x, 5, 0L, work = 0)
  expect_identical(none$polish_starts, 1L)
  one <- fit(x, 5, 1L)
  expect_identical(none$cluster, one$cluster)
  expect_identical(none$objective, one$objective)
  # a bound the polish never reaches: the same as no bound
  expect_identical(fit(x, 5, 0L, work = 1e6), free)
  expect_error(fit(x, 5, 0L, work = "a"), "polish_work")
  # the R option: Inf is no bound, 0 the best replicate alone
  r_fit <- function(work) {
    kmeans_reduced(x, 8, method = "none", n_init = 6, seed = 5,
                   control = list(polish_work = work, local_search = 2L, tries = 5L))
  }
  expect_lte(r_fit(2)$tot.withinss, r_fit(0)$tot.withinss * (1 + 1e-12))
  expect_identical(r_fit(Inf)$cluster, r_fit(1e9)$cluster)
})

test_that("polish_starts = \"auto\" stops when two starts reach the same split/merge result", {
  fit <- function(x, s, confirm, threads = 1L) {
    kmreduce:::kmeans_cpp(x, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                  n_threads = threads, local_search = 2L,
                                  polish = "split_merge", tries = 5L, split_rounds = 5L,
                                  polish_starts = "auto", polish_work = Inf,
                                  split_confirm = confirm))
  }
  set.seed(5)
  x <- matrix(runif(1300 * 4), 1300)
  never <- fit(x, 5, -1)
  expect_gt(never$polish_starts, 2L)
  # a tolerance every pair of results meets: the second start confirms
  expect_identical(fit(x, 5, 1)$polish_starts, 2L)
  # the default tolerance (1e-6) stops no later than none
  def <- fit(x, 5, 1e-6)
  expect_lte(def$polish_starts, never$polish_starts)
  expect_lte(def$objective, min(def$objectives))
  expect_identical(fit(x, 5, 1e-6, threads = 2L), def)
})

test_that("polish_starts = \"auto\": a lowest replicate reached twice gets Hartigan's moves only, identical for 1 and 2 threads", {
  fit <- function(x, polish, starts, threads = 1L, n_init = 6L) {
    kmreduce:::kmeans_cpp(x, list(k = 5L, n_init = n_init, iter_max = 100L, tol = 1e-6, seed = 3,
                                  n_threads = threads, local_search = 1L,
                                  polish = c("none", "hartigan", "split_merge")[polish + 1L],
                                  tries = 3L, split_rounds = 5L,
                                  polish_starts = if (starts == 0L) "auto" else starts))
  }
  # separated clusters: every replicate ends at the same partition
  set.seed(21)
  x <- matrix(rnorm(1000 * 6), 1000) + rep(rnorm(5 * 6, sd = 8), each = 200)
  auto <- fit(x, 2L, 0L)
  expect_true(sum(abs(auto$objectives - min(auto$objectives)) <= 1e-10 * min(auto$objectives)) >= 2L)
  expect_identical(auto$polish_starts, 1L)
  expect_identical(auto$split_tries, 0L)
  # the same as Hartigan's moves from the best replicate
  hw <- fit(x, 1L, 1L)
  expect_identical(auto$cluster, hw$cluster)
  expect_identical(auto$objective, hw$objective)
  # bitwise the same for 2 threads and a second run
  expect_identical(fit(x, 2L, 0L, threads = 2L), auto)
  expect_identical(fit(x, 2L, 0L), auto)
  # one replicate reaching the lowest: split/merge runs
  set.seed(5)
  u <- matrix(runif(1300 * 4), 1300)
  one <- kmreduce:::kmeans_cpp(u, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = 5,
                                       n_threads = 1L, local_search = 2L, polish = "split_merge",
                                       tries = 5L, split_rounds = 5L, polish_starts = "auto",
                                       polish_work = Inf))
  expect_gte(one$polish_starts, 2L)
})

test_that("the polish never raises the objective (split/merge, Hartigan, auto starts)", {
  for (s in 1:6) {
    set.seed(100 + s)
    k <- 3L + s
    x <- matrix(rnorm(400 * 5), 400) + rep(rnorm(k * 5, sd = 1.5), length.out = 400 * 5)
    x[sample(length(x), 20)] <- rnorm(20, sd = 10)
    base <- kmeans_reduced(x, k, method = "none", n_init = 5, seed = s,
                           control = list(polish = "none"))
    for (p in c("auto", "split_merge", "hartigan")) {
      for (starts in list("auto", 1L, 3L)) {
        f <- kmeans_reduced(x, k, method = "none", n_init = 5, seed = s,
                            control = list(polish = p, polish_starts = starts))
        expect_lte(f$tot.withinss, base$tot.withinss * (1 + 1e-12))
      }
    }
  }
})

test_that("control$polish: auto is split/merge for several replicates, none for one; results independent of threads", {
  set.seed(8)
  x <- matrix(rnorm(600 * 30), 600) + rep(rnorm(6 * 30, sd = 0.6), each = 100)
  one <- kmeans_reduced(x, 6, method = "none", n_init = 1, seed = 4)
  expect_identical(kmeans_reduced(x, 6, method = "none", n_init = 1, seed = 4,
                                  control = list(polish = "none"))$cluster, one$cluster)
  fits <- lapply(c("auto", "split_merge", "hartigan", "none"), function(p) {
    kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4, control = list(polish = p))
  })
  expect_identical(fits[[1]]$cluster, fits[[2]]$cluster)
  expect_lte(fits[[2]]$tot.withinss, fits[[3]]$tot.withinss * (1 + 1e-12))
  expect_lte(fits[[3]]$tot.withinss, fits[[4]]$tot.withinss * (1 + 1e-12))
  two <- kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4, n_threads = 2)
  expect_identical(two$cluster, fits[[1]]$cluster)
  expect_identical(two$centers, fits[[1]]$centers)
  # the fit is a Hartigan fixed point on the data (the Hartigan-Wong of
  # stats::kmeans from its centres moves nothing)
  hw <- stats::kmeans(x, fits[[1]]$centers, iter.max = 50)
  expect_equal(hw$tot.withinss, fits[[1]]$tot.withinss, tolerance = 1e-10)
  # polishing the 3 best replicates: the first two are polished as by the
  # default (2), so
  # never higher
  three <- kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4,
                          control = list(polish_starts = 3))
  expect_lte(three$tot.withinss, fits[[1]]$tot.withinss * (1 + 1e-12))
  expect_identical(kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4, n_threads = 2,
                                  control = list(polish_starts = 3))$cluster, three$cluster)
  expect_error(kmeans_reduced(x, 6, control = list(polish_starts = 0)), "control\\$polish_starts")
  expect_error(kmeans_reduced(x, 6, control = list(polish_starts = "all")), "control\\$polish_starts")
  expect_identical(kmeans_reduced(x, 6, method = "none", n_init = 4, seed = 4,
                                  control = list(polish_starts = "auto"))$cluster, fits[[1]]$cluster)
  # on reduced rows (for speed) "auto" is two starts
  expect_identical(kmeans_reduced(x, 6, method = "sign", dims = 8, n_init = 6, seed = 4)$cluster,
                   kmeans_reduced(x, 6, method = "sign", dims = 8, n_init = 6, seed = 4,
                                  control = list(polish_starts = 2))$cluster)
  msgs <- testthat::capture_messages(
    kmeans_reduced(x, 6, method = "sign", dims = 8, n_init = 6, seed = 4, verbose = TRUE))
  expect_true(any(grepl("moves from the [12] best replicates?:", msgs)))
  expect_error(kmeans_reduced(x, 6, control = list(polish = "swap")), "control\\$polish")
  expect_error(kmeans_reduced(x, 6, control = list(tries = 0)), "control\\$tries")
  expect_error(kmeans_reduced(x, 6, control = list(split_rounds = NA)), "control\\$split_rounds")
})
