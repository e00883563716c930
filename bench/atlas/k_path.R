# k_path() at atlas scale on one 10x-layout (TENx) HDF5 file of
# generate.R (its planted labels in FILE.labels.rds), in one process:
#
#   Rscript bench/atlas/k_path.R FILE [k_from] [k_to] [threads] [k_fit] [B]
#
# 1. one default kmeans_reduced(sce, k_fit) (k_fit default 25), timed from
#    the TENxMatrix() call, and its ARI to the planted types;
# 2. k_path(sce, k = k_from:k_to) with nothing else set but `seed`,
#    `n_threads` and `trace` (B from the 6th argument, default 20), timed
#    alike: the k chosen by each rule against the planted number, the ARI of
#    the fit at the chosen k, and the time of each stage (reduction, path on
#    the sample, fit of the chosen k to every cell).
# The ratio of 2 to 1 is the issue's target (at most 5). Peak memory: run it
# under /usr/bin/time -v (the maximum resident set size of the process).
# Needs HDF5Array, SingleCellExperiment, rhdf5 and kmreduce in R_LIBS. It
# asserts nothing.
suppressPackageStartupMessages({
  library(kmreduce)
  library(SingleCellExperiment)
})
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1L) stop("usage: k_path.R FILE [k_from] [k_to] [threads] [k_fit] [B]", call. = FALSE)
file <- normalizePath(args[[1L]], mustWork = TRUE)
num <- function(i, default) if (length(args) >= i) as.numeric(args[[i]]) else default
k <- num(2, 5):num(3, 40)
threads <- num(4, 2)
k_fit <- num(5, 25)
B <- num(6, 20)
planted <- readRDS(paste0(file, ".labels.rds"))
truth <- if (is.list(planted)) planted$labels else planted
cat(sprintf("machine: %s, %d cores; BLAS %s; threads %d; load %s\n",
            sub("^model name\\s*:\\s*", "", grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1L]),
            parallel::detectCores(), basename(extSoftVersion()[["BLAS"]]), threads,
            paste(readLines("/proc/loadavg"), collapse = "")))
cat(sprintf("file %s: planted types %d\n", basename(file), length(unique(truth))))

sce_of <- function() {
  rhdf5::h5errorHandling("normal")
  SingleCellExperiment(list(counts = HDF5Array::TENxMatrix(file, "mm10")))
}
t0 <- proc.time()[["elapsed"]]
fit <- suppressMessages(kmeans_reduced(sce_of(), k_fit, seed = 1, n_threads = threads))
t_fit <- proc.time()[["elapsed"]] - t0
cat(sprintf("RESULT fit k=%d seconds=%.1f ari=%.4f\n", k_fit, t_fit,
            adjusted_rand_index(fit$cluster, truth)))
rm(fit)
invisible(gc())

t0 <- proc.time()[["elapsed"]]
path <- suppressMessages(k_path(sce_of(), k = k, B = B, seed = 1, n_threads = threads,
                                trace = TRUE, verbose = FALSE))
t_path <- proc.time()[["elapsed"]] - t0
print(path)
ch <- path$chosen
cat(sprintf(paste0("RESULT k_path k=%d..%d B=%d rows=%d seconds=%.1f ratio=%.2f reduce=%.1f ",
                   "planted=%d gap_firstSEmax=%s gap_Tibs2001SEmax=%s silhouette=%s ari_fit=%s\n"),
            min(k), max(k), B, path$path_rows, t_path, t_path / t_fit, path$timing[["reduce"]],
            length(unique(truth)), ch[["gap_firstSEmax"]], ch[["gap_Tibs2001SEmax"]],
            ch[["silhouette"]],
            if (is.null(path$fit)) "NA" else sprintf("%.4f", adjusted_rand_index(path$fit$cluster, truth))))
