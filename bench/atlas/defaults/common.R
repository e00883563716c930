# Shared helpers for the single-cell default measurements.
#   Rscript bench/atlas/defaults/q1_normalization.R ... (each script sources this file)
# Environment: SC_FILE (the generated file: bench/atlas/generate.R OUT.h5 100000 20000 1), SC_OUT (a folder for intermediate files, default beside SC_FILE).
suppressPackageStartupMessages({
  library(Matrix)
  library(kmreduce)
})
options(kmreduce.threads = 2L)
SC_FILE <- Sys.getenv("SC_FILE", "atlas_100k.h5")
SC_OUT <- Sys.getenv("SC_OUT", dirname(SC_FILE))
RESULTS <- Sys.getenv("SC_RESULTS", sub("\\.h5$", ".results.csv", SC_FILE))

# Counts as cells x genes dgCMatrix (cached as .counts.rds beside the file).
load_counts <- function(file = SC_FILE) {
  cache <- sub("\\.h5$", ".counts.rds", file)
  if (file.exists(cache)) return(readRDS(cache))
  t0 <- proc.time()[["elapsed"]]
  g <- "mm10"
  shape <- as.integer(rhdf5::h5read(file, paste0(g, "/shape")))
  indptr <- as.numeric(rhdf5::h5read(file, paste0(g, "/indptr")))
  data <- as.numeric(rhdf5::h5read(file, paste0(g, "/data")))
  ind <- as.integer(rhdf5::h5read(file, paste0(g, "/indices")))
  # genes x cells CSC as stored, then cells as rows
  gc_ <- new("dgCMatrix", i = ind, p = as.integer(indptr), x = data, Dim = shape)
  rm(data, ind); invisible(gc())
  x <- Matrix::t(gc_)
  rm(gc_); invisible(gc())
  saveRDS(x, cache, compress = FALSE)
  message(sprintf("loaded %d x %d, %.0f nnz in %.0f s", nrow(x), ncol(x), length(x@x),
                  proc.time()[["elapsed"]] - t0))
  x
}

load_labels <- function(file = SC_FILE) readRDS(paste0(file, ".labels.rds"))

# Normalizations (cells as rows), each followed by log1p; zeros stay zeros.
normalize <- function(x, how) {
  lib <- Matrix::rowSums(x)
  lib[lib == 0] <- 1
  f <- switch(how,
              cpm = 1e6 / lib,
              cp10k = 1e4 / lib,
              sf = 1 / (lib / mean(lib)),  # scuttle size factors (log base e)
              cp1k = 1e3 / lib,
              cp100 = 1e2 / lib,
              cp100k = 1e5 / lib,
              stop("unknown normalization ", how))
  # x is a dgCMatrix with cells as rows: row index is x@i
  x@x <- log1p(x@x * f[x@i + 1L])
  x
}

# time an expression: elapsed and CPU (user + system of this process, all threads)
timed <- function(expr) {
  gc(FALSE)
  p0 <- proc.time()
  val <- force(expr)
  p1 <- proc.time() - p0
  list(value = val, elapsed = p1[["elapsed"]], cpu = p1[["user.self"]] + p1[["sys.self"]])
}

ari <- function(cl, truth) adjusted_rand_index(cl, truth)

# per planted type: recall = fraction of the type's cells in its best cluster,
# and F1 of that best (type, cluster) pair
type_scores <- function(cl, truth) {
  tab <- table(truth, cl)
  sz <- rowSums(tab)
  csz <- colSums(tab)
  f1 <- 2 * tab / outer(sz, csz, "+")
  data.frame(type = rownames(tab), size = as.integer(sz),
             recall = apply(tab, 1, max) / sz,
             f1 = apply(f1, 1, max))
}

# append a result row to the CSV
# (with `cl` and `truth`: the note also gives the planted types recovered, F1 >= 0.9)
record <- function(question, route, ari_value, elapsed, cpu, note = "", cl = NULL, truth = NULL) {
  if (!is.null(cl)) {
    ts <- type_scores(cl, truth)
    note <- sprintf("%s; recovered %d/%d", note, sum(ts$f1 >= 0.9), nrow(ts))
  }
  row <- data.frame(time_stamp = format(Sys.time(), "%H:%M:%S"), file = basename(SC_FILE),
                    question = question, route = route, ari = round(ari_value, 4),
                    elapsed_s = round(elapsed, 1), cpu_s = round(cpu, 1),
                    load1 = round(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]), 2),
                    note = note)
  write.table(row, RESULTS, sep = ",", append = file.exists(RESULTS),
              col.names = !file.exists(RESULTS), row.names = FALSE, quote = TRUE)
  message(sprintf("[%s] %-55s ARI %.4f  %.1f s (cpu %.1f) %s", question, route, ari_value,
                  elapsed, cpu, note))
  invisible(row)
}

# PCA scores of all cells from a (centred) randomized SVD fitted on rows `idx`
# of xn: scores = (xn - 1 mu^T) V = xn V - 1 (mu^T V), kept sparse until the product.
project_scores <- function(xn, v, mu) {
  s <- as.matrix(xn %*% v)
  sweep(s, 2, as.numeric(crossprod(mu, v)), "-")
}
