# Run by test-mpi_rows.R as: mpirun -np 2 Rscript kmeans.R OUT.rds
# Each rank holds a block of rows of one matrix; kmeans_reduced() on
# mpi_rows() must give the partition of one process on the stacked matrix.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "common.R"))
set.seed(42)
n <- 301L
d <- 40L
k <- 3L
truth <- rep_len(1:k, n)
centres <- matrix(rnorm(k * d, sd = 3), k, d)
x <- centres[truth, ] + matrix(rnorm(n * d, sd = 1.5), n, d)
counts <- matrix(rpois(n * d, 0.3 + 2 * (truth[row(matrix(0, n, d))] == (col(matrix(0, n, d)) %% k) + 1)), n, d)
xs <- Matrix::Matrix(counts, sparse = TRUE)
rows <- if (rank == 0L) 1:130 else 131:n
run <- function(label, data, local, method, dims = 8, ...) {
  single <- kmeans_reduced(data, k, method = method, dims = dims, n_init = 2, seed = 7, ...)
  fit <- kmeans_reduced(mpi_rows(local), k, method = method, dims = dims, n_init = 2, seed = 7, ...)
  results[[label]] <<- compare_fits(fit, single, rows)
}
for (m in kmreduce:::registered_methods(source = c("source_mpi", "row_source"))) {
  run(m, x, x[rows, ], m)
}
run("sparse/sparse_embedding", xs, xs[rows, ], "sparse_embedding")
run("sparse/none", xs, xs[rows, ], "none")
# more test vectors than the rank of the centred rows (zero columns): the
# distributed basis by TSQR, where Cholesky QR fails
zx <- cbind(x[, 1:6], matrix(0, n, 6))
run("rsvd/rank-deficient", zx, zx[rows, ], "rsvd", dims = 10)
run("refine", x, x[rows, ], "sign", refine = 3)
run("n_reductions", x, x[rows, ], "gaussian", n_reductions = 3)
run("k-means||", x, x[rows, ], "none", control = list(seeding = "k-means||"))
run("single", x, x[rows, ], "none", control = list(precision = "single"))
run("single/gaussian", x, x[rows, ], "gaussian", control = list(precision = "single"))
# A reduction that merges rows into fewer than k distinct ones: every rank
# finds it (the union of their distinct rows), warns, and refines, as one
# process does
xc <- cbind(rep(c(0, 1), each = 10), rep(c(0, 1), 10))
rc <- if (rank == 0L) 1:9 else 10:20
warned <- ""
fit <- withCallingHandlers(
  kmeans_reduced(mpi_rows(xc[rc, ]), 4, method = "leverage", dims = 1, seed = 1,
                 control = list(sampling = "top")),
  warning = function(w) {
    warned <<- conditionMessage(w)
    invokeRestart("muffleWarning")
  })
single <- suppressWarnings(kmeans_reduced(xc, 4, method = "leverage", dims = 1, seed = 1,
                                          control = list(sampling = "top")))
results[["collapsed"]] <- c(compare_fits(fit, single, rc), refine = fit$refine,
                           warned = warned)
# One row far from the others (1e12, on rank 1): the shifts of the rows
# ("none") and of the reduced rows are medians over the rows of all ranks,
# those of one process; no cluster empty, and the fit of one process with
# the far row first (another order) reaches the same objective.
xf <- x
xf[200, ] <- 1e12
for (m in c("none", "sign")) {
  single <- kmeans_reduced(xf, k, method = m, dims = 8, n_init = 2, seed = 7)
  fit <- kmeans_reduced(mpi_rows(xf[rows, ]), k, method = m, dims = 8, n_init = 2, seed = 7)
  moved <- kmeans_reduced(xf[c(200L, seq_len(n)[-200L]), ], k, method = m, dims = 8, n_init = 2,
                          seed = 7)
  r <- compare_fits(fit, single, rows)
  r$empty <- sum(fit$size == 0L)
  r$order <- abs(moved$tot.withinss - single$tot.withinss) / single$tot.withinss
  results[[paste0("far/", m)]] <- r
}
# Awkward data (few distinct values, many clusters): Lloyd empties clusters
# and re-seeds them, on the reduced rows and when refining.
set.seed(3)
aw <- matrix(sample(c(0, 1, 2, 10), n * 3, TRUE, prob = c(5, 3, 1, 1)), n, 3) +
  matrix(rnorm(n * 3, sd = 1e-3), n, 3)
k <- 12L
run("awkward/none", aw, aw[rows, ], "none", iter_max = 50)
run("awkward/refine", aw, aw[rows, ], "sign", dims = 1, refine = 20)
# Above the size from which the replicates run on sketches of the rows (10
# x 2000 rows for k <= 20 with n_init > 1), with the default n_init and
# control: the sketches (their draws, across the ranks) of one process; and
# the randomized SVD of a sample of the rows (control$svd_rows), the same
# global rows gathered on every rank.
set.seed(5)
k <- 4L
nb <- 20600L
truth <- sample(k, nb, TRUE)
big <- matrix(rnorm(k * 20, sd = 2), k, 20)[truth, ] + matrix(rnorm(nb * 20), nb, 20)
rows <- if (rank == 0L) 1:9000 else 9001:nb
run_default <- function(label, method, ...) {
  single <- kmeans_reduced(big, k, method = method, seed = 11, ...)
  fit <- kmeans_reduced(mpi_rows(big[rows, ]), k, method = method, seed = 11, ...)
  results[[label]] <<- c(compare_fits(fit, single, rows),
                         sketched = !is.null(single$sketch) && !is.null(fit$sketch) &&
                           identical(fit$passes, single$passes))
}
run_default("sketch/none", "auto")
run_default("sketch/sign", "sign", dims = 8)
run_default("sketch/k-means||", "none", control = list(seeding = "k-means||"))
run_default("svd_rows", "rsvd", dims = 6, control = list(svd_rows = 700))
finish()
