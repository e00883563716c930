# Q3: highly variable genes, then rsvd 50 (and the sparse default).
#   SC_FILE=atlas_100k.h5 R_LIBS=.Rlib nice Rscript bench/atlas/defaults/q3_hvg.R NORM SEL:N [SEL:N ...] [--default]
# SEL: var (variance of the log-normalized values), vst (Seurat's vst on counts:
#      loess of log10 var on log10 mean, variance of the clipped standardized counts),
#      disp (Seurat's mean.var.plot: dispersion of expm1(normalized) z-scored in 20 mean bins)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])), "common.R"))
args <- commandArgs(TRUE)
how <- args[[1]]; also_default <- "--default" %in% args
sels <- setdiff(args[-1], "--default")
x <- load_counts(); lab <- load_labels(); truth <- lab$labels; k <- lab$n_types
xn <- normalize(x, how)
n <- nrow(x)

col_mean_var <- function(m) {
  mu <- Matrix::colMeans(m)
  m2 <- m; m2@x <- m2@x^2
  v <- (Matrix::colMeans(m2) - mu^2) * n / (n - 1)
  list(mean = mu, var = v)
}

hvg_score <- function(sel) {
  switch(sel,
    var = col_mean_var(xn)$var,
    vst = {
      mv <- col_mean_var(x)
      ok <- mv$var > 0
      fit <- stats::loess(log10(mv$var[ok]) ~ log10(mv$mean[ok]), span = 0.3)
      ev <- numeric(ncol(x)); ev[ok] <- 10^fit$fitted
      sd <- sqrt(ev)
      clip <- sqrt(n)
      gene <- rep.int(seq_len(ncol(x)), diff(x@p))
      z <- pmin((x@x - mv$mean[gene]) / sd[gene], clip)
      nnz <- diff(x@p)
      s <- vapply(split(z^2, factor(gene, levels = seq_len(ncol(x)))), sum, 0)
      out <- (s + (n - nnz) * (mv$mean / sd)^2) / (n - 1)
      out[!ok] <- 0
      out
    },
    disp = {
      e <- xn; e@x <- expm1(e@x)
      mv <- col_mean_var(e)
      disp <- log(mv$var / mv$mean); disp[!is.finite(disp)] <- NA
      lm <- log1p(mv$mean)
      bins <- cut(lm, 20)
      z <- ave(disp, bins, FUN = function(d) (d - mean(d, na.rm = TRUE)) / sd(d, na.rm = TRUE))
      z[is.na(z)] <- -Inf
      z
    },
    stop("unknown selection ", sel))
}

for (s in sels) {
  sel <- sub(":.*", "", s); nh <- as.integer(sub(".*:", "", s))
  ts <- timed(order(hvg_score(sel), decreasing = TRUE)[seq_len(nh)])
  genes <- sort(ts$value)
  # overlap with the planted module genes
  mod <- unique(unlist(lab$modules))
  xs <- xn[, genes]
  t <- timed(kmeans_reduced(xs, k, method = "rsvd", dims = 50, seed = 1, n_threads = 2))
  fit <- t$value
  record("Q3", sprintf("%s + HVG %s top %d + rsvd50", how, sel, nh), ari(fit$cluster, truth),
         ts$elapsed + t$elapsed, ts$cpu + t$cpu,
         sprintf("select=%.1fs module genes in HVG=%d/%d nnz kept=%.2f", ts$elapsed,
                 sum(genes %in% mod), length(mod), length(xs@x) / length(xn@x)), cl = fit$cluster, truth = truth)
  if (also_default) {
    t <- timed(kmeans_reduced(xs, k, seed = 1, n_threads = 2))
    fit <- t$value
    record("Q3", sprintf("%s + HVG %s top %d + default(%s)", how, sel, nh, fit$method),
           ari(fit$cluster, truth), ts$elapsed + t$elapsed, ts$cpu + t$cpu,
           sprintf("dims=%d", fit$dims), cl = fit$cluster, truth = truth)
  }
}
