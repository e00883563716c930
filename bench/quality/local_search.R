# The cost and the gain of the local search after k-means++ (method "none"):
# the default against control = list(local_search = 0) (plain greedy
# k-means++), side by side in one run, best of 3 times, on the data of
# bench/speed/speed.R and the noisy wide mixture where k-means++ gets stuck.
# Run: R_LIBS=.Rlib Rscript bench/quality/local_search.R [threads]
source("bench/common.R")
threads <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 1L
cat(machine_info(), "; threads:", threads, "\n\n")

mixture <- function(n, d, k, centre_sd, noise_sd, seed) {
  set.seed(seed)
  centres <- matrix(rnorm(k * d, sd = centre_sd), k, d)
  truth <- sample(k, n, TRUE)
  list(x = centres[truth, ] + matrix(rnorm(n * d, sd = noise_sd), n, d), truth = truth, k = k)
}
sets <- list(
  "mixture 20000 x 2000, k = 10 (bench/speed/speed.R)" = function() mixture(20000, 2000, 10, 1, 3, 1),
  "Fashion-MNIST 70000 x 784, k = 10 (bench/speed/speed.R)" = function() {
    f <- load_fashion_full(); list(x = f$x, truth = NULL, k = 10L)
  },
  "noisy mixture 50000 x 500, k = 20" = function() mixture(50000, 500, 20, 0.5, 1, 42))
rows <- list()
for (name in names(sets)) {
  ds <- sets[[name]]()
  ref <- if (!is.null(ds$truth)) kmeans_objective(ds$x, ds$truth)
  for (n_init in c(1L, 10L)) {
    res <- lapply(list(off = 0L, default = NULL), function(ls) {
      lapply(1:3, function(s) {
        best_of(function() kmeans_reduced(ds$x, ds$k, method = "none", n_init = n_init, seed = s,
                                          n_threads = threads,
                                          control = list(local_search = ls)), 3L)
      })
    })
    tm <- vapply(res, function(r) median(vapply(r, `[[`, 0, "t")), 0)
    ob <- vapply(res, function(r) median(vapply(r, function(b) b$out$tot.withinss, 0)), 0)
    if (is.null(ref)) ref <- min(ob)
    rows[[length(rows) + 1L]] <- data.frame(
      data = name, n_init = n_init, seconds_plain = round(tm[["off"]], 2),
      seconds_local_search = round(tm[["default"]], 2),
      time_ratio = round(tm[["default"]] / tm[["off"]], 2),
      objective_plain = round(ob[["off"]] / ref, 4),
      objective_local_search = round(ob[["default"]] / ref, 4))
  }
  rm(ds)
  gc()
}
cat("Median over seeds 1-3 of the best of 3 times; objective / planted partition's",
    "(Fashion-MNIST: / the lowest median)\n\n")
print(knitr::kable(do.call(rbind, rows)))
