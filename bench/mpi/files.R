# One fit of a 10x HDF5 file's cells (log1p-CPM, sparse_embedding), either
# in one process (the SingleCellExperiment method) or, under mpirun, with
# each rank reading its own consecutive range of the cells
# (mpi_rows(t(TENxMatrix)[cells, ])). Prints elapsed seconds and the fit's
# phases; saves the labels (of all ranks, stacked) to OUT.
#   Rscript bench/mpi/files.R one FILE K DIMS N_INIT THREADS OUT
#   mpirun -np P Rscript bench/mpi/files.R mpi FILE K DIMS N_INIT THREADS OUT
# (bench/mpi/files.sh runs both and compares.)
args <- commandArgs(TRUE)
mode <- args[1]
file <- args[2]
k <- as.integer(args[3])
dims <- as.integer(args[4])
n_init <- as.integer(args[5])
threads <- as.integer(args[6])
out <- args[7]
suppressPackageStartupMessages({
  library(kmreduce)
  library(HDF5Array)
})
rhdf5::h5errorHandling("normal")
group <- rhdf5::h5ls(file, recursive = FALSE)$name[1L]
tenx <- TENxMatrix(file, group)
fit_args <- list(k = k, method = "sparse_embedding", dims = dims, n_init = n_init, seed = 1,
                 n_threads = threads)
if (mode == "one") {
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = tenx))
  t0 <- proc.time()[["elapsed"]]
  fit <- do.call(kmeans_reduced, c(list(se, normalize = "log1p_cpm"), fit_args))
  el <- proc.time()[["elapsed"]] - t0
  cat(sprintf("one process, %d thread(s): %.1f s elapsed (reduce %.1f, cluster %.1f), WCSS %.6e\n",
              threads, el, fit$timing[["reduce"]], fit$timing[["cluster"]], fit$tot.withinss))
  saveRDS(unname(fit$cluster), out)
} else {
  suppressPackageStartupMessages(library(pbdMPI))
  init()
  cells <- get.jid(ncol(tenx))
  barrier()
  t0 <- proc.time()[["elapsed"]]
  x <- mpi_rows(t(tenx)[cells, ], normalize = "log1p_cpm")
  fit <- do.call(kmeans_reduced, c(list(x), fit_args))
  el <- proc.time()[["elapsed"]] - t0
  labels <- unlist(allgather(unname(fit$cluster)))
  els <- unlist(allgather(el))
  if (comm.rank() == 0L) {
    cat(sprintf("%d ranks, %d thread(s) each, cells %s: %.1f s elapsed (slowest rank; reduce %.1f, cluster %.1f on rank 0), WCSS %.6e\n",
                comm.size(), threads, paste(unlist(allgather(length(cells))), collapse = " + "),
                max(els), fit$timing[["reduce"]], fit$timing[["cluster"]], fit$tot.withinss))
    saveRDS(labels, out)
  } else {
    invisible(allgather(length(cells)))
  }
  finalize()
}
