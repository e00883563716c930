# k-means|| seeding with fewer candidates: `control$rounds` and
# `control$oversampling` (the candidates number about rounds x oversampling x
# k) against the defaults (5 rounds, oversampling 2), `method = "none"`,
# `seeding = "k-means||"`, on Gaussian mixtures and real data at several k.
# Per configuration: the time of each fit (best of `reps`), and its
# objective over the default's at the same seed; the median and how many
# seeds end lower / higher. No peer: both sides are kmreduce, in one run.
# Run: R_LIBS=.Rlib Rscript bench/scale/kmpar_rounds.R [threads] [cases]
#   cases: comma-separated numbers of the list below (default: all; 7-11
#   need RnavGraphImageData and Debian's dataset-fashion-mnist)
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) >= 1) as.integer(args[1]) else 2L
cat("#", machine_info(), "; threads:", threads, "\n\n")

mixture <- function(n, d, k, spread, seed) {
  set.seed(seed)
  centres <- matrix(rnorm(k * d, sd = spread), k, d)
  centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
}
# name, data, k, n_init, seeds, best of
cases <- list(
  list("mixture 100000 x 64, k = 256", function() mixture(1e5, 64, 256, 2, 1), 256, 1, 5, 2),
  list("mixture 200000 x 32, k = 1000", function() mixture(2e5, 32, 1000, 2, 1), 1000, 1, 3, 2),
  list("mixture 10^6 x 16, k = 20", function() mixture(1e6, 16, 20, 2, 1), 20, 1, 3, 2),
  list("overlapping 100000 x 20, k = 100", function() mixture(1e5, 20, 100, 1, 2), 100, 1, 5, 2),
  list("noisy wide 50000 x 500, k = 20", function() mixture(5e4, 500, 20, 0.5, 3), 20, 1, 5, 2),
  list("mixture 20000 x 50, k = 50, n_init 10", function() mixture(2e4, 50, 50, 1, 6), 50, 10, 3, 2),
  list("USPS, k = 120", function() load_usps()$x, 120, 1, 5, 2),
  list("USPS, k = 128", function() load_usps()$x, 128, 1, 10, 1),
  list("USPS, k = 256", function() load_usps()$x, 256, 1, 10, 1),
  list("Fashion-MNIST 70000, k = 64", function() load_fashion_full()$x, 64, 1, 3, 1),
  list("Fashion-MNIST 70000, k = 256", function() load_fashion_full()$x, 256, 1, 4, 1))
if (length(args) >= 2) cases <- cases[as.integer(strsplit(args[2], ",")[[1]])]
configs <- list(c(5, 2), c(3, 1), c(4, 1), c(2, 2))

rows <- list()
for (cs in cases) {
  x <- tryCatch(cs[[2]](), error = function(e) NULL)
  if (is.null(x)) {
    message("skipped (data not installed): ", cs[[1]])
    next
  }
  base <- NULL
  for (cf in configs) {
    res <- vapply(seq_len(cs[[5]]), function(s) {
      r <- best_of(function() kmeans_reduced(x, cs[[3]], method = "none", n_init = cs[[4]],
                                             seed = s, iter_max = 300, n_threads = threads,
                                             control = list(seeding = "k-means||",
                                                            rounds = cf[1],
                                                            oversampling = cf[2])), cs[[6]])
      c(r$t, r$out$tot.withinss)
    }, numeric(2))
    if (is.null(base)) base <- res[2, ]
    ratio <- res[2, ] / base
    rows[[length(rows) + 1L]] <- data.frame(
      data = cs[[1]], rounds = cf[1], oversampling = cf[2],
      seconds_median = round(median(res[1, ]), 3),
      objective_ratio_median = round(median(ratio), 5),
      range = sprintf("%.4f-%.4f", min(ratio), max(ratio)),
      lower = sum(ratio < 1 - 1e-9), higher = sum(ratio > 1 + 1e-9))
    print(utils::tail(rows, 1)[[1]], row.names = FALSE)
  }
}
cat("\nObjective ratio: the configuration's objective over the default's (5 rounds,",
    "oversampling 2) at the same seed; lower / higher: seeds where it is lower / higher.\n")
print(knitr::kable(do.call(rbind, rows)))
