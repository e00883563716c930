# A Lloyd iteration at large k against the FLOP floor of this machine.
# The floor: 2 n k d flops (the distances' cross products, the bulk of an
# iteration) at the double-precision rate of OpenBLAS's DGEMM for the same
# shape (n x d times d x k, numpy with Debian's OpenBLAS, best of 5), the
# fastest matrix product on the machine. kmreduce's iteration, three ways:
#   a fit from given centres with iter_max = 1 (one assignment of every
#         row, no bounds yet, plus the fixed costs of a fit: packing the
#         rows, the statistics on the data),
#   predict() (one assignment of every row, plus packing them),
#   one more iteration on the way to convergence: (time to convergence -
#         time with iter_max = 1) / (iterations - 1), Hamerly's bounds
#         skipping the rows that cannot move,
# each best of 5. Data: the 100000 x 64 mixture of bench/scale/bigk.R, k = 256,
# centres from one k-means++ seeding.
# Run: R_LIBS=.Rlib Rscript bench/scale/lloyd_floor.R [threads]
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args)) as.integer(args[1]) else 1L
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)
openblas <- "/usr/lib/x86_64-linux-gnu/openblas-pthread"
if (dir.exists(openblas)) Sys.setenv(LD_LIBRARY_PATH = openblas)
cat("#", machine_info(), "; threads:", threads, "\n\n")
n <- 1e5; d <- 64; k <- 256
set.seed(1)
centres <- matrix(rnorm(k * d, sd = 2), k, d)
x <- centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
flops <- 2 * n * k * d

py <- sprintf(paste(
  "import numpy as np, time",
  "rng = np.random.default_rng(1)",
  "a = rng.standard_normal((%d, %d)); b = rng.standard_normal((%d, %d))",
  "best = 1e9",
  "for _ in range(5):",
  "    t = time.perf_counter(); c = a @ b; best = min(best, time.perf_counter() - t)",
  "print(best)", sep = "\n"), n, d, d, k)
f <- tempfile(fileext = ".py")
writeLines(py, f)
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
gemm <- as.numeric(system2(python, f, stdout = TRUE))
unlink(f)

seedfit <- suppressWarnings(kmeans_reduced(x, k, method = "none", n_init = 1, seed = 1,
                                           iter_max = 1, n_threads = threads))
start <- seedfit$centers
one <- best_of(function() suppressWarnings(
  kmeans_reduced(x, start, method = "none", iter_max = 1, n_threads = threads)), 5L)
pred <- best_of(function() predict(seedfit, x), 5L)
conv <- best_of(function() kmeans_reduced(x, start, method = "none", iter_max = 300,
                                           n_threads = threads), 5L)
it <- conv$out$iter
per_iter <- (conv$t - one$t) / (it - 1)
res <- data.frame(
  what = c("OpenBLAS DGEMM n x d x k (the floor)",
           "kmreduce: fit from given centres, iter_max = 1 (one full iteration + fixed costs)",
           "kmreduce: predict() (one full assignment + packing the rows)",
           sprintf("kmreduce: one more iteration on the way to convergence (%d iterations, bounds)", it)),
  seconds = round(c(gemm, one$t, pred$t, per_iter), 4))
res$gflops <- round(flops / res$seconds / 1e9, 1)
res$over_floor <- round(res$seconds / gemm, 2)
print(knitr::kable(res))
