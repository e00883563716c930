# The explicit d x dims matrix of a data-oblivious map: the map of the
# identity. The FJLT's density depends on the number of rows: fixed here.
fixed_density <- list(fjlt_density = 0.2)
explicit_map <- function(method, d, dims, seed) {
  reduce_dims(diag(d), method, dims = dims, seed = seed, control = fixed_density)$reduced
}

test_that("each projection equals the product with its explicit matrix", {
  m <- make_mixture(n = 40, d = 37, k = 2)
  s <- make_sparse_mixture(n = 40, d = 37)
  for (method in methods_of("projection")) {
    r <- explicit_map(method, 37, 20, seed = 3)
    expect_equal(unname(reduce_dims(m$x, method, dims = 20, seed = 3,
                                    control = fixed_density)$reduced),
                 unname(m$x %*% r), tolerance = 1e-12)
    expect_equal(unname(reduce_dims(s$x, method, dims = 20, seed = 3,
                                    control = fixed_density)$reduced),
                 unname(s$dense %*% r), tolerance = 1e-12)
  }
})

# The FJLT from its definition (Ailon and Chazelle 2009): R = D H P^T /
# sqrt(dims), H the normalised Hadamard matrix of order 2^ceiling(log2 d)
# (Sylvester's construction), D the signs, P the sparse Gaussian matrix.
fjlt_reference <- function(d, dims, seed, q) {
  p <- kmreduce:::fjlt_parts_cpp(d, dims, seed, q)
  h <- matrix(1, 1, 1)
  while (nrow(h) < p$padded) h <- rbind(cbind(h, h), cbind(h, -h))
  pm <- matrix(0, dims, p$padded)
  pm[cbind(p$i, p$j)] <- p$x
  list(r = diag(p$sign, d) %*% (h[seq_len(d), , drop = FALSE] / sqrt(p$padded)) %*% t(pm) /
         sqrt(dims), p = pm, sign = p$sign)
}

test_that("fjlt equals D H P^T / sqrt(dims) built from its definition, both ways of computing it", {
  set.seed(11)
  # 40 x 37 (padded to 64), 30 x 300 (512), 20 x 1000 (1024); densities from
  # very sparse to dense P; few dims (explicit R and GEMM) and many with a
  # sparse P (the transform of each row)
  ways <- character(0)
  for (case in list(c(40, 37, 5), c(40, 37, 30), c(30, 300, 4), c(30, 300, 250),
                    c(20, 1000, 500))) {
    for (q in c(0.01, 0.3, 1)) {
      n <- case[1]; d <- case[2]; dims <- case[3]
      ref <- fjlt_reference(d, dims, 7, q)
      x <- matrix(rnorm(n * d), n, d)
      ctl <- list(fjlt_density = q)
      expect_equal(unname(reduce_dims(x, "fjlt", dims = dims, seed = 7, control = ctl)$reduced),
                   x %*% ref$r, tolerance = 1e-12)
      for (density in c(0.1, 0.95)) {
        s <- Matrix::rsparsematrix(n, d, density)
        expect_equal(unname(reduce_dims(s, "fjlt", dims = dims, seed = 7, control = ctl)$reduced),
                     as.matrix(s %*% ref$r), tolerance = 1e-12)
        ways <- c(ways, paste("sparse", kmreduce:::fjlt_parts_cpp(d, dims, 7, q, n,
                                                                  length(s@x))$transform))
      }
      ways <- c(ways, paste("dense", kmreduce:::fjlt_parts_cpp(d, dims, 7, q, n, n * d)$transform))
    }
  }
  # both ways were taken, for dense and for sparse rows
  expect_setequal(unique(ways), c("dense TRUE", "dense FALSE", "sparse TRUE", "sparse FALSE"))
})

test_that("fjlt's P has density q and N(0, 1/q) entries; D is random signs", {
  q <- 0.05
  ref <- fjlt_reference(1000, 400, 3, q)  # 400 x 1024, about 20000 non-zeros
  nz <- ref$p[ref$p != 0]
  expect_equal(mean(ref$p != 0), q, tolerance = 0.03)
  expect_equal(mean(nz), 0, tolerance = 0.02 / sqrt(q))
  expect_equal(var(nz) * q, 1, tolerance = 0.03)
  expect_lt(abs(stats::ks.test(nz * sqrt(q), "pnorm")$statistic), 0.015)
  expect_setequal(unique(ref$sign), c(-1, 1))
  expect_equal(mean(ref$sign == 1), 0.5, tolerance = 0.1)
  # the default density: min(1, ln(n)^2 / 2^ceiling(log2 d))
  x <- matrix(rnorm(500 * 300), 500, 300)
  expect_equal(reduce_dims(x, "fjlt", dims = 10, seed = 1)$density, log(500)^2 / 512)
  expect_equal(reduce_dims(x[, 1:20], "fjlt", dims = 10, seed = 1)$density, 1)
  expect_output(print(reduce_dims(x, "fjlt", dims = 10, seed = 1)), "q = 0\\.07543")
  # a P that cannot fit in memory is refused before it is drawn
  wide <- Matrix::sparseMatrix(i = 1:3, j = 1:3, x = 1, dims = c(10, 2^20))
  expect_error(reduce_dims(wide, "fjlt", dims = 2^20, seed = 1, control = list(fjlt_density = 1)),
               "The FJLT to 1048576 dimensions \\(its 1048576 x 1048576 Gaussian matrix of density 1 and the reduced rows\\) would need about")
  expect_error(reduce_dims(x, "fjlt", dims = 10, control = list(fjlt_density = 0)),
               "`control\\$fjlt_density` must be NULL or a number in \\(0, 1\\], not 0")
})

test_that("projection matrices have the distributions of the papers", {
  g <- explicit_map("gaussian", 400, 100, 1)
  expect_equal(mean(g), 0, tolerance = 0.01)
  expect_equal(var(as.vector(g)) * 100, 1, tolerance = 0.02)
  a <- explicit_map("achlioptas", 400, 100, 1)
  expect_equal(mean(a == 0), 2 / 3, tolerance = 0.01)
  expect_true(all(abs(a[a != 0]) == sqrt(3 / 100)))
  e <- explicit_map("sparse_embedding", 400, 100, 1)
  expect_true(all(rowSums(e != 0) == 1L))
  expect_true(all(abs(e[e != 0]) == 1))
  h <- explicit_map("srht", 400, 100, 1)  # padded to 512
  expect_true(all(abs(abs(h) - 1 / sqrt(100)) < 1e-12))
  # columns of the scaled SRHT of a 512-vector basis are orthogonal
  h512 <- explicit_map("srht", 512, 100, 1)
  expect_equal(unname(crossprod(h512)), diag(512 / 100, 100), tolerance = 1e-12)
})

test_that("random projections preserve squared norms in expectation (JL)", {
  x <- matrix(rnorm(10 * 300), 10, 300)
  for (method in methods_of("projection")) {
    ratios <- vapply(1:40, function(s) {
      sum(reduce_dims(x, method, dims = 60, seed = s)$reduced^2) / sum(x^2)
    }, numeric(1))
    expect_equal(mean(ratios), 1, tolerance = 0.05, label = method)
  }
})

test_that("predict(reduce_dims(x, ...), x) equals $reduced for every method", {
  m <- make_mixture(n = 120, d = 40, k = 3)
  s <- make_sparse_mixture()
  for (method in all_methods) {
    r <- reduce_dims(m$x, method, dims = 6, k = 3, seed = 2)
    expect_identical(predict(r, m$x), r$reduced, label = method)
    expect_identical(predict(r), r$reduced)
    rs <- reduce_dims(s$x, method, dims = 6, k = 3, seed = 2)
    expect_identical(predict(rs, s$x), rs$reduced, label = method)
  }
})

test_that("sparse and dense inputs with the same values give the same result", {
  s <- make_sparse_mixture()
  for (method in all_methods) {
    a <- reduce_dims(s$x, method, dims = 6, k = 3, seed = 5)
    b <- reduce_dims(s$dense, method, dims = 6, k = 3, seed = 5)
    expect_equal(a$reduced, b$reduced, tolerance = 1e-10, label = method)
    a <- kmeans_reduced(s$x, 3, method = method, dims = 6, seed = 5, n_init = 2)
    b <- kmeans_reduced(s$dense, 3, method = method, dims = 6, seed = 5, n_init = 2)
    expect_identical(a$cluster, b$cluster, label = method)
  }
})

test_that("every method is deterministic across runs and thread counts", {
  m <- make_mixture(n = 700, d = 80, k = 4, sd = 4, sep = 2)
  for (method in all_methods) {
    a <- kmeans_reduced(m$x, 4, method = method, dims = 8, seed = 11, n_init = 2)
    b <- kmeans_reduced(m$x, 4, method = method, dims = 8, seed = 11, n_init = 2, n_threads = 2)
    expect_identical(a$reduced, b$reduced, label = method)
    expect_identical(a$cluster, b$cluster, label = method)
    expect_identical(a$centers, b$centers, label = method)
  }
})

test_that("leverage: scores, sampling variants and rescaling", {
  m <- make_mixture(n = 150, d = 30, k = 3)
  # Scores of the centred data (k-means does not see the column means).
  ref <- rowSums(svd(scale(m$x, scale = FALSE))$v[, 1:3]^2) / 3
  r <- reduce_dims(m$x, "leverage", dims = 25, k = 3, seed = 1, control = list(svd = "exact"))
  expect_equal(unname(r$scores), ref, tolerance = 1e-8)
  expect_equal(r$features$scale, 1 / sqrt(25 * ref[r$features$index]), tolerance = 1e-8)
  top <- reduce_dims(m$x, "leverage", dims = 5, k = 3, seed = 1,
                     control = list(svd = "exact", sampling = "top"))
  expect_identical(top$features$index, order(-ref)[1:5])
  sq <- reduce_dims(m$x, "leverage", dims = 5, k = 3, seed = 1,
                    control = list(svd = "exact", scores = "sqrt", sampling = "top"))
  p <- sqrt(rowSums(svd(scale(m$x, scale = FALSE))$v[, 1:3]^2))
  p <- p / sum(p)
  expect_equal(sq$features$scale, 1 / sqrt(5 * p[sq$features$index]), tolerance = 1e-8)
  # randomized scores are close to the exact ones on low-rank-plus-noise data
  # (three clusters span two dimensions once centred: rank 2)
  rr <- reduce_dims(m$x, "leverage", dims = 25, k = 2, seed = 1, control = list(power_iters = 2))
  expect_equal(unname(rr$scores), rowSums(svd(scale(m$x, scale = FALSE))$v[, 1:2]^2) / 2,
               tolerance = 1e-3)
})

test_that("cssp returns exactly dims distinct columns beating random columns", {
  withr::with_seed(3, {
    # low rank plus noise with uneven column norms
    x <- matrix(rnorm(200 * 5), 200, 5) %*% matrix(rnorm(5 * 60), 5, 60) +
      matrix(rnorm(200 * 60, sd = 0.1), 200, 60)
    x <- sweep(x, 2, runif(60, 0.2, 3), `*`)
  })
  xc <- scale(x, scale = FALSE)  # residuals of the centred data
  resid <- function(cols) {
    q <- qr.Q(qr(xc[, cols]))
    sum((xc - q %*% crossprod(q, xc))^2)
  }
  r <- reduce_dims(x, "cssp", dims = 5, seed = 1)
  idx <- r$features$index
  expect_length(idx, 5L)
  expect_length(unique(idx), 5L)
  expect_equal(r$residual, resid(idx), tolerance = 1e-8)
  expect_identical(unname(r$reduced), unname(x[, idx]))
  random <- withr::with_seed(1, vapply(1:50, function(i) resid(sample(60, 5)), numeric(1)))
  expect_lt(r$residual, min(random))
  expect_equal(sum(r$scores), 1, tolerance = 1e-12)
  exact <- reduce_dims(x, "cssp", dims = 5, seed = 1, control = list(svd = "exact", repeats = 5))
  expect_length(unique(exact$features$index), 5L)
  # The spectral residual of the paper's experiments: norm(A - P_C A, "2")^2
  # of the chosen columns, the smallest over the repeats.
  spec2 <- function(cols) {
    q <- qr.Q(qr(xc[, cols]))
    norm(xc - q %*% crossprod(q, xc), "2")^2
  }
  for (input in list(x, Matrix::Matrix(x, sparse = TRUE))) {
    sp <- reduce_dims(input, "cssp", dims = 5, seed = 1, control = list(residual = "spectral"))
    expect_equal(sp$residual, spec2(sp$features$index), tolerance = 1e-8)
    expect_identical(sp$residual_norm, "spectral")
    # every repeat's columns (the same seed) have a spectral residual >= the chosen one
    for (rep in c(1, 3)) {
      one <- reduce_dims(input, "cssp", dims = 5, seed = 1,
                         control = list(residual = "spectral", repeats = rep))
      expect_gte(spec2(one$features$index), sp$residual * (1 - 1e-10))
    }
  }
  expect_output(print(sp), "Residual \\|\\|A - P_C A\\|\\|_2\\^2")
  expect_error(reduce_dims(x, "cssp", dims = 5, control = list(residual = "nuclear")),
               "`control\\$residual` must be one of \"frobenius\", \"spectral\"")
})

# Gu and Eisenstat's (1996) bounds for M Pi = Q [A B; 0 C] at rank k and
# their f: sigma_i(A) >= sigma_i(M) / p, sigma_j(C) <= sigma_(k+j)(M) p,
# |A^-1 B| <= f, p = sqrt(1 + f^2 k (n - k)). Ratios > 1 (or <= f) hold.
rrqr_bounds <- function(m, perm, k, f) {
  n <- ncol(m)
  r <- qr.R(qr(m[, perm]))
  a <- r[1:k, 1:k, drop = FALSE]
  cc <- if (nrow(r) > k) r[(k + 1):nrow(r), (k + 1):n, drop = FALSE] else NULL
  sm <- svd(m)$d
  p <- sqrt(1 + f^2 * k * (n - k))
  sc <- if (is.null(cc)) numeric(0) else svd(cc)$d
  list(w = max(abs(solve(a, r[1:k, (k + 1):n, drop = FALSE]))),
       a = min(svd(a)$d / (sm[1:k] / p)),
       c = if (length(sc)) max(sc / (sm[k + seq_along(sc)] * p)) else 0)
}

# Kahan's matrix: greedy column pivoting keeps its order and fails to reveal
# its rank (column j scaled by (1 - tau)^j so that the order is not a tie).
kahan <- function(n, c = 0.285, tau = 1e-7) {
  s <- sqrt(1 - c^2)
  r <- diag(n)
  r[upper.tri(r)] <- -c
  diag(s^(0:(n - 1))) %*% r %*% diag((1 - tau)^(0:(n - 1)))
}

test_that("strong RRQR satisfies Gu and Eisenstat's bounds where greedy pivoting fails (Kahan)", {
  for (n in c(20, 40, 60)) {
    m <- kahan(n)
    greedy <- qr(m, LAPACK = TRUE)$pivot
    expect_identical(greedy, seq_len(n))  # LAPACK's greedy QR does not pivot
    g <- rrqr_bounds(m, greedy, n - 1, 2)
    expect_gt(g$w, 2)   # and breaks every bound
    expect_lt(g$a, 1)
    expect_gt(g$c, 1)
    for (f in c(1.01, 2, 10)) {
      st <- kmreduce:::strong_rrqr_cpp(m, n - 1, f)
      expect_setequal(st$perm, seq_len(n))
      b <- rrqr_bounds(m, st$perm, n - 1, f)
      expect_lte(b$w, f * (1 + 1e-10))
      expect_gte(b$a, 1)
      expect_lte(b$c, 1)
      expect_gte(st$swaps, 1L)
    }
  }
})

test_that("strong RRQR satisfies its bounds on random rank-deficient and wide matrices", {
  withr::with_seed(5, {
    cases <- list(
      # rank 8 plus tiny noise, k = 8 and k = 5
      list(m = matrix(rnorm(40 * 8), 40, 8) %*% matrix(rnorm(8 * 60), 8, 60) +
             matrix(rnorm(40 * 60, sd = 1e-9), 40, 60), k = c(5, 8)),
      # graded columns
      list(m = matrix(rnorm(30 * 30), 30, 30) %*% diag(10^-(0:29 / 3)), k = c(3, 10, 29)),
      # k x c as in CSSP: k rows, select k columns
      list(m = matrix(rnorm(6 * 40), 6, 40) %*% diag(runif(40, 0.01, 3)), k = 6))
  })
  for (case in cases) for (k in case$k) for (f in c(1.5, 2)) {
    st <- kmreduce:::strong_rrqr_cpp(case$m, k, f)
    b <- rrqr_bounds(case$m, st$perm, k, f)
    expect_lte(b$w, f * (1 + 1e-10))
    expect_gte(b$a, 1 - 1e-8)
    expect_lte(b$c, 1 + 1e-8)
  }
  expect_error(kmreduce:::strong_rrqr_cpp(matrix(1, 3, 4), 4, 2), "k must be in")
})

test_that("strong RRQR refuses f <= 1, where its swaps can cycle", {
  m <- kahan(20)
  for (f in c(1, 1 - 1e-12, 0.5, 0, -1, NaN)) {
    expect_error(kmreduce:::strong_rrqr_cpp(m, 19, f), "f must be > 1")
  }
  # (just above 1 it still ends, within its bounds)
  st <- kmreduce:::strong_rrqr_cpp(m, 19, 1 + 1e-6)
  expect_lte(rrqr_bounds(m, st$perm, 19, 1 + 1e-6)$w, (1 + 1e-6) * (1 + 1e-10))
})

test_that("cssp with control$qr = \"strong\" keeps columns whose A^-1 B is bounded by 2", {
  withr::with_seed(8, {
    x <- matrix(rnorm(150 * 6), 150, 6) %*% matrix(rnorm(6 * 40), 6, 40) +
      matrix(rnorm(150 * 40, sd = 0.3), 150, 40)
    x <- sweep(x, 2, runif(40, 0.2, 3), `*`)
  })
  # c large: every column kept with probability 1 and scale 1, so the
  # deterministic phase sees V_k^T itself (invariant to V_k's basis)
  ctl <- list(svd = "exact", c = 1e6, repeats = 1)
  vt <- t(svd(scale(x, scale = FALSE))$v[, 1:6])
  a_inv_b <- function(cols) max(abs(solve(vt[, cols], vt[, -cols])))
  strong <- reduce_dims(x, "cssp", dims = 6, seed = 1, control = c(ctl, qr = "strong"))
  greedy <- reduce_dims(x, "cssp", dims = 6, seed = 1, control = ctl)
  expect_identical(strong$qr, "strong")
  expect_identical(greedy$qr, "pivoted")
  expect_output(print(strong), "strong rank-revealing QR \\(f = 2\\)")
  expect_lte(a_inv_b(strong$features$index), 2 * (1 + 1e-10))
  expect_equal(sort(greedy$features$index), sort(qr(vt, LAPACK = TRUE)$pivot[1:6]))
  expect_error(reduce_dims(x, "cssp", dims = 6, control = list(qr = "rrqr")),
               "`control\\$qr` must be one of \"pivoted\", \"strong\"")
})

test_that("rsvd gives A Z with Z close to the top right singular vectors", {
  m <- make_mixture(n = 200, d = 50, k = 5, sd = 0.5, sep = 5)
  r <- reduce_dims(m$x, "rsvd", k = 4, seed = 1, control = list(power_iters = 2))
  v <- svd(scale(m$x, scale = FALSE))$v[, 1:4]  # of the centred data
  expect_equal(unname(abs(crossprod(v, r$rotation))), diag(4), tolerance = 1e-6)
  expect_equal(unname(r$reduced), unname(m$x %*% r$rotation), tolerance = 1e-12)
  expect_identical(r$dims, 4L)
})

test_that("n_reductions keeps the best of several reductions", {
  m <- make_mixture(n = 300, d = 60, k = 4, sd = 5, sep = 2, seed = 9)
  one <- kmeans_reduced(m$x, 4, method = "sign", dims = 5, seed = 1)
  five <- kmeans_reduced(m$x, 4, method = "sign", dims = 5, seed = 1, n_reductions = 5)
  expect_length(five$objectives, 5L)
  expect_equal(five$tot.withinss, min(five$objectives))
  expect_equal(five$tot.withinss, objective_r(m$x, five$cluster), tolerance = 1e-10)
  expect_identical(five$seed, 1)
  expect_identical(predict(five, m$x), five$cluster)
})

test_that("auto is sparse_embedding for sparse and sign for dense input", {
  s <- make_sparse_mixture()
  expect_identical(reduce_dims(s$x, dims = 5, seed = 1)$method, "sparse_embedding")
  expect_identical(reduce_dims(s$dense, dims = 5, seed = 1)$method, "sign")
  expect_identical(kmeans_reduced(s$x, 3, seed = 1)$method, "sparse_embedding")
})

test_that("reduce_dims checks its arguments", {
  m <- make_mixture(n = 20, d = 10)
  expect_error(reduce_dims(m$x, "leverage", dims = 3), "`k` \\(the number of clusters\\) is needed for method \"leverage\"")
  expect_error(reduce_dims(m$x, "sign"), "`dims` must be given")
  expect_error(reduce_dims(m$x, "srht", dims = 11), "`dims` must be at most the number of features \\(10\\) for method \"srht\", not 11")
  expect_error(reduce_dims(m$x, "cssp", dims = 11), "`dims` must be a whole number in \\[1, 10\\], not 11")
  expect_error(reduce_dims(m$x, "sign", dims = 3, control = list(svd = "fast")), "`control\\$svd` must be one of \"randomized\", \"exact\", not \"fast\"")
  expect_error(reduce_dims(m$x, "sign", dims = 3, control = list(eps = 0)), "`control\\$eps` must be NULL or a number in \\(0, 1\\], not 0")
  expect_error(reduce_dims(m$x, "sign", dims = 3, control = list(repeats = 0)), "`control\\$repeats` must be a whole number")
  expect_error(reduce_dims(m$x, "sign", dims = 1e10), "`dims` must be a whole number in \\[1, ")
  r <- reduce_dims(m$x, "sign", dims = 3, seed = 1)
  expect_error(predict(r, m$x[, 1:9]), "`newdata` must have the columns")
  expect_output(print(r), "random sign projection, 10 features -> 3 dimensions \\(seed 1\\)")
})

test_that("srht: direct sums and the fast transform give the same map", {
  m <- make_mixture(n = 30, d = 100, k = 2)
  # dims = 2: the direct O(n d dims) sum is cheaper; dims = 100: the transform
  for (dims in c(2, 100)) {
    r <- reduce_dims(diag(100), "srht", dims = dims, seed = 4)$reduced
    expect_equal(unname(reduce_dims(m$x, "srht", dims = dims, seed = 4)$reduced),
                 unname(m$x %*% r), tolerance = 1e-12)
  }
})

test_that("CSSP on data with all rows equal: relative residual 0, not NaN", {
  r <- reduce_dims(matrix(3, 10, 4), "cssp", dims = 2, seed = 1)
  expect_identical(r$relative_residual, 0)
})

test_that("CSSP returns its columns in column order, whatever the units", {
  # With dims = ncol(x) every pivot of the QR ties (V is orthogonal) and the
  # order was rounding: x * 3 gave the columns in another order, and
  # k-means on them another partition.
  x <- withr::with_seed(32, matrix(rnorm(300 * 5), 300) + rep(c(0, 1, 2), each = 100))
  for (s in c(1, 3, 1e10, 1e-10)) {
    expect_identical(reduce_dims(x * s, "cssp", dims = 5, seed = 1)$features$index, 1:5,
                     label = paste("scale", s))
  }
  r <- reduce_dims(x, "cssp", dims = 3, seed = 1)
  expect_false(is.unsorted(r$features$index))
  expect_identical(unname(r$reduced), unname(x[, r$features$index]))
})
