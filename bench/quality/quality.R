# Quality of every reducer (issue 8): for dims = 5k, 10k, 20k, each method's
# k-means objective on the original data relative to full k-means, its
# accuracy against the labels and its time; the shape of Figures 1-3 of
# Boutsidis et al. (2015) and Table 2 of Li and Fan (2020).
# Run: R_LIBS=.Rlib Rscript bench/quality/quality.R  (needs RnavGraphImageData, clue)
# Writes bench/quality/quality.md (its tables are copied into bench/RESULTS.md).
source("bench/common.R")

methods <- c("sign", "gaussian", "achlioptas", "srht", "sparse_embedding",
             "leverage", "cssp", "rsvd", "svd")
seeds <- 1:3
n_init <- 10L

run_dataset <- function(ds) {
  x <- ds$x
  k <- ds$k
  full <- lapply(seeds, function(s) {
    t <- system.time(f <- kmeans_reduced(x, k, method = "none", n_init = n_init, seed = s))
    list(obj = f$tot.withinss, acc = cluster_accuracy(f$cluster, ds$truth), time = t[["elapsed"]])
  })
  f_obj <- min(vapply(full, `[[`, 0, "obj"))
  rows <- list(data.frame(method = "none (full k-means)", dims = ncol(x),
                          rel_objective = mean(vapply(full, `[[`, 0, "obj")) / f_obj,
                          accuracy = mean(vapply(full, `[[`, 0, "acc")),
                          seconds = mean(vapply(full, `[[`, 0, "time"))))
  for (m in methods) {
    dims_list <- if (m %in% c("svd", "rsvd")) k else c(5L, 10L, 20L) * k
    if (m == "cssp") dims_list <- dims_list[dims_list <= min(dim(x))]
    for (dims in dims_list) {
      res <- lapply(seeds, function(s) {
        t <- system.time(f <- kmeans_reduced(x, k, method = m, dims = dims,
                                             n_init = n_init, seed = s))
        list(obj = f$tot.withinss, acc = cluster_accuracy(f$cluster, ds$truth),
             time = t[["elapsed"]])
      })
      rows[[length(rows) + 1L]] <- data.frame(
        method = m, dims = dims,
        rel_objective = mean(vapply(res, `[[`, 0, "obj")) / f_obj,
        accuracy = mean(vapply(res, `[[`, 0, "acc")),
        seconds = mean(vapply(res, `[[`, 0, "time")))
      cat(sprintf("%s %s %d done\n", ds$name, m, dims))
    }
  }
  do.call(rbind, rows)
}

datasets <- list(load_usps(), load_orl(), load_fashion())
out <- c("## Quality of the reductions",
         "",
         sprintf("Machine: %s; 1 thread; `n_init = %d`; mean over seeds %s.",
                 machine_info(), n_init, paste(seeds, collapse = ", ")),
         "`rel_objective`: k-means objective on the ORIGINAL data divided by the best full k-means objective over the same seeds;",
         "`accuracy`: best one-to-one matching of clusters to labels; `seconds`: reduction + k-means + evaluation.",
         "")
for (ds in datasets) {
  tab <- run_dataset(ds)
  out <- c(out, sprintf("### %s, k = %d", ds$name, ds$k), "", sprintf("Source: %s.", ds$source), "",
           "| method | dims | rel_objective | accuracy | seconds |", "|---|---|---|---|---|",
           sprintf("| %s | %d | %.4f | %.3f | %.3f |", tab$method, tab$dims, tab$rel_objective,
                   tab$accuracy, tab$seconds), "")
}
writeLines(out, "bench/quality/quality.md")
cat(out, sep = "\n")
