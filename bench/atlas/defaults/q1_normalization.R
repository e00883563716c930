# Q1: normalization (each then log1p) x {rsvd dims 50, sparse default}.
#   SC_FILE=atlas_100k.h5 R_LIBS=.Rlib nice Rscript bench/atlas/defaults/q1_normalization.R NORM [ROUTES]
# NORM: cpm | cp10k | sf ; ROUTES: comma list of rsvd50,default (both by default)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])), "common.R"))
args <- commandArgs(TRUE)
how <- args[[1]]
routes <- if (length(args) >= 2) strsplit(args[[2]], ",")[[1]] else c("rsvd50", "default")
x <- load_counts(); lab <- load_labels(); truth <- lab$labels; k <- lab$n_types
tn <- timed(normalize(x, how)); xn <- tn$value; rm(x); invisible(gc())
message(sprintf("normalize %s: %.1f s; nnz %.0f; k = %d", how, tn$elapsed, length(xn@x), k))
for (r in routes) {
  t <- switch(r,
    rsvd50 = timed(kmeans_reduced(xn, k, method = "rsvd", dims = 50, seed = 1, n_threads = 2)),
    default = timed(kmeans_reduced(xn, k, seed = 1, n_threads = 2)))
  fit <- t$value
  record("Q1", sprintf("%s + %s", how, r), ari(fit$cluster, truth), t$elapsed, t$cpu,
         sprintf("method=%s dims=%d reduce=%.1fs cluster=%.1fs obj=%.6g", fit$method, fit$dims,
                 fit$timing[["reduce"]], fit$timing[["cluster"]], fit$tot.withinss), cl = fit$cluster, truth = truth)
}
