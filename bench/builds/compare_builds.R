# Two builds of kmreduce side by side in one run: the cases of bench/speed/n_init.R
# (20000 x 2000 mixture, k = 10, n_init = 1: none, sign and sparse_embedding
# with dims 100, randomized_svd k = 10) at 1 and 2 threads, quiet machine.
# Each timing runs in a fresh Rscript with one build's library first on the
# path; the builds alternate (and which goes first), rounds times; the best
# time of each is kept.
# Run: Rscript bench/builds/compare_builds.R LIB_A LIB_B [rounds] [cpu]
#   e.g. a library with the previous commit installed, and .Rlib; with a
#   4th argument "cpu", the CPU seconds (user + system) of the process are
#   compared instead of elapsed time (steadier on a busy machine; at 1
#   thread they measure the same work)
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/builds/compare_builds.R LIB_A LIB_B [rounds] [cpu]")
libs <- normalizePath(args[1:2])
rounds <- if (length(args) >= 3L) as.integer(args[3]) else 5L
cpu <- length(args) >= 4L && identical(args[4], "cpu")

child <- '
suppressPackageStartupMessages(library(kmreduce))
a <- commandArgs(TRUE); threads <- as.integer(a[1]); cpu <- identical(a[2], "cpu")
set.seed(1)
n <- 20000L; d <- 2000L; k <- 10L
centres <- matrix(rnorm(k * d), k, d)
x <- centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d, sd = 3), n, d)
seconds <- function(t) if (cpu) t[["user.self"]] + t[["sys.self"]] else t[["elapsed"]]
best <- function(f) { f(); min(replicate(3, seconds(system.time(f())))) }
out <- c(
  none = best(function() kmeans_reduced(x, k, method = "none", n_init = 1, seed = 1, n_threads = threads)),
  sign = best(function() kmeans_reduced(x, k, method = "sign", dims = 100, n_init = 1, seed = 1, n_threads = threads)),
  sparse_embedding = best(function() kmeans_reduced(x, k, method = "sparse_embedding", dims = 100, n_init = 1, seed = 1, n_threads = threads)),
  randomized_svd = best(function() randomized_svd(x, 10, seed = 1, n_threads = threads)))
cat(paste(names(out), out, sep = "=", collapse = " "), "\n")
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
run <- function(lib, threads) {
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("--vanilla", script, threads, if (cpu) "cpu" else "elapsed"),
                 env = c(paste0("R_LIBS=", lib), paste0("OMP_NUM_THREADS=", threads)),
                 stdout = TRUE)
  kv <- strsplit(strsplit(trimws(tail(out, 1)), " ")[[1]], "=")
  setNames(as.numeric(vapply(kv, `[`, "", 2)), vapply(kv, `[`, "", 1))
}
res <- list()
for (threads in 1:2) {
  best <- list(NULL, NULL)
  for (r in seq_len(rounds)) {
    for (i in if (r %% 2L == 1L) 1:2 else 2:1) {  # alternate which build goes first
      t <- run(libs[i], threads)
      best[[i]] <- if (is.null(best[[i]])) t else pmin(best[[i]], t)
    }
  }
  res[[threads]] <- best
}
cat(sprintf("# bench/builds/compare_builds.R: A = %s, B = %s; best of %d rounds x 3 runs (%s seconds)\n\n",
            libs[1], libs[2], rounds, if (cpu) "CPU" else "elapsed"))
cat("| case | threads | A (s) | B (s) | B / A |\n|---|---|---|---|---|\n")
for (threads in 1:2) {
  a <- res[[threads]][[1]]; b <- res[[threads]][[2]]
  for (nm in names(a)) cat(sprintf("| %s | %d | %.4f | %.4f | %.2f |\n", nm, threads, a[nm], b[nm], b[nm] / a[nm]))
}
cat("\nSpeed-up of 2 threads over 1 (t1 / t2):\n\n| case | A | B |\n|---|---|---|\n")
for (nm in names(res[[1]][[1]])) {
  cat(sprintf("| %s | %.2f | %.2f |\n", nm, res[[1]][[1]][nm] / res[[2]][[1]][nm],
              res[[1]][[2]][nm] / res[[2]][[2]][nm]))
}
