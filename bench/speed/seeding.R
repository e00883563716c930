# Seeding by n and k: the default call kmeans_reduced(x, k, method =
# "none", n_init) with greedy k-means++ (control$seeding "k-means++") and
# with k-means|| against scikit-learn KMeans(init = "k-means++", n_init,
# algorithm = "lloyd"), side by side in one run: best time of [reps] runs,
# objective and ratios. Gaussian mixtures (centres N(0, 2^2) per
# coordinate, unit noise), seed 1.
#
#   OMP_NUM_THREADS=t OPENBLAS_NUM_THREADS=t R_LIBS=.Rlib Rscript bench/speed/seeding.R [t] [reps] [n_init]
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 1L
reps <- if (length(args) >= 2L) as.integer(args[2]) else 3L
n_init <- if (length(args) >= 3L) as.integer(args[3]) else 3L
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)
openblas <- "/usr/lib/x86_64-linux-gnu/openblas-pthread"
if (dir.exists(openblas)) Sys.setenv(LD_LIBRARY_PATH = openblas)
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
cat(machine_info(), sprintf("; %d thread(s); n_init %d; best of %d\n\n", threads, n_init, reps))

mixture <- function(n, d, k) {
  withr::with_seed(1, {
    centres <- matrix(rnorm(k * d, sd = 2), k, d)
    centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
  })
}
cases <- list(c(n = 1e5, d = 64, k = 256), c(n = 1e5, d = 16, k = 20),
              c(n = 2e4, d = 64, k = 64), c(n = 1e4, d = 32, k = 8))
rows <- list()
for (cs in cases) {
  x <- mixture(cs[["n"]], cs[["d"]], cs[["k"]])
  k <- cs[["k"]]
  fit <- function(seeding) {
    best_of(function() kmeans_reduced(x, k, method = "none", n_init = n_init, seed = 1,
                                      n_threads = threads, control = list(seeding = seeding)),
            reps)
  }
  pp <- fit("k-means++")
  par <- fit("k-means||")
  f <- tempfile(fileext = ".bin")
  con <- file(f, "wb")
  writeBin(c(as.double(nrow(x)), as.double(ncol(x))), con, endian = "little")
  writeBin(as.vector(x), con, endian = "little")
  close(con)
  sk <- as.numeric(strsplit(system2(python, c("bench/peers/sklearn_seeding.py", f, k, n_init, reps),
                                    stdout = TRUE), " ")[[1]])
  unlink(f)
  rows[[length(rows) + 1L]] <- data.frame(
    n = cs[["n"]], d = cs[["d"]], k = k, nk = cs[["n"]] * k,
    t_kmpp = pp$t, t_kmpar = par$t, t_sklearn = sk[1],
    obj_par_vs_pp = par$out$tot.withinss / pp$out$tot.withinss,
    speed_par_vs_pp = pp$t / par$t,
    sklearn_vs_pp = sk[1] / pp$t, sklearn_vs_par = sk[1] / par$t,
    obj_pp_vs_sklearn = pp$out$tot.withinss / sk[2],
    obj_par_vs_sklearn = par$out$tot.withinss / sk[2])
  print(format(rows[[length(rows)]], digits = 4), row.names = FALSE)
}
cat("\n")
print(format(do.call(rbind, rows), digits = 4), row.names = FALSE)
