test_that("leverage scores equal rowSums(svd(x_c)$v[, 1:k]^2) / k of the centred x", {
  m <- make_mixture(n = 100, d = 25, k = 3)
  fit <- kmeans_reduced(m$x, 3, method = "leverage", dims = 40, seed = 1,
                        control = list(svd = "exact"))
  xc <- scale(m$x, scale = FALSE)
  ref <- rowSums(svd(xc)$v[, 1:3]^2) / 3
  expect_equal(unname(fit$reducer$scores), ref, tolerance = 1e-8)
  expect_equal(sum(fit$reducer$scores), 1, tolerance = 1e-12)
  expect_equal(fit$reducer$singular_values, svd(xc)$d[1:3], tolerance = 1e-10)
  # the reduced data are the sampled columns rescaled by 1/sqrt(dims p_i),
  # minus their medians (the reducer's shift; at most 256 rows: all of them)
  f <- fit$reducer$features
  expect_equal(f$scale, 1 / sqrt(40 * ref[f$index]), tolerance = 1e-8)
  raw <- m$x[, f$index] %*% diag(f$scale)
  expect_equal(fit$reducer$shift, lower_medians(raw), tolerance = 1e-12)
  expect_equal(unname(fit$reduced), unname(sweep(raw, 2L, lower_medians(raw))), tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_identical(f$name, colnames(m$x)[f$index])
})

test_that("leverage sampling follows the probabilities", {
  p <- c(0.5, 0.3, 0.2, 0)
  idx <- kmreduce:::leverage_sample_cpp(p, 20000, 1)
  freq <- tabulate(idx, 4) / 20000
  expect_equal(freq, p, tolerance = 0.02)
  expect_identical(freq[4], 0)
})

test_that("svd reduction is A V_k with the exact right singular vectors", {
  m <- make_mixture(n = 80, d = 12, k = 3)
  fit <- kmeans_reduced(m$x, 3, method = "svd", seed = 1)
  xc <- scale(m$x, scale = FALSE)  # the principal components of x
  v <- svd(xc)$v[, 1:3]
  # (x V minus the reducer's shift, the medians of its columns)
  mapped <- fit$reduced + rep(fit$reducer$shift, each = 80)
  expect_equal(fit$reducer$shift, lower_medians(mapped))
  expect_equal(abs(unname(mapped)), abs(unname(m$x %*% v)), tolerance = 1e-8)
  fit5 <- kmeans_reduced(m$x, 3, method = "svd", dims = 5, seed = 1)
  expect_identical(ncol(fit5$reduced), 5L)
})

test_that("sign projection is x times a +-1/sqrt(dims) matrix defined by the seed", {
  m <- make_mixture(n = 50, d = 140, k = 2)
  s <- kmreduce:::sign_matrix_cpp(140, 130, 9)
  expect_true(all(abs(s) == 1 / sqrt(130)))
  expect_equal(mean(s > 0), 0.5, tolerance = 0.02)
  expect_identical(s, kmreduce:::sign_matrix_cpp(140, 130, 9))
  expect_false(identical(s, kmreduce:::sign_matrix_cpp(140, 130, 10)))
  # column j does not depend on dims beyond the 64-bit word layout of a row
  fit <- kmeans_reduced(m$x, 2, method = "sign", dims = 130, seed = 9)
  # (minus the column medians, the reducer's shift)
  expect_equal(unname(fit$reduced), unname(sweep(m$x %*% s, 2L, lower_medians(m$x %*% s))),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(fit$reducer$shift, lower_medians(m$x %*% s), tolerance = 1e-12)
  expect_equal(unname(reduce_dims(m$x, "sign", dims = 130, seed = 9)$reduced), m$x %*% s,
               tolerance = 1e-12)
  sp <- Matrix::Matrix(m$x * (abs(m$x) > 5), sparse = TRUE)
  expect_equal(sign_project(sp, 130, seed = 9, algorithm = "gemm", n_threads = 2L),
               as.matrix(sp) %*% s, tolerance = 1e-12)
})

test_that("random sign projection preserves squared norms in expectation (JL)", {
  x <- matrix(rnorm(20 * 300), 20, 300)
  ratios <- vapply(1:40, function(s) {
    sum(sign_project(x, 50, seed = s)^2) / sum(x^2)
  }, numeric(1))
  expect_equal(mean(ratios), 1, tolerance = 0.03)
})

# The exact SVD (svd.hpp): block Lanczos when dims is small against
# min(n, d), LAPACK's divide and conquer otherwise; both are svd() to
# rounding. `sv`: list(d, v); the top k of svd(x), vectors up to sign.
expect_svd_of <- function(sv, x, k, label = "") {
  ref <- svd(x, nu = 0, nv = k)
  expect_equal(sv$d[1:k], ref$d[1:k], tolerance = 1e-10, label = label)
  expect_equal(unname(abs(crossprod(sv$v[, 1:k, drop = FALSE], ref$v))), diag(k),
               tolerance = 1e-8, label = label)
}

test_that("the exact SVD of few vectors (block Lanczos) is svd() of the centred data", {
  m <- make_mixture(n = 400, d = 200, k = 6)
  xc <- scale(m$x, scale = FALSE)
  for (k in c(1, 3, 5)) {
    lz <- kmreduce:::block_lanczos_cpp(m$x, k, colMeans(m$x), NULL, 1L)
    expect_true(lz$converged, label = sprintf("Lanczos converged, k = %d", k))
    expect_svd_of(lz, xc, k, label = sprintf("Lanczos, k = %d", k))
  }
  # (10: into the noise, where Lanczos may hand over to LAPACK within its basis)
  for (k in c(1, 5, 10)) {
    r <- reduce_dims(m$x, "svd", dims = k)
    expect_svd_of(list(d = r$singular_values, v = r$rotation), xc, k, label = sprintf("svd, k = %d", k))
  }
  # not centred (as svd() of x itself), and the same on 1 or 2 threads
  lz <- kmreduce:::block_lanczos_cpp(m$x, 4, NULL, NULL, 2L)
  expect_true(lz$converged)
  expect_svd_of(lz, m$x, 4, label = "uncentred")
  expect_identical(kmreduce:::top_svd_cpp(m$x, 5, colMeans(m$x), NULL, 1L),
                   kmreduce:::top_svd_cpp(m$x, 5, colMeans(m$x), NULL, 2L))
})

test_that("the exact SVD of sparse counts and of data far from the origin is svd() of the centred data", {
  s <- make_sparse_mixture(n = 400, d = 300, k = 3)
  xc <- scale(s$dense, scale = FALSE)
  lz <- kmreduce:::block_lanczos_cpp(s$x, 5, Matrix::colMeans(s$x), NULL, 2L)
  expect_true(lz$converged)
  expect_svd_of(lz, xc, 5, label = "sparse, Lanczos")
  r <- reduce_dims(s$x, "svd", dims = 5)
  expect_svd_of(list(d = r$singular_values, v = r$rotation), xc, 5, label = "sparse")
  # sparse columns far from zero: the centring of the products loses
  # digits, Lanczos does not reach its tolerance, and the densified copy is
  # centred exactly
  sf <- as.matrix(withr::with_seed(4, Matrix::rsparsematrix(600, 300, 0.05)))
  sf[, 1:5] <- 1e8 + withr::with_seed(5, matrix(rnorm(600 * 5), 600))
  spf <- Matrix::Matrix(sf, sparse = TRUE)
  expect_false(kmreduce:::block_lanczos_cpp(spf, 4, Matrix::colMeans(spf), NULL, 1L)$converged)
  expect_svd_of(kmreduce:::top_svd_cpp(spf, 4, Matrix::colMeans(spf), NULL, 1L),
                sweep(sf, 2L, colMeans(sf)), 4, label = "sparse, far from zero")
  # (the dense copy is centred exactly: an offset of 1e8 changes nothing)
  m <- make_mixture(n = 400, d = 200, k = 6)
  far <- reduce_dims(m$x + 1e8, "svd", dims = 5)
  expect_svd_of(list(d = far$singular_values, v = far$rotation), scale(m$x, scale = FALSE), 5,
                label = "offset 1e8")
  # with observation weights: of diag(sqrt(w)) (x - 1 mu_w^T), dense and sparse
  w <- withr::with_seed(3, runif(400, 0.5, 2))
  mu <- colSums(w * m$x) / sum(w)
  sv <- kmreduce:::top_svd_cpp(m$x, 5, mu, w, 1L)
  expect_svd_of(sv, sqrt(w) * sweep(m$x, 2L, mu), 5, label = "weighted")
  mu <- colSums(w * s$dense) / sum(w)
  lz <- kmreduce:::block_lanczos_cpp(s$x, 2, mu, w, 1L)
  expect_true(lz$converged)
  expect_svd_of(lz, sqrt(w) * sweep(s$dense, 2L, mu), 2, label = "sparse, weighted")
})

test_that("the exact SVD of many vectors (LAPACK) is svd() of the centred data", {
  m <- make_mixture(n = 300, d = 120, k = 4)
  xc <- scale(m$x, scale = FALSE)
  # (dims above a quarter of min(n, d): no Lanczos basis fits)
  expect_false(kmreduce:::block_lanczos_cpp(m$x, 40, colMeans(m$x), NULL, 1L)$converged)
  for (k in c(40, 100, 120)) {
    r <- reduce_dims(m$x, "svd", dims = k)
    expect_svd_of(list(d = r$singular_values, v = r$rotation), xc, k, label = sprintf("k = %d", k))
  }
  s <- make_sparse_mixture(n = 150, d = 60, k = 3)
  r <- reduce_dims(s$x, "svd", dims = 50)
  expect_svd_of(list(d = r$singular_values, v = r$rotation), scale(s$dense, scale = FALSE), 50,
                label = "sparse, k = 50")
})

test_that("the exact SVD finds repeated singular values and zeros the null directions", {
  # singular values 9, 9, 9, 4, 4, 1, ... (multiplicity 3 within dims = 4)
  q1 <- qr.Q(qr(withr::with_seed(5, matrix(rnorm(400 * 60), 400))))
  q2 <- qr.Q(qr(withr::with_seed(6, matrix(rnorm(200 * 60), 200))))
  x <- q1 %*% diag(c(9, 9, 9, 4, 4, seq(1, 0.1, length.out = 55))) %*% t(q2)
  lz <- kmreduce:::block_lanczos_cpp(x, 4, NULL, NULL, 1L)
  expect_true(lz$converged)
  expect_equal(lz$d, c(9, 9, 9, 4), tolerance = 1e-12)
  # the three of 9 span q2[, 1:3]; the fourth lies in span(q2[, 4:5])
  expect_equal(sum(crossprod(lz$v[, 1:3], q2[, 1:3])^2), 3, tolerance = 1e-12)
  expect_equal(sum(crossprod(lz$v[, 4], q2[, 4:5])^2), 1, tolerance = 1e-12)
  # rank 3 (centred): directions 4 and 5 are null, set to 0
  low <- withr::with_seed(7, matrix(rnorm(200 * 3), 200) %*% matrix(rnorm(3 * 100), 3))
  r <- reduce_dims(low, "svd", dims = 5)
  expect_svd_of(list(d = r$singular_values, v = r$rotation), scale(low, scale = FALSE), 3,
                label = "rank 3")
  expect_identical(unname(r$rotation[, 4:5]), matrix(0, 100, 2))
})

test_that("control$svd_rows: the SVD of a uniform sample of the rows, every row projected on it", {
  x <- withr::with_seed(3, rbind(matrix(rnorm(400 * 30), 400), matrix(rnorm(300 * 30, 2), 300)))
  x[, 1:5] <- x[, 1:5] * 4
  ctl <- list(svd_rows = 200, power_iters = 6)
  r_state <- withr::with_seed(9, {
    before <- .Random.seed
    fit <- kmeans_reduced(x, 2, method = "rsvd", dims = 5, seed = 11, n_init = 2, control = ctl)
    identical(before, .Random.seed)
  })
  expect_true(r_state)  # R's random numbers are left alone
  v <- fit$reducer$rotation
  expect_identical(dim(v), c(30L, 5L))
  # the principal subspace of the sampled rows: compared with svd() of the
  # same rows, centred (the cosines of the principal angles near 1)
  index <- sort(order(kmreduce:::uniform_box_cpp(700, 0, 1, 11, 2^32 + 7, 1L)[, 1L])[1:200])
  ref <- svd(scale(x[index, ], scale = FALSE))$v[, 1:5]
  cosines <- svd(crossprod(qr.Q(qr(v)), ref))$d
  expect_gt(min(cosines), 1 - 1e-6)
  # every row projected: the reduced rows are x %*% v (less their means)
  expect_equal(unname(scale(fit$reduced, scale = FALSE)), unname(scale(x %*% v, scale = FALSE)),
               tolerance = 1e-10, ignore_attr = TRUE)
  # the same on 1 and 2 threads, and from a sparse copy of the rows
  fit2 <- kmeans_reduced(x, 2, method = "rsvd", dims = 5, seed = 11, n_init = 2, control = ctl,
                         n_threads = 2)
  expect_identical(fit2$cluster, fit$cluster)
  expect_identical(fit2$reducer$rotation, fit$reducer$rotation)
  # more rows than there are: all of them
  all_rows <- kmeans_reduced(x, 2, method = "rsvd", dims = 5, seed = 11, n_init = 2,
                             control = list(svd_rows = 1e6))
  none <- kmeans_reduced(x, 2, method = "rsvd", dims = 5, seed = 11, n_init = 2)
  expect_identical(all_rows$reducer$rotation, none$reducer$rotation)
  # fewer rows than dimensions: an error naming the option
  expect_error(kmeans_reduced(x, 2, method = "rsvd", dims = 5, seed = 1,
                              control = list(svd_rows = 3)),
               "`control\\$svd_rows` must be at least `dims` \\(5\\), not 3")
  expect_error(kmeans_control(svd_rows = 0.5), "`svd_rows` must be")
})

test_that("control$svd_rows reads the same sample from a file as from memory", {
  skip_without_bioc()
  s <- sim_counts(200, 1500, 3, seed = 5)
  f <- tempfile(fileext = ".h5")
  write_tenx(s$counts, f)
  # (t(TENxMatrix): the counts as they are, with the SVD's settings for cells)
  args <- list(k = 3, method = "rsvd", dims = 20, seed = 2, n_init = 2,
               control = list(svd_rows = 400, block_rows = 111L, eps = 1))
  file_fit <- do.call(kmeans_reduced, c(list(t(tenx_matrix(f)), normalize = "none"), args))
  mem_fit <- do.call(kmeans_reduced, c(list(Matrix::t(s$counts)), args))
  expect_identical(unname(file_fit$cluster), unname(mem_fit$cluster))
  expect_equal(file_fit$reducer$rotation, mem_fit$reducer$rotation, tolerance = 1e-12)
})

test_that("sparse products in panels of columns: each column as alone, the dense product", {
  x <- Matrix::rsparsematrix(300, 70, 0.05, rand.x = function(n) round(rnorm(n), 2))
  x <- methods::as(x, "CsparseMatrix")
  for (m in c(1L, 7L, 8L, 9L, 21L)) {
    b <- withr::with_seed(m, matrix(rnorm(70 * m), 70, m))
    p <- kmreduce:::multiply_cpp(x, b, 2L)
    # (each entry summed in the order of its column of x, whatever the panel)
    one <- vapply(seq_len(m), function(j) kmreduce:::multiply_cpp(x, b[, j, drop = FALSE], 1L), numeric(300))
    expect_identical(p, matrix(one, 300, m), info = m)
    expect_equal(p, as.matrix(x) %*% b, tolerance = 1e-12, ignore_attr = TRUE, info = m)
  }
  # the transposed products of the randomized SVD: the same vectors from
  # the sparse and the dense copy
  s <- randomized_svd(x, 5, oversample = 11, power_iters = 2, seed = 3)
  d <- randomized_svd(as.matrix(x), 5, oversample = 11, power_iters = 2, seed = 3)
  expect_equal(s$d, d$d, tolerance = 1e-10)
  expect_equal(abs(crossprod(s$v, d$v)), diag(5), tolerance = 1e-8)
})
