# k_path(): objective, certificate, silhouette and gap for a range of k.

separated <- function(K, n_per = 50, d = 8, sep = 10, seed = 1) {
  withr::with_seed(seed, {
    ctr <- matrix(rnorm(K * d, sd = sep), K, d)
    list(x = ctr[rep(seq_len(K), each = n_per), ] + matrix(rnorm(K * n_per * d), K * n_per),
         truth = rep(seq_len(K), each = n_per))
  })
}

test_that("the gap statistic agrees with cluster::clusGap() and picks the same k", {
  skip_if_not_installed("cluster")
  for (K in c(3, 5, 8)) {
    m <- separated(K, seed = K)
    p <- k_path(m$x, k = 1:10, method = "none", B = 20, seed = 1, verbose = FALSE)
    cg <- withr::with_seed(2, cluster::clusGap(m$x, stats::kmeans, K.max = 10, B = 20,
                                                d.power = 2, nstart = 10, verbose = FALSE))
    tab <- cg$Tab
    r <- p$results
    # Where both find the same partition quality (clusGap's W is half the
    # within sum of squares), the gaps agree within their standard errors.
    # (at the true K both find the planted partition; elsewhere the two
    # k-means may stop in different local optima)
    same <- abs(r$logW - (tab[, "logW"] + log(2))) < 1e-6
    expect_true(same[K])
    expect_gte(sum(same), 3L)
    z <- abs(r$gap - tab[, "gap"]) / sqrt(r$gap_se^2 + tab[, "SE.sim"]^2)
    expect_true(all(z[same] < 4), label = sprintf("K = %d: z = %s", K, paste(round(z, 2), collapse = " ")))
    for (rule in c("firstSEmax", "Tibs2001SEmax")) {
      expect_identical(unname(p$chosen[[paste0("gap_", rule)]]), as.integer(K))
      expect_identical(cluster::maxSE(tab[, "gap"], tab[, "SE.sim"], rule), as.integer(K))
      # our rule on clusGap's numbers gives clusGap's choice
      expect_identical(kmreduce:::gap_rule(tab[, "gap"], tab[, "SE.sim"], rule),
                       cluster::maxSE(tab[, "gap"], tab[, "SE.sim"], rule))
    }
    expect_identical(unname(p$chosen[["silhouette"]]), as.integer(K))
  }
})

test_that("gap_rule() is cluster::maxSE() on awkward sequences", {
  skip_if_not_installed("cluster")
  withr::with_seed(3, for (i in 1:200) {
    f <- cumsum(rnorm(8))
    se <- abs(rnorm(8, sd = 0.5))
    for (rule in c("firstSEmax", "Tibs2001SEmax")) {
      expect_identical(kmreduce:::gap_rule(f, se, rule), cluster::maxSE(f, se, rule))
    }
  })
})

test_that("silhouettes equal cluster::silhouette() on the same partition and distances", {
  skip_if_not_installed("cluster")
  m <- separated(4, n_per = 40, d = 30, sep = 2)
  p <- k_path(m$x, k = 2:6, method = "sign", dims = 12, B = 0, seed = 4, verbose = FALSE)
  space <- p$fits[[2]]$reduced
  for (q in 2:6) {
    s <- cluster::silhouette(p$fits[[q]]$cluster, stats::dist(space))
    expect_equal(p$results$silhouette[p$results$k == q], mean(s[, "sil_width"]), tolerance = 1e-12)
    w <- kmreduce:::silhouette_cpp(space, matrix(p$fits[[q]]$cluster), q, 2L)
    expect_equal(w[, 1], unname(s[, "sil_width"]), tolerance = 1e-12)
  }
  # A cluster of one row has width 0 (cluster::silhouette's convention).
  lab <- c(1L, rep(2L, 5), rep(3L, 6))
  y <- space[1:12, ]
  w <- kmreduce:::silhouette_cpp(y, cbind(lab, rev(lab), 1L), c(3L, 3L, 1L), 1L)
  expect_equal(w[, 1], unname(cluster::silhouette(lab, stats::dist(y))[, "sil_width"]),
               tolerance = 1e-12)
  expect_equal(w[, 2], unname(cluster::silhouette(rev(lab), stats::dist(y))[, "sil_width"]),
               tolerance = 1e-12)
  expect_identical(w[, 3], rep(0, 12))   # one cluster: no silhouette
  expect_error(kmreduce:::silhouette_cpp(y, matrix(c(lab[-1], 4L)), 3L, 1L), "label out of range")
  # Above silhouette_max: the drawn rows, the same for every k.
  ps <- k_path(m$x, k = 2:4, method = "sign", dims = 12, B = 0, seed = 4, silhouette_max = 50,
               verbose = FALSE)
  rows <- ps$silhouette_rows
  expect_length(unique(rows), 50L)
  expect_identical(ps$silhouette_n, 50L)
  for (q in 2:4) {
    s <- cluster::silhouette(ps$fits[[q]]$cluster[rows], stats::dist(space[rows, ]))
    expect_equal(ps$results$silhouette[ps$results$k == q], mean(s[, "sil_width"]),
                 tolerance = 1e-12)
  }
})

test_that("each k's fit is reachable and carries the certificate of optimality_bound()", {
  m <- separated(3, n_per = 40, d = 40, sep = 2)
  p <- k_path(m$x, k = 2:5, method = "sign", B = 3, seed = 7, n_init = 4, verbose = FALSE)
  for (q in 2:5) {
    f <- kmeans_reduced(m$x, q, method = "sign", dims = p$dims, seed = p$seed, n_init = 4)
    expect_identical(p$fits[[q]]$cluster, f$cluster)
    expect_equal(p$fits[[q]]$tot.withinss, f$tot.withinss)
    expect_identical(predict(p$fits[[q]], m$x), p$fits[[q]]$cluster)
    b <- optimality_bound(f, m$x)
    expect_equal(p$results$lower[p$results$k == q], b$lower, tolerance = 1e-10)
    expect_equal(p$results$ratio[p$results$k == q], b$ratio, tolerance = 1e-10)
  }
  expect_identical(p$dims, 40L)     # the method's default for k = 5: min(d, 10 k)
  expect_equal(p$results$objective, vapply(2:5, function(q) p$fits[[q]]$tot.withinss, 1))
  # leverage: the reduction for the largest k serves every k
  pl <- k_path(m$x, k = 2:4, method = "leverage", dims = 20, B = 2, seed = 7, verbose = FALSE)
  expect_identical(pl$fits[[2]]$reducer, pl$fits[[4]]$reducer)
})

test_that("same seed, same path, for any thread count; the RNG is left alone", {
  m <- separated(3, n_per = 30, d = 20, sep = 3)
  old <- withr::with_seed(11, {
    s0 <- .Random.seed
    p1 <- k_path(m$x, k = 1:4, method = "sign", dims = 8, B = 4, seed = 5, n_threads = 1,
                 verbose = FALSE)
    expect_identical(.Random.seed, s0)
  })
  p2 <- k_path(m$x, k = 1:4, method = "sign", dims = 8, B = 4, seed = 5, n_threads = 2,
               verbose = FALSE)
  expect_identical(p1$results, p2$results)
  expect_true(is.na(p1$results$silhouette[1]))
})

test_that("print, summary, plot and autoplot", {
  m <- separated(3, n_per = 30, d = 20, sep = 3)
  p <- k_path(m$x, k = 1:5, method = "sign", dims = 8, B = 3, seed = 5, verbose = FALSE)
  expect_output(print(p), "chosen k: gap \\(firstSEmax\\) 3, gap \\(Tibs2001SEmax\\) 3, silhouette 3")
  expect_identical(summary(p), as.data.frame(p))
  f <- tempfile(fileext = ".png")
  grDevices::png(f, width = 1000, height = 300)
  expect_invisible(plot(p))
  plot(p, which = "gap")
  plot(p, which = c("between_total", "objective", "certificate"))
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  expect_error(plot(p, which = "elbow"), "`which` must be a subset of")
  skip_if_not_installed("ggplot2")
  expect_s3_class(ggplot2::autoplot(p), "ggplot")
})

test_that("bad arguments are named in the error", {
  m <- separated(2, n_per = 20, d = 5)
  expect_error(k_path(m$x, k = c(2, 2.5), verbose = FALSE), "`k` must be distinct whole numbers >= 1")
  expect_error(k_path(m$x, k = c(2, 2), verbose = FALSE), "`k` must be distinct whole numbers >= 1")
  expect_error(k_path(m$x, k = 2:3, B = -1, verbose = FALSE), "`B` must be a whole number")
  expect_error(k_path(m$x, k = 2:3, n_init_reference = 0, verbose = FALSE),
               "`n_init_reference` must be a whole number")
  expect_error(k_path(m$x, k = 2:3, silhouette_max = 1, verbose = FALSE), "`silhouette_max` must be a whole number")
  expect_error(k_path(m$x, k = 2:3, bound = NA, verbose = FALSE), "`bound` must be TRUE or FALSE")
  expect_error(k_path(m$x, k = 2:3, method = "magic", verbose = FALSE), "`method` must be one of")
})

test_that("the default k starts at 1; sparse x with method \"none\" works", {
  expect_identical(eval(formals(k_path.default)$k), 1:10)
  m <- separated(3, n_per = 20, d = 4)
  p <- k_path(m$x, B = 2, n_init = 2, seed = 1, bound = FALSE, verbose = FALSE)
  expect_identical(p$results$k, 1:10)
  # (the default stops at the distinct rows)
  y <- m$x[rep(c(1, 21, 41, 2), 5), ]
  expect_identical(k_path(y, B = 2, seed = 1, verbose = FALSE)$results$k, 1:4)
  s <- make_sparse_mixture(n = 90, d = 12, k = 3)
  ps <- k_path(s$x, k = 1:4, method = "none", B = 3, n_init = 3, seed = 2, verbose = FALSE)
  pd <- k_path(s$dense, k = 1:4, method = "none", B = 3, n_init = 3, seed = 2, verbose = FALSE)
  expect_identical(ps$method, "none")
  expect_equal(ps$results$objective, pd$results$objective, tolerance = 1e-10)
  expect_equal(ps$results$gap, pd$results$gap, tolerance = 1e-8)
  expect_equal(ps$results$silhouette, pd$results$silhouette, tolerance = 1e-10)
})

test_that("the reference sets are clustered exactly as the data are", {
  # Same replicates, seeding and polish as kmeans_reduced() gives the data:
  # E log W* recomputed from the same uniform sets (drawn in the box of the
  # principal axes, in the frame scaled by a power of two).
  m <- separated(3, n_per = 25, d = 3, sep = 4, seed = 2)
  x <- m$x
  n <- nrow(x)
  p <- k_path(x, k = 1:4, method = "none", B = 3, n_init = 4, seed = 9, bound = FALSE,
              verbose = FALSE)
  expect_identical(p$n_init_reference, 4L)
  space <- sweep(x, 2L, colMeans(x))
  unit <- 2^ceiling(log2(max(abs(space))))
  space <- space / unit
  pc <- space %*% svd(space, nu = 0L)$v
  lo <- apply(pc, 2L, min)
  hi <- apply(pc, 2L, max)
  logw <- matrix(NA_real_, 3, 4)
  for (b in 1:3) {
    ref <- kmreduce:::uniform_box_cpp(n, lo, hi, 9, b - 1, 1L)
    for (q in 1:4) {
      f <- kmeans_reduced(ref, q, method = "none", n_init = 4,
                          seed = kmreduce:::derive_seed_cpp(9, b))
      logw[b, q] <- log(f$tot.withinss) + 2 * log(unit)
    }
  }
  expect_equal(p$results$E_logW, colMeans(logw), tolerance = 1e-9)
  expect_equal(p$results$gap_se, sqrt(1 + 1 / 3) * apply(logw, 2, sd), tolerance = 1e-6)
})

test_that("degenerate paths: NA where undefined, with notes; the rules skip them; plots draw what exists", {
  x <- separated(2, n_per = 4, d = 2)$x
  expect_error(k_path(x, k = 1:3, B = 1, verbose = FALSE),
               "`B` must be 0 \\(no gap statistic\\) or at least 2")
  # k up to n: W_n = 0
  p <- k_path(x, k = 1:8, B = 3, seed = 1, verbose = FALSE)
  r <- p$results
  expect_true(is.na(r$logW[8]) && is.na(r$gap[8]) && is.na(r$gap_se[8]))
  expect_false(anyNA(r$gap[1:7]))
  expect_false(any(is.nan(as.matrix(r))))
  expect_match(p$notes, "k = 8: the rows of every cluster are equal", all = FALSE)
  expect_false(anyNA(p$chosen[c("gap_firstSEmax", "gap_Tibs2001SEmax")]))
  expect_output(print(p), "note: k = 8")
  # all rows equal: only k = 1, nothing defined but the objective
  p1 <- k_path(matrix(3, 6, 2), B = 2, seed = 1, verbose = FALSE)
  expect_identical(p1$results$k, 1L)
  expect_true(is.na(p1$results$between_total))
  expect_true(all(is.na(p1$chosen)))
  # 1 to 3 rows
  for (n in 1:3) {
    pn <- k_path(matrix(c(0, 1, 5)[seq_len(n)], n, 1), B = 2, seed = 1, verbose = FALSE)
    expect_identical(pn$results$k, seq_len(n), label = paste(n, "rows"))
    expect_false(any(is.nan(as.matrix(pn$results))), label = paste(n, "rows"))
  }
  # plots: k = 1 alone (no silhouette), a path with no gap, the rules on NA
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(k_path(x, k = 1, B = 3, seed = 1, verbose = FALSE)))
  expect_invisible(plot(p1))
  expect_invisible(plot(p))
  grDevices::dev.off()
  expect_error(plot(p1, which = "silhouette"), "nothing to draw")
  expect_identical(kmreduce:::gap_choice(1:4, c(NA, 0.1, 0.5, 0.2), c(NA, 0.1, 0.1, 0.1),
                                         "firstSEmax"), 3L)
  expect_identical(kmreduce:::gap_choice(1:2, c(NA, NA), c(0.1, 0.1), "Tibs2001SEmax"),
                   NA_integer_)
})

test_that("the gap does not depend on the data's units, up to the largest accepted values", {
  m <- separated(3, n_per = 30, d = 6, sep = 5, seed = 3)
  base <- k_path(m$x, k = 1:4, B = 4, n_init = 3, seed = 2, verbose = FALSE)
  lim <- kmreduce:::max_abs_value(length(m$x))
  for (s in c(2^floor(log2(lim / 2 / max(abs(m$x)))), 2^-400)) {
    p <- k_path(m$x * s, k = 1:4, B = 4, n_init = 3, seed = 2, verbose = FALSE)
    label <- paste("scale", s)
    expect_true(all(is.finite(p$results$gap)), label = label)
    expect_equal(p$results$gap, base$results$gap, tolerance = 1e-9, label = label)
    expect_equal(p$results$silhouette, base$results$silhouette, tolerance = 1e-12, label = label)
    expect_identical(p$chosen, base$chosen, label = label)
  }
})

# The path of rows read in blocks, as the same rows in memory give it: the
# numbers equal to rounding (the randomized SVD's products taken block by
# block), the partitions and the chosen k the same.
expect_same_path <- function(p, ref) {
  expect_equal(p$results, ref$results, tolerance = 1e-8)
  expect_identical(p$chosen, ref$chosen)
  for (q in p$results$k) expect_identical(unname(p$fits[[q]]$cluster), unname(ref$fits[[q]]$cluster))
}

test_that("a big.matrix and a DelayedMatrix give the path of the same rows in memory", {
  m <- separated(3, n_per = 40, d = 30, sep = 3)
  args <- list(k = 1:5, B = 3, seed = 4, n_init = 3, verbose = FALSE, n_threads = 1)
  ref <- do.call(k_path, c(list(m$x, bound = FALSE), args))
  skip_if_not_installed("bigmemory")
  bm <- bigmemory::as.big.matrix(m$x)
  pb <- do.call(k_path, c(list(bm), args))
  expect_same_path(pb, ref)
  expect_true(all(is.na(pb$results$lower)))  # (no certificate by default: rows in blocks)
  # 1 and 2 threads: the same path
  expect_identical(do.call(k_path, c(list(bm, n_threads = 2), args[-6]))$results, pb$results)
  expect_error(k_path(bm, k = 1:3, bound = TRUE, B = 0, verbose = FALSE),
               "`bound = TRUE` needs the rows in memory .*a big.matrix")
  expect_error(k_path(bm, k = 1:3, method = "none", B = 0, verbose = FALSE), "`method` \"none\"")
  skip_without_bioc("DelayedArray")
  pd <- do.call(k_path, c(list(DelayedArray::DelayedArray(m$x)), args))
  expect_same_path(pd, ref)
  expect_error(k_path(DelayedArray::DelayedArray(m$x), normalize = "log1p_cpm"),
               "`normalize` applies to counts")
})

test_that("distributed rows and misspelt arguments are refused with a clear error", {
  x <- matrix(rnorm(40), 20)
  fake <- structure(list(x = x, n = nrow(x)), class = "kmreduce_mpi")
  expect_error(k_path(fake, k = 1:2), "`x` is a set of distributed rows \\(mpi_rows\\(\\)\\); k_path\\(\\) runs in one process")
  expect_error(k_path(x, k = 1:2, nstrat = 3), "k_path\\(\\) has no argument `nstrat`")
})

test_that("on many rows the path runs on a sample: the gap within its standard errors of the exact one", {
  m <- separated(4, n_per = 1000, d = 20, sep = 1.2, seed = 1)
  args <- list(m$x, k = 1:7, B = 10, seed = 2, n_init = 3, bound = FALSE, verbose = FALSE,
               n_threads = 1)
  exact <- do.call(k_path, c(args, path_rows = Inf))
  sampled <- do.call(k_path, c(args, path_rows = 800))
  expect_identical(exact$path_rows, 4000L)
  expect_null(exact$path_index)
  expect_identical(sampled$path_rows, 800L)
  expect_length(sampled$path_index, 800L)
  # log W_k (of the reduced rows, n / m times the sample's) and the gap:
  # within three standard errors of their difference
  se <- sqrt(exact$results$gap_se^2 + sampled$results$gap_se^2)
  expect_true(all(abs(sampled$results$gap - exact$results$gap) <= 3 * se))
  expect_true(all(abs(sampled$results$logW - exact$results$logW) <= 0.02))
  expect_identical(sampled$chosen, exact$chosen)
  expect_identical(sampled$chosen[["gap_firstSEmax"]], 4L)
  # only the chosen k is fitted to every row, as kmeans_reduced() fits it
  expect_identical(which(!vapply(sampled$fits, is.null, logical(1))), 4L)
  fit <- kmeans_reduced(m$x, 4, method = "rsvd", dims = sampled$dims, seed = 2, n_init = 3,
                        n_threads = 1)
  expect_identical(sampled$fit$cluster, fit$cluster)
  expect_identical(sampled$fit$centers, fit$centers)
  expect_identical(sampled$fits[[4]]$tot.withinss, exact$fits[[4]]$tot.withinss)
  expect_output(print(sampled), "on 800 reduced rows drawn at random of 4000 .*fitted to every row: k = 4")
  # 1 and 2 threads: the same sampled path
  expect_identical(do.call(k_path, c(args[-8], path_rows = 800, n_threads = 2))$results,
                   sampled$results)
})

test_that("the path samples rows only above path_rows (both sides), \"auto\" from 10 m rows", {
  m <- separated(3, n_per = 100, d = 6, sep = 3)
  args <- list(m$x, k = 1:4, B = 2, seed = 1, n_init = 2, bound = FALSE, verbose = FALSE,
               n_threads = 1)
  all_rows <- do.call(k_path, c(args, path_rows = Inf))
  at <- do.call(k_path, c(args, path_rows = 300))
  expect_identical(at$results, all_rows$results)
  expect_identical(at$path_rows, 300L)
  below <- do.call(k_path, c(args, path_rows = 299))
  expect_identical(below$path_rows, 299L)
  expect_identical(do.call(k_path, args)$results, all_rows$results)  # "auto": 300 < 10 m
  expect_null(kmreduce:::path_sample(19999, "auto", 20, 1))
  expect_length(kmreduce:::path_sample(20000, "auto", 20, 1), 2000L)
  expect_length(kmreduce:::path_sample(50000, "auto", 30, 1), 3000L)
  expect_null(kmreduce:::path_sample(29999, "auto", 30, 1))
  expect_error(do.call(k_path, c(args, path_rows = 3)), "`path_rows` must be \"auto\", Inf or a whole number of rows >= 4")
  expect_error(do.call(k_path, c(args, path_rows = "all")), "`path_rows` must be")
})

test_that("trace prints one line per k and per reference set, and changes nothing", {
  m <- separated(3, n_per = 30, d = 6, sep = 3)
  args <- list(m$x, k = 1:3, B = 2, seed = 1, n_init = 2, verbose = FALSE, n_threads = 1)
  out <- capture.output(p <- do.call(k_path, c(args, trace = TRUE)))
  expect_length(grep("^k_path: k = [1-3] on the data: objective .*, log W_k .*\\[step [1-3] of 10, ", out), 3L)
  expect_length(grep("^k_path: reference set [12] of 2 clustered for k = 1...3 \\[step (6|9) of 10", out), 2L)
  expect_identical(p$results, do.call(k_path, args)$results)
  out <- capture.output(ps <- do.call(k_path, c(args, trace = TRUE, path_rows = 60)))
  expect_match(out[1L], "k = 1 on the sample of 60 rows: log W_k .* \\(estimate\\)")
  expect_match(out[length(out)], "k = 3 on every row: objective")
  expect_error(do.call(k_path, c(args, trace = "yes")), "`trace`")
})
