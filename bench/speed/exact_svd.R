# The exact SVD (method = "svd", control$svd = "exact"; svd.hpp) by both of
# its ways: block Lanczos for few vectors, LAPACK's divide and conquer
# (dgesdd) otherwise.
#   * the issue's case: kmeans_reduced(x, 6, method = "svd", dims = 6) on
#     3674 x 5761 word counts (3674 documents of 20 Newsgroups drawn with
#     seed 7, the 5761 words in most of them; CRAN lda 1.4.2) and on
#     synthetic counts of the same shape (Zipf word frequencies, 0.9 %
#     nonzeros, Poisson counts: a flatter spectrum, harder for Lanczos);
#   * the SVD step alone on the word counts for dims 6, 20, 50, and on all
#     18774 documents (the 5000 words in most of them), dims 10 and 20;
#   * with `direct` as the second argument, LAPACK's SVD of random square
#     matrices (dims = half their side: past Lanczos) of side 1000, 2000
#     and 3000: what ?reduction_methods calls practical.
# Prints markdown; asserts nothing.
# Run: R_LIBS=.Rlib Rscript bench/speed/exact_svd.R [threads] [direct]
# (lda 1.4.2: bench/peers/install-peers.sh)
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 1L
direct <- length(args) >= 2L && args[2] == "direct"
if (!requireNamespace("lda", quietly = TRUE)) stop("bench/speed/exact_svd.R needs CRAN lda 1.4.2 (bench/peers/install-peers.sh)")

tm <- function(expr) system.time(expr)[["elapsed"]]
lanczos <- function(x, k) {
  mu <- if (methods::is(x, "sparseMatrix")) Matrix::colMeans(x) else colMeans(x)
  kmreduce:::block_lanczos_cpp(x, k, mu, NULL, threads)$converged
}
svd_step <- function(x, k) {
  mu <- if (methods::is(x, "sparseMatrix")) Matrix::colMeans(x) else colMeans(x)
  tm(kmreduce:::top_svd_cpp(x, k, mu, NULL, threads))
}
# (columns in their original order)
most_frequent <- function(x, words) x[, sort(order(Matrix::colSums(x != 0), decreasing = TRUE)[seq_len(words)])]

ng <- load_newsgroups()$x
train <- withr::with_seed(7, sort(sample.int(11269, 3674)))  # (the training documents come first)
news <- most_frequent(ng[train, ], 5761)
synthetic <- withr::with_seed(1, {
  n <- 3674; d <- 5761
  w <- 1 / seq_len(d)^0.9
  nnz <- pmax(1, pmin(n, round(w / sum(w) * 0.01 * n * d)))
  Matrix::sparseMatrix(i = unlist(lapply(nnz, function(m) sample.int(n, m))), j = rep(seq_len(d), nnz),
                       x = as.numeric(1 + rpois(sum(nnz), 0.7)), dims = c(n, d))
})

load <- tryCatch(scan("/proc/loadavg", quiet = TRUE, n = 1), error = function(e) NA)
cat("# The exact SVD\n\n", machine_info(), "; ", threads, " thread(s); load average before: ", load,
    "\n\n", sep = "")
cat("| data | call | Lanczos converged | seconds |\n|---|---|---|---|\n")
for (nm in c("news", "synthetic")) {
  x <- get(nm)
  label <- sprintf("%s %d x %d (%.1f %% nonzero)", if (nm == "news") "20 Newsgroups" else "synthetic counts",
                   nrow(x), ncol(x), 100 * Matrix::nnzero(x) / prod(dim(x)))
  t <- tm(kmeans_reduced(x, 6, method = "svd", dims = 6, seed = 1, n_threads = threads))
  cat(sprintf("| %s | `kmeans_reduced(x, 6, method = \"svd\", dims = 6)` | %s | %.2f |\n", label,
              lanczos(x, 6), t))
}
for (k in c(6, 20, 50)) {
  cat(sprintf("| 20 Newsgroups 3674 x 5761 | SVD step, dims %d | %s | %.2f |\n", k, lanczos(news, k),
              svd_step(news, k)))
}
all_docs <- most_frequent(ng, 5000)
for (k in c(10, 20)) {
  cat(sprintf("| 20 Newsgroups %d x %d | SVD step, dims %d | %s | %.2f |\n", nrow(all_docs),
              ncol(all_docs), k, lanczos(all_docs, k), svd_step(all_docs, k)))
}
if (direct) {
  for (side in c(1000, 2000, 3000)) {
    x <- withr::with_seed(1, matrix(rnorm(side * side), side))
    cat(sprintf("| random %d x %d | SVD step, dims %d (LAPACK) | - | %.1f |\n", side, side, side / 2,
                svd_step(x, side / 2)))
  }
}
