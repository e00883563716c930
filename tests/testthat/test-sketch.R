# The replicates on a sketch of the rows (control$sketch_rows, kmeans_passes() of R/kmeans_reduced.R;
# sketch.hpp and kmeans.hpp in the C++ core).

# A mixture large enough for the sketch: overlapping clusters of unequal
# size, so that the replicates and the polish have work to do.
sketch_data <- function(n = 6000, d = 12, k = 6, seed = 3, centre_sd = 2.5) {
  withr::with_seed(seed, {
    centres <- matrix(rnorm(k * d, sd = centre_sd), k, d)
    truth <- sample(k, n, TRUE, prob = seq_len(k))
    list(x = centres[truth, ] + matrix(rnorm(n * d), n, d), k = k, truth = truth)
  })
}

# The C++ k-means of ds$x (4 replicates, seed s, 1 thread) with the options
# `control` gives, and everything it returns (the objective before the
# polish, the split/merge tries).
sketch_kmeans_cpp <- function(ds, s, control) {
  opt <- kmreduce:::kmeans_settings(kmreduce:::check_control(control))
  kmreduce:::cpp_kmeans(ds$x, ds$k, 4L, 100L, 0, s, 1L, FALSE, 0, NULL, opt)
}

test_that("the replicates run on a sketch, and the fit says so", {
  ds <- sketch_data()
  fit <- kmeans_reduced(ds$x, ds$k, method = "none", n_init = 4, seed = 1,
                        control = list(sketch_rows = 1000))
  expect_false(is.null(fit$sketch))
  # (the rows drawn, each once: at most the draws)
  expect_true(fit$sketch$rows > 500 && fit$sketch$rows <= 1000)
  expect_named(fit$passes, c("sketch", "replicates", "lift", "lloyd", "polish", "statistics",
                             "refine"))
  expect_equal(fit$passes[["replicates"]], 0)
  # (three sketches, the 4 replicates dealt to them, each best lifted;
  # two rounds of k-means|| and the distances to its candidates for the
  # rough solution, whatever control$rounds is)
  expect_equal(fit$passes[["lift"]], 3)
  expect_equal(fit$passes[["sketch"]], 3)
  fit5 <- kmeans_reduced(ds$x, ds$k, method = "none", n_init = 4, seed = 1,
                         control = list(sketch_rows = 1000, rounds = 5))
  expect_equal(fit5$passes[["sketch"]], 3)
  expect_true(fit$passes[["lloyd"]] >= 1)
  # on all rows: the replicates' passes (k-means++ reads the rows once per
  # centre, Lloyd once per iteration), no sketch
  all_rows <- kmeans_reduced(ds$x, ds$k, method = "none", n_init = 4, seed = 1,
                             control = list(sketch_rows = Inf))
  expect_null(all_rows$sketch)
  expect_true(all_rows$passes[["replicates"]] >= 4 * ds$k)
  expect_equal(all_rows$passes[["lift"]], 0)
  # The fit is that of the rows: against stats::kmeans() on the same data
  ref <- withr::with_seed(1, stats::kmeans(ds$x, ds$k, nstart = 10, iter.max = 100))
  expect_lte(fit$tot.withinss, ref$tot.withinss * (1 + 1e-8))
  expect_equal(fit$tot.withinss, objective_r(ds$x, fit$cluster), tolerance = 1e-10)
  expect_equal(unname(fit$centers),
               unname(rowsum(ds$x, fit$cluster) / as.vector(table(fit$cluster))),
               tolerance = 1e-10)
})

test_that("the lifted start is the means of the rows nearest the sketch's centres", {
  ds <- sketch_data(seed = 4)
  for (w in list(NULL, withr::with_seed(2, runif(nrow(ds$x), 0.5, 2)))) {
    fit <- kmeans_reduced(ds$x, ds$k, method = "none", n_init = 3, seed = 2, weights = w,
                          control = list(sketch_rows = 800))
    sc <- fit$sketch$centers
    d2 <- outer(rowSums(ds$x^2), rep(1, ds$k)) - 2 * ds$x %*% t(sc) +
      outer(rep(1, nrow(ds$x)), rowSums(sc^2))
    label <- max.col(-d2, ties.method = "first")
    wt <- if (is.null(w)) rep(1, nrow(ds$x)) else w
    lifted <- rowsum(ds$x * wt, label) / as.vector(rowsum(wt, label))
    expect_equal(unname(fit$sketch$lifted[sort(unique(label)), ]), unname(lifted),
                 tolerance = 1e-9)
  }
})

test_that("the sketch gives the same bits on 1 and 2 threads and for the same seed", {
  ds <- sketch_data(seed = 5)
  fit <- function(threads, ...) {
    kmeans_reduced(ds$x, ds$k, method = "none", n_init = 3, seed = 7, n_threads = threads,
                   control = list(sketch_rows = 900), ...)
  }
  a <- fit(1L)
  expect_identical(fit(2L)[c("cluster", "centers", "tot.withinss", "sketch", "passes")],
                   a[c("cluster", "centers", "tot.withinss", "sketch", "passes")])
  expect_identical(fit(1L)$cluster, a$cluster)
  # reduced rows take the sketch too
  r1 <- kmeans_reduced(ds$x, ds$k, method = "gaussian", dims = 8, n_init = 3, seed = 7,
                       n_threads = 1L, control = list(sketch_rows = 900))
  r2 <- kmeans_reduced(ds$x, ds$k, method = "gaussian", dims = 8, n_init = 3, seed = 7,
                       n_threads = 2L, control = list(sketch_rows = 900))
  expect_false(is.null(r1$sketch))
  expect_identical(r1$cluster, r2$cluster)
  expect_identical(r1$tot.withinss, r2$tot.withinss)
  # R's generator is neither used nor changed with a given seed
  set.seed(11)
  before <- .Random.seed
  fit(1L)
  expect_identical(.Random.seed, before)
})

test_that("the polish never raises the objective, with or without the sketch", {
  ds <- sketch_data(seed = 6, k = 8)
  for (m in c(700, 2000, Inf)) {
    for (s in 1:3) {
      km <- sketch_kmeans_cpp(ds, s, list(sketch_rows = m))
      expect_lte(km$objective, km$objective_before_polish * (1 + 1e-12))
      expect_equal(is.null(km$sketch), is.infinite(m))
    }
  }
})

test_that("lifted starts that agree leave only Hartigan's moves on all rows", {
  # Each lifted start is the best of a sketch after its split/merge moves:
  # when two agree within control$split_confirm's 1e-6 (nearby clusters, a
  # few rows apart), no split/merge is tried on all rows; when they differ
  # (clusters that overlap more), it is. Either way the polish never raises
  # the objective and ends at the means of its labels.
  tries <- NULL
  for (sd in c(0.6, 1)) {
    ds <- sketch_data(seed = 6, k = 8, centre_sd = sd)
    for (s in 1:4) {
      for (ps in list(2L, "auto")) {
        km <- sketch_kmeans_cpp(ds, s, list(sketch_rows = 700, polish_starts = ps))
        expect_false(is.null(km$sketch))
        expect_lte(km$objective, km$objective_before_polish * (1 + 1e-12))
        label <- km$cluster
        expect_equal(unname(km$centers),
                     unname(rowsum(ds$x, label) / as.vector(table(label))), tolerance = 1e-10)
        tries <- c(tries, km$split_tries)
      }
    }
  }
  expect_true(any(tries == 0))
  expect_true(any(tries > 0))
})

test_that("a weighted sketched fit is the weighted k-means of the rows", {
  ds <- sketch_data(seed = 8)
  w <- withr::with_seed(5, sample(1:3, nrow(ds$x), TRUE))
  f <- kmeans_reduced(ds$x, ds$k, method = "none", n_init = 3, seed = 3, weights = w,
                      control = list(sketch_rows = 1000))
  expect_false(is.null(f$sketch))
  # the objective and centres of the weighted rows, recomputed in R
  means <- rowsum(ds$x * w, f$cluster) / as.vector(rowsum(w, f$cluster))
  expect_equal(unname(f$centers), unname(means), tolerance = 1e-10)
  expect_equal(f$tot.withinss, sum(w * rowSums((ds$x - means[f$cluster, ])^2)),
               tolerance = 1e-10)
  # and as good as the rows repeated by their weights, clustered on all rows
  rep_fit <- kmeans_reduced(ds$x[rep(seq_len(nrow(ds$x)), w), ], ds$k, method = "none",
                            n_init = 3, seed = 3, control = list(sketch_rows = Inf))
  expect_lte(f$tot.withinss, rep_fit$tot.withinss * (1 + 1e-6))
})

test_that("the sketch is left out where it does not apply", {
  ds <- sketch_data(n = 3000, seed = 9)
  ctl <- list(sketch_rows = 500)
  # given centres: no replicates
  f <- kmeans_reduced(ds$x, ds$x[1:ds$k, ], method = "none", control = ctl)
  expect_null(f$sketch)
  expect_equal(f$passes[["lloyd"]], f$iter)
  # single precision, and sparse rows clustered as they are
  expect_null(kmeans_reduced(ds$x, ds$k, method = "none", n_init = 2, seed = 1,
                             control = c(ctl, precision = "single"))$sketch)
  sp <- make_sparse_mixture(n = 3000)
  expect_null(kmeans_reduced(sp$x, 3, method = "none", n_init = 2, seed = 1,
                             control = ctl)$sketch)
  # fewer sketch rows than k: the replicates on all rows
  f <- kmeans_reduced(ds$x, ds$k, method = "none", n_init = 2, seed = 1,
                      control = list(sketch_rows = 3))
  expect_null(f$sketch)
  expect_true(f$passes[["replicates"]] > 0)
  # "auto": small data keep the replicates on all rows
  expect_null(kmeans_reduced(ds$x, ds$k, method = "none", n_init = 2, seed = 1)$sketch)
  rows <- function(sketch_rows, k, n, n_init = 2L) {
    settings <- kmreduce:::kmeans_settings(kmreduce:::check_control(list(sketch_rows = sketch_rows)))
    kmreduce:::kmeans_resolved(k, n_init, n, settings)$sketch_rows
  }
  expect_equal(rows("auto", 10, 19999), 0)
  expect_equal(rows("auto", 10, 20000), 2000)
  expect_equal(rows("auto", 10, 20000, n_init = 1L), 0)
  expect_equal(rows("auto", 50, 50000), 5000)
  expect_equal(rows(Inf, 10, 1e6), 0)
  expect_equal(rows(500, 10, 499), 0)
  expect_equal(rows(500, 10, 501), 500)
})

test_that("bad sketch_rows is a clear error naming it", {
  x <- make_mixture()$x
  for (bad in list(-1, 1.5, "all", NA_real_, c(1, 2))) {
    expect_error(kmeans_reduced(x, 3, control = list(sketch_rows = bad)),
                 "control\\$sketch_rows` must be \"auto\" or a whole number in \\[0, Inf\\]", class = NULL)
  }
  expect_error(kmeans_control(sketch_rows = -2), "`sketch_rows` must be")
})

test_that("trace prints the passes by stage; one sketch per replicate at most", {
  ds <- sketch_data(n = 4000, seed = 10)
  out <- capture.output(kmeans_reduced(ds$x, ds$k, method = "none", n_init = 2, seed = 1,
                                       trace = 1, control = list(sketch_rows = 800)))
  # (two replicates: two sketches, two lifts)
  expect_true(any(grepl("passes over the data's rows: sketch 3, replicates 0, lift 2, lloyd [0-9]+, polish [0-9]+, statistics 1, refine 0",
                        out)))
})

test_that("the sketch runs alike on every source, on both sides of its size", {
  # The reduced rows are in memory whatever the source: a big.matrix, a
  # DelayedMatrix and a 10x file give the sketched fit (and the one on all
  # rows) of the same rows in memory. (The MPI ranks: test-mpi_rows.R.)
  ds <- sketch_data(n = 2000, d = 30, seed = 11)
  counts <- round(exp(ds$x / 4))  # (whole numbers >= 0, for the 10x file)
  sources <- list(memory = counts)
  if (requireNamespace("bigmemory", quietly = TRUE)) {
    sources$big <- bigmemory::as.big.matrix(counts, type = "double")
  }
  if (requireNamespace("DelayedArray", quietly = TRUE)) {
    sources$delayed <- DelayedArray::DelayedArray(counts)
  }
  if (requireNamespace("HDF5Array", quietly = TRUE) && requireNamespace("rhdf5", quietly = TRUE)) {
    file <- tempfile(fileext = ".h5")
    write_tenx(Matrix::t(Matrix::Matrix(counts, sparse = TRUE)), file)
    sources$tenx <- t(tenx_matrix(file))
  }
  # (a 10x file's rows are sparse: their reference is the sparse matrix)
  sparse <- methods::as(Matrix::Matrix(counts, sparse = TRUE), "CsparseMatrix")
  for (size in list(150, Inf)) {
    ctl <- list(sketch_rows = size, block_rows = 300)
    dense <- kmeans_reduced(sources$memory, ds$k, method = "sign", dims = 10, n_init = 3,
                            seed = 4, control = ctl)
    expect_identical(is.null(dense$sketch), is.infinite(size))
    for (s in setdiff(names(sources), "memory")) {
      ref <- if (s == "tenx") {
        kmeans_reduced(sparse, ds$k, method = "sign", dims = 10, n_init = 3, seed = 4,
                       control = ctl)
      } else dense
      # (a 10x file's counts as they are: raw, as the matrices)
      fit <- do.call(kmeans_reduced, c(list(sources[[s]], ds$k, method = "sign", dims = 10,
                                            n_init = 3, seed = 4, control = ctl),
                                       if (s == "tenx") list(normalize = "none")))
      info <- sprintf("%s, sketch_rows = %s", s, size)
      expect_identical(unname(fit$cluster), unname(ref$cluster), info = info)
      expect_identical(fit$passes[c("sketch", "replicates", "lift", "lloyd", "polish")],
                       ref$passes[c("sketch", "replicates", "lift", "lloyd", "polish")],
                       info = info)
      expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10, info = info)
    }
  }
})
