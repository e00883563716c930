# What the polish after the replicates costs and gives (control$polish,
# control$polish_starts), n_init = 10, 1 thread: Fashion-MNIST 3000, USPS
# digits, and four Gaussian mixtures of the quality suite's kind (one with
# cluster sizes proportional to 2^(0:9)). Median
# over seeds 1-3 of the objective and of the best-of-2 elapsed seconds, for
# polish = "none", polish_starts = 2 (split/merge from the 2 best replicates,
# 5 moves per round), the default (polish_starts = "auto": the 2 best, then
# more while the lowest result is reached from one start only; `starts`
# gives how many were polished, per seed), polish_starts = 10 (every
# replicate), and polish_starts = 1 with tries = 10; ratios to "none".
# Run: R_LIBS=.Rlib Rscript bench/quality/polish_cost.R   (USPS: RnavGraphImageData)
source("bench/common.R")
suppressPackageStartupMessages(library(kmreduce))
options(kmreduce.threads = 1L)
mixture <- function(n, d, k, centre_sd, seed, sizes = NULL) {
  set.seed(seed)
  truth <- if (is.null(sizes)) sample(k, n, TRUE) else
    rep(seq_len(k), round(n * sizes / sum(sizes)))
  n <- length(truth)
  centres <- matrix(rnorm(k * d, sd = centre_sd), k, d)
  list(x = centres[truth, ] + matrix(rnorm(n * d), n, d), k = k,
       name = sprintf("mixture %d x %d, k = %d%s", n, d, k,
                      if (is.null(sizes)) "" else ", sizes 2^(0:9)"))
}
# How many replicates the fit polished (from its verbose messages).
polished <- function(f) {
  msgs <- character()
  withCallingHandlers(f(), message = function(m) {
    msgs <<- c(msgs, conditionMessage(m))
    invokeRestart("muffleMessage")
  })
  hit <- regmatches(msgs, regexpr("from the [0-9]+ best", msgs))
  if (length(hit)) as.integer(gsub("[^0-9]", "", hit)) else 0L
}
sets <- list(load_fashion())
if (requireNamespace("RnavGraphImageData", quietly = TRUE)) sets <- c(sets, list(load_usps()))
sets <- c(sets, list(mixture(10000L, 50L, 10L, 1, 4), mixture(20000L, 50L, 50L, 1, 6),
                     mixture(10000L, 300L, 10L, 0.4, 2),
                     mixture(10000L, 50L, 10L, 1.5, 4, sizes = 2^(0:9))))
runs <- list(none = list(polish = "none"), starts_2 = list(polish_starts = 2),
             default = list(), starts_10 = list(polish_starts = 10),
             start1_tries10 = list(polish_starts = 1, tries = 10))
cat("#", machine_info(), "; 1 thread; n_init = 10; seeds 1-3\n\n")
rows <- list()
for (ds in sets) {
  res <- lapply(runs, function(ctl) {
    o <- t <- numeric(3)
    m <- integer(3)
    for (s in 1:3) {
      fit <- function(verbose = FALSE) {
        kmeans_reduced(ds$x, ds$k, method = "none", n_init = 10, seed = s, control = ctl,
                       verbose = verbose)
      }
      t[s] <- min(vapply(1:2, function(i) system.time(fit())[["elapsed"]], 0))
      o[s] <- fit()$tot.withinss
      m[s] <- polished(function() fit(TRUE))
    }
    list(objective = median(o), seconds = median(t), starts = paste(m, collapse = ","))
  })
  for (nm in names(runs)) {
    rows[[length(rows) + 1L]] <- data.frame(
      data = ds$name, run = nm, objective = signif(res[[nm]][["objective"]], 9),
      objective_ratio = round(res[[nm]][["objective"]] / res$none[["objective"]], 7),
      seconds = res[[nm]][["seconds"]],
      time_ratio = round(res[[nm]][["seconds"]] / res$none[["seconds"]], 2),
      starts = res[[nm]][["starts"]])
  }
}
print(knitr::kable(do.call(rbind, rows), row.names = FALSE))
