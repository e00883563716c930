# kmeans_reduced(algorithm = ) with the meaning stats::kmeans() gives it:
# from the same initial centres the same partition as stats::kmeans(); from
# k-means++ the package's controls it stands for. Then the algorithms behind
# kmeans_reduced()'s `control` (below): rows read in place or packed, greedy
# k-means++, local search, k-means||, Hartigan's moves, the polish and single
# precision, against brute force (through the test hooks) and as fits.

# Clusters that touch, so that the algorithms have work to do.
algorithm_case <- function(n = 400, d = 4, k = 5, seed = 21) {
  m <- make_mixture(n = n, d = d, k = k, sd = 1.6, sep = 3, seed = seed)
  starts <- withr::with_seed(seed, sample(n, k))
  list(x = m$x, k = k, centres = m$x[starts, ])
}

test_that("from the same centres, Lloyd, Forgy and MacQueen give the partition of stats::kmeans()", {
  for (seed in c(21, 22, 23)) {
    cs <- algorithm_case(seed = seed)
    for (alg in c("Lloyd", "Forgy", "MacQueen")) {
      info <- paste(alg, seed)
      ref <- stats::kmeans(cs$x, cs$centres, iter.max = 100, algorithm = alg)
      fit <- kmeans_reduced(cs$x, cs$centres, method = "none", iter_max = 100, algorithm = alg,
                            control = list(tol = 0))
      expect_identical(unname(fit$cluster), unname(ref$cluster), info = info)
      expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10, info = info)
      expect_equal(unname(fit$centers), unname(ref$centers), tolerance = 1e-10, info = info)
      expect_equal(fit$size, ref$size, info = info)
      # the stats::kmeans() names run unchanged
      again <- kmeans_reduced(cs$x, centers = cs$centres, iter.max = 100, algorithm = alg,
                              method = "none", control = list(tol = 0))
      expect_identical(again$cluster, fit$cluster, info = info)
    }
  }
})

test_that("Hartigan-Wong from the same centres mostly stops where stats::kmeans() does", {
  # Both end at a partition no single move improves, by different sequences
  # of moves: on these touching clusters the same partition from most
  # starts, a nearby optimum (within 1 %, lower or higher) from the others.
  same <- 0
  for (seed in 21:40) {
    cs <- algorithm_case(seed = seed)
    ref <- stats::kmeans(cs$x, cs$centres, iter.max = 100, algorithm = "Hartigan-Wong")
    fit <- kmeans_reduced(cs$x, cs$centres, method = "none", iter_max = 100,
                          algorithm = "Hartigan-Wong", control = list(tol = 0))
    if (identical(unname(fit$cluster), unname(ref$cluster))) {
      same <- same + 1
      expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10, info = seed)
      expect_equal(unname(fit$centers), unname(ref$centers), tolerance = 1e-10, info = seed)
    }
    expect_lt(abs(fit$tot.withinss / ref$tot.withinss - 1), 0.01)
  }
  expect_gte(same, 12)
})

test_that("Hartigan-Wong ends at a Hartigan fixed point no higher than Lloyd's", {
  cs <- algorithm_case(n = 600, d = 6, k = 8, seed = 5)
  lloyd <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = "Lloyd")
  hw <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = "Hartigan-Wong")
  expect_lte(hw$tot.withinss, lloyd$tot.withinss * (1 + 1e-12))
  # no single move of a row lowers the objective
  x <- cs$x
  cl <- hw$cluster
  n_q <- tabulate(cl, cs$k)
  d2 <- as.matrix(dist(rbind(hw$centers, x)))[-seq_len(cs$k), seq_len(cs$k)]^2
  own <- d2[cbind(seq_along(cl), cl)]
  leave <- ifelse(n_q[cl] > 1, n_q[cl] / (n_q[cl] - 1), 0) * own
  join <- sweep(d2, 2, n_q / (n_q + 1), `*`)
  join[cbind(seq_along(cl), cl)] <- Inf
  expect_true(all(apply(join, 1, min) >= leave * (1 - 1e-9)))
})

test_that("with k-means++ seeding, algorithm stands for the package's controls", {
  cs <- algorithm_case(seed = 8)
  fit <- function(...) {
    f <- kmeans_reduced(cs$x, cs$k, method = "none", n_init = 4, seed = 3, ...)
    f[c("cluster", "centers", "tot.withinss", "iter")]
  }
  expect_identical(fit(algorithm = "Lloyd"),
                   fit(control = list(polish = "none", local_search = 0)))
  expect_identical(fit(algorithm = "Forgy"), fit(algorithm = "Lloyd"))
  expect_identical(fit(algorithm = "Hartigan-Wong"),
                   fit(control = list(polish = "hartigan", local_search = 0)))
  # algorithm overrides those controls
  expect_identical(fit(algorithm = "Lloyd", control = list(polish = "split_merge")),
                   fit(algorithm = "Lloyd"))
  # Hartigan's moves also after a single replicate
  one <- kmeans_reduced(cs$x, cs$k, method = "none", n_init = 1, seed = 3,
                        algorithm = "Hartigan-Wong")
  lloyd <- kmeans_reduced(cs$x, cs$k, method = "none", n_init = 1, seed = 3, algorithm = "Lloyd")
  expect_lte(one$tot.withinss, lloyd$tot.withinss)
  # stats::kmeans()'s whole default vector and partial names, as match.arg()
  expect_identical(fit(algorithm = c("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")),
                   fit(algorithm = "Hartigan-Wong"))
  expect_identical(fit(algorithm = "Mac"), fit(algorithm = "MacQueen"))
})

test_that("MacQueen from k-means++ reaches a fixed point, the same on 1 and 2 threads", {
  cs <- algorithm_case(n = 900, d = 8, k = 6, seed = 13)
  for (method in c("none", "sign")) {
    a <- kmeans_reduced(cs$x, cs$k, method = method, dims = 5, n_init = 3, seed = 2,
                        algorithm = "MacQueen", n_threads = 1)
    b <- kmeans_reduced(cs$x, cs$k, method = method, dims = 5, n_init = 3, seed = 2,
                        algorithm = "MacQueen", n_threads = 2)
    for (f in c("cluster", "centers", "tot.withinss", "iter", "reduced_centers")) {
      expect_identical(b[[f]], a[[f]], info = paste(method, f))
    }
    expect_identical(predict(a, cs$x), a$cluster)
    expect_equal(a$ifault, 0L)
  }
  # sparse rows and single precision take it too
  sp <- make_sparse_mixture(n = 300, d = 60, k = 3)
  s <- kmeans_reduced(sp$x, 3, method = "none", algorithm = "MacQueen", n_init = 2, seed = 1)
  expect_true(same_partition(s$cluster, sp$truth))
  f <- kmeans_reduced(cs$x, cs$k, method = "none", algorithm = "MacQueen", n_init = 2, seed = 1,
                      control = list(precision = "single"))
  expect_identical(predict(f, cs$x), f$cluster)
})

test_that("algorithm with weights: MacQueen and Hartigan-Wong minimise the weighted objective", {
  cs <- algorithm_case(n = 300, seed = 31)
  w <- withr::with_seed(2, runif(300, 0.2, 3))
  for (alg in c("MacQueen", "Hartigan-Wong", "Lloyd")) {
    fit <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = alg, weights = w)
    expect_equal(fit$tot.withinss, kmeans_objective(cs$x, fit$cluster, weights = w),
                 tolerance = 1e-12, info = alg)
    lloyd <- kmeans_reduced(cs$x, cs$centres, method = "none", algorithm = "Lloyd", weights = w)
    if (alg == "Hartigan-Wong") expect_lte(fit$tot.withinss, lloyd$tot.withinss * (1 + 1e-12))
  }
})

test_that("a bad algorithm is refused by name", {
  x <- make_mixture(n = 40, d = 3)$x
  expect_error(kmeans_reduced(x, 2, algorithm = "Elkan"),
               "`algorithm` must be NULL \\(the package's default\\), one of \"Hartigan-Wong\", \"Lloyd\", \"Forgy\", \"MacQueen\" \\(as in stats::kmeans\\(\\)\\) or \"minibatch\", not \"Elkan\"")
  expect_error(kmeans_reduced(x, 2, algorithm = 1), "`algorithm` must be .* not 1")
  expect_error(kmeans_reduced(x, 2, algorithm = NA_character_), "`algorithm` must be")
  expect_error(kmeans_reduced(x, 2, algorithm = c("Lloyd", "MacQueen")),
               "`algorithm` must be .*not a character vector of length 2")
  expect_error(kmeans_reduced(x, 2, algorithm = ""), "`algorithm` must be")
  fake <- structure(list(x = x, n = nrow(x)), class = "kmreduce_mpi")
  expect_error(kmeans_reduced(fake, 2, algorithm = "MacQueen"),
               "`algorithm` \"MacQueen\" .*not available on distributed rows")
})

# Squared distances of every row to every centre, by definition.
brute_dist2 <- function(x, centres) {
  outer(seq_len(nrow(x)), seq_len(nrow(centres)),
        Vectorize(function(i, q) sum((x[i, ] - centres[q, ])^2)))
}

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
               "`control\\$local_search` must be a whole number in \\[0, 1e\\+06\\], not -1")
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
               "`control\\$seeding` must be one of \"auto\", \"k-means\\+\\+\", \"k-means\\|\\|\", not \"kmeans\\|\\|\"")
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

# Brute force for Hartigan's moves: the objective of a labelling, and every
# single-row move's change, each computed from scratch.
objective_of <- function(x, cl) {
  sum(vapply(split(seq_len(nrow(x)), cl), function(i) {
    sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2)
  }, 0))
}
best_single_move <- function(x, cl, k) {
  base <- objective_of(x, cl)
  best <- 0
  for (r in seq_len(nrow(x))) {
    if (sum(cl == cl[r]) < 2) next
    for (q in setdiff(seq_len(k), cl[r])) {
      cl2 <- cl
      cl2[r] <- q
      best <- min(best, objective_of(x, cl2) - base)
    }
  }
  best
}

test_that("Hartigan's moves lower the objective to a fixed point that no single move improves (brute force)", {
  withr::local_seed(11)
  x <- rbind(matrix(rnorm(40 * 3), 40), matrix(rnorm(30 * 3, 2), 30))
  for (k in c(2L, 4L)) {
    cl <- sample(rep_len(seq_len(k), nrow(x)))
    before <- objective_of(x, cl)
    h <- kmreduce:::hartigan_cpp(x, cl, k, 1000L, 1L)
    after <- objective_of(x, h$cluster)
    expect_true(h$converged)
    expect_gt(h$moves, 0)
    expect_lt(after, before)
    # the moves' exact changes add up to the change of the objective
    expect_equal(after - before, h$change, tolerance = 1e-8)
    expect_equal(unname(h$centers), unname(as.matrix(aggregate(x, list(h$cluster), mean)[, -1])),
                 tolerance = 1e-10)
    # no single move lowers it (brute force over all n (k - 1) moves)
    expect_gte(best_single_move(x, h$cluster, k), -1e-9 * after)
    # a Hartigan fixed point is a Lloyd fixed point: every row is nearest to
    # its own cluster's mean
    d2 <- as.matrix(dist(rbind(h$centers, x)))[-(1:k), 1:k]^2
    expect_identical(max.col(-d2, ties.method = "first"), h$cluster)
    expect_identical(kmreduce:::hartigan_cpp(x, cl, k, 1000L, 2L), h)
  }
})

test_that("Hartigan's moves escape Lloyd fixed points that are not Hartigan fixed points, as stats::kmeans's Hartigan-Wong does", {
  # Lloyd's fixed points from random starts (stats::kmeans, algorithm
  # "Lloyd"), then Hartigan's moves: some of them move rows, none raises the
  # objective, and the Hartigan-Wong of stats::kmeans finds nothing to move.
  set.seed(5)
  x <- matrix(rnorm(300 * 4), 300) + rep(c(0, 3), each = 150)
  escaped <- 0
  for (s in 1:10) {
    set.seed(s)
    l <- stats::kmeans(x, 6, algorithm = "Lloyd", iter.max = 200)
    h <- kmreduce:::hartigan_cpp(x, l$cluster, 6L, 1000L, 1L)
    expect_lte(objective_of(x, h$cluster), l$tot.withinss * (1 + 1e-12))
    if (h$moves > 0) escaped <- escaped + 1
    # stats::kmeans (Hartigan-Wong) from our fixed point moves nothing
    hw <- stats::kmeans(x, h$centers, iter.max = 100)
    expect_equal(hw$tot.withinss, objective_of(x, h$cluster), tolerance = 1e-10)
  }
  expect_gt(escaped, 0)
})

test_that("Hartigan's sweeps after the first, which skip the rows their bounds rule out, end at a fixed point (the exact criterion in R)", {
  # Overlapping clusters from a few Lloyd steps: many sweeps, most rows
  # ruled out by their bounds after the first. At the end no single move
  # lowers the objective: for every row and every other cluster b,
  # n_b / (n_b + 1) ||x - c_b||^2 >= n_a / (n_a - 1) ||x - c_a||^2.
  withr::local_seed(21)
  k <- 8L
  centres <- matrix(rnorm(k * 10, sd = 1.5), k)
  x <- centres[sample(k, 3000, TRUE), ] + matrix(rnorm(3000 * 10), 3000)
  l <- suppressWarnings(stats::kmeans(x, k, algorithm = "Lloyd", iter.max = 2))
  h <- kmreduce:::hartigan_cpp(x, l$cluster, k, 1000L, 1L)
  expect_true(h$converged)
  expect_gt(h$sweeps, 3)
  cl <- h$cluster
  m <- as.matrix(aggregate(x, list(cl), mean)[, -1])
  size <- tabulate(cl, k)
  d2 <- outer(rowSums(x^2), rep(1, k)) - 2 * x %*% t(m) + outer(rep(1, nrow(x)), rowSums(m^2))
  own <- d2[cbind(seq_len(nrow(x)), cl)] * ifelse(size[cl] > 1, size[cl] / (size[cl] - 1), 0)
  join <- sweep(d2, 2, size / (size + 1), "*")
  join[cbind(seq_len(nrow(x)), cl)] <- Inf
  expect_gte(min(apply(join, 1, min) - own), -1e-9 * sum(d2[cbind(seq_len(nrow(x)), cl)]))
  expect_equal(objective_of(x, cl) - objective_of(x, l$cluster), h$change, tolerance = 1e-8)
  expect_identical(kmreduce:::hartigan_cpp(x, l$cluster, k, 1000L, 2L), h)
})

test_that("hartigan_cpp rejects labels out of range", {
  x <- matrix(rnorm(20), 10)
  expect_error(kmreduce:::hartigan_cpp(x, c(rep(1L, 9), 3L), 2L, 10L, 1L), "labels")
})

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
  # disagree (seeds 2, 5) or agree at once (seed 13)
  # (no bound on the polish's work here: the test after this one has it)
  fit <- function(x, s, starts, threads = 1L) {
    kmreduce:::kmeans_cpp(x, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = s,
                                  n_threads = threads, local_search = 2L, polish = "split_merge",
                                  tries = 5L, split_rounds = 5L, polish_work = -1,
                                  polish_starts = if (starts == 0L) "auto" else starts))
  }
  used <- integer()
  for (s in c(2, 5, 13)) {
    set.seed(s)
    x <- matrix(runif(300 * 4), 300)
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
  # seed 5: the extra starts find a lower objective than the two best
  set.seed(5)
  x <- matrix(runif(300 * 4), 300)
  expect_lt(fit(x, 5, 0L)$objective, fit(x, 5, 2L)$objective * (1 - 1e-4))
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
  x <- matrix(runif(300 * 4), 300)
  free <- fit(x, 5, 0L, work = -1)
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
                                  polish_starts = "auto", polish_work = -1,
                                  split_confirm = confirm))
  }
  set.seed(5)
  x <- matrix(runif(300 * 4), 300)
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
  u <- matrix(runif(300 * 4), 300)
  one <- kmreduce:::kmeans_cpp(u, list(k = 8L, n_init = 6L, iter_max = 100L, tol = 0, seed = 5,
                                       n_threads = 1L, local_search = 2L, polish = "split_merge",
                                       tries = 5L, split_rounds = 5L, polish_starts = "auto",
                                       polish_work = -1))
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
