# Writes a 10x-layout (TENx) file made of n copies of the cells of a file
# written by generate.R (the same layout, chunks and compression; barcodes
# made unique with a copy suffix), with the planted labels repeated beside
# it: an atlas-shaped file of n times the cells for time and memory
# measurements when the full-size file is not available. Its cells repeat:
# the clustering problem is the original one with each cell counted n times.
#
#   Rscript bench/atlas/replicate.R IN.h5 n_copies OUT.h5
suppressPackageStartupMessages(library(rhdf5))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 3L) stop("usage: replicate.R IN.h5 n_copies OUT.h5", call. = FALSE)
inp <- args[[1L]]; copies <- as.integer(args[[2L]]); out <- args[[3L]]
group <- "mm10"
ds <- function(x) paste0(group, "/", x)
t0 <- proc.time()[["elapsed"]]
indptr <- as.numeric(h5read(inp, ds("indptr"), bit64conversion = "double"))
shape <- h5read(inp, ds("shape"))
n <- length(indptr) - 1L
nnz <- indptr[[n + 1L]]
x <- h5read(inp, ds("data"))
i <- h5read(inp, ds("indices"), bit64conversion = "double")
if (file.exists(out)) file.remove(out)
h5createFile(out)
h5createGroup(out, group)
h5_chunk <- 262144L
h5createDataset(out, ds("data"), dims = nnz * copies, chunk = h5_chunk,
                H5type = "H5T_STD_I32LE", level = 4L)
h5createDataset(out, ds("indices"), dims = nnz * copies, chunk = h5_chunk,
                H5type = "H5T_STD_I64LE", level = 4L)
fid <- H5Fopen(out)
for (r in seq_len(copies)) {
  h5writeDataset(x, fid, ds("data"), start = (r - 1) * nnz + 1, count = nnz)
  h5writeDataset(i, fid, ds("indices"), start = (r - 1) * nnz + 1, count = nnz)
  message(sprintf("copy %d / %d written, %.0f s", r, copies, proc.time()[["elapsed"]] - t0))
}
H5Fclose(fid)
rm(x, i)
all_ptr <- c(0, as.vector(outer(indptr[-1L], (seq_len(copies) - 1) * nnz, `+`)))
h5createDataset(out, ds("indptr"), dims = length(all_ptr), chunk = h5_chunk,
                H5type = "H5T_STD_I64LE", level = 4L)
h5write(all_ptr, out, ds("indptr"))
h5createDataset(out, ds("shape"), dims = 2L, H5type = "H5T_STD_I32LE", chunk = 2L, level = 0L)
h5write(c(as.integer(shape[[1L]]), as.integer(n * copies)), out, ds("shape"))
bc <- h5read(inp, ds("barcodes"))
h5write(as.vector(outer(sub("-1$", "", bc), seq_len(copies), paste, sep = "-")), out, ds("barcodes"))
h5write(h5read(inp, ds("genes")), out, ds("genes"))
h5write(h5read(inp, ds("gene_names")), out, ds("gene_names"))
h5closeAll()
lab <- readRDS(paste0(inp, ".labels.rds"))
for (f in c("labels", "library_factor", "col_sums", "nnz_per_cell")) lab[[f]] <- rep(lab[[f]], copies)
lab$replicate_of <- basename(inp)
lab$copies <- copies
saveRDS(lab, paste0(out, ".labels.rds"))
message(sprintf("wrote %s: %d copies of %s, %d cells, %.0f non-zeros, %.2f GB, %.0f s", out, copies,
                basename(inp), n * copies, nnz * copies, file.size(out) / 1e9,
                proc.time()[["elapsed"]] - t0))
