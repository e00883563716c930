# Writes a synthetic single-cell count matrix in the 10x Genomics sparse HDF5
# layout (Cell Ranger 2: one group holding data, indices, indptr, shape,
# barcodes, genes, gene_names; genes x cells, compressed by cell), the layout
# HDF5Array::TENxMatrix() reads, with planted cell types, and saves the
# planted labels beside it.
#
#   Rscript bench/atlas/generate.R OUT.h5 [n_cells] [n_genes] [seed] [--verify]
#
# Defaults: 1300000 cells x 27998 genes (the shape of the 10x 1.3 million
# mouse brain cells), seed 1. The quick file: n_cells = 130000. The labels
# and the generating parameters go to OUT.h5 with ".labels.rds" appended.
# With --verify the file is read back with HDF5Array::TENxMatrix() and its
# column sums and non-zeros per cell are compared with what was written.
#
# Model. K types (25 to 40), of unequal sizes (proportions exp(N(0, 1)),
# normalised). Gene g has a base abundance exp(N(0, 1.8)) (scaled so that about
# `target_nnz` of the entries are non-zero) and a dispersion theta_g =
# exp(N(log 2, 0.5)); each type has a module of 100 to 300 genes, drawn from
# the 4000 most abundant, raised by a factor 2^U(2, 4). Cell c of type t has a library factor s_c =
# exp(N(0, 0.5)) * f_t (f_t = exp(N(0, 0.25)) per type). The count is
# X_cg ~ NB(mean = s_c * m_tg, size = theta_g), drawn exactly and sparsely:
# candidates of each chunk of cells are drawn with an upper bound of
# P(X > 0) per gene (one uniform per entry), thinned to the exact P(X > 0),
# and a non-zero count is drawn from the zero-truncated negative binomial by
# inversion. Cells are written in chunks of `chunk_cells`, so the memory
# stays near 2 * n_genes * chunk_cells doubles.
suppressPackageStartupMessages(library(rhdf5))

args <- commandArgs(trailingOnly = TRUE)
verify <- "--verify" %in% args
args <- setdiff(args, "--verify")
if (length(args) < 1L)
  stop("usage: generate.R OUT.h5 [n_cells] [n_genes] [seed] [--verify]", call. = FALSE)
out <- args[[1L]]
n_cells <- if (length(args) >= 2L) as.numeric(args[[2L]]) else 1300000
n_genes <- if (length(args) >= 3L) as.integer(args[[3L]]) else 27998L
seed <- if (length(args) >= 4L) as.integer(args[[4L]]) else 1L
group <- "mm10"            # the group name of the 10x 1.3M-cell file
target_nnz <- 0.02         # fraction of non-zero entries
chunk_cells <- 1000L       # cells generated per step
h5_chunk <- 262144L        # HDF5 chunk of data/indices (elements)
h5_level <- 4L             # gzip level (Cell Ranger writes gzip)

t0 <- proc.time()[["elapsed"]]
set.seed(seed)
K <- sample(25:40, 1L)
prop <- exp(rnorm(K))
prop <- prop / sum(prop)
type_factor <- exp(rnorm(K, 0, 0.25))
base <- exp(rnorm(n_genes, 0, 1.8))
theta <- exp(rnorm(n_genes, log(2), 0.5))
log_m <- matrix(rep(log(base), each = K), K, n_genes)   # K x G, log mean before scale
modules <- vector("list", K)
expressed <- order(base, decreasing = TRUE)[seq_len(min(n_genes, 4000L))]
for (t in seq_len(K)) {
  g <- sort(sample(expressed, min(length(expressed), sample(100:300, 1L))))
  modules[[t]] <- g
  log_m[t, g] <- log_m[t, g] + log(2) * runif(length(g), 2, 4)
}
p_pos <- function(mu, size) 1 - exp(size * (log(size) - log(size + mu)))  # P(X > 0)

# Scale the abundances so the expected fraction of non-zeros is target_nnz
# (expectation over the types and quantiles of the library factors).
s_sample <- exp(qnorm(ppoints(12), 0, 0.5))
frac_nnz <- function(log_scale) {
  tot <- 0
  for (t in seq_len(K)) {
    mu <- outer(exp(log_m[t, ] + log_scale), s_sample * type_factor[t])
    tot <- tot + prop[t] * mean(p_pos(mu, theta))
  }
  tot
}
log_scale <- uniroot(function(z) frac_nnz(z) - target_nnz, c(-30, 10), tol = 1e-4)$root
m <- exp(log_m + log_scale)                    # K x G means at s = 1
message(sprintf("model: %d types, scale found in %.1f s", K, proc.time()[["elapsed"]] - t0))
labels <- sample.int(K, n_cells, replace = TRUE, prob = prop)
s <- exp(rnorm(n_cells, 0, 0.5)) * type_factor[labels]
max_m <- apply(m, 2L, max)

# --- the file -------------------------------------------------------------
if (file.exists(out)) file.remove(out)
h5createFile(out)
h5createGroup(out, group)
ds <- function(x) paste0(group, "/", x)
h5createDataset(out, ds("data"), dims = 0, maxdims = H5Sunlimited(), chunk = h5_chunk,
                H5type = "H5T_STD_I32LE", level = h5_level)
h5createDataset(out, ds("indices"), dims = 0, maxdims = H5Sunlimited(), chunk = h5_chunk,
                H5type = "H5T_STD_I64LE", level = h5_level)
fid <- H5Fopen(out)
d_data <- H5Dopen(fid, ds("data"))
d_ind <- H5Dopen(fid, ds("indices"))

indptr <- numeric(n_cells + 1)
col_sums <- numeric(n_cells)
nnz <- 0
n_chunks <- ceiling(n_cells / chunk_cells)
for (ch in seq_len(n_chunks)) {
  cells <- ((ch - 1) * chunk_cells + 1):min(ch * chunk_cells, n_cells)
  n <- length(cells)
  s_c <- s[cells]
  lab <- labels[cells]
  # candidates: one uniform per (gene, cell), genes fastest, so which() is in
  # CSC order (by cell, genes ascending within a cell)
  qbar <- p_pos(max_m * max(s_c), theta)
  cand <- which(runif(n_genes * n) < qbar)        # qbar recycles over the cells
  g <- (cand - 1L) %% n_genes + 1L
  cc <- (cand - 1L) %/% n_genes + 1L
  mu <- m[cbind(lab[cc], g)] * s_c[cc]
  q <- p_pos(mu, theta[g])
  keep <- runif(length(cand)) < q / qbar[g]
  g <- g[keep]; cc <- cc[keep]; mu <- mu[keep]; q <- q[keep]
  # zero-truncated NB by inversion: U(P(X = 0), 1) through the quantile
  p0 <- 1 - q
  x <- qnbinom(p0 + runif(length(q)) * q, size = theta[g], mu = mu)
  x[x < 1] <- 1
  per_cell <- tabulate(cc, n)
  indptr[cells + 1] <- nnz + cumsum(per_cell)
  col_sums[cells] <- vapply(split(x, factor(cc, levels = seq_len(n))), sum, 0)
  if (length(x)) {
    new_n <- nnz + length(x)
    H5Dset_extent(d_data, new_n)
    H5Dset_extent(d_ind, new_n)
    h5writeDataset(as.integer(x), fid, ds("data"), start = nnz + 1, count = length(x))
    h5writeDataset(as.integer(g - 1L), fid, ds("indices"), start = nnz + 1, count = length(x))
    nnz <- new_n
  }
  if (ch %% 100L == 0L || ch == n_chunks)
    message(sprintf("%s: %d / %d cells, %.0f non-zeros (%.2f %%), %.0f s", basename(out),
                    max(cells), as.integer(n_cells), nnz,
                    100 * nnz / (as.numeric(n_genes) * max(cells)), proc.time()[["elapsed"]] - t0))
}
H5Dclose(d_data); H5Dclose(d_ind); H5Fclose(fid)

h5createDataset(out, ds("indptr"), dims = n_cells + 1, chunk = min(h5_chunk, n_cells + 1),
                H5type = "H5T_STD_I64LE", level = h5_level)
h5write(indptr, out, ds("indptr"))
h5createDataset(out, ds("shape"), dims = 2L, H5type = "H5T_STD_I32LE", chunk = 2L, level = 0L)
h5write(c(n_genes, as.integer(n_cells)), out, ds("shape"))
# barcodes like 10x's (16 bases, "-1"), one per cell; genes with Ensembl-like ids
idx <- seq_len(n_cells) - 1
bases <- matrix(c("A", "C", "G", "T")[(outer(idx, 4^(0:15), `%/%`) %% 4) + 1], ncol = 16)
barcodes <- paste0(do.call(paste0, as.data.frame(bases)), "-1")
rm(bases)
h5write(barcodes, out, ds("barcodes"))
h5write(sprintf("ENSMUSG%011d", seq_len(n_genes)), out, ds("genes"))
h5write(sprintf("Gene%d", seq_len(n_genes)), out, ds("gene_names"))
h5closeAll()
gen_s <- proc.time()[["elapsed"]] - t0

saveRDS(list(labels = labels, n_types = K, proportions = prop, library_factor = s,
             modules = modules, means = m, theta = theta, col_sums = col_sums,
             nnz_per_cell = diff(indptr), seed = seed, group = group,
             generate_seconds = gen_s),
        paste0(out, ".labels.rds"))
message(sprintf("wrote %s: %d genes x %.0f cells, %d types (sizes %d to %d), %.0f non-zeros (%.3f %%), %.2f GB, %.0f s",
                out, n_genes, n_cells, K, min(tabulate(labels, K)), max(tabulate(labels, K)),
                nnz, 100 * nnz / (n_genes * n_cells), file.size(out) / 1e9, gen_s))

if (verify) {
  suppressPackageStartupMessages(library(HDF5Array))
  t1 <- proc.time()[["elapsed"]]
  X <- TENxMatrix(out, group)
  stopifnot(identical(dim(X), c(n_genes, as.integer(n_cells))))
  # column sums and non-zeros per cell through DelayedArray's block machinery
  res <- blockApply(X, function(b) {
    b <- as(b, "dgCMatrix")
    rbind(Matrix::colSums(b), diff(b@p))
  }, grid = colAutoGrid(X, ncol = min(10000L, ncol(X))))
  res <- do.call(cbind, res)
  ok_sum <- identical(unname(res[1, ]), col_sums)
  ok_nnz <- identical(unname(as.numeric(res[2, ])), as.numeric(diff(indptr)))
  message(sprintf("verify (TENxMatrix + blockApply, %.0f s): column sums %s, non-zeros per cell %s, total %.0f",
                  proc.time()[["elapsed"]] - t1, if (ok_sum) "match" else "DIFFER",
                  if (ok_nnz) "match" else "DIFFER", sum(res[2, ])))
  if (!ok_sum || !ok_nnz) quit(status = 1)
}
