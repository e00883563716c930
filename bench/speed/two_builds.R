# Two builds of kmreduce side by side on dense rows: predict(), a fit from
# given centres (one Lloyd iteration), the default call with polish "none"
# (n_init 1) and the default call (n_init 3), on the 20000 x 2000 mixture of
# speed.R, k = 10. Each build runs in its own Rscript, the two alternating,
# best of `reps`; prints the times, the ratio A / B and whether the results
# are identical. For a change that should make dense kernels faster without
# moving results (e.g. a SIMD level that lacked a kernel).
# Run: Rscript bench/speed/two_builds.R LIB_A LIB_B [threads] [reps] [level]
# (level: KMREDUCE_SIMD for both children, e.g. avx2 or portable)
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/speed/two_builds.R LIB_A LIB_B [threads] [reps] [level]")
libs <- normalizePath(args[1:2])
threads <- if (length(args) >= 3L) as.integer(args[3]) else 1L
reps <- if (length(args) >= 4L) as.integer(args[4]) else 3L
level <- if (length(args) >= 5L) args[5] else ""

child <- '
suppressPackageStartupMessages(library(kmreduce))
a <- commandArgs(TRUE); out <- a[1]; threads <- as.integer(a[2])
n <- 20000L; d <- 2000L; k <- 10L
set.seed(1)
centres <- matrix(rnorm(k * d), k, d)
x <- centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d, sd = 3), n, d)
tm <- function(f) { t <- system.time(r <- suppressWarnings(f()))[["elapsed"]]; list(t = t, r = r) }
strip <- function(f) { f$call <- NULL; f$timing <- NULL; f }
fit1 <- kmeans_reduced(x, k, method = "none", n_init = 1, seed = 1, n_threads = threads, control = list(polish = "none"))
res <- list(
  predict = tm(function() predict(fit1, x)),
  given_centres = tm(function() strip(kmeans_reduced(x, centres, method = "none", iter_max = 1, n_threads = threads))),
  polish_none_1 = tm(function() strip(kmeans_reduced(x, k, method = "none", n_init = 1, seed = 1, n_threads = threads, control = list(polish = "none")))),
  default_3 = tm(function() strip(kmeans_reduced(x, k, method = "none", n_init = 3, seed = 1, n_threads = threads))))
res$level <- kmreduce:::simd_level_cpp()
saveRDS(res, out)
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
run <- function(lib) {
  out <- tempfile(fileext = ".rds")
  env <- c(paste0("R_LIBS=", lib), paste0("OMP_NUM_THREADS=", threads),
           paste0("OPENBLAS_NUM_THREADS=", threads),
           if (nzchar(level)) paste0("KMREDUCE_SIMD=", level))
  log <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script, out, threads),
                 env = env, stdout = TRUE, stderr = TRUE)
  if (!file.exists(out)) stop(paste(c("the child failed:", log), collapse = "\n"))
  readRDS(out)
}
runs <- list(list(), list())
for (r in seq_len(reps)) for (b in 1:2) runs[[b]][[r]] <- run(libs[b])
cases <- c("predict", "given_centres", "polish_none_1", "default_3")
cat(sprintf("machine: %s\n", sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1])))
cat(sprintf("SIMD level: A %s, B %s; %d thread(s); best of %d\n", runs[[1]][[1]]$level,
            runs[[2]][[1]]$level, threads, reps))
cat("| case | A s | B s | A / B | same result |\n|---|---|---|---|---|\n")
for (cs in cases) {
  ta <- min(vapply(runs[[1]], function(z) z[[cs]]$t, 0))
  tb <- min(vapply(runs[[2]], function(z) z[[cs]]$t, 0))
  same <- identical(runs[[1]][[1]][[cs]]$r, runs[[2]][[1]][[cs]]$r)
  cat(sprintf("| %s | %.3f | %.3f | %.2f | %s |\n", cs, ta, tb, ta / tb, if (same) "identical" else "DIFFERENT"))
}
