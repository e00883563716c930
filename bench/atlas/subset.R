# Writes the first n cells of a 10x-layout (TENx) file written by generate.R
# as a file of the same layout (the same chunking and compression), with its
# planted labels beside it: a smaller file of the same generator and the
# same cells, where peers that cannot finish on the whole file can be
# compared.
#
#   Rscript bench/atlas/subset.R IN.h5 n_cells OUT.h5
suppressPackageStartupMessages(library(rhdf5))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 3L) stop("usage: subset.R IN.h5 n_cells OUT.h5", call. = FALSE)
inp <- args[[1L]]; n <- as.integer(args[[2L]]); out <- args[[3L]]
group <- "mm10"
ds <- function(x) paste0(group, "/", x)
indptr <- as.numeric(h5read(inp, ds("indptr"), bit64conversion = "double"))
shape <- h5read(inp, ds("shape"))
stopifnot(n >= 1L, n <= shape[[2L]])
nnz <- indptr[[n + 1L]]
if (file.exists(out)) file.remove(out)
h5createFile(out)
h5createGroup(out, group)
h5_chunk <- 262144L
h5createDataset(out, ds("data"), dims = nnz, chunk = min(h5_chunk, nnz),
                H5type = "H5T_STD_I32LE", level = 4L)
h5createDataset(out, ds("indices"), dims = nnz, chunk = min(h5_chunk, nnz),
                H5type = "H5T_STD_I64LE", level = 4L)
h5write(h5read(inp, ds("data"), start = 1, count = nnz), out, ds("data"))
h5write(h5read(inp, ds("indices"), start = 1, count = nnz, bit64conversion = "double"),
        out, ds("indices"))
h5createDataset(out, ds("indptr"), dims = n + 1, chunk = min(h5_chunk, n + 1),
                H5type = "H5T_STD_I64LE", level = 4L)
h5write(indptr[seq_len(n + 1L)], out, ds("indptr"))
h5createDataset(out, ds("shape"), dims = 2L, H5type = "H5T_STD_I32LE", chunk = 2L, level = 0L)
h5write(c(as.integer(shape[[1L]]), n), out, ds("shape"))
h5write(h5read(inp, ds("barcodes"))[seq_len(n)], out, ds("barcodes"))
h5write(h5read(inp, ds("genes")), out, ds("genes"))
h5write(h5read(inp, ds("gene_names")), out, ds("gene_names"))
h5closeAll()
lab <- readRDS(paste0(inp, ".labels.rds"))
keep <- seq_len(n)
lab$labels <- lab$labels[keep]
lab$library_factor <- lab$library_factor[keep]
lab$col_sums <- lab$col_sums[keep]
lab$nnz_per_cell <- lab$nnz_per_cell[keep]
lab$subset_of <- basename(inp)
saveRDS(lab, paste0(out, ".labels.rds"))
message(sprintf("wrote %s: the first %d cells of %s, %.0f non-zeros, %.1f MB", out, n,
                basename(inp), nnz, file.size(out) / 1e6))
