# One configuration of the mailman benchmark, in its own process (so that its
# peak memory can be read): Rscript bench/speed/mailman_one.R n d dims what threads
# what: "mailman" (sign_project, algorithm = "mailman") or "dgemm" (x %*% S
# with S = sign_matrix(), the BLAS in use). Prints: seconds peak_GB maxdiff.
suppressPackageStartupMessages(library(kmreduce))
a <- commandArgs(trailingOnly = TRUE)
n <- as.integer(a[1]); d <- as.integer(a[2]); dims <- as.integer(a[3])
what <- a[4]; threads <- as.integer(a[5])
set.seed(1)
x <- matrix(rnorm(n * d), n, d)
peak <- function() as.numeric(gsub("[^0-9]", "", grep("VmHWM", readLines("/proc/self/status"), value = TRUE))) / 2^20
if (what == "mailman") {
  sign_project(x[1:8, ], dims, seed = 1, algorithm = "mailman", n_threads = threads)  # warm-up
  t <- Inf
  for (r in 1:3) t <- min(t, system.time(p <- sign_project(x, dims, seed = 1, algorithm = "mailman",
                                                          n_threads = threads))[["elapsed"]])
  ref <- x[1:50, ] %*% sign_matrix(d, dims, seed = 1)
  diff <- max(abs(p[1:50, ] - ref)) / max(abs(ref))
} else {
  s <- sign_matrix(d, dims, seed = 1)
  t <- Inf
  for (r in 1:3) t <- min(t, system.time(p <- x %*% s)[["elapsed"]])
  diff <- 0
}
cat(sprintf("%.4f %.3f %.2e\n", t, peak(), diff))
