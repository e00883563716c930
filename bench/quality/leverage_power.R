# Leverage scores' power iterations (control$power_iters) against k-means
# on all features (method = "none"), same n_init and seed, in one run:
# objective ratio (median and worst over seeds) and the reduction's time.
#
#   R_LIBS=.Rlib Rscript bench/quality/leverage_power.R [threads] [seeds] [iters...]
#
# Data: gene expression (Bioconductor ALL, bladderbatch from Debian), images
# (USPS, ORL from CRAN RnavGraphImageData; Fashion-MNIST 20000 x 784 from
# Debian dataset-fashion-mnist), text (20 Newsgroups tf-idf from CRAN lda).
source("bench/common.R")
args <- commandArgs(trailingOnly = TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 1L
seeds <- seq_len(if (length(args) >= 2L) as.integer(args[2]) else 3L)
iters <- if (length(args) >= 3L) args[-(1:2)] else c("0", "1", "2", "4", "7", "auto", "exact")
cat(machine_info(), sprintf("; %d thread(s)\n\n", threads))

loaders <- list(load_all_leukemia, load_bladder, load_usps, load_orl,
                function() load_fashion_full(20000L), load_newsgroups_tfidf)
rows <- list()
for (load in loaders) {
  ds <- tryCatch(load(), error = function(e) NULL)
  if (is.null(ds)) next
  x <- ds$x
  k <- ds$k
  none <- vapply(seeds, function(s) {
    kmeans_reduced(x, k, method = "none", n_init = 10, seed = s, n_threads = threads)$tot.withinss
  }, numeric(1))
  for (it in iters) {
    control <- if (it == "exact") list(svd = "exact") else
      list(power_iters = if (it == "auto") "auto" else as.integer(it))
    fits <- lapply(seeds, function(s) {
      t <- system.time(f <- kmeans_reduced(x, k, method = "leverage", n_init = 10, seed = s,
                                           n_threads = threads, control = control))[["elapsed"]]
      list(obj = f$tot.withinss, reduce = f$timing[["reduce"]], total = t)
    })
    ratio <- vapply(fits, `[[`, numeric(1), "obj") / none
    rows[[length(rows) + 1L]] <- data.frame(
      data = ds$name, k = k, power_iters = it,
      ratio_median = stats::median(ratio), ratio_worst = max(ratio),
      reduce_s = min(vapply(fits, `[[`, numeric(1), "reduce")),
      total_s = min(vapply(fits, `[[`, numeric(1), "total")))
    cat(sprintf("%-40s k=%d iters=%-5s ratio median %.4f worst %.4f reduce %.3f s total %.3f s\n",
                ds$name, k, it, rows[[length(rows)]]$ratio_median, rows[[length(rows)]]$ratio_worst,
                rows[[length(rows)]]$reduce_s, rows[[length(rows)]]$total_s))
  }
}
print(format(do.call(rbind, rows), digits = 4), row.names = FALSE)
