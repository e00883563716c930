# The MPI target of the row-source redesign: kmeans_reduced() on one MPI
# rank (mpi_rows() under `mpirun -np 1`) against the same call on the
# in-memory matrix, side by side in one process: a 100000 x 200 Gaussian
# mixture (k = 10 centres N(0, 1), noise sd 3, seed 1), method = "sign",
# k = 10, seed = 1, one thread, the other arguments at their defaults
# (n_init = 10, dims = NULL, control = list()). The two calls alternate
# (which goes first too), `reps` rounds; the best elapsed time and the best
# CPU time (user + system of the process) of each are kept, with their
# ratios (target: MPI / in memory <= 1.05), the phases of the best run of
# each (fit$timing) and whether the labels and objectives are identical.
# Run (from the repository root; pbdMPI: bash tools/install-pbdmpi.sh .Rlib):
#   R_LIBS=.Rlib OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
#     mpirun -np 1 Rscript bench/mpi/target.R [reps=5] [n=100000] [d=200]
#   (as root add --allow-run-as-root; bench/mpi/target.sh does both)
suppressPackageStartupMessages({
  library(pbdMPI)
  library(kmreduce)
})
source("bench/common.R")
init()
args <- commandArgs(TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1]) else 5L
n <- if (length(args) >= 2L) as.integer(args[2]) else 100000L
d <- if (length(args) >= 3L) as.integer(args[3]) else 200L
k <- 10L
if (comm.size() != 1L) stop("run with mpirun -np 1")
set.seed(1)
centres <- matrix(rnorm(k * d), k, d)
x <- centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d, sd = 3), n, d)
rm(centres)

blas_threads <- Sys.getenv(c("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"))
cat(sprintf("# bench/mpi/target.R: %d x %d mixture, k = %d, method = \"sign\", seed = 1, n_threads = 1, best of %d\n",
            n, d, k, reps))
cat("#", machine_info(), "\n")
cat(sprintf("# kmreduce %s; pbdMPI %s; %s; OMP_NUM_THREADS=%s OPENBLAS_NUM_THREADS=%s; load average %s\n\n",
            utils::packageVersion("kmreduce"), utils::packageVersion("pbdMPI"),
            trimws(system("mpirun --version 2>/dev/null | head -1", intern = TRUE)[1]),
            blas_threads[1], blas_threads[2],
            paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")))

fits <- list(
  in_memory = function() kmeans_reduced(x, k, method = "sign", seed = 1, n_threads = 1L),
  mpi_np1 = function() kmeans_reduced(mpi_rows(x), k, method = "sign", seed = 1, n_threads = 1L)
)
timed <- function(f) {
  gc(FALSE)
  t0 <- proc.time()
  fit <- f()
  t <- proc.time() - t0
  list(elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]], fit = fit)
}
invisible(fits$mpi_np1())  # warm-up (first calls load code)
best <- list()
for (r in seq_len(reps)) {
  for (nm in if (r %% 2L) names(fits) else rev(names(fits))) {
    res <- timed(fits[[nm]])
    cat(sprintf("round %d %-9s %6.2f s elapsed, %6.2f s CPU\n", r, nm, res$elapsed, res$cpu))
    if (is.null(best[[nm]]) || res$elapsed < best[[nm]]$elapsed) {
      cpu <- min(res$cpu, best[[nm]]$cpu_best)
      best[[nm]] <- res
      best[[nm]]$cpu_best <- cpu
    } else {
      best[[nm]]$cpu_best <- min(best[[nm]]$cpu_best, res$cpu)
    }
  }
}
cat("\n| | best elapsed (s) | best CPU (s) | phases of the best run (reduce / cluster / total, s) | iter | objective |\n")
cat("|---|---|---|---|---|---|\n")
for (nm in names(best)) {
  b <- best[[nm]]
  cat(sprintf("| %s | %.2f | %.2f | %s | %d | %.8g |\n", nm, b$elapsed, b$cpu_best,
              paste(sprintf("%.2f", b$fit$timing[c("reduce", "cluster", "total")]), collapse = " / "),
              b$fit$iter, b$fit$tot.withinss))
}
m <- best$mpi_np1; i <- best$in_memory
cat(sprintf("\nMPI -np 1 / in memory: %.2f (elapsed), %.2f (CPU); target <= 1.05\n",
            m$elapsed / i$elapsed, m$cpu_best / i$cpu_best))
cat(sprintf("same labels: %s; same objective: %s\n",
            identical(unname(m$fit$cluster), unname(i$fit$cluster)),
            identical(m$fit$tot.withinss, i$fit$tot.withinss)))
finalize()
