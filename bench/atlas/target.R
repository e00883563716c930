# The targets of the atlas work on one 10x-layout (TENx) HDF5 file, one part
# per process (target.sh runs them side by side under /usr/bin/time -v, so
# each part's peak resident memory is its own, and prints the table):
#
#   Rscript bench/atlas/target.R FILE PART [k] [reps] [out_dir]
#
# PART:
#   read      one plain sequential read of the file's non-zeros with rhdf5:
#             indptr, then data and indices in indptr-delimited blocks of
#             whole cells (16M non-zeros), file opened once; best of `reps`.
#             The time bound.
#   kmreduce  the whole fit: SingleCellExperiment with the TENxMatrix as
#             "counts", kmeans_reduced(sce, k, assay = "counts",
#             normalize = "log1p_cpm", method = "sparse_embedding"), timed
#             from the TENxMatrix() call to the labels. Where kmreduce has no
#             SummarizedExperiment method yet, the file is loaded into memory
#             instead (rhdf5, log1p-CPM in R, cells as rows) and the
#             dgCMatrix is clustered, with the load inside the time
#             (path=in_memory in the output).
#   mbkmeans  mbkmeans at its documented defaults on the delayed log1p-CPM of
#             the TENxMatrix (cells as columns), as baseline.R.
#   score     one streaming pass over the file: the exact WCSS on the
#             log1p-CPM data of every saved partition (kmreduce, mbkmeans)
#             and of the planted types, and their ARI to the planted types.
#             ATLAS_SCORE_METHODS (default "kmreduce mbkmeans"): the saved
#             partitions scored (FILE.labels.rds of each in out_dir);
#             ATLAS_SCORE_NORMALIZE (default log1p_cpm; log1p_cp10k,
#             log1p_size_factors): the data the WCSS is computed on, each
#             cell's counts x as log1p(x / lib * t), t = 1e6, 1e4 or the mean
#             library size of all cells (scuttle's logNormCounts with natural
#             log, kmreduce's default for counts; its library sizes take one
#             pass over `data` before the scoring pass).
#
# Settings of the kmreduce part from the environment: ATLAS_DIMS (default
# 50), ATLAS_N_INIT (1), ATLAS_THREADS (2), ATLAS_ITER_MAX (100);
# ATLAS_ALGORITHM (NULL: the default pipeline; "minibatch": mini-batch k-means);
# ATLAS_VERBOSE=1 reports the fit's stages and progress (verbose = TRUE);
# ATLAS_PATH=in_memory forces the in-memory path (the same fit, for
# comparison: it needs the whole matrix and its transpose in memory).
# Labels go to out_dir (default FILE without .h5, plus ".target"), one .rds
# per method, for the score part. Each part prints lines
# "RESULT <part> <key>=<value> ..." for the driver.
suppressPackageStartupMessages({
  library(rhdf5)
  library(Matrix)
})
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2L)
  stop("usage: target.R FILE PART [k] [reps] [out_dir]", call. = FALSE)
file <- normalizePath(args[[1L]], mustWork = TRUE)
part <- args[[2L]]
k <- if (length(args) >= 3L) as.integer(args[[3L]]) else 30L
reps <- if (length(args) >= 4L) as.integer(args[[4L]]) else 2L
out_dir <- if (length(args) >= 5L) args[[5L]] else paste0(sub("\\.h5$", "", file), ".target")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
group <- "mm10"
dsn <- function(x) paste0(group, "/", x)
labels_file <- function(method) file.path(out_dir, paste0(method, ".labels.rds"))
el <- function() proc.time()[["elapsed"]]
cpu <- function() sum(proc.time()[c("user.self", "sys.self", "user.child", "sys.child")],
                      na.rm = TRUE)
env_int <- function(name, default) as.integer(Sys.getenv(name, as.character(default)))
result <- function(...) {
  kv <- list(...)
  cat("RESULT", part, paste0(names(kv), "=", vapply(kv, function(v)
    if (is.numeric(v)) format(signif(v, 6), scientific = FALSE) else as.character(v), ""),
    collapse = " "), "\n")
}
block_nnz <- 2^24

# Cell blocks of about `target` non-zeros of a file whose indptr is given:
# block b is cells starts[b] .. ends[b] (1-based).
cell_blocks <- function(indptr, target) {
  n_cells <- length(indptr) - 1L
  nnz <- indptr[[n_cells + 1L]]
  cuts <- if (target < nnz) seq(target, nnz, by = target) else numeric(0)
  ends <- unique(c(findInterval(cuts, indptr[-1L]), n_cells))
  ends <- ends[ends > 0L]
  list(starts = c(1L, head(ends, -1L) + 1L), ends = ends)
}
read_indptr <- function(fid) {
  as.numeric(h5read(fid, dsn("indptr"), bit64conversion = "double"))
}

switch(part,
  read = {
    times <- cpus <- numeric(reps)
    for (r in seq_len(reps)) {
      t0 <- el(); c0 <- cpu()
      fid <- H5Fopen(file, flags = "H5F_ACC_RDONLY")
      indptr <- read_indptr(fid)
      bl <- cell_blocks(indptr, block_nnz)
      tot <- 0
      for (b in seq_along(bl$ends)) {
        from <- indptr[[bl$starts[[b]]]]; to <- indptr[[bl$ends[[b]] + 1L]]
        if (to > from) {
          x <- h5read(fid, dsn("data"), start = from + 1, count = to - from)
          i <- h5read(fid, dsn("indices"), start = from + 1, count = to - from,
                      bit64conversion = "int")
          tot <- tot + length(x) + length(i)
        }
      }
      H5Fclose(fid)
      times[r] <- el() - t0; cpus[r] <- cpu() - c0
    }
    best <- which.min(times)
    result(seconds = times[[best]], cpu_s = cpus[[best]],
           runs = paste(round(times, 2), collapse = "/"), nnz = tot / 2,
           blocks = length(bl$ends), block_nnz = block_nnz)
  },
  kmreduce = {
    suppressPackageStartupMessages(library(kmreduce))
    dims <- env_int("ATLAS_DIMS", 50L)
    n_init <- env_int("ATLAS_N_INIT", 1L)
    n_threads <- env_int("ATLAS_THREADS", 2L)
    iter_max <- env_int("ATLAS_ITER_MAX", 100L)
    algorithm <- if (nzchar(Sys.getenv("ATLAS_ALGORITHM"))) Sys.getenv("ATLAS_ALGORITHM")
    api <- exists("kmeans_reduced.SummarizedExperiment", envir = asNamespace("kmreduce"),
                  inherits = FALSE) && Sys.getenv("ATLAS_PATH") != "in_memory" 
    if (api) {
      suppressPackageStartupMessages({
        library(HDF5Array)
        library(SingleCellExperiment)
      })
      t0 <- el(); c0 <- cpu()
      sce <- SingleCellExperiment(list(counts = TENxMatrix(file, group)))
      fit <- kmeans_reduced(sce, k, assay = "counts", normalize = "log1p_cpm",
                            method = "sparse_embedding", dims = dims, n_init = n_init,
                            iter_max = iter_max, seed = 1L, n_threads = n_threads,
                            algorithm = algorithm,
                            verbose = Sys.getenv("ATLAS_VERBOSE") != "")
      cl <- fit$cluster
      sec <- el() - t0; cpu_s <- cpu() - c0
      path <- "sce_tenx"
    } else {
      t0 <- el(); c0 <- cpu()
      fid <- H5Fopen(file, flags = "H5F_ACC_RDONLY")
      indptr <- read_indptr(fid)
      shape <- h5read(fid, dsn("shape"))
      x <- h5read(fid, dsn("data")); i <- h5read(fid, dsn("indices"), bit64conversion = "int")
      H5Fclose(fid)
      m <- new("dgCMatrix", i = as.integer(i), p = as.integer(indptr), x = as.double(x),
               Dim = c(as.integer(shape[[1L]]), as.integer(shape[[2L]])))
      rm(x, i)
      lib <- Matrix::colSums(m)
      m@x <- log1p(m@x / rep(lib, diff(m@p)) * 1e6)
      y <- t(m)                                # cells x genes, log1p-CPM
      rm(m)
      fit <- kmeans_reduced(y, k, method = "sparse_embedding", dims = dims, n_init = n_init,
                            iter_max = iter_max, seed = 1L, n_threads = n_threads,
                            algorithm = algorithm)
      cl <- fit$cluster
      sec <- el() - t0; cpu_s <- cpu() - c0
      path <- "in_memory"
    }
    saveRDS(as.integer(cl), labels_file("kmreduce"))
    tm <- fit$timing
    result(path = path, seconds = sec, cpu_s = cpu_s, dims = fit$dims, n_init = n_init,
           n_threads = n_threads, iter = sum(fit$iter),
           reduce_s = if (!is.null(tm[["reduce"]])) tm[["reduce"]] else NA,
           cluster_s = if (!is.null(tm[["cluster"]])) tm[["cluster"]] else NA,
           n = length(cl))
  },
  mbkmeans = {
    suppressPackageStartupMessages({ library(HDF5Array); library(mbkmeans) })
    t0 <- el(); c0 <- cpu()
    X <- TENxMatrix(file, group)
    # library sizes (a block pass of DelayedArray), then the delayed
    # log-normalisation (log1p of counts per million), cells as columns
    lib <- DelayedArray::colSums(X)
    Y <- log1p(t(t(X) / lib) * 1e6)
    lib_s <- el() - t0
    result(step = "library_sizes", seconds = lib_s, cpu_s = cpu() - c0)
    set.seed(1)
    t1 <- el()
    fit <- mbkmeans(Y, clusters = k)          # documented defaults otherwise
    sec <- el() - t0; cpu_s <- cpu() - c0
    saveRDS(as.integer(fit$Clusters), labels_file("mbkmeans"))
    result(seconds = sec, cpu_s = cpu_s, mbkmeans_s = el() - t1, lib_s = lib_s, k = k,
           n = length(fit$Clusters))
  },
  score = {
    truth <- readRDS(paste0(file, ".labels.rds"))$labels
    parts <- list(planted = truth)
    methods <- strsplit(trimws(Sys.getenv("ATLAS_SCORE_METHODS", "kmreduce mbkmeans")), " +")[[1L]]
    normalize <- Sys.getenv("ATLAS_SCORE_NORMALIZE", "log1p_cpm")
    if (!(normalize %in% c("log1p_cpm", "log1p_cp10k", "log1p_size_factors")))
      stop("ATLAS_SCORE_NORMALIZE: log1p_cpm, log1p_cp10k or log1p_size_factors, not ",
           normalize, call. = FALSE)
    for (m in methods) {
      f <- labels_file(m)
      if (file.exists(f) && file.mtime(f) >= file.mtime(file)) parts[[m]] <- readRDS(f)
    }
    t0 <- el()
    fid <- H5Fopen(file, flags = "H5F_ACC_RDONLY")
    indptr <- read_indptr(fid)
    shape <- h5read(fid, dsn("shape"))
    n_genes <- as.integer(shape[[1L]]); n_cells <- length(indptr) - 1L
    for (m in names(parts)) {
      if (length(parts[[m]]) != n_cells)
        stop(sprintf("%s: %d labels for %d cells", m, length(parts[[m]]), n_cells), call. = FALSE)
      parts[[m]] <- as.integer(factor(parts[[m]]))
    }
    sums <- lapply(parts, function(cl) matrix(0, n_genes, max(cl)))
    ss <- 0
    bl <- cell_blocks(indptr, block_nnz)
    # the scale t of log1p(x / lib * t): for size factors (library sizes
    # divided by their mean), the mean library size of all cells, known only
    # after a pass over the counts (`data` alone)
    target <- switch(normalize, log1p_cpm = 1e6, log1p_cp10k = 1e4, log1p_size_factors = {
      lib_all <- numeric(n_cells)
      for (b in seq_along(bl$ends)) {
        s <- bl$starts[[b]]; e <- bl$ends[[b]]
        from <- indptr[[s]]; to <- indptr[[e + 1L]]
        if (to > from) {
          x <- as.double(h5read(fid, dsn("data"), start = from + 1, count = to - from))
          cs <- c(0, cumsum(x))              # (sums of counts: exact in double)
          lib_all[s:e] <- cs[indptr[(s + 1L):(e + 1L)] - from + 1] - cs[indptr[s:e] - from + 1]
        }
      }
      if (sum(lib_all) > 0) mean(lib_all) else 1
    })
    lib_s <- el() - t0
    for (b in seq_along(bl$ends)) {
      s <- bl$starts[[b]]; e <- bl$ends[[b]]
      from <- indptr[[s]]; to <- indptr[[e + 1L]]
      x <- if (to > from) h5read(fid, dsn("data"), start = from + 1, count = to - from) else integer()
      i <- if (to > from) h5read(fid, dsn("indices"), start = from + 1, count = to - from,
                                 bit64conversion = "int") else integer()
      blk <- new("dgCMatrix", i = as.integer(i), p = as.integer(indptr[s:(e + 1L)] - from),
                 x = as.double(x), Dim = c(n_genes, as.integer(e - s + 1L)))
      lib <- Matrix::colSums(blk)
      blk@x <- log1p(blk@x / rep(lib, diff(blk@p)) * target)
      ss <- ss + sum(blk@x^2)
      for (m in names(parts)) {
        cl <- parts[[m]][s:e]
        ind <- sparseMatrix(i = seq_along(cl), j = cl, x = 1, dims = c(length(cl), ncol(sums[[m]])))
        sums[[m]] <- sums[[m]] + as.matrix(blk %*% ind)
      }
    }
    H5Fclose(fid)
    # WCSS = sum ||y_i||^2 - sum_c ||S_c||^2 / n_c, S_c the cluster sums
    for (m in names(parts)) {
      n_c <- tabulate(parts[[m]], ncol(sums[[m]]))
      w <- ss - sum(colSums(sums[[m]]^2)[n_c > 0] / n_c[n_c > 0])
      result(method = m, wcss = w, ari = kmreduce::adjusted_rand_index(parts[[m]], truth),
             clusters = sum(n_c > 0), normalize = normalize, target = target,
             seconds = el() - t0, library_pass_s = lib_s)
    }
  },
  stop("unknown part: ", part, call. = FALSE)
)
