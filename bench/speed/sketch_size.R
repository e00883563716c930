# How large the sketch of the replicates must be (control$sketch_rows): the
# default call kmeans_reduced(x, k, method = "none", n_init) with the
# replicates on all rows (sketch_rows = Inf, the previous default) and on
# sketches of m rows, side by side in one run: best time of [reps] runs,
# objective over seeds relative to the all-rows fit of the same seed, and
# the passes over all rows by stage. Data: the 20000 x 2000 mixture of
# speed.R (k = 10), Fashion-MNIST 70000 x 784 (k = 10, Debian
# dataset-fashion-mnist), the 100000 x 64 mixture of seeding.R (k = 256),
# and the 50000 x 500 mixture of the quality suite (k = 20).
#
#   R_LIBS=.Rlib Rscript bench/speed/sketch_size.R [threads] [reps] [seeds] [cases]
# cases: comma-separated numbers of the data sets (default all).
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 2L
reps <- if (length(args) >= 2L) as.integer(args[2]) else 1L
seeds <- seq_len(if (length(args) >= 3L) as.integer(args[3]) else 2L)
only <- if (length(args) >= 4L) as.integer(strsplit(args[4], ",")[[1]])
cat(machine_info(), sprintf("; %d thread(s); best of %d; seeds %s\n\n", threads, reps,
                            paste(seeds, collapse = ",")))

mix <- function(n, d, k, sd_centre, sd_noise) {
  function() withr::with_seed(1, {
    centres <- matrix(rnorm(k * d, sd = sd_centre), k, d)
    centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d, sd = sd_noise), n, d)
  })
}
cases <- list(
  list(name = "mixture 20000 x 2000", k = 10L, x = mix(20000L, 2000L, 10L, 1, 3),
       m = c(1000, 2000, 5000)),
  list(name = "Fashion-MNIST 70000 x 784", k = 10L, x = function() load_fashion_full()$x,
       m = c(2000, 5000, 10000, 20000)),
  list(name = "mixture 100000 x 64", k = 256L, x = mix(100000L, 64L, 256L, 2, 1),
       m = c(10000, 25600, 50000)),
  list(name = "mixture 50000 x 500", k = 20L, x = mix(50000L, 500L, 20L, 0.5, 1),
       m = c(2000, 5000, 10000)))
ids <- if (is.null(only)) seq_along(cases) else only
rows <- list()
for (i in ids) {
  cs <- cases[[i]]
  x <- cs$x()
  for (n_init in c(3L, 10L)) {
    base <- list()
    for (m in c(Inf, cs$m)) {
      objs <- times <- numeric(0)
      passes <- NULL
      for (s in seeds) {
        r <- best_of(function() kmeans_reduced(x, cs$k, method = "none", n_init = n_init,
                                               seed = s, n_threads = threads,
                                               control = list(sketch_rows = m)), reps)
        objs <- c(objs, r$out$tot.withinss)
        times <- c(times, r$t)
        if (is.null(passes)) passes <- r$out$passes
      }
      if (is.infinite(m)) base <- list(obj = objs, t = times)
      rel <- objs / base$obj
      rows[[length(rows) + 1L]] <- data.frame(
        data = cs$name, k = cs$k, n_init = n_init, sketch_rows = m,
        seconds = median(times), time_ratio = median(base$t) / median(times),
        rel_min = min(rel), rel_max = max(rel),
        passes = paste(sprintf("%s %g", names(passes), passes), collapse = ", "))
      message(sprintf("%s n_init %d m %g: %.2f s, objective / all rows %s", cs$name, n_init, m,
                      median(times), paste(sprintf("%.6f", rel), collapse = " ")))
    }
  }
}
tab <- do.call(rbind, rows)
print(knitr::kable(tab, digits = c(0, 0, 0, 0, 2, 2, 6, 6, 0), row.names = FALSE))
