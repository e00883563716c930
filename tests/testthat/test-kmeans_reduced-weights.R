# Observation weights: kmeans_reduced(weights = ) with whole weights is the
# fit of the rows repeated (the same labels, the objective to 1e-12), the
# statistics are the weighted ones, scikit-learn's sample_weight gives the
# same Lloyd, and bad weights are refused by name.

# A mixture whose clusters touch a little, and whole weights 1 to 4.
weighted_case <- function(n = 240, d = 6, k = 4, seed = 3, sparse = FALSE) {
  m <- make_mixture(n = n, d = d, k = k, sd = 1.5, sep = 4, seed = seed)
  w <- withr::with_seed(seed + 100, sample(1:4, n, replace = TRUE))
  x <- m$x
  if (sparse) {
    x[abs(x) < 1.5] <- 0
    x <- Matrix::Matrix(x, sparse = TRUE)
  }
  list(x = x, w = w, k = k)
}

repeat_rows <- function(x, w) x[rep(seq_len(nrow(x)), w), , drop = FALSE]

# A python3 that imports scikit-learn (the first on the path, or the
# system's), or NULL.
sklearn_python <- function() {
  for (py in unique(c(Sys.which("python3"), "/usr/bin/python3"))) {
    if (nzchar(py) && file.exists(py) &&
        system2(py, c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE) == 0) {
      return(py)
    }
  }
  NULL
}

# The weighted fit against the fit of the rows repeated: every copy of a row
# has the label of that row, the same objective, statistics and centres.
expect_repeated <- function(fw, fr, w, info) {
  copies <- rep(seq_along(w), w)
  expect_identical(unname(fr$cluster), unname(fw$cluster)[copies], info = info)
  expect_equal(fw$tot.withinss, fr$tot.withinss, tolerance = 1e-12, info = info)
  expect_equal(fw$withinss, fr$withinss, tolerance = 1e-12, info = info)
  expect_equal(fw$totss, fr$totss, tolerance = 1e-12, info = info)
  expect_equal(fw$sumsq, fr$sumsq, tolerance = 1e-12, info = info)
  expect_equal(unname(fw$centers), unname(fr$centers), tolerance = 1e-12, info = info)
  expect_identical(fw$weight, as.numeric(fr$size), info = info)
  expect_identical(fw$size, as.integer(tabulate(fw$cluster, length(fw$size))), info = info)
}

test_that("whole weights give the fit of the rows repeated, for every method", {
  skip_on_cran()
  cs <- weighted_case()
  xr <- repeat_rows(cs$x, cs$w)
  cases <- list(
    list(method = "none", n_init = 1),
    list(method = "none", n_init = 6),  # (the polish moves nothing here)
    list(method = "none", n_init = 3, refine = 2),
    # (here the polish's Hartigan moves, which move a row with all its
    # weight, end elsewhere than on the rows repeated: 13254.6 vs 12830.3)
    list(method = "sign", dims = 4, n_init = 3, control = list(polish = "none")),
    list(method = "gaussian", dims = 4, n_init = 2),
    list(method = "sparse_embedding", dims = 5, n_init = 2),
    list(method = "svd", dims = 3, n_init = 3),
    list(method = "rsvd", dims = 3, n_init = 2),
    list(method = "rsvd", dims = 3, n_init = 2, control = list(power_iters = 2)),
    list(method = "leverage", dims = 5, n_init = 2),
    list(method = "leverage", dims = 5, n_init = 2, control = list(svd = "exact")),
    list(method = "cssp", dims = 4, n_init = 2),
    list(method = "cssp", dims = 4, n_init = 2, control = list(residual = "spectral")),
    list(method = "none", n_init = 2, control = list(precision = "single")))
  for (cfg in cases) {
    info <- paste(deparse(cfg), collapse = "")
    args <- c(list(k = cs$k, seed = 11, n_threads = 1), cfg)
    fw <- do.call(kmeans_reduced, c(list(cs$x, weights = cs$w), args))
    fr <- do.call(kmeans_reduced, c(list(xr), args))
    expect_repeated(fw, fr, cs$w, info)
    # the same weighted fit on 2 threads
    fw2 <- do.call(kmeans_reduced, c(list(cs$x, weights = cs$w),
                                     utils::modifyList(args, list(n_threads = 2))))
    for (f in c("cluster", "centers", "withinss", "totss", "tot.withinss", "iter",
                "reduced_centers", "weight")) {
      expect_identical(fw2[[f]], fw[[f]], info = paste(info, f))
    }
  }
})

test_that("with whole weights the polish's moves are those of the rows repeated where they agree", {
  skip_on_cran()
  # Split/merge moves merge and split whole clusters: a kept round is the
  # same on weighted and repeated rows. Hartigan's moves move a row with all
  # its weight where repeated rows move one copy at a time, so the two can
  # end at different nearby optima; on these data (chosen so) they agree,
  # after 19 rows moved (seed 10) and after a kept split/merge round (seed 250,
  # the two best replicates polished).
  polish_summary <- function(msg) {
    line <- grep("split/merge and Hartigan moves", msg, value = TRUE)
    c(kept = as.integer(sub(".*kept: (\\d+) round.*", "\\1", line)),
      moved = as.integer(sub(".*then (\\d+) rows moved.*", "\\1", line)))
  }
  for (cfg in list(list(seed = 10, n_init = 4, control = list(polish = "hartigan"), want = "moved"),
                   list(seed = 250, n_init = 10, control = list(polish_starts = 2),
                        want = "kept"))) {
    m <- make_mixture(n = 300, d = 5, k = 7, sd = 1.5, sep = 2.5, seed = cfg$seed)
    w <- withr::with_seed(cfg$seed + 100, sample(1:4, 300, replace = TRUE))
    msg <- capture.output(type = "message", {
      fw <- kmeans_reduced(m$x, 7, method = "none", seed = 11, weights = w, n_init = cfg$n_init,
                           control = cfg$control, verbose = TRUE)
    })
    expect_gt(polish_summary(msg)[[cfg$want]], 0)
    fr <- kmeans_reduced(repeat_rows(m$x, w), 7, method = "none", seed = 11, n_init = cfg$n_init,
                         control = cfg$control)
    expect_repeated(fw, fr, w, paste("seed", cfg$seed))
  }
})

# No single row's move lowers the weighted objective of `fit`.
expect_weighted_hartigan_fixed <- function(fit, x, w) {
  cl <- fit$cluster
  k <- nrow(fit$centers)
  wq <- fit$weight
  d2 <- as.matrix(dist(rbind(fit$centers, x)))[-(1:k), 1:k]^2
  own <- d2[cbind(seq_along(cl), cl)]
  # the change of moving row i (weight w_i) from a to b:
  # W_b w / (W_b + w) ||x - c_b||^2 - W_a w / (W_a - w) ||x - c_a||^2
  leave <- ifelse(fit$size[cl] > 1, wq[cl] * w / (wq[cl] - w), 0) * own
  join <- d2 * outer(w, wq, function(wi, wb) wb * wi / (wb + wi))
  join[cbind(seq_along(cl), cl)] <- Inf
  expect_true(all(apply(join, 1, min) >= leave * (1 - 1e-9)))
  expect_equal(fit$tot.withinss, kmeans_objective(x, cl, weights = w), tolerance = 1e-12)
}

test_that("weighted Hartigan's moves end where no single row's move lowers the weighted objective", {
  m <- make_mixture(n = 300, d = 5, k = 7, sd = 1.5, sep = 2.5, seed = 19)
  w <- withr::with_seed(119, runif(300, 0.3, 4))
  fit <- kmeans_reduced(m$x, 7, method = "none", seed = 11, weights = w, n_init = 4,
                        algorithm = "Hartigan-Wong")
  expect_weighted_hartigan_fixed(fit, m$x, w)
  # the default polish where the lowest replicate is confirmed (Hartigan's
  # moves only; they were unweighted there)
  m <- make_mixture(n = 2000, d = 5, k = 5, sd = 1, sep = 2, seed = 1)
  w <- withr::with_seed(101, sample(c(0.2, 5), 2000, replace = TRUE))
  msg <- capture.output(type = "message", {
    fit <- kmeans_reduced(m$x, 5, method = "none", seed = 11, weights = w, n_init = 6,
                          verbose = TRUE)
  })
  expect_match(paste(msg, collapse = "\n"), "0 split/merge moves tried")
  expect_weighted_hartigan_fixed(fit, m$x, w)
})

test_that("whole weights on sparse rows give the fit of the rows repeated", {
  skip_on_cran()
  cs <- weighted_case(sparse = TRUE, seed = 5)
  xr <- repeat_rows(cs$x, cs$w)
  for (method in c("none", "sparse_embedding", "rsvd")) {
    args <- list(k = cs$k, method = method, n_init = 3, seed = 4, n_threads = 2)
    if (method != "none") args$dims <- 4
    fw <- do.call(kmeans_reduced, c(list(cs$x, weights = cs$w), args))
    fr <- do.call(kmeans_reduced, c(list(xr), args))
    expect_repeated(fw, fr, cs$w, method)
  }
})

test_that("the weighted statistics are those of the definition", {
  cs <- weighted_case(n = 90, seed = 7)
  w <- cs$w + runif(length(cs$w))  # not whole
  fit <- kmeans_reduced(cs$x, cs$k, method = "none", weights = w, n_init = 2, seed = 1)
  x <- cs$x
  cl <- fit$cluster
  centres <- t(vapply(seq_len(cs$k), function(q) {
    colSums(x[cl == q, , drop = FALSE] * w[cl == q]) / sum(w[cl == q])
  }, numeric(ncol(x))))
  within <- vapply(seq_len(cs$k), function(q) {
    sum(w[cl == q] * rowSums(sweep(x[cl == q, , drop = FALSE], 2, centres[q, ])^2))
  }, 0)
  mu <- colSums(x * w) / sum(w)
  expect_equal(unname(fit$centers), unname(centres), tolerance = 1e-12)
  expect_equal(fit$withinss, within, tolerance = 1e-12)
  expect_equal(fit$tot.withinss, sum(within), tolerance = 1e-12)
  expect_equal(fit$totss, sum(w * rowSums(sweep(x, 2, mu)^2)), tolerance = 1e-12)
  expect_equal(fit$betweenss, fit$totss - fit$tot.withinss)
  expect_equal(fit$sumsq, sum(w * x^2), tolerance = 1e-12)
  expect_equal(fit$weight, as.numeric(tapply(w, cl, sum)), tolerance = 1e-14)
  expect_identical(fit$size, as.integer(tabulate(cl, cs$k)))
  # a fixed point of weighted Lloyd: every row nearest to its centre, and
  # predict() (nearest centre) gives the labels back
  d2 <- as.matrix(dist(rbind(centres, x)))[-seq_len(cs$k), seq_len(cs$k)]
  expect_identical(unname(max.col(-d2, ties.method = "first")), unname(cl))
  expect_identical(predict(fit, x), fit$cluster)
  expect_output(print(fit), "Observation weights summing to .* by cluster\nWithin cluster sum of squares by cluster \\(weighted\\)")
  # kmeans_objective() with the same weights
  expect_equal(kmeans_objective(x, cl, weights = w), fit$tot.withinss, tolerance = 1e-12)
  expect_equal(kmeans_objective(x, cl, weights = w, normalize = TRUE),
               fit$tot.withinss / sum(w * x^2), tolerance = 1e-12)
  sp <- Matrix::Matrix(x, sparse = TRUE)
  expect_equal(kmeans_objective(sp, cl, weights = w), fit$tot.withinss, tolerance = 1e-10)
})

test_that("kmeans_objective() with whole weights is that of the rows repeated", {
  cs <- weighted_case(n = 60, seed = 2)
  cl <- rep_len(1:3, 60)
  xr <- repeat_rows(cs$x, cs$w)
  expect_equal(kmeans_objective(cs$x, cl, weights = cs$w),
               kmeans_objective(xr, rep(cl, cs$w)), tolerance = 1e-12)
})

test_that("weights times a power of two change no bit, and k-means|| takes weights", {
  cs <- weighted_case(n = 150, seed = 9)
  w <- cs$w * pi  # not whole: drawn by uniforms times the total weight
  a <- kmeans_reduced(cs$x, cs$k, method = "none", weights = w, n_init = 3, seed = 2)
  b <- kmeans_reduced(cs$x, cs$k, method = "none", weights = w * 1024, n_init = 3, seed = 2)
  expect_identical(b$cluster, a$cluster)
  expect_identical(b$centers, a$centers)
  expect_identical(b$tot.withinss, 1024 * a$tot.withinss)
  # k-means|| draws rows by w D^2 (not the draws of repeated rows): a fit as
  # good, the same on 2 threads
  ctl <- list(seeding = "k-means||")
  p1 <- kmeans_reduced(cs$x, cs$k, method = "none", weights = cs$w, n_init = 3, seed = 2,
                       control = ctl, n_threads = 1)
  p2 <- kmeans_reduced(cs$x, cs$k, method = "none", weights = cs$w, n_init = 3, seed = 2,
                       control = ctl, n_threads = 2)
  expect_identical(p1$cluster, p2$cluster)
  expect_identical(p1$tot.withinss, p2$tot.withinss)
  expect_lt(p1$tot.withinss, a$tot.withinss * (1 + 1e-6))
  # one heavy row pulls its centre onto itself
  w <- rep(1, nrow(cs$x))
  w[17] <- 1e9
  h <- kmeans_reduced(cs$x, cs$k, method = "none", weights = w, n_init = 2, seed = 1)
  expect_equal(unname(h$centers[h$cluster[17], ]), unname(cs$x[17, ]), tolerance = 1e-6)
})

test_that("weights leave R's RNG alone and give the same fit for the same seed", {
  cs <- weighted_case(n = 80, seed = 4)
  set.seed(5)
  before <- .Random.seed
  a <- kmeans_reduced(cs$x, 3, weights = cs$w, method = "sign", dims = 4, seed = 8)
  expect_identical(.Random.seed, before)
  b <- kmeans_reduced(cs$x, 3, weights = cs$w, method = "sign", dims = 4, seed = 8)
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$tot.withinss, b$tot.withinss)
})

test_that("a big.matrix with weights gives the in-memory weighted fit", {
  skip_on_cran()
  skip_if_not_installed("bigmemory")
  cs <- weighted_case(n = 200, seed = 6)
  w <- cs$w + 0.5
  bx <- bigmemory::as.big.matrix(cs$x)
  for (method in c("sign", "rsvd", "leverage")) {
    args <- list(k = cs$k, method = method, dims = 4, n_init = 2, seed = 3, refine = 2,
                 weights = w, control = list(block_rows = 37))
    mem <- do.call(kmeans_reduced, c(list(cs$x), args))
    big <- do.call(kmeans_reduced, c(list(bx), args))
    expect_identical(big$cluster, mem$cluster, info = method)
    expect_equal(big$tot.withinss, mem$tot.withinss, tolerance = 1e-10, info = method)
    expect_equal(big$weight, mem$weight, tolerance = 1e-12, info = method)
    expect_equal(big$totss, mem$totss, tolerance = 1e-10, info = method)
  }
  cl <- rep_len(1:3, nrow(cs$x))
  expect_equal(kmeans_objective(bx, cl, weights = w, block_rows = 29),
               kmeans_objective(cs$x, cl, weights = w), tolerance = 1e-12)
})

test_that("weighted Lloyd from given centres equals scikit-learn's sample_weight", {
  skip_on_cran()
  py <- sklearn_python()
  skip_if(is.null(py), "no python3 with scikit-learn")
  cs <- weighted_case(n = 300, d = 5, k = 4, seed = 12)
  w <- cs$w * withr::with_seed(1, runif(300, 0.5, 1.5))
  centres <- cs$x[c(3, 50, 120, 260), ]
  dir <- tempfile("sk")
  dir.create(dir)
  utils::write.table(cbind(w, cs$x), file.path(dir, "x.csv"), sep = ",", row.names = FALSE,
                     col.names = FALSE)
  utils::write.table(centres, file.path(dir, "c.csv"), sep = ",", row.names = FALSE,
                     col.names = FALSE)
  code <- c(
    "import sys, numpy as np",
    "from sklearn.cluster import KMeans",
    "d = sys.argv[1]",
    "a = np.loadtxt(d + '/x.csv', delimiter=',')",
    "c = np.loadtxt(d + '/c.csv', delimiter=',')",
    "km = KMeans(n_clusters=c.shape[0], init=c, n_init=1, algorithm='lloyd', tol=0,",
    "            max_iter=1000).fit(a[:, 1:], sample_weight=a[:, 0])",
    "np.savetxt(d + '/labels.csv', km.labels_ + 1, fmt='%d')",
    "np.savetxt(d + '/centres.csv', km.cluster_centers_, delimiter=',', fmt='%.17g')",
    "np.savetxt(d + '/inertia.csv', [km.inertia_], fmt='%.17g')")
  writeLines(code, file.path(dir, "fit.py"))
  status <- system2(py, c(file.path(dir, "fit.py"), dir), stdout = FALSE, stderr = FALSE)
  skip_if(status != 0, "the scikit-learn script failed")
  sk_labels <- scan(file.path(dir, "labels.csv"), quiet = TRUE)
  sk_centres <- as.matrix(utils::read.csv(file.path(dir, "centres.csv"), header = FALSE))
  sk_inertia <- scan(file.path(dir, "inertia.csv"), quiet = TRUE)
  fit <- kmeans_reduced(cs$x, centres, method = "none", weights = w, iter_max = 1000,
                        control = list(tol = 0))
  expect_identical(unname(fit$cluster), as.integer(sk_labels))
  expect_equal(fit$tot.withinss, sk_inertia, tolerance = 1e-10)
  expect_equal(unname(fit$centers), unname(sk_centres), tolerance = 1e-10)
})

test_that("bad weights are refused by name, saying what was expected and given", {
  x <- make_mixture(n = 30, d = 3)$x
  fit <- function(w) kmeans_reduced(x, 2, method = "none", weights = w, seed = 1)
  expect_error(fit(rep(1, 29)), "`weights` must be a numeric vector of 30 positive finite numbers.*not 29 values")
  expect_error(fit(c(0, rep(1, 29))), "`weights` must be .*positive.*found 1 zero or negative value \\(0 at position 1\\)")
  expect_error(fit(c(rep(1, 29), -2)), "`weights`.*found 1 zero or negative value \\(-2 at position 30\\)")
  expect_error(fit(c(1, NA, rep(1, 28))), "`weights`.*found 1 non-finite value \\(NA/NaN at position 2\\)")
  expect_error(fit(c(1, NaN, Inf, rep(1, 27))), "`weights`.*found 2 non-finite values \\(the first: NA/NaN at position 2\\)")
  expect_error(fit(c(Inf, rep(1, 29))), "`weights`.*non-finite value \\(Inf at position 1\\)")
  expect_error(fit(rep("1", 30)), "`weights` must be a numeric vector .*not a character vector of length 30")
  expect_error(fit(factor(rep(1, 30))), "`weights` must be a numeric vector .*not a factor")
  expect_error(fit(rep(TRUE, 30)), "`weights` must be a numeric vector .*not a logical vector")
  expect_error(fit(matrix(1, 30, 2)), "`weights` must be a numeric vector .*not a double matrix")
  expect_error(fit(list(1)), "`weights` must be a numeric vector .*not a list")
  # (weights whose statistics do not fit in a double)
  expect_error(fit(c(1e308, 1e308, rep(1, 28))),
               "`weights` are too large for the statistics of this fit: `totss` would exceed")
  expect_error(kmeans_objective(x, rep(1:2, 15), weights = rep(0, 30)), "`weights`.*zero or negative")
  # whole numbers stored as integers are fine
  expect_s3_class(fit(rep(2L, 30)), "kmeans_reduced")
  # not on distributed rows (refused before any MPI call), nor in the bound
  fake <- structure(list(x = x, n = nrow(x)), class = "kmreduce_mpi")
  expect_error(kmeans_reduced(fake, 2, weights = rep(1, 30)),
               "`weights` are not supported on distributed rows")
  expect_error(optimality_bound(fit(rep(2, 30)), x), "`fit` was fitted with observation weights")
})

test_that("weighted centres are the weighted means, far from the origin and for k above 16", {
  # (rows far from the origin are clustered shifted by their column means;
  # k <= 16 takes the masked vector sums where the processor has them, 203
  # rows leave a partial group of 8)
  for (k in c(5L, 20L)) {
    m <- make_mixture(n = 203, d = 9, k = k, sd = 1, sep = 6, seed = 31)
    x <- m$x + 1e5
    w <- withr::with_seed(32, runif(nrow(x), 0.25, 4))
    f1 <- kmeans_reduced(x, k, method = "none", weights = w, n_init = 2, seed = 4,
                         n_threads = 1)
    f2 <- kmeans_reduced(x, k, method = "none", weights = w, n_init = 2, seed = 4,
                         n_threads = 2)
    expect_identical(f2$cluster, f1$cluster, info = k)
    expect_identical(f2$centers, f1$centers, info = k)
    means <- rowsum(x * w, f1$cluster) / as.vector(rowsum(w, f1$cluster))
    expect_equal(unname(f1$centers), unname(means), tolerance = 1e-12, info = k)
    expect_equal(f1$tot.withinss, sum(w * rowSums((x - means[f1$cluster, ])^2)),
                 tolerance = 1e-9, info = k)
  }
})

test_that("weights of any magnitude give the fit of the same ratios, statistics scaled exactly", {
  # Weights are relative: the core takes them times a power of two where
  # their sums could overflow or fall among subnormal numbers (2^-1070:
  # w x lost its digits, the centres with them); the partition and the
  # centres are those of the same ratios, the statistics those of the
  # weights given.
  m <- make_mixture(n = 300, d = 4, k = 3, sd = 1, sep = 5, seed = 41)
  w <- withr::with_seed(42, runif(300, 0.5, 2))
  for (case in list(list(scale = 2^-1070, x = m$x, tol = 1e-3),
                    list(scale = 2^1000, x = m$x * 1e-4, tol = 1e-14),
                    list(scale = 2^300, x = m$x, tol = 1e-14))) {
    label <- format(case$scale)
    fit <- function(v) kmeans_reduced(case$x, 3, weights = v, seed = 2, n_init = 2)
    given <- w * case$scale
    ref <- fit(given / case$scale)  # (the ratios of the weights given: exact)
    big <- fit(given)
    expect_identical(big$cluster, ref$cluster, label = label)
    expect_identical(big$centers, ref$centers, label = label)
    for (f in c("totss", "tot.withinss", "betweenss")) {
      expect_true(is.finite(big[[f]]), label = paste(label, f))
      expect_equal(big[[f]], ref[[f]] * case$scale, tolerance = case$tol, label = paste(label, f))
    }
    expect_equal(big$weight, ref$weight * case$scale, tolerance = case$tol, label = label)
    # the weighted objective of the same partition, from kmeans_objective()
    expect_equal(kmeans_objective(case$x, big$cluster, weights = given),
                 big$tot.withinss, tolerance = case$tol, label = label)
  }
  # the SVD of the weighted rows: singular values of the weights given
  r1 <- kmeans_reduced(m$x, 3, method = "svd", weights = w, seed = 2)
  r2 <- kmeans_reduced(m$x, 3, method = "svd", weights = w * 2^600, seed = 2)
  expect_identical(r2$cluster, r1$cluster)
  expect_equal(r2$reducer$singular_values, r1$reducer$singular_values * 2^300, tolerance = 1e-12)
})

test_that("equal weights of any size give the partition of the rows, or a clear error", {
  # 1e306 each: refused for a sum the checks computed; 1e303: infinite
  # centres, totss Inf and betweenss NaN (an ARI of 0.79 against the
  # unweighted fit on 30000 rows). Now the partition of the rows, with the
  # statistics times the weight, or an error when those exceed a double.
  m <- make_mixture(n = 3000, d = 5, k = 4, sd = 1, sep = 6, seed = 43)
  one <- kmeans_reduced(m$x, 4, weights = rep(1, 3000), seed = 3)
  for (w in c(1e300, 1e-300, 1e-310)) {
    f <- kmeans_reduced(m$x, 4, weights = rep(w, 3000), seed = 3)
    expect_identical(adjusted_rand_index(f$cluster, one$cluster), 1, label = w)
    # (each row's centre: the labels may differ)
    expect_equal(unname(f$centers[f$cluster, ]), unname(one$centers[one$cluster, ]),
                 tolerance = 1e-12, label = w)
    expect_equal(f$totss, one$totss * w, tolerance = if (w < 1e-307) 1e-3 else 1e-12, label = w)
    expect_true(is.finite(f$betweenss), label = w)
  }
  for (w in c(1e303, 1e306)) {
    expect_error(kmeans_reduced(m$x, 4, weights = rep(w, 3000), seed = 3),
                 "`weights` are too large for the statistics of this fit: `totss` would exceed the largest double",
                 label = w)
  }
  expect_error(kmeans_objective(m$x, one$cluster, weights = rep(1e306, 3000)),
               "`weights` are too large for the statistics")
  # a range of 600 orders of magnitude: a weighted Lloyd fixed point
  wide <- 10^withr::with_seed(44, runif(3000, -300, 300))
  f <- kmeans_reduced(m$x, 4, weights = wide, seed = 3, control = list(tol = 0))
  means <- rowsum(m$x * (wide / max(wide)), f$cluster) / as.vector(rowsum(wide / max(wide), f$cluster))
  expect_equal(unname(f$centers), unname(means), tolerance = 1e-10)
  d2 <- vapply(1:4, function(q) rowSums(sweep(m$x, 2, means[q, ])^2), numeric(3000))
  expect_identical(unname(f$cluster), max.col(-d2, ties.method = "first"))
  expect_true(is.finite(f$totss) && is.finite(f$tot.withinss))
})
