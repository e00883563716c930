# Mini-batch k-means (algorithm = "minibatch") against the default pipeline
# (reduce, then replicates of Lloyd and the polish) and against
# scikit-learn's MiniBatchKMeans and KMeans, side by side in one run, best of
# `reps` runs each; the objective of every partition is taken on the
# ORIGINAL data (kmeans_objective()), so the ratios compare like with like.
# Two data sets: a dense Gaussian mixture (n x d, k clusters of unequal
# size) and a sparse one (nonnegative counts, about 1 % non-zero, a block
# of raised columns per cluster). scikit-learn runs when a python3 with
# sklearn is found (as bench/speed/weights.R looks for it), on the same
# rows written to a temporary file. Asserts nothing.
# Run: R_LIBS=.Rlib Rscript bench/speed/minibatch.R [threads reps n d k n_sparse d_sparse]
#   defaults 2 3 200000 500 30 100000 5000
options(width = 250)
suppressPackageStartupMessages({
  library(kmreduce)
  library(Matrix)
})
args <- as.numeric(commandArgs(TRUE))
arg <- function(i, default) if (length(args) >= i && !is.na(args[i])) args[i] else default
threads <- as.integer(arg(1, 2)); reps <- as.integer(arg(2, 3))
n <- as.integer(arg(3, 200000)); d <- as.integer(arg(4, 500)); k <- as.integer(arg(5, 30))
ns <- as.integer(arg(6, 100000)); ds <- as.integer(arg(7, 5000))

# -- data ----------------------------------------------------------------
set.seed(20261126)
sizes <- sort(rep_len(c(1, 2, 3), k)) / sum(rep_len(c(1, 2, 3), k))
truth <- sample(k, n, TRUE, prob = sizes)
centres <- matrix(rnorm(k * d, sd = 0.25), k, d)
x <- centres[truth, ] + matrix(rnorm(as.numeric(n) * d), n, d)

truth_s <- sample(k, ns, TRUE, prob = sizes)
block <- ds %/% (2 * k)
nnz_row <- max(5L, as.integer(0.01 * ds))
rows <- rep(seq_len(ns), each = nnz_row)
# three quarters of each row's entries in its cluster's block of columns, the rest anywhere
own <- (truth_s[rows] - 1L) * block + sample(block, length(rows), TRUE)
any_col <- sample(ds, length(rows), TRUE)
cols <- ifelse(seq_along(rows) %% 4 != 0, own, any_col)
xs <- sparseMatrix(i = rows, j = cols, x = rpois(length(rows), 3) + 1, dims = c(ns, ds))
xs <- as(xs, "CsparseMatrix")

timed <- function(f) {
  best <- Inf
  out <- NULL
  for (r in seq_len(reps)) {
    t0 <- proc.time()[["elapsed"]]
    out <- f()
    best <- min(best, proc.time()[["elapsed"]] - t0)
  }
  list(time = best, value = out)
}

ours <- function(data, label) {
  cases <- list(
    default = function() kmeans_reduced(data, k, seed = 1, n_threads = threads),
    `minibatch, sparse_embedding` = function()
      kmeans_reduced(data, k, method = "sparse_embedding", algorithm = "minibatch", n_init = 3,
                     seed = 1, n_threads = threads),
    `minibatch, none` = function()
      kmeans_reduced(data, k, method = "none", algorithm = "minibatch", n_init = 3, seed = 1,
                     n_threads = threads))
  do.call(rbind, lapply(names(cases), function(nm) {
    r <- timed(cases[[nm]])
    f <- r$value
    data.frame(data = label, fit = paste("kmeans_reduced", nm), seconds = r$time,
               objective = kmeans_objective(data, f$cluster),
               ari = adjusted_rand_index(f$cluster, if (label == "dense") truth else truth_s),
               detail = sprintf("%s %s, iter %d", f$method, f$dims, f$iter))
  }))
}

res <- rbind(ours(x, "dense"), ours(xs, "sparse"))

# -- scikit-learn ----------------------------------------------------------
py <- Filter(function(p) nzchar(p) && file.exists(p) &&
               system2(p, c("-c", shQuote("import sklearn")), stdout = FALSE,
                       stderr = FALSE) == 0,
             unique(c(Sys.which("python3"), "/usr/bin/python3")))
if (length(py) > 0L) {
  dir <- tempfile("skmb")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  con <- file(file.path(dir, "x.bin"), "wb")
  writeBin(as.vector(t(x)), con)
  close(con)
  tx <- t(xs)  # CSC of t(xs): the CSR arrays of xs
  writeBin(as.integer(tx@p), file.path(dir, "indptr.bin"), size = 4)
  writeBin(as.integer(tx@i), file.path(dir, "indices.bin"), size = 4)
  writeBin(as.double(tx@x), file.path(dir, "data.bin"))
  code <- c(
    "import sys, time, numpy as np, scipy.sparse as sp, warnings",
    "warnings.simplefilter('ignore')",
    "from sklearn.cluster import KMeans, MiniBatchKMeans",
    "dir, n, d, k, ns, ds, reps = sys.argv[1], *map(int, sys.argv[2:8])",
    "x = np.fromfile(dir + '/x.bin').reshape(n, d)",
    "xs = sp.csr_matrix((np.fromfile(dir + '/data.bin'), np.fromfile(dir + '/indices.bin', dtype=np.int32),",
    "                    np.fromfile(dir + '/indptr.bin', dtype=np.int32)), shape=(ns, ds))",
    "fits = {'MiniBatchKMeans(batch_size=1024, n_init=3)': lambda: MiniBatchKMeans(n_clusters=k, batch_size=1024, n_init=3, random_state=1),",
    "        'KMeans(n_init=3)': lambda: KMeans(n_clusters=k, n_init=3, random_state=1)}",
    "for label, data in (('dense', x), ('sparse', xs)):",
    "    for name, make in fits.items():",
    "        best = None",
    "        for r in range(reps):",
    "            t = time.time(); km = make().fit(data); t = time.time() - t",
    "            best = t if best is None else min(best, t)",
    "        np.asarray(km.labels_, dtype=np.int32).tofile('%s/%s-%s.lab' % (dir, label, name[:5]))",
    "        print('%s\\t%s\\t%.4f\\t%d' % (label, name, best, km.n_iter_))")
  writeLines(code, file.path(dir, "fit.py"))
  out <- system2(py[1], c(file.path(dir, "fit.py"), dir, n, d, k, ns, ds, reps), stdout = TRUE,
                 env = c(paste0("OMP_NUM_THREADS=", threads),
                         paste0("OPENBLAS_NUM_THREADS=", threads)))
  for (line in out) {
    f <- strsplit(line, "\t")[[1]]
    if (length(f) != 4L) next
    data <- if (f[1] == "dense") x else xs
    lab <- readBin(file.path(dir, sprintf("%s-%s.lab", f[1], substr(f[2], 1, 5))), "integer",
                   n = nrow(data)) + 1L
    res <- rbind(res, data.frame(
      data = f[1], fit = paste("scikit-learn", f[2]), seconds = as.numeric(f[3]),
      objective = kmeans_objective(data, lab),
      ari = adjusted_rand_index(lab, if (f[1] == "dense") truth else truth_s),
      detail = sprintf("n_iter_ %s", f[4])))
  }
}

# -- report ----------------------------------------------------------------
for (label in unique(res$data)) {
  r <- res[res$data == label, ]
  base <- r[r$fit == "kmeans_reduced default", ]
  r$time_ratio <- r$seconds / base$seconds
  r$objective_ratio <- r$objective / base$objective
  res[res$data == label, "time_ratio"] <- r$time_ratio
  res[res$data == label, "objective_ratio"] <- r$objective_ratio
}
cat(sprintf(paste0("# bench/speed/minibatch.R: dense %d x %d, sparse %d x %d (%.2f %% non-zero), ",
                   "k = %d, %d threads, best of %d; ratios against kmeans_reduced's default\n\n"),
            n, d, ns, ds, 100 * length(xs@x) / (as.numeric(ns) * ds), k, threads, reps))
res$seconds <- round(res$seconds, 2)
res$objective <- signif(res$objective, 7)
res$ari <- round(res$ari, 3)
res$time_ratio <- round(res$time_ratio, 3)
res$objective_ratio <- round(res$objective_ratio, 4)
print(res, row.names = FALSE)
cat("\nR:", R.version.string, "| BLAS:", extSoftVersion()[["BLAS"]],
    if (length(py)) paste("| python:", py[1]) else "| scikit-learn: not found", "\n")
