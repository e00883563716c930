# The replicates on a sketch against the replicates on all rows, on the 12
# instances of the quality suite (instances.R): the default call
# kmeans_reduced(x, k, method = "none", n_init = m, seed = s) for m = 3 and
# 10 and seeds 1-3, with control$sketch_rows "auto" (the default), other
# sizes given as arguments, and Inf (all rows, the previous default).
# Prints one row per instance, n_init and sketch size: the sketch's rows,
# seeds where the sketch's objective is lower / equal / higher (relative
# 1e-10) than that of all rows, the range of the ratios, and the median
# times and their ratio. One build, one process.
# Run: R_LIBS=.Rlib Rscript bench/quality/sketch_quality.R [threads [instances [sizes]]]
#   (instances: numbers such as "4,9,10", default all; sizes: such as
#   "auto,1000,5000", default "auto"; "rule": the size "auto" takes at
#   several replicates, max(2000, 100 k) rows when n >= 10 times that, also
#   at n_init = 1). Environment: N_INITS (default "3,10"), SEEDS (the last
#   seed, default 3).
args <- commandArgs(TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 1L
only <- if (length(args) >= 2L && nzchar(args[2]) && args[2] != "all")
  as.integer(strsplit(args[2], ",")[[1]])
sizes <- if (length(args) >= 3L) strsplit(args[3], ",")[[1]] else "auto"
n_inits <- as.integer(strsplit(Sys.getenv("N_INITS", "3,10"), ",")[[1]])
seeds <- seq_len(as.integer(Sys.getenv("SEEDS", "3")))
source("bench/common.R")
source("bench/quality/instances.R")
suppressPackageStartupMessages(library(kmreduce))
cat("#", machine_info(), ";", threads, "thread(s)\n\n")
fit <- function(x, k, n_init, s, m) {
  if (identical(m, "rule")) {
    m <- max(2000, 100 * k)
    if (nrow(x) < 10 * m) m <- Inf
  }
  m <- if (identical(m, "auto")) "auto" else as.numeric(m)
  t <- system.time(f <- kmeans_reduced(x, k, method = "none", n_init = n_init, seed = s,
                                       n_threads = threads,
                                       control = list(sketch_rows = m)))[["elapsed"]]
  list(obj = f$tot.withinss, t = t, rows = if (is.null(f$sketch)) NA else f$sketch$rows)
}
rows <- list()
ids <- if (is.null(only)) seq_along(instances) else only
for (i in ids) {
  inst <- instance_or_skip(i)
  if (is.null(inst)) next
  for (n_init in n_inits) {
    all <- lapply(seeds, function(s) fit(inst$x, inst$k, n_init, s, Inf))
    for (m in sizes) {
      sk <- lapply(seeds, function(s) fit(inst$x, inst$k, n_init, s, m))
      ratio <- vapply(sk, `[[`, 0, "obj") / vapply(all, `[[`, 0, "obj")
      ta <- median(vapply(all, `[[`, 0, "t"))
      tb <- median(vapply(sk, `[[`, 0, "t"))
      rows[[length(rows) + 1L]] <- data.frame(
        instance = inst$name, n = nrow(inst$x), k = inst$k, n_init = n_init, sketch_rows = m,
        drawn = if (all(is.na(vapply(sk, `[[`, 0, "rows")))) "-" else
          as.character(median(vapply(sk, `[[`, 0, "rows"))),
        lower = sum(ratio < 1 - 1e-10), equal = sum(abs(ratio - 1) <= 1e-10),
        higher = sum(ratio > 1 + 1e-10),
        min_ratio = sprintf("%.7f", min(ratio)), max_ratio = sprintf("%.7f", max(ratio)),
        t_all = ta, t_sketch = tb, speedup = round(ta / tb, 2))
      message(sprintf("%s, n_init %d, sketch %s: objective / all rows %s; %.2f s vs %.2f s",
                      inst$name, n_init, m, paste(sprintf("%.7f", ratio), collapse = " "),
                      tb, ta))
    }
  }
}
print(knitr::kable(do.call(rbind, rows), row.names = FALSE))
