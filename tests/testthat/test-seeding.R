# The seedings (seeding.hpp): greedy k-means++ (kmeanspp.hpp), the local
# search after it (local_search.hpp) and k-means|| (kmeans_parallel.hpp),
# against brute force through the test hooks, and as fits.

test_that("greedy k-means++ keeps the candidate of lowest potential, exactly as by brute force", {
  # rows spread over several 256-row blocks, duplicated rows (a candidate at
  # distance 0 from a seed) and k large enough for 8 candidates per step
  # (wide rows, d >= 16 trials: the blocks where most rows move keep their
  # distances instead of recomputing them)
  for (case in list(list(seed = 1, k = 40, n = 700, dup = 0, d = 4),
                    list(seed = 2, k = 25, n = 600, dup = 150, d = 4),
                    list(seed = 3, k = 3, n = 300, dup = 0, d = 4),
                    list(seed = 4, k = 6, n = 600, dup = 40, d = 70))) {
    m <- make_mixture(n = case$n, d = case$d, k = 6, sd = 1, sep = 3)
    x <- unname(m$x)
    if (case$dup > 0) x[seq_len(case$dup), ] <- x[rep(1:5, length.out = case$dup), ]
    res <- kmreduce:::kmeanspp_trace_cpp(x, case$k, case$seed, 1L)
    expect_length(res$trace, case$k - 1L)
    first <- which(apply(x, 1, function(r) all(r == res$seeds[1, ])))
    expect_true(length(first) >= 1L)
    dmin <- rowSums(sweep(x, 2, res$seeds[1, ])^2)
    for (q in seq_along(res$trace)) {
      st <- res$trace[[q]]
      expect_length(st$candidates, 2L + floor(log(case$k)))
      # the potential with each candidate, by definition
      pots <- vapply(st$candidates, function(r) sum(pmin(dmin, rowSums(sweep(x, 2, x[r, ])^2))), 0)
      expect_equal(st$potentials, pots, tolerance = 1e-12)
      expect_identical(st$chosen, as.numeric(which.min(st$potentials)))
      chosen <- x[st$candidates[st$chosen], ]
      expect_identical(res$seeds[q + 1, ], chosen)
      dmin <- pmin(dmin, rowSums(sweep(x, 2, chosen)^2))
    }
    # the assignment handed to Lloyd: nearest and second nearest seed
    dd <- brute_dist2(x, res$seeds)
    srt <- t(apply(dd, 1, sort))
    expect_equal(res$nearest, srt[, 1], tolerance = 1e-9)
    if (case$k > 1) expect_equal(res$second, srt[, 2], tolerance = 1e-9)
    expect_equal(dd[cbind(seq_len(nrow(x)), res$label)], srt[, 1], tolerance = 1e-9)
    # every seed is in its own cluster, duplicated rows or not
    expect_setequal(unique(res$label), seq_len(case$k))
    expect_identical(kmreduce:::kmeanspp_trace_cpp(x, case$k, case$seed, 2L), res)
  }
})

test_that("local search after k-means++ takes the best swap of its candidates and never raises the cost", {
  for (case in list(list(seed = 1, k = 8, sep = 2), list(seed = 2, k = 5, sep = 4),
                    list(seed = 3, k = 12, sep = 1))) {
    m <- make_mixture(n = 240, d = 5, k = case$k, sd = 1, sep = case$sep)
    x <- unname(m$x)
    res <- kmreduce:::local_search_cpp(x, case$k, 12L, case$seed, 1L)
    centres <- res$seeds
    cost_of <- function(cc) sum(apply(brute_dist2(x, cc), 1, min))
    before <- numeric(0)
    for (st in res$trace) {
      now <- cost_of(centres)
      expect_equal(st$before, now, tolerance = 1e-9)
      before <- c(before, now)
      # every (candidate, centre) swap by brute force: the reported one is the best
      costs <- outer(seq_along(st$candidates), seq_len(case$k), Vectorize(function(t, q) {
        cc <- centres
        cc[q, ] <- x[st$candidates[t], ]
        cost_of(cc)
      }))
      expect_equal(st$after, min(costs), tolerance = 1e-9)
      expect_equal(costs[st$candidate, st$centre], min(costs), tolerance = 1e-9)
      expect_identical(st$swapped, st$after < st$before * (1 - 1e-12))
      if (st$swapped) centres[st$centre, ] <- x[st$candidates[st$candidate], ]
    }
    expect_true(all(diff(before) <= 0))
    expect_identical(res$centers, centres)
    expect_true(res$swaps >= 1L)
    # the assignment handed to Lloyd is the nearest / second nearest centre
    dd <- brute_dist2(x, centres)
    srt <- t(apply(dd, 1, sort))
    expect_equal(res$nearest, srt[, 1], tolerance = 1e-9)
    expect_equal(res$second, srt[, 2], tolerance = 1e-9)
    expect_identical(res$label, max.col(-dd, ties.method = "first"))
    expect_equal(cost_of(centres), min(res$cost, cost_of(centres)), tolerance = 1e-9)
    # the same result with 2 threads
    expect_identical(kmreduce:::local_search_cpp(x, case$k, 12L, case$seed, 2L), res)
  }
})

test_that("replicates with local search lower the objective on a noisy wide mixture", {
  m <- withr::with_seed(4, {
    centres <- matrix(rnorm(10 * 200, sd = 0.5), 10, 200)
    truth <- sample(10, 3000, TRUE)
    list(x = centres[truth, ] + matrix(rnorm(3000 * 200), 3000, 200), truth = truth)
  })
  planted <- kmeans_objective(m$x, m$truth)
  obj <- function(ls, s) {
    # the local search alone (without the split/merge polish, which reaches
    # the planted partition from both)
    kmeans_reduced(m$x, 10, method = "none", n_init = 2, seed = s,
                   control = list(local_search = ls, polish = "none"))$tot.withinss
  }
  without <- vapply(1:6, function(s) obj(0, s), numeric(1))
  with <- vapply(1:6, function(s) obj(NULL, s), numeric(1))
  expect_lt(mean(with / planted), mean(without / planted))
  # k steps: most runs reach the planted partition
  longer <- vapply(1:6, function(s) obj(10, s), numeric(1))
  expect_lt(median(longer / planted), 1 + 1e-6)
  # one replicate: plain k-means++, the local search does nothing
  expect_identical(
    kmeans_reduced(m$x, 10, method = "none", n_init = 1, seed = 3)$cluster,
    kmeans_reduced(m$x, 10, method = "none", n_init = 1, seed = 3,
                   control = list(local_search = 0))$cluster)
  expect_error(kmeans_reduced(m$x, 10, control = list(local_search = -1)),
               "`control\\$local_search` must be NULL or a whole number in \\[0, 1e\\+06\\], not -1")
})

test_that("k-means|| seeding: candidates, weights, costs and the seeds' assignment agree with brute force", {
  for (case in list(list(seed = 1, k = 6, sep = 3, ell = 2, rounds = 5, n = 400),
                    list(seed = 2, k = 10, sep = 1, ell = 0.5, rounds = 3, n = 400),
                    list(seed = 3, k = 1, sep = 2, ell = 2, rounds = 2, n = 400),
                    list(seed = 4, k = 23, sep = 2, ell = 2, rounds = 3, n = 1013))) {
    m <- make_mixture(n = case$n, d = 6, k = max(2, case$k), sd = 1, sep = case$sep)
    x <- unname(m$x)
    res <- kmreduce:::kmeans_parallel_cpp(x, case$k, case$seed, case$ell, case$rounds, 1L)
    cand <- res$candidates
    expect_false(res$fallback)
    expect_true(all(cand >= 1 & cand <= nrow(x) & cand == round(cand)))
    expect_false(anyDuplicated(cand) > 0)
    expect_length(res$phi, case$rounds + 1L)
    # the cost after the first candidate, and after the last round
    expect_equal(res$phi[1], sum(brute_dist2(x, x[cand[1], , drop = FALSE])), tolerance = 1e-9)
    dc <- brute_dist2(x, x[cand, , drop = FALSE])
    expect_equal(tail(res$phi, 1), sum(apply(dc, 1, min)), tolerance = 1e-9)
    expect_true(all(diff(res$phi) <= 1e-9 * res$phi[1]))
    # weights: the rows nearest to each candidate
    expect_equal(res$weights, tabulate(max.col(-dc, ties.method = "first"), length(cand)))
    # the seeds: a fixed point of weighted Lloyd on the candidates
    cc <- x[cand, , drop = FALSE]
    dq <- brute_dist2(cc, res$seeds)
    near <- max.col(-dq, ties.method = "first")
    for (q in unique(near)) {
      w <- res$weights[near == q]
      expect_equal(res$seeds[q, ], colSums(cc[near == q, , drop = FALSE] * w) / sum(w),
                   tolerance = 1e-9)
    }
    # the assignment handed to Lloyd (and the local search)
    dd <- brute_dist2(x, res$seeds)
    expect_equal(res$nearest, apply(dd, 1, min), tolerance = 1e-9)
    if (case$k > 1) {
      expect_equal(res$second, apply(dd, 1, function(v) sort(v)[2]), tolerance = 1e-9)
      expect_identical(res$label, max.col(-dd, ties.method = "first"))
      expect_identical(res$second_label, apply(dd, 1, function(v) order(v)[2]))
    } else {
      expect_true(all(is.infinite(res$second)))
    }
    # the same for any number of threads
    expect_identical(kmreduce:::kmeans_parallel_cpp(x, case$k, case$seed, case$ell,
                                                    case$rounds, 2L), res)
  }
})

test_that("k-means|| rounds on packed rows from k = 64: float distances, the same draw, double seeds", {
  m <- make_mixture(n = 3000, d = 9, k = 70, sd = 1, sep = 3)
  x <- unname(m$x)
  for (k in c(63L, 64L, 90L)) {
    res <- kmreduce:::kmeans_parallel_cpp(x, k, 7, 2, 4L, 1L, packed = TRUE)
    ref <- kmreduce:::kmeans_parallel_cpp(x, k, 7, 2, 4L, 1L)
    cand <- res$candidates
    expect_false(res$fallback)
    expect_false(anyDuplicated(cand) > 0)
    # the rounds' costs and weights: those of the candidates by brute force,
    # to float's rounding (exact below k = 64)
    dc <- brute_dist2(x, x[cand, , drop = FALSE])
    tol <- if (k >= 64) 1e-5 else 1e-9
    expect_equal(tail(res$phi, 1), sum(apply(dc, 1, min)), tolerance = tol)
    expect_equal(res$phi[1], sum(brute_dist2(x, x[cand[1], , drop = FALSE])), tolerance = tol)
    expect_lte(sum(abs(res$weights - tabulate(max.col(-dc, ties.method = "first"),
                                              length(cand)))), 2)
    # the same draw as the rounds in double on these rows
    expect_identical(res$candidates, ref$candidates)
    expect_equal(res$seeds, ref$seeds, tolerance = 1e-12)
    # the seeds' assignment (Lloyd's start) is in double
    dd <- brute_dist2(x, res$seeds)
    expect_identical(res$label, max.col(-dd, ties.method = "first"))
    expect_equal(res$nearest, apply(dd, 1, min), tolerance = 1e-9)
    # the same for any number of threads
    expect_identical(kmreduce:::kmeans_parallel_cpp(x, k, 7, 2, 4L, 2L, packed = TRUE), res)
  }
  # a fit through them: a Lloyd fixed point in double, the same on 1 and 2 threads
  fit <- kmeans_reduced(x, 70, method = "none", n_init = 1, seed = 3, iter_max = 200,
                        control = list(seeding = "k-means||"))
  ref <- stats::kmeans(x, fit$centers, algorithm = "Lloyd", iter.max = 50)
  expect_identical(unname(ref$cluster), unname(fit$cluster))
  expect_equal(ref$tot.withinss, fit$tot.withinss, tolerance = 1e-10)
  fit2 <- kmeans_reduced(x, 70, method = "none", n_init = 1, seed = 3, iter_max = 200,
                         n_threads = 2, control = list(seeding = "k-means||"))
  expect_identical(fit2$cluster, fit$cluster)
  expect_identical(fit2$centers, fit$centers)
  expect_identical(fit2$tot.withinss, fit$tot.withinss)
})

test_that("k-means|| samples each row with probability min(1, l D^2 / phi)", {
  m <- make_mixture(n = 300, d = 4, k = 5, sd = 1, sep = 2)
  x <- unname(m$x)
  k <- 5
  ell <- 1.5
  z <- vapply(1:300, function(s) {
    res <- kmreduce:::kmeans_parallel_cpp(x, k, s, ell / k, 1L, 1L)
    d2 <- brute_dist2(x, x[res$candidates[1], , drop = FALSE])[, 1]
    p <- pmin(1, ell * d2 / sum(d2))
    c(length(res$candidates) - 1, sum(p), sum(p * (1 - p)))
  }, numeric(3))
  # the number sampled in round 1: a sum of independent Bernoulli draws
  expect_lt(abs(sum(z[1, ] - z[2, ])) / sqrt(sum(z[3, ])), 4)
})

test_that("kmeans_reduced() with k-means|| seeding: a Lloyd fixed point, the planted partition, any thread count", {
  m <- make_mixture(n = 6000, d = 12, k = 8, sd = 1, sep = 4)
  fit <- kmeans_reduced(m$x, 8, method = "none", seed = 5, n_init = 3,
                        control = list(seeding = "k-means||"))
  expect_identical(adjusted_rand_index(fit$cluster, m$truth), 1)
  ref <- stats::kmeans(m$x, fit$centers, algorithm = "Lloyd", iter.max = 50)
  expect_identical(unname(ref$cluster), unname(fit$cluster))
  expect_equal(ref$tot.withinss, fit$tot.withinss, tolerance = 1e-10)
  fit2 <- kmeans_reduced(m$x, 8, method = "none", seed = 5, n_init = 3, n_threads = 2,
                         control = list(seeding = "k-means||"))
  expect_identical(fit2$cluster, fit$cluster)
  expect_identical(fit2$centers, fit$centers)
  # reduced data and options
  fs <- kmeans_reduced(m$x, 8, method = "gaussian", dims = 6, seed = 5,
                       control = list(seeding = "k-means||", oversampling = 4, rounds = 2))
  expect_gt(adjusted_rand_index(fs$cluster, m$truth), 0.95)
  expect_error(kmeans_reduced(m$x, 8, control = list(seeding = "kmeans||")),
               sprintf("`control$seeding` must be one of %s, not \"kmeans||\"",
                       paste0("\"", c("auto", kmreduce:::kmeans_seedings_cpp()), "\"",
                              collapse = ", ")), fixed = TRUE)
  expect_error(kmeans_reduced(m$x, 8, control = list(oversampling = 0)),
               "`control\\$oversampling` must be a number in \\(0, 1e\\+06\\), not 0")
  expect_error(kmeans_reduced(m$x, 8, control = list(rounds = 0)),
               "`control\\$rounds` must be a whole number in \\[1, 1000\\], not 0")
})

test_that("k-means|| falls back to k-means++ when too few candidates have rows", {
  x <- cbind(rep(c(0, 5, 10), each = 40), 0)
  res <- kmreduce:::kmeans_parallel_cpp(x, 3L, 1, 2, 5L, 1L)
  expect_false(res$fallback)
  expect_setequal(res$seeds[, 1], c(0, 5, 10))
  # four seeds from three distinct rows: greedy k-means++ on the rows
  res <- kmreduce:::kmeans_parallel_cpp(x, 4L, 1, 2, 5L, 1L)
  expect_true(res$fallback)
  expect_true(all(res$seeds[, 1] %in% c(0, 5, 10)))
  fit <- kmeans_reduced(x, 3, method = "none", seed = 1, control = list(seeding = "k-means||"))
  expect_equal(fit$tot.withinss, 0)
})

test_that("every seeding writes k distinct seeds and the rows' assignment to them, the same on 1 and 2 threads", {
  # (each seeding of the core's list, by name: a new one is tested here too)
  m <- make_mixture(n = 700, d = 5, k = 6, sd = 1, sep = 3)
  x <- unname(m$x)
  x[1:40, ] <- x[rep(1:4, 10), ]  # (duplicated rows)
  for (name in kmreduce:::kmeans_seedings_cpp()) {
    for (k in c(1L, 7L)) {
      s1 <- kmreduce:::seeding_cpp(x, k, 3, name, 1L)
      s2 <- kmreduce:::seeding_cpp(x, k, 3, name, 2L)
      expect_identical(s1, s2, label = name)
      expect_identical(dim(s1$seeds), c(k, ncol(x)), label = name)
      expect_true(all(is.finite(s1$seeds)), label = name)
      expect_false(anyDuplicated(s1$seeds) > 0L, label = name)
      d2 <- brute_dist2(x, s1$seeds)
      expect_equal(s1$nearest, apply(d2, 1, min), tolerance = 1e-9, label = name)
      # (each row labelled with a nearest seed)
      expect_true(all(d2[cbind(seq_len(nrow(x)), s1$label)] <=
                        apply(d2, 1, min) * (1 + 1e-9) + 1e-12), label = name)
    }
  }
})

