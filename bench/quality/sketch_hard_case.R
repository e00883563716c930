# A hard case for the replicates on sketches: 10 clusters of sizes
# proportional to 2^(0:9) (the smallest 98 rows of 100000; the two
# smallest merged and the largest split lie 0.3 % from the partition that
# keeps them apart), 50 columns, centres N(0, 1.5^2). For seeds 1-5 and
# n_init 3 and 10: the objective of the default (or of sketches of the
# given size) over that of the replicates on all rows (sketch_rows = Inf),
# and both times.
# Run: R_LIBS=.Rlib Rscript bench/quality/sketch_hard_case.R [n] [sketch_rows] [threads]
#   (n default 100000; sketch_rows default "auto"; threads default 2)
args <- commandArgs(TRUE)
n <- if (length(args) >= 1L) as.integer(args[1]) else 100000L
m <- if (length(args) >= 2L && args[2] != "auto") as.numeric(args[2]) else "auto"
threads <- if (length(args) >= 3L) as.integer(args[3]) else 2L
source("bench/common.R")
source("bench/quality/instances.R")
suppressPackageStartupMessages(library(kmreduce))
cat("#", machine_info(), ";", threads, "thread(s); n =", n, "; sketch_rows =", format(m), "\n")
data <- with_seed(4, mixture(n, 50L, 10L, centre_sd = 1.5,
                             truth = labels_of_sizes(sizes_prop(n, 2^(0:9)))))
for (n_init in c(3L, 10L)) {
  r <- vapply(1:5, function(s) {
    fit <- function(rows) {
      t <- system.time(f <- kmeans_reduced(data$x, 10, method = "none", n_init = n_init, seed = s,
                                           n_threads = threads,
                                           control = list(sketch_rows = rows)))[["elapsed"]]
      c(f$tot.withinss, t)
    }
    a <- fit(Inf)
    b <- fit(m)
    c(ratio = b[1] / a[1], t_sketch = b[2], t_all = a[2])
  }, numeric(3))
  cat(sprintf("n_init %d: objective / all rows %s; seconds (sketch / all rows) %s\n", n_init,
              paste(sprintf("%.6f", r[1, ]), collapse = " "),
              paste(sprintf("%.2f/%.2f", r[2, ], r[3, ]), collapse = " ")))
}
