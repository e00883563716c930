# Q4: PCA fitted on a sample of m cells, all cells projected, k-means on all scores.
#   SC_FILE=atlas_100k.h5 R_LIBS=.Rlib nice Rscript bench/atlas/defaults/q4_sketch.R NORM SCHEME:M:SEED [...]
# SCHEME: full (M ignored: all cells), uniform, libstrat (10 library-size deciles,
#         M/10 each), leverage (rows drawn without replacement with probability
#         proportional to approximate leverage scores: rowSums(Q^2), Q from the QR of
#         the centred 300-dim sparse embedding of xn; Efraimidis-Spirakis keys)
# Labels of each route go to q4_labels/.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])), "common.R"))
args <- commandArgs(TRUE)
how <- args[[1]]; specs <- args[-1]
x <- load_counts(); lab <- load_labels(); truth <- lab$labels; k <- lab$n_types
lib <- Matrix::rowSums(x)
xn <- normalize(x, how); rm(x); invisible(gc())
n <- nrow(xn)
dir.create(file.path(SC_OUT, "q4_labels"), showWarnings = FALSE)
lev <- NULL
for (sp in specs) {
  parts <- strsplit(sp, ":")[[1]]
  scheme <- parts[1]; m <- as.integer(parts[2]); rep_seed <- as.integer(parts[3])
  t_lev <- list(elapsed = 0, cpu = 0)
  set.seed(rep_seed)
  idx <- switch(scheme,
    full = seq_len(n),
    uniform = sort(sample.int(n, m)),
    libstrat = {
      dec <- cut(rank(lib, ties.method = "first"), 10, labels = FALSE)
      sort(unlist(lapply(split(seq_len(n), dec), function(i) i[sample.int(length(i), m %/% 10)])))
    },
    leverage = {
      if (is.null(lev)) {
        t_lev <- timed({
          r <- reduce_dims(xn, "sparse_embedding", dims = 300, seed = 1, n_threads = 2)
          y <- sweep(r$reduced, 2, colMeans(r$reduced), "-")
          q <- qr.Q(qr(y))
          rowSums(q^2)
        })
        lev <- t_lev$value
        message(sprintf("leverage scores: %.1f s; max/mean %.1f", t_lev$elapsed, max(lev) / mean(lev)))
      }
      sort(order(log(runif(n)) / lev, decreasing = TRUE)[seq_len(m)])
    },
    stop("unknown scheme ", scheme))
  if (scheme == "full") m <- n
  t <- timed({
    xs <- xn[idx, , drop = FALSE]
    p <- randomized_svd(xs, 50, center = TRUE, power_iters = 2, seed = 1, n_threads = 2)
    mu <- Matrix::colMeans(xs)
    project_scores(xn, p$v, mu)
  })
  scores <- t$value
  tk <- timed(kmeans_reduced(scores, k, method = "none", seed = 1, n_threads = 2))
  cl <- tk$value$cluster
  saveRDS(cl, file.path(SC_OUT, "q4_labels", sprintf("%s_%s_%s_%d_%d.rds",
                      sub("\\.h5$", "", basename(SC_FILE)), how, scheme, m, rep_seed)))
  ts <- type_scores(cl, truth)
  # representation check: Lloyd from the planted types' centroids on these scores
  cen <- rowsum(scores, truth) / as.vector(table(truth))
  oracle <- ari(kmeans_reduced(scores, cen, method = "none", n_threads = 2)$cluster, truth)
  small <- head(ts[order(ts$size), ], 4)
  record("Q4", sprintf("%s + %s m=%d (sample seed %d) + pca50 p2 + kmeans_reduced(none)",
                       how, scheme, m, rep_seed),
         ari(cl, truth), t_lev$elapsed + t$elapsed + tk$elapsed, t_lev$cpu + t$cpu + tk$cpu,
         sprintf("oracle ARI %.4f; pca+project=%.1fs kmeans=%.1fs; smallest types (size:recall/F1) %s; min F1 %.3f",
                 oracle, t$elapsed, tk$elapsed,
                 paste(sprintf("%d:%.2f/%.2f", small$size, small$recall, small$f1), collapse = " "),
                 min(ts$f1)), cl = cl, truth = truth)
}
