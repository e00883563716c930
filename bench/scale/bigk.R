# Large k and tall data: kmreduce (method "none", n_init = 1: greedy
# k-means++, or k-means|| with control$seeding = "k-means||", and Lloyd with
# Hamerly's bounds) against scikit-learn's KMeans
# (elkan for every seed, lloyd for seed 1; n_init = 1) and FAISS (float32,
# 50 iterations, seed 1) where python3-faiss is installed, on the shapes
# vector quantization uses. Side by side in one run; per run the time,
# Lloyd iterations and objective; then medians over the seeds and ratios.
# The Python side uses OpenBLAS when Debian's libopenblas0-pthread is
# installed (LD_LIBRARY_PATH points numpy at it), whatever R uses.
# With control$precision = "single" too (both seedings) unless "double_only".
# Run: R_LIBS=.Rlib Rscript bench/scale/bigk.R [threads] [large] [seeds=5] [double_only]
#   ("large" adds 10^7 x 16, k = 16: 1.28 GB, and as much again in Python;
#   one seed there; "large_only" runs that case alone)
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) && grepl("^[0-9]+$", args[1])) as.integer(args[1]) else 1L
large <- "large" %in% args
single <- !("double_only" %in% args)
n_seeds <- if (any(grepl("^seeds=", args))) as.integer(sub("seeds=", "", grep("^seeds=", args, value = TRUE))) else 5L
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)
openblas <- "/usr/lib/x86_64-linux-gnu/openblas-pthread"
if (dir.exists(openblas)) Sys.setenv(LD_LIBRARY_PATH = openblas)
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
has_sklearn <- identical(suppressWarnings(system2(python, c("-c", shQuote("import sklearn")),
                                                   stdout = FALSE, stderr = FALSE)), 0L)
cat("#", machine_info(), "; threads:", threads, "; Python BLAS:",
    if (dir.exists(openblas)) "OpenBLAS" else "the system's", "\n\n")

# Gaussian clusters: centres N(0, spread^2) per coordinate, unit noise.
mixture <- function(n, d, k, spread, seed) {
  set.seed(seed)
  centres <- matrix(rnorm(k * d, sd = spread), k, d)
  centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
}
cases <- list(
  list(name = "100000 x 64, k = 256", n = 1e5, d = 64, k = 256),
  list(name = "1000000 x 16, k = 20", n = 1e6, d = 16, k = 20),
  list(name = "200000 x 32, k = 1000", n = 2e5, d = 32, k = 1000))
tall <- list(list(name = "10^7 x 16, k = 16", n = 1e7, d = 16, k = 16))
if (large) cases <- c(cases, tall)
if ("large_only" %in% args) cases <- tall

rows <- list()
for (cs in cases) {
  x <- mixture(cs$n, cs$d, cs$k, 2, 1)
  seeds <- seq_len(if (cs$n >= 1e7) 1L else n_seeds)
  add <- function(run, seed, t, obj, iter) {
    rows[[length(rows) + 1L]] <<- data.frame(data = cs$name, run = run, seed = seed,
                                             seconds = round(t, 3), iterations = iter,
                                             objective = signif(obj, 7))
  }
  for (s in seeds) {
    r <- best_of(function() kmeans_reduced(x, cs$k, method = "none", n_init = 1, seed = s,
                                           iter_max = 300, n_threads = threads), 2L)
    add("kmreduce", s, r$t, r$out$tot.withinss, sum(r$out$iter))
    r <- best_of(function() kmeans_reduced(x, cs$k, method = "none", n_init = 1, seed = s,
                                           iter_max = 300, n_threads = threads,
                                           control = list(seeding = "k-means||")), 2L)
    add("kmreduce k-means||", s, r$t, r$out$tot.withinss, sum(r$out$iter))
    if (single) {
      r <- best_of(function() kmeans_reduced(x, cs$k, method = "none", n_init = 1, seed = s,
                                             iter_max = 300, n_threads = threads,
                                             control = list(precision = "single")), 2L)
      add("kmreduce single", s, r$t, r$out$tot.withinss, sum(r$out$iter))
      r <- best_of(function() kmeans_reduced(x, cs$k, method = "none", n_init = 1, seed = s,
                                             iter_max = 300, n_threads = threads,
                                             control = list(seeding = "k-means||",
                                                            precision = "single")), 2L)
      add("kmreduce k-means|| single", s, r$t, r$out$tot.withinss, sum(r$out$iter))
    }
  }
  if (has_sklearn) {
    f <- tempfile(fileext = ".bin")
    con <- file(f, "wb")
    writeBin(c(as.double(nrow(x)), as.double(ncol(x))), con, endian = "little")
    writeBin(as.vector(x), con, endian = "little")
    close(con)
    rm(x)
    gc()
    out <- system2(python, c("bench/peers/sklearn_bigk.py", f, cs$k, length(seeds), threads),
                   stdout = TRUE)
    unlink(f)
    for (line in out) {
      p <- strsplit(line, " ")[[1]]
      add(if (p[1] == "faiss") "FAISS" else paste("scikit-learn", p[1]), as.integer(p[2]),
          as.numeric(p[3]), as.numeric(p[4]), as.integer(p[5]))
    }
  }
  rm(list = intersect("x", ls()))
  gc()
}
res <- do.call(rbind, rows)
print(knitr::kable(res))
# Medians over the seeds, and ratios against kmreduce (time: theirs / ours;
# objective: ours / theirs, median over the seeds each ran).
med <- aggregate(cbind(seconds, objective, iterations) ~ data + run, res, median)
ours <- med[med$run == "kmreduce", ]
med$time_ratio <- round(med$seconds / ours$seconds[match(med$data, ours$data)], 2)
med$objective_ratio <- round(ours$objective[match(med$data, ours$data)] / med$objective, 4)
par <- med[med$run == "kmreduce k-means||", ]
med$time_ratio_par <- round(med$seconds / par$seconds[match(med$data, par$data)], 2)
med$objective_ratio_par <- round(par$objective[match(med$data, par$data)] / med$objective, 4)
cat("\nMedians over the seeds; time_ratio = their time / kmreduce's, objective_ratio =",
    "kmreduce's objective / theirs (kmreduce: greedy k-means++; _par: against",
    "kmreduce with control$seeding = \"k-means||\")\n")
print(knitr::kable(med[order(med$data, med$run), ], row.names = FALSE))
