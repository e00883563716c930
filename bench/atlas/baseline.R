# Baselines on a 10x-layout (TENx) HDF5 file written by generate.R: how fast
# its non-zeros can be read (rhdf5 directly, DelayedArray's blockApply, column
# blocks as dgCMatrix through HDF5Array), mbkmeans at its documented defaults,
# and kmeans_reduced() on the same data loaded into memory. One part per
# process, so /usr/bin/time -v gives each part's peak memory; baseline.sh runs
# them all side by side and prints the table.
#
#   Rscript bench/atlas/baseline.R FILE PART [k] [reps]
#
# PART: rhdf5 | rhdf5_whole | blockapply | dgc_tenx | dgc_rhdf5 | mbkmeans | kmreduce
#       | score (the WCSS and ARI of mbkmeans' saved labels alone)
# Each part prints lines "RESULT <part> <key>=<value> ..." for the driver.
# The planted labels are read from FILE.labels.rds; mbkmeans' labels are
# saved to FILE.mbkmeans.rds for the kmreduce part, which scores both on the
# same log1p-CPM data (WCSS of the labels' partition, ARI to the planted types).
suppressPackageStartupMessages({
  library(rhdf5)
  library(Matrix)
})
args <- commandArgs(trailingOnly = TRUE)
file <- args[[1L]]
part <- args[[2L]]
k <- if (length(args) >= 3L) as.integer(args[[3L]]) else 30L
reps <- if (length(args) >= 4L) as.integer(args[[4L]]) else 3L
heavy_reps <- 1L         # the DelayedArray paths are slow: one run
group <- "mm10"
dsn <- function(x) paste0(group, "/", x)
truth <- readRDS(paste0(file, ".labels.rds"))$labels
el <- function() proc.time()[["elapsed"]]
cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
# best of n runs: elapsed seconds, and the CPU seconds of this process (on a
# shared machine the CPU time is the steadier figure)
best_of <- function(n, f) {
  t <- c_t <- numeric(n)
  for (r in seq_len(n)) {
    t0 <- el(); c0 <- cpu(); val <- f(); t[r] <- el() - t0; c_t[r] <- cpu() - c0
  }
  list(best = min(t), all = t, cpu = min(c_t), value = val)
}
result <- function(...) {
  kv <- list(...)
  cat("RESULT", part, paste0(names(kv), "=", vapply(kv, function(v)
    if (is.numeric(v)) format(signif(v, 5), scientific = FALSE) else as.character(v), ""),
    collapse = " "), "\n")
}
shape <- h5read(file, dsn("shape"))
n_genes <- shape[[1L]]; n_cells <- shape[[2L]]
indptr <- as.numeric(h5read(file, dsn("indptr"), bit64conversion = "double"))
nnz <- indptr[[n_cells + 1L]]
# cell blocks of about `target` non-zeros: block b is cells starts[b] .. ends[b]
cell_blocks <- function(target) {
  cuts <- if (target < nnz) seq(target, nnz, by = target) else numeric(0)
  ends <- unique(c(findInterval(cuts, indptr[-1L]), n_cells))
  ends <- ends[ends > 0L]
  list(starts = c(1L, head(ends, -1L) + 1L), ends = ends)
}

# (a) plain sequential read of the non-zeros with rhdf5: data and indices in
# indptr-delimited ranges of whole cells, block by block (file opened once)
read_rhdf5 <- function(target) {
  fid <- H5Fopen(file, flags = "H5F_ACC_RDONLY")
  on.exit(H5Fclose(fid))
  bl <- cell_blocks(target)
  tot <- 0
  for (b in seq_along(bl$ends)) {
    from <- indptr[[bl$starts[[b]]]]; to <- indptr[[bl$ends[[b]] + 1L]]
    if (to > from) {
      x <- h5read(fid, dsn("data"), start = from + 1, count = to - from)
      i <- h5read(fid, dsn("indices"), start = from + 1, count = to - from,
                  bit64conversion = "int")
      tot <- tot + sum(x) + length(i)
    }
  }
  tot
}

# (c) column blocks as dgCMatrix, cells as columns, built from the rhdf5 read
# (what a row source reading the file directly would hand to the C++ core)
read_dgc_rhdf5 <- function(target, transpose) {
  fid <- H5Fopen(file, flags = "H5F_ACC_RDONLY")
  on.exit(H5Fclose(fid))
  bl <- cell_blocks(target)
  tot <- 0
  for (b in seq_along(bl$ends)) {
    s <- bl$starts[[b]]; e <- bl$ends[[b]]
    from <- indptr[[s]]; to <- indptr[[e + 1L]]
    x <- h5read(fid, dsn("data"), start = from + 1, count = to - from)
    i <- h5read(fid, dsn("indices"), start = from + 1, count = to - from,
                bit64conversion = "int")
    m <- new("dgCMatrix", i = as.integer(i), p = as.integer(indptr[s:(e + 1L)] - from),
             x = as.double(x), Dim = c(as.integer(n_genes), as.integer(e - s + 1L)))
    if (transpose) m <- t(m)
    tot <- tot + length(m@x)
  }
  tot
}

log1p_cpm <- function(m, lib) {   # m genes x cells (dgCMatrix), lib per cell
  m@x <- log1p(m@x / rep(lib, diff(m@p)) * 1e6)
  m
}
# WCSS of a partition of the rows of y (cells x genes, dgCMatrix), exact:
# sum ||y_i||^2 - sum_c ||S_c||^2 / n_c with S_c the cluster sums
wcss <- function(y, cl) {
  cl <- as.integer(factor(cl))
  ind <- sparseMatrix(i = seq_along(cl), j = cl, x = 1)
  s <- crossprod(ind, y)                      # clusters x genes
  sum(y@x^2) - sum(rowSums(s^2) / tabulate(cl, ncol(ind)))
}

switch(part,
  rhdf5 = {
    for (target in c(2^22, 2^24, 2^26)) {
      r <- best_of(reps, function() read_rhdf5(target))
      result(block_nnz = target, seconds = r$best, runs = paste(round(r$all, 2), collapse = "/"), cpu_s = r$cpu,
             nnz = nnz, nnz_per_s = nnz / r$best)
    }
  },
  rhdf5_whole = {        # the two datasets in one h5read each: rhdf5's ceiling
    r <- best_of(reps, function() {
      x <- h5read(file, dsn("data")); i <- h5read(file, dsn("indices"), bit64conversion = "int")
      length(x) + length(i)
    })
    result(seconds = r$best, runs = paste(round(r$all, 2), collapse = "/"), cpu_s = r$cpu, nnz = nnz,
           nnz_per_s = nnz / r$best)
  },
  blockapply = {
    suppressPackageStartupMessages(library(HDF5Array))
    X <- TENxMatrix(file, group)        # once per process (see STYLE.md)
    r <- best_of(heavy_reps, function() {
      unlist(blockApply(X, function(b) Matrix::colSums(as(b, "dgCMatrix"))))
    })
    ok <- isTRUE(all.equal(unname(r$value), readRDS(paste0(file, ".labels.rds"))$col_sums))
    result(seconds = r$best, runs = paste(round(r$all, 2), collapse = "/"), cpu_s = r$cpu, nnz = nnz,
           nnz_per_s = nnz / r$best, block_bytes = getAutoBlockSize(), colsums_match = ok)
  },
  dgc_tenx = {
    suppressPackageStartupMessages(library(HDF5Array))
    X <- TENxMatrix(file, group)
    for (ncb in 20000L) {
      grid <- colAutoGrid(X, ncol = min(ncb, ncol(X)))
      r <- best_of(heavy_reps, function() {
        tot <- 0
        for (b in seq_along(grid)) {
          m <- as(read_sparse_block(X, grid[[b]]), "dgCMatrix")
          tot <- tot + length(m@x)
        }
        tot
      })
      result(path = "read_sparse_block", block_cells = ncb, seconds = r$best,
             runs = paste(round(r$all, 2), collapse = "/"), cpu_s = r$cpu, nnz = r$value,
             nnz_per_s = nnz / r$best)
    }
  },
  dgc_rhdf5 = {
    for (target in 2^24) for (tr in c(FALSE, TRUE)) {
      r <- best_of(reps, function() read_dgc_rhdf5(target, tr))
      result(path = if (tr) "rhdf5+dgCMatrix+t" else "rhdf5+dgCMatrix", block_nnz = target,
             seconds = r$best, runs = paste(round(r$all, 2), collapse = "/"), cpu_s = r$cpu,
             nnz = r$value, nnz_per_s = nnz / r$best)
    }
  },
  mbkmeans = {
    suppressPackageStartupMessages({ library(HDF5Array); library(mbkmeans) })
    X <- TENxMatrix(file, group)
    lib <- readRDS(paste0(file, ".labels.rds"))$col_sums
    # delayed log-normalisation (log1p of counts per million), cells as columns
    Y <- log1p(t(t(X) / lib) * 1e6)
    set.seed(1)
    t0 <- el(); c0 <- cpu()
    fit <- mbkmeans(Y, clusters = k)          # documented defaults otherwise
    sec <- el() - t0; cpu_s <- cpu() - c0
    saveRDS(fit$Clusters, paste0(file, ".mbkmeans.rds"))
    result(seconds = sec, cpu_s = cpu_s, k = k, batch_size = 500,
           ari = kmreduce::adjusted_rand_index(fit$Clusters, truth))
  },
  kmreduce = , score = {
    suppressPackageStartupMessages(library(kmreduce))
    t0 <- el(); c0 <- cpu()
    x <- h5read(file, dsn("data")); i <- h5read(file, dsn("indices"), bit64conversion = "int")
    m <- new("dgCMatrix", i = as.integer(i), p = as.integer(indptr), x = as.double(x),
             Dim = c(as.integer(n_genes), as.integer(n_cells)))
    rm(x, i)
    lib <- Matrix::colSums(m)
    y <- t(log1p_cpm(m, lib))                 # cells x genes, log1p-CPM
    rm(m); invisible(gc())
    load_s <- el() - t0
    result(step = "load+normalise+transpose", seconds = load_s, cpu_s = cpu() - c0,
           n = nrow(y), d = ncol(y), nnz = length(y@x))
    if (part == "kmreduce") {
      # ATLAS_METHODS="sparse_embedding" skips "auto" (it resolves to
      # sparse_embedding for a dgCMatrix: the same fit)
      meths <- strsplit(Sys.getenv("ATLAS_METHODS", "sparse_embedding,auto"), ",")[[1L]]
      for (meth in meths) {
        r <- best_of(reps, function() kmeans_reduced(y, k, method = meth, seed = 1L, n_threads = 1L))
        fit <- r$value
        result(method = meth, resolved = fit$method, dims = fit$dims, seconds = r$best,
               reduce_s = fit$timing[["reduce"]], cluster_s = fit$timing[["cluster"]],
               runs = paste(round(r$all, 2), collapse = "/"), cpu_s = r$cpu,
               wcss = wcss(y, fit$cluster), ari = adjusted_rand_index(fit$cluster, truth))
      }
      result(method = "planted", wcss = wcss(y, truth), ari = 1)
    }
    mb <- paste0(file, ".mbkmeans.rds")
    if (file.exists(mb)) {
      cl <- readRDS(mb)
      result(method = "mbkmeans(labels)", wcss = wcss(y, cl), ari = adjusted_rand_index(cl, truth))
    }
  },
  stop("unknown part: ", part, call. = FALSE)
)
