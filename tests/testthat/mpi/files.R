# Run by test-mpi_rows.R as: mpirun -np 2 Rscript files.R OUT.rds FILE.h5
# Each rank reads its own range of the cells of one 10x HDF5 file
# (mpi_rows(t(TENxMatrix)[cells, ])); kmeans_reduced() must give the
# partition of one process on the whole file.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "common.R"))
file <- args[2]
m <- tenx(file)
n <- ncol(m)
cells <- if (rank == 0L) 1:250 else 251:n
k <- 3L
se <- SummarizedExperiment::SummarizedExperiment(list(counts = m))
run <- function(label, normalize, method, dims = 8, ..., local = t(tenx(file))[cells, ]) {
  single <- if (normalize == "none") {
    kmeans_reduced(t(m), k, method = method, dims = dims, n_init = 2, seed = 7,
                   normalize = "none", ...)
  } else {
    kmeans_reduced(se, k, method = method, dims = dims, n_init = 2, seed = 7,
                   normalize = normalize, ...)
  }
  x <- mpi_rows(local, normalize = normalize)
  fit <- kmeans_reduced(x, k, method = method, dims = dims, n_init = 2, seed = 7, ...)
  results[[label]] <<- c(compare_fits(fit, single, cells), list(
    source = class(kmreduce:::as_row_source(x)$local)[1L],
    names = identical(names(fit$cluster), names(single$cluster)[cells]),
    print = paste(utils::capture.output(print(x)), collapse = "\n"),
    refused = tryCatch(kmeans_objective(x, fit$cluster), error = conditionMessage),
    # dims = "auto": every size's fresh and warm runs (Lloyd from the best
    # partition so far) as one process
    auto = if (!is.null(single$dims_auto)) {
      cols <- c("dims", "objective", "fresh", "warm")
      a <- as.matrix(single$dims_auto[cols])
      b <- as.matrix(fit$dims_auto[cols])
      identical(dim(a), dim(b)) && identical(is.na(a), is.na(b)) &&
        max(abs(a - b) / abs(a), na.rm = TRUE) < 1e-10
    }))
}
run("sparse_embedding", "log1p_cpm", "sparse_embedding")
run("sign", "log1p_cpm", "sign")
run("refine", "log1p_cpm", "sparse_embedding", refine = 1)
run("blocks", "log1p_cpm", "sign", control = list(block_rows = 37), refine = 2)
run("gaussian/none", "none", "gaussian")
# (the settings of "rsvd" for cells, given to the distributed rows too)
run("rsvd", "log1p_cpm", "rsvd", dims = 3, control = list(svd_rows = Inf, eps = 1))
run("leverage", "log1p_cpm", "leverage", dims = 40)
run("auto", "log1p_cpm", "sparse_embedding", dims = "auto")
run("sce", "log1p_cpm", "sign", refine = 1, local = se[, cells])
# the replicates on sketches of the rows, and the SVD of a sample of the
# cells, both drawn across the ranks as one process draws them
run("sketch", "log1p_cpm", "sign", control = list(sketch_rows = 100))
run("svd_rows", "log1p_cpm", "rsvd", dims = 3, control = list(svd_rows = 200))
# The default call, as one process clusters the cells of the whole file or
# of the SummarizedExperiment: counts normalized by size factors centred
# over all the ranks' cells (library sizes, or the object's sizeFactors()),
# then the principal components of a sample of the cells (drawn over all
# the ranks: svd_rows below the cells) or of all of them.
run_default <- function(label, single, x, ...) {
  one <- suppressMessages(kmeans_reduced(single, k, seed = 7, ...))
  fit <- kmeans_reduced(suppressMessages(mpi_rows(x)), k, seed = 7, ...)
  results[[label]] <<- c(compare_fits(fit, one, cells), list(
    source = class(kmreduce:::as_row_source(mpi_rows(x))$local)[1L],
    names = identical(names(fit$cluster), names(one$cluster)[cells]),
    print = paste(utils::capture.output(print(mpi_rows(x))), collapse = "\n"),
    refused = tryCatch(kmeans_objective(mpi_rows(x), fit$cluster), error = conditionMessage),
    defaults = identical(fit$method, "rsvd") && identical(fit$dims, one$dims) &&
      identical(one$method, "rsvd"),
    input = identical(fit$input, one$input)))
}
run_default("default/tenx", t(m), t(tenx(file))[cells, ])
run_default("default/sce", se, se[, cells], control = list(svd_rows = 300))
sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m))
SingleCellExperiment::sizeFactors(sce) <- 3 * Matrix::colSums(methods::as(m, "dgCMatrix")) + 1
run_default("default/sizeFactors", sce, sce[, cells])
# not a range of a 10x file: in memory, read through DelayedArray, or bigmemory
run("memory", "log1p_cpm", "sparse_embedding", refine = 1,
    local = methods::as(t(tenx(file))[cells, ], "dgCMatrix"))
run("delayed", "log1p_cpm", "sparse_embedding", refine = 1, local = t(tenx(file))[cells, ] * 1)
if (requireNamespace("bigmemory", quietly = TRUE)) {
  run("big", "none", "gaussian", refine = 1,
      local = bigmemory::as.big.matrix(as.matrix(t(m)[cells, ]), type = "double"))
}
finish()
