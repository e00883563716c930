# What the polish after the replicates costs and gives (control$polish,
# control$polish_starts), n_init = 10, 1 thread: Fashion-MNIST 3000, USPS
# digits, and three Gaussian mixtures of the quality suite's kind. Median
# over seeds 1-3 of the objective and of the best-of-2 elapsed seconds, for
# polish = "none", the default (split/merge from the 2 best replicates, 5
# moves per round), polish_starts = 1 with tries = 10, and polish_starts =
# 3; ratios to "none".
# Run: R_LIBS=.Rlib Rscript bench/polish_cost.R   (USPS: RnavGraphImageData)
source("bench/common.R")
suppressPackageStartupMessages(library(kmreduce))
options(kmreduce.threads = 1L)
mixture <- function(n, d, k, centre_sd, seed) {
  set.seed(seed)
  truth <- sample(k, n, TRUE)
  centres <- matrix(rnorm(k * d, sd = centre_sd), k, d)
  list(x = centres[truth, ] + matrix(rnorm(n * d), n, d), k = k,
       name = sprintf("mixture %d x %d, k = %d", n, d, k))
}
sets <- list(load_fashion())
if (requireNamespace("RnavGraphImageData", quietly = TRUE)) sets <- c(sets, list(load_usps()))
sets <- c(sets, list(mixture(10000L, 50L, 10L, 1, 4), mixture(20000L, 50L, 50L, 1, 6),
                     mixture(10000L, 300L, 10L, 0.4, 2)))
runs <- list(none = list(polish = "none"), default = list(),
             start1_tries10 = list(polish_starts = 1, tries = 10),
             starts_3 = list(polish_starts = 3))
cat("#", machine_info(), "; 1 thread; n_init = 10; seeds 1-3\n\n")
rows <- list()
for (ds in sets) {
  res <- lapply(runs, function(ctl) {
    o <- t <- numeric(3)
    for (s in 1:3) {
      fit <- function() kmeans_reduced(ds$x, ds$k, method = "none", n_init = 10, seed = s,
                                       control = ctl)
      t[s] <- min(vapply(1:2, function(i) system.time(fit())[["elapsed"]], 0))
      o[s] <- fit()$tot.withinss
    }
    c(objective = median(o), seconds = median(t))
  })
  for (nm in names(runs)) {
    rows[[length(rows) + 1L]] <- data.frame(
      data = ds$name, run = nm, objective = signif(res[[nm]][["objective"]], 9),
      objective_ratio = round(res[[nm]][["objective"]] / res$none[["objective"]], 7),
      seconds = res[[nm]][["seconds"]],
      time_ratio = round(res[[nm]][["seconds"]] / res$none[["seconds"]], 2))
  }
}
print(knitr::kable(do.call(rbind, rows), row.names = FALSE))
