# dims = "auto" against method = "none" (k-means on all features), same
# n_init and seed, side by side in one run: objective ratio and time ratio,
# for the default method ("sign" on dense data) and for "leverage" and
# "rsvd".
#
#   R_LIBS=.Rlib Rscript bench/quality/dims_auto.R [threads] [reps] [seeds]
#
# Data: gene expression (Bioconductor ALL and bladderbatch, Debian
# r-bioc-all and r-bioc-bladderbatch), USPS (8800 x 256) and ORL (400 x 4096)
# from CRAN RnavGraphImageData, Fashion-MNIST 20000 x 784 (Debian
# dataset-fashion-mnist). Times: best of [reps] runs (seed 1).
source("bench/common.R")
args <- commandArgs(trailingOnly = TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 1L
reps <- if (length(args) >= 2L) as.integer(args[2]) else 3L
seeds <- seq_len(if (length(args) >= 3L) as.integer(args[3]) else 3L)
cat(machine_info(), sprintf("; %d thread(s)\n\n", threads))

loaders <- list(load_all_leukemia, load_bladder, load_usps, load_orl,
                function() load_fashion_full(20000L))
rows <- list()
for (load in loaders) {
  ds <- tryCatch(load(), error = function(e) NULL)
  if (is.null(ds)) next
  x <- ds$x
  k <- ds$k
  fit <- function(method, dims, s) {
    suppressWarnings(kmeans_reduced(x, k, method = method, dims = dims, n_init = 10, seed = s,
                                    n_threads = threads))
  }
  t_none <- best_of(function() fit("none", NULL, 1L), reps)$t
  none <- vapply(seeds, function(s) fit("none", NULL, s)$tot.withinss, numeric(1))
  for (method in c("auto", "leverage", "rsvd")) {
    autos <- lapply(seeds, function(s) fit(method, "auto", s))
    ratio <- vapply(autos, `[[`, numeric(1), "tot.withinss") / none
    t_auto <- best_of(function() fit(method, "auto", 1L), reps)$t
    rows[[length(rows) + 1L]] <- data.frame(
      data = ds$name, k = k, method = autos[[1]]$method,
      chosen = paste(vapply(autos, `[[`, integer(1), "dims"), collapse = "/"),
      tried = paste(vapply(autos, function(a) max(a$dims_auto$dims), numeric(1)), collapse = "/"),
      ratio_median = stats::median(ratio), ratio_worst = max(ratio),
      t_none = t_none, t_auto = t_auto, time_auto_vs_none = t_auto / t_none)
    print(rows[[length(rows)]], row.names = FALSE)
  }
}
cat("\n")
print(format(do.call(rbind, rows), digits = 4), row.names = FALSE)
