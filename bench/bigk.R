# Large k and tall data: kmreduce (method "none", one replicate, so plain
# greedy k-means++; and two replicates, the second with the local search)
# against scikit-learn's KMeans (lloyd and elkan, n_init = 1), on the shapes
# vector quantization uses. Side by side in one run; time, Lloyd iterations,
# objective and milliseconds per iteration.
# Run: R_LIBS=.Rlib Rscript bench/bigk.R [threads] [large]
#   ("large" adds 10^7 x 16, k = 16: 1.28 GB, and as much again in Python)
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) && grepl("^[0-9]+$", args[1])) as.integer(args[1]) else 1L
large <- "large" %in% args
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
has_sklearn <- identical(suppressWarnings(system2(python, c("-c", shQuote("import sklearn")),
                                                   stdout = FALSE, stderr = FALSE)), 0L)
cat("#", machine_info(), "; threads:", threads, "\n\n")

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
if (large) cases <- c(cases, list(list(name = "10^7 x 16, k = 16", n = 1e7, d = 16, k = 16)))

rows <- list()
for (cs in cases) {
  x <- mixture(cs$n, cs$d, cs$k, 2, 1)
  add <- function(run, t, obj, iter) {
    rows[[length(rows) + 1L]] <<- data.frame(data = cs$name, run = run, seconds = round(t, 2),
                                             iterations = iter, objective = signif(obj, 6),
                                             ms_per_iteration = round(1000 * t / iter, 1))
  }
  for (n_init in c(1L, 2L)) {
    r <- best_of(function() kmeans_reduced(x, cs$k, method = "none", n_init = n_init, seed = 1,
                                           iter_max = 300, n_threads = threads), 2L)
    add(sprintf("kmreduce none, n_init = %d", n_init), r$t, r$out$tot.withinss, sum(r$out$iter))
  }
  if (has_sklearn) {
    f <- tempfile(fileext = ".bin")
    con <- file(f, "wb")
    writeBin(c(as.double(nrow(x)), as.double(ncol(x))), con, endian = "little")
    writeBin(as.vector(x), con, endian = "little")
    close(con)
    rm(x)
    gc()
    out <- system2(python, c("bench/sklearn_bigk.py", f, cs$k, 1), stdout = TRUE)
    unlink(f)
    for (line in out) {
      p <- strsplit(line, " ")[[1]]
      add(paste("scikit-learn", p[1]), as.numeric(p[2]), as.numeric(p[3]), as.integer(p[4]))
    }
  }
  rm(list = intersect("x", ls()))
  gc()
}
print(knitr::kable(do.call(rbind, rows)))
