# What observation weights cost, side by side in one run: the same fits
# without weights, with weights (all 1.5: the weighted path, the same
# problem), with whole weights 1..4 against the rows repeated that many
# times, and scikit-learn's KMeans(sample_weight = ) on the same weighted
# data when a python3 with scikit-learn is found. Best of `reps` runs,
# objective of each. Asserts nothing.
# Run: Rscript bench/speed/weights.R [n] [reps] [threads]
suppressPackageStartupMessages(library(kmreduce))
args <- commandArgs(TRUE)
n <- if (length(args) >= 1L) as.integer(args[1]) else 500000L
reps <- if (length(args) >= 2L) as.integer(args[2]) else 3L
threads <- if (length(args) >= 3L) as.integer(args[3]) else 2L
d <- 16L
k <- 16L
set.seed(1)
centres <- matrix(rnorm(k * d, sd = 3), k, d)
x <- centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
counts <- sample(1:4, n, TRUE)
xr <- x[rep(seq_len(n), counts), ]
best <- function(f) {
  r <- f()
  t <- Inf
  for (i in seq_len(reps)) t <- min(t, system.time(r <- f())[["elapsed"]])
  list(time = t, objective = r$tot.withinss)
}
cases <- list(
  list(label = "none, n_init = 1", args = list(method = "none", n_init = 1)),
  list(label = "none, n_init = 10 (polish)", args = list(method = "none", n_init = 10)),
  list(label = "none, k-means||, n_init = 1",
       args = list(method = "none", n_init = 1, control = list(seeding = "k-means||"))),
  list(label = "sign, dims 8, n_init = 3", args = list(method = "sign", dims = 8, n_init = 3)),
  list(label = "rsvd, dims 8, n_init = 3", args = list(method = "rsvd", dims = 8, n_init = 3)))
rows <- list()
for (cs in cases) {
  fit <- function(data, w = NULL) {
    do.call(kmeans_reduced, c(list(data, k, seed = 1, n_threads = threads, weights = w), cs$args))
  }
  plain <- best(function() fit(x))
  ones <- best(function() fit(x, rep(1.5, n)))
  whole <- best(function() fit(x, counts))
  rep_rows <- best(function() fit(xr))
  rows[[length(rows) + 1L]] <- data.frame(
    case = cs$label, unweighted = plain$time, weights_1.5 = ones$time,
    ratio = ones$time / plain$time, counts = whole$time, repeated = rep_rows$time,
    counts_vs_repeated = whole$time / rep_rows$time,
    objective_counts = whole$objective, objective_repeated = rep_rows$objective)
}
res <- do.call(rbind, rows)
cat(sprintf("# bench/speed/weights.R: n = %d (repeated: %d rows), d = %d, k = %d, %d threads, best of %d\n\n",
            n, nrow(xr), d, k, threads, reps))
print(format(res, digits = 4), row.names = FALSE)

# scikit-learn with sample_weight (whole weights 1..4), n_init = 10
py <- Filter(function(p) nzchar(p) && file.exists(p) &&
               system2(p, c("-c", shQuote("import sklearn")), stdout = FALSE,
                       stderr = FALSE) == 0,
             unique(c(Sys.which("python3"), "/usr/bin/python3")))
if (length(py) > 0L) {
  dir <- tempfile("skw")
  dir.create(dir)
  con <- file(file.path(dir, "x.bin"), "wb")
  writeBin(as.vector(t(cbind(counts, x))), con)
  close(con)
  code <- c(
    "import sys, time, numpy as np",
    "from sklearn.cluster import KMeans",
    "n, d, k, threads = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]",
    "a = np.fromfile(sys.argv[1] + '/x.bin').reshape(n, d + 1)",
    "w, x = a[:, 0], np.ascontiguousarray(a[:, 1:])",
    "best = None",
    "for s in range(3):",
    "    t = time.time(); km = KMeans(n_clusters=k, n_init=10, random_state=s).fit(x, sample_weight=w)",
    "    t = time.time() - t; best = t if best is None else min(best, t)",
    "    print('sklearn seed %d: inertia %.10g' % (s, km.inertia_))",
    "print('sklearn best time %.3f s' % best)")
  writeLines(code, file.path(dir, "fit.py"))
  out <- system2(py[1], c(file.path(dir, "fit.py"), dir, n, d, k, threads), stdout = TRUE,
                 env = paste0("OMP_NUM_THREADS=", threads))
  ours <- vapply(0:2, function(s) {
    kmeans_reduced(x, k, method = "none", weights = counts, seed = s + 1,
                   n_threads = threads)$tot.withinss
  }, 0)
  t_ours <- best(function() kmeans_reduced(x, k, method = "none", weights = counts, seed = 1,
                                            n_threads = threads))$time
  cat("\nscikit-learn KMeans(n_init = 10, sample_weight = counts) and kmeans_reduced(method = \"none\", weights = counts):\n")
  cat(out, sep = "\n")
  cat(sprintf("kmreduce seeds 1-3: objective %s; best time %.3f s\n",
              paste(sprintf("%.10g", ours), collapse = ", "), t_ours))
}
