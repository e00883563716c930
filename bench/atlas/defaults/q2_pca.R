# Q2: PCA size, power iterations, centring.
#   SC_FILE=atlas_100k.h5 R_LIBS=.Rlib nice Rscript bench/atlas/defaults/q2_pca.R NORM ROUTE [ROUTE ...]
# ROUTE: rsvd50_epsE_pP (control eps = E, power_iters = P),
#        seeds_pca50 (k-means seeds 1..5 on the saved pca50 rotation: the k-means noise),
#        pca_dD (randomized_svd center, os 10, p2, D comps + kmeans_reduced none),
#        oracle_dD (the same scores: Lloyd from the planted centroids, then the k-means fit),
#        rsvd_dD (D dims, power "auto" = 1), rsvd50_pP (P power iterations),
#        pca50 (randomized_svd(center = TRUE), scores u d; kmeans_reduced "none" and stats::kmeans),
#        svd50_nocenter (randomized_svd(center = FALSE), same two k-means)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])), "common.R"))
args <- commandArgs(TRUE)
how <- args[[1]]; routes <- args[-1]
x <- load_counts(); lab <- load_labels(); truth <- lab$labels; k <- lab$n_types
xn <- normalize(x, how); rm(x); invisible(gc())
for (r in routes) {
  if (grepl("^rsvd_d[0-9]+$", r)) {
    d <- as.integer(sub("rsvd_d", "", r))
    t <- timed(kmeans_reduced(xn, k, method = "rsvd", dims = d, seed = 1, n_threads = 2))
  } else if (grepl("^rsvd50_p[0-9]+$", r)) {
    p <- as.integer(sub("rsvd50_p", "", r))
    t <- timed(kmeans_reduced(xn, k, method = "rsvd", dims = 50, seed = 1, n_threads = 2,
                              control = list(power_iters = p)))
  } else if (grepl("^rsvd50_eps[0-9.]+_p[0-9]+$", r)) {
    e <- as.numeric(sub("rsvd50_eps([0-9.]+)_p.*", "\\1", r))
    p <- as.integer(sub(".*_p", "", r))
    t <- timed(kmeans_reduced(xn, k, method = "rsvd", dims = 50, seed = 1, n_threads = 2,
                              control = list(power_iters = p, eps = e)))
  } else if (grepl("^(pca|oracle)_d[0-9]+$", r)) {
    # randomized_svd(center = TRUE, oversample 10, power 2) with D components; scores u d.
    # pca_dD: kmeans_reduced(none). oracle_dD: Lloyd from the planted types' centroids
    # (how well the representation separates the types, and the objective of that partition).
    d <- as.integer(sub(".*_d", "", r))
    ts <- timed(randomized_svd(xn, d, center = TRUE, seed = 1, n_threads = 2))
    scores <- ts$value$u %*% diag(ts$value$d)
    if (startsWith(r, "pca")) {
      tk <- timed(kmeans_reduced(scores, k, method = "none", seed = 1, n_threads = 2))
      record("Q2", sprintf("%s + %s (randomized_svd p2 os10) + kmeans_reduced(none)", how, r),
             ari(tk$value$cluster, truth), ts$elapsed + tk$elapsed, ts$cpu + tk$cpu,
             sprintf("svd=%.1fs kmeans=%.1fs obj=%.6g", ts$elapsed, tk$elapsed, tk$value$tot.withinss), cl = tk$value$cluster, truth = truth)
    } else {
      cen <- rowsum(scores, truth) / as.vector(table(truth))
      planted_obj <- sum((scores - cen[truth, ])^2)
      tk <- timed(kmeans_reduced(scores, cen, method = "none", n_threads = 2))
      nearest <- tk$value  # Lloyd to convergence from the planted centroids
      record("Q2", sprintf("%s + %s: Lloyd from planted centroids", how, r),
             ari(nearest$cluster, truth), ts$elapsed + tk$elapsed, ts$cpu + tk$cpu,
             sprintf("obj planted=%.6g obj after Lloyd=%.6g", planted_obj, nearest$tot.withinss), cl = nearest$cluster, truth = truth)
      # objective of the k-means fit on the same scores, for comparison
      tk <- timed(kmeans_reduced(scores, k, method = "none", seed = 1, n_threads = 2))
      record("Q2", sprintf("%s + pca_d%d (randomized_svd p2 os10) + kmeans_reduced(none)", how, d),
             ari(tk$value$cluster, truth), ts$elapsed + tk$elapsed, ts$cpu + tk$cpu,
             sprintf("svd=%.1fs kmeans=%.1fs obj=%.6g", ts$elapsed, tk$elapsed, tk$value$tot.withinss), cl = tk$value$cluster, truth = truth)
    }
    next
  } else if (grepl("^seeds_pca50$", r)) {
    sv <- readRDS(sprintf(file.path(SC_OUT, "%s_%s_pca50.rds"), sub("\\.h5$", "", basename(SC_FILE)), how))
    scores <- project_scores(xn, sv$v, Matrix::colMeans(xn))
    for (sd in 1:5) {
      tk <- timed(kmeans_reduced(scores, k, method = "none", seed = sd, n_threads = 2))
      record("Q2", sprintf("%s + pca50 + kmeans_reduced(none) seed %d", how, sd),
             ari(tk$value$cluster, truth), tk$elapsed, tk$cpu,
             sprintf("k-means only; obj=%.6g", tk$value$tot.withinss), cl = tk$value$cluster, truth = truth)
    }
    next
  } else if (r %in% c("pca50", "svd50_nocenter")) {
    centre <- r == "pca50"
    ts <- timed(randomized_svd(xn, 50, center = centre, seed = 1, n_threads = 2))
    p <- ts$value
    scores <- p$u %*% diag(p$d)
    saveRDS(list(d = p$d, v = p$v), sprintf(file.path(SC_OUT, "%s_%s_%s.rds"),
                                            sub("\\.h5$", "", basename(SC_FILE)), how, r))
    message(sprintf("%s: randomized_svd %.1f s (cpu %.1f); d[1:5] = %s", r, ts$elapsed, ts$cpu,
                    paste(signif(p$d[1:5], 4), collapse = " ")))
    tk <- timed(kmeans_reduced(scores, k, method = "none", seed = 1, n_threads = 2))
    record("Q2", sprintf("%s + %s + kmeans_reduced(none)", how, r), ari(tk$value$cluster, truth),
           ts$elapsed + tk$elapsed, ts$cpu + tk$cpu,
           sprintf("svd=%.1fs kmeans=%.1fs obj=%.6g", ts$elapsed, tk$elapsed, tk$value$tot.withinss), cl = tk$value$cluster, truth = truth)
    set.seed(1)
    tk <- timed(suppressWarnings(stats::kmeans(scores, k, nstart = 10, iter.max = 100)))
    record("Q2", sprintf("%s + %s + stats::kmeans(nstart=10)", how, r), ari(tk$value$cluster, truth),
           ts$elapsed + tk$elapsed, ts$cpu + tk$cpu,
           sprintf("svd=%.1fs kmeans=%.1fs obj=%.6g ifault=%d", ts$elapsed, tk$elapsed,
                   tk$value$tot.withinss, tk$value$ifault), cl = tk$value$cluster, truth = truth)
    next
  } else stop("unknown route ", r)
  fit <- t$value
  record("Q2", sprintf("%s + %s", how, r), ari(fit$cluster, truth), t$elapsed, t$cpu,
         sprintf("method=%s dims=%d reduce=%.1fs cluster=%.1fs obj=%.6g", fit$method, fit$dims,
                 fit$timing[["reduce"]], fit$timing[["cluster"]], fit$tot.withinss), cl = fit$cluster, truth = truth)
}
