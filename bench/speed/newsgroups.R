# Sparse input (issue 4, goal 5): 20 Newsgroups word counts from CRAN `lda`
# 1.4.2 (train + test: 18774 documents x 61188 words, 20 classes), as a
# dgCMatrix. Compares, side by side in one run:
#   * the sparse embedding alone (reduce_dims(method = "sparse_embedding"))
#     with one pass over the nonzeros (a sparse matrix-vector product
#     x %*% v, which reads every nonzero once);
#   * scikit-learn SparseRandomProjection(100) on the same CSR matrix;
#   * the whole pipeline kmeans_reduced(method = "sparse_embedding", dims =
#     100, k = 20, n_init = 1) with SparseRandomProjection(100) + KMeans.
# Run: OMP_NUM_THREADS=t R_LIBS=.Rlib Rscript bench/speed/newsgroups.R t
# (lda 1.4.2: bench/peers/install-peers.sh). Prints markdown.
source("bench/common.R")
threads <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 1L
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
if (!requireNamespace("lda", quietly = TRUE)) stop("bench/speed/newsgroups.R needs CRAN lda 1.4.2 (bench/peers/install-peers.sh)")

# Seconds per call: best of `reps` timings of `inner` calls each (the fast
# steps take milliseconds, below the resolution of one timing).
best_of <- function(f, reps = 5, inner = 1) {
  t <- Inf
  for (r in seq_len(reps)) {
    s <- system.time(for (i in seq_len(inner)) out <- f())[["elapsed"]] / inner
    t <- min(t, s)
  }
  list(t = t, out = out)
}

ng <- load_newsgroups()
x <- ng$x
k <- 20L
v <- rnorm(ncol(x))
pass <- best_of(function() as.vector(x %*% v), inner = 50)
emb <- best_of(function() reduce_dims(x, dims = 100, method = "sparse_embedding", seed = 1,
                                      n_threads = threads), inner = 20)
kernel <- best_of(function() kmreduce:::project_cpp(x, kmreduce:::reduce_options("sparse_embedding", 100, 1, threads)),
                  inner = 20)
fit <- best_of(function() kmeans_reduced(x, k, method = "sparse_embedding", dims = 100,
                                         n_init = 1, seed = 1, n_threads = threads), reps = 3)
dir <- tempfile()
dir.create(dir)
writeBin(as.integer(x@p), file.path(dir, "p.bin"))
writeBin(as.integer(x@i), file.path(dir, "i.bin"))
writeBin(as.double(x@x), file.path(dir, "x.bin"))
writeBin(as.integer(ng$truth), file.path(dir, "truth.bin"))
py <- system2(python, c("bench/peers/sklearn_sparse.py", dir, nrow(x), ncol(x), k), stdout = TRUE)
unlink(dir, recursive = TRUE)
sk <- list()
for (line in py) {
  p <- strsplit(line, " ")[[1]]
  sk[[p[1]]] <- as.numeric(p[-1])
}

cat(sprintf("## 20 Newsgroups, sparse (`bench/speed/newsgroups.R`), %d thread(s)\n\n", threads))
cat(sprintf("%s; %s; OpenMP/OpenBLAS threads: %d; best of 5 timings (of 50 or 20 calls for the single passes; pipelines: best of 3).\n",
            format(Sys.Date()), machine_info(), threads))
cat(sprintf("Data: CRAN lda 1.4.2 newsgroup train + test word counts, %d x %d, %d nonzeros (%.2f %%), %d classes.\n\n",
            nrow(x), ncol(x), length(x@x), 100 * length(x@x) / prod(dim(x)), nlevels(ng$truth)))
cat("| run | seconds | objective | accuracy |\n|---|---|---|---|\n")
cat(sprintf("| one pass over the nonzeros (x %%*%% v, Matrix) | %.5f | | |\n", pass$t))
cat(sprintf("| kmreduce sparse embedding, dims 100 (reduce_dims) | %.5f | | |\n", emb$t))
cat(sprintf("| the same, C++ kernel alone (no argument checks, no dimnames) | %.5f | | |\n", kernel$t))
cat(sprintf("| scikit-learn SparseRandomProjection(100) (CSR) | %.4f | | |\n", sk$sklearn_srp100[1]))
cat(sprintf("| kmreduce kmeans_reduced(sparse_embedding, dims 100) | %.4f | %.6g | %.3f |\n",
            fit$t, fit$out$tot.withinss, cluster_accuracy(fit$out$cluster, ng$truth)))
cat(sprintf("| scikit-learn SparseRandomProjection(100) + KMeans | %.4f | %.6g | %.3f |\n\n",
            sk$sklearn_srp100_kmeans[1], sk$sklearn_srp100_kmeans[2],
            sk$sklearn_srp100_kmeans[3]))
cat(sprintf("- sparse embedding: %.2f of the speed of one pass over the nonzeros (kernel alone %.2f); %.2fx faster than SparseRandomProjection(100)\n",
            pass$t / emb$t, pass$t / kernel$t, sk$sklearn_srp100[1] / emb$t))
cat(sprintf("- pipeline vs SparseRandomProjection(100) + KMeans: %.2fx faster (objective ratio %.4f)\n",
            sk$sklearn_srp100_kmeans[1] / fit$t, fit$out$tot.withinss / sk$sklearn_srp100_kmeans[2]))
