# Speed of kmeans_reduced() and randomized_svd() against the tools users
# would pick instead (issue 4), side by side in one run, with ratios:
#   * the synthetic mixture of the issue (20000 x 2000, k = 10, noise sd 3)
#   * Fashion-MNIST, all 70000 images (Debian dataset-fashion-mnist), k = 10
# n_init = 1, iter_max = 100, k-means++ wherever the tool has it.
# Run: OMP_NUM_THREADS=t OPENBLAS_NUM_THREADS=t R_LIBS=.Rlib Rscript bench/speed.R t
# (thread counts of OpenBLAS and OpenMP are read when the libraries load).
# Peers: stats::kmeans, ClusterR::KMeans_rcpp, rsvd, irlba (R), scikit-learn
# (Debian python3-sklearn). Prints markdown.
source("bench/common.R")
threads <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 1L
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)  # for Python
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"

mixture <- function() {
  n <- 20000L; d <- 2000L; k <- 10L
  set.seed(1)
  centres <- matrix(rnorm(k * d), k, d)
  truth <- sample(k, n, TRUE)
  list(name = "mixture 20000 x 2000", k = k,
       x = centres[truth, ] + matrix(rnorm(n * d, sd = 3), n, d))
}

fashion_full <- function() load_fashion_full()

run_dataset <- function(ds, svd = TRUE) {
  x <- ds$x; k <- ds$k
  rows <- list()
  add <- function(name, t, obj) rows[[length(rows) + 1L]] <<- data.frame(run = name, seconds = t, value = obj)
  for (m in c("none", "sign", "sparse_embedding")) {
    r <- best_of(function() kmeans_reduced(x, k, method = m, dims = 100, n_init = 1, seed = 1,
                                           n_threads = threads))
    add(sprintf("kmreduce %s%s", m, if (m == "none") "" else ", dims 100"), r$t, r$out$tot.withinss)
  }
  r <- best_of(function() stats::kmeans(x, k, algorithm = "Lloyd", iter.max = 100), reps = 1)
  add("stats::kmeans Lloyd", r$t, r$out$tot.withinss)
  r <- best_of(function() suppressWarnings(stats::kmeans(x, k, iter.max = 100)), reps = 1)
  add("stats::kmeans Hartigan-Wong", r$t, r$out$tot.withinss)
  if (requireNamespace("ClusterR", quietly = TRUE)) {
    r <- best_of(function() ClusterR::KMeans_rcpp(x, k, num_init = 1, max_iters = 100,
                                                  initializer = "kmeans++", seed = 1))
    add("ClusterR::KMeans_rcpp kmeans++", r$t, kmeans_objective(x, r$out$clusters))
  }
  f <- tempfile(fileext = ".bin")
  writeBin(as.vector(x), f)
  py <- system2(python, c("bench/sklearn_speed.py", f, nrow(x), ncol(x), k, if (!svd) "nosvd"),
                stdout = TRUE)
  unlink(f)
  for (line in py) {
    p <- strsplit(line, " ")[[1]]
    add(sub("^sklearn_", "scikit-learn ", p[1]), as.numeric(p[2]), as.numeric(p[3]))
  }
  if (svd) {
    r <- best_of(function() randomized_svd(x, 10, seed = 1, n_threads = threads))
    add("kmreduce randomized_svd k 10", r$t, r$out$d[1])
    r <- best_of(function() rsvd::rsvd(x, k = 10))
    add("rsvd::rsvd k 10", r$t, r$out$d[1])
    r <- best_of(function() irlba::irlba(x, nv = 10))
    add("irlba::irlba nv 10", r$t, r$out$d[1])
  }
  do.call(rbind, rows)
}

ratio_lines <- function(tab) {
  s <- function(run) tab$seconds[tab$run == run]
  v <- function(run) tab$value[tab$run == run]
  out <- c(
    sprintf("- none vs scikit-learn lloyd: %.2fx faster (objective %.5fx); vs elkan %.2fx; vs stats::kmeans Lloyd %.1fx; vs ClusterR %.2fx",
            s("scikit-learn kmeans_lloyd") / s("kmreduce none"),
            v("kmreduce none") / v("scikit-learn kmeans_lloyd"),
            s("scikit-learn kmeans_elkan") / s("kmreduce none"),
            s("stats::kmeans Lloyd") / s("kmreduce none"),
            s("ClusterR::KMeans_rcpp kmeans++") / s("kmreduce none")),
    sprintf("- dims 100 pipeline vs scikit-learn SparseRandomProjection(100) + KMeans: sparse_embedding %.2fx, sign %.2fx",
            s("scikit-learn srp100_kmeans") / s("kmreduce sparse_embedding, dims 100"),
            s("scikit-learn srp100_kmeans") / s("kmreduce sign, dims 100")))
  if (any(tab$run == "rsvd::rsvd k 10")) {
    fastest <- min(s("rsvd::rsvd k 10"), s("irlba::irlba nv 10"), s("scikit-learn randomized_svd"))
    out <- c(out, sprintf("- randomized_svd vs the fastest of rsvd, irlba, scikit-learn: %.2fx (top singular value relative difference to irlba %.1e)",
                          fastest / s("kmreduce randomized_svd k 10"),
                          abs(v("kmreduce randomized_svd k 10") / v("irlba::irlba nv 10") - 1)))
  }
  out
}

cat(sprintf("## Speed against peers (`bench/speed.R`), %d thread(s)\n\n", threads))
cat(sprintf("%s; %s; OpenMP/OpenBLAS threads: %d; n_init = 1; best of 3 (stats::kmeans: 1 run).\n",
            format(Sys.Date()), machine_info(), threads))
cat("`value`: k-means objective on the original data (SVD rows: top singular value).\n\n")
for (ds in list(mixture(), fashion_full())) {
  tab <- run_dataset(ds)
  cat(sprintf("### %s, k = %d\n\n| run | seconds | value |\n|---|---|---|\n", ds$name, ds$k))
  cat(sprintf("| %s | %.3f | %.7g |\n", tab$run, tab$seconds, tab$value), sep = "")
  cat("\n", paste(ratio_lines(tab), collapse = "\n"), "\n\n", sep = "")
}
