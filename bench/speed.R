# Speed of kmeans_reduced() and randomized_svd() against the tools users
# would pick instead (issue 4), side by side in one run on the synthetic
# mixture of the issue (20000 x 2000, k = 10, noise sd 3), n_init = 1,
# iter_max = 100, k-means++ where the tool has it.
# Run: R_LIBS=.Rlib OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 Rscript bench/speed.R 1
# (needs python3-sklearn,
# irlba, rsvd; prints a markdown table).
source("bench/common.R")
threads <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 1L
# Thread counts of OpenBLAS and OpenMP are read when the libraries load: run as
#   OMP_NUM_THREADS=t OPENBLAS_NUM_THREADS=t Rscript bench/speed.R t
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)  # for Python
n <- 20000L; d <- 2000L; k <- 10L
set.seed(1)
centres <- matrix(rnorm(k * d), k, d)
truth <- sample(k, n, TRUE)
x <- centres[truth, ] + matrix(rnorm(n * d, sd = 3), n, d)
best_of <- function(f, reps = 3) {
  t <- Inf
  for (r in seq_len(reps)) {
    s <- system.time(out <- f())[["elapsed"]]
    t <- min(t, s)
  }
  list(t = t, out = out)
}
rows <- list()
add <- function(name, t, obj) rows[[length(rows) + 1L]] <<- data.frame(run = name, seconds = t, objective = obj)
for (m in c("none", "sign", "sparse_embedding")) {
  r <- best_of(function() kmeans_reduced(x, k, method = m, dims = 100, n_init = 1, seed = 1, n_threads = threads))
  add(sprintf("kmeans_reduced(%s%s)", m, if (m == "none") "" else ", dims = 100"), r$t, r$out$tot.withinss)
}
r <- best_of(function() stats::kmeans(x, k, algorithm = "Lloyd", iter.max = 100), reps = 1)
add("stats::kmeans(Lloyd)", r$t, r$out$tot.withinss)
f <- tempfile(fileext = ".bin")
writeBin(as.vector(x), f)
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"  # Debian python3-sklearn
py <- system2(python, c("bench/sklearn_speed.py", f, n, d, k), stdout = TRUE)
for (line in py) {
  p <- strsplit(line, " ")[[1]]
  add(p[1], as.numeric(p[2]), as.numeric(p[3]))
}
unlink(f)
r <- best_of(function() randomized_svd(x, 10, seed = 1, n_threads = threads))
add("kmreduce::randomized_svd(k = 10)", r$t, r$out$d[1])
if (requireNamespace("rsvd", quietly = TRUE)) {
  r <- best_of(function() rsvd::rsvd(x, k = 10))
  add("rsvd::rsvd(k = 10)", r$t, r$out$d[1])
}
if (requireNamespace("irlba", quietly = TRUE)) {
  r <- best_of(function() irlba::irlba(x, nv = 10))
  add("irlba::irlba(nv = 10)", r$t, r$out$d[1])
}
tab <- do.call(rbind, rows)
cat(sprintf("## Speed against peers (`bench/speed.R`, issue 4), %d thread(s)\n\n", threads))
cat(sprintf("%s; %s; 20000 x 2000 Gaussian mixture, k = 10, noise sd 3; n_init = 1; best of 3 (stats::kmeans: 1 run).\n",
            format(Sys.Date()), machine_info()))
cat("`objective`: k-means objective on the original data (for the SVD rows: the top singular value).\n\n")
cat("| run | seconds | objective |\n|---|---|---|\n")
cat(sprintf("| %s | %.3f | %.6g |\n", tab$run, tab$seconds, tab$objective), sep = "")
