# Run by test-mpi_rows.R as: mpirun -np P Rscript files_errors.R OUT.rds FILE.h5
# A rank whose file is missing, whose cell range is out of bounds, or whose
# call differs: every rank must stop with the same clear error (no rank left
# waiting in a collective step), and the session goes on.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "common.R"))
file <- args[2]
n <- ncol(tenx(file))
cells <- split(seq_len(n), cut(seq_len(n), size, labels = FALSE))[[rank + 1L]]
missing <- file.path(dirname(file), "no-such-file.h5")
case("missing file", mpi_rows(t(tenx(if (rank == last) missing else file))[cells, ],
                              normalize = "log1p_cpm"))
case("out of range", mpi_rows(t(tenx(file))[if (rank == last) cells + 1L else cells, ]))
case("normalize differs", mpi_rows(t(tenx(file))[cells, ],
                                   normalize = if (rank == last) "none" else "log1p_cpm"))
se <- SummarizedExperiment::SummarizedExperiment(list(counts = tenx(file)))
case("assay differs", mpi_rows(se[, cells], assay = if (rank == last) 1L else "counts"))
case("mix", mpi_rows(if (rank == last) as.matrix(t(tenx(file))[cells, ]) else t(tenx(file))[cells, ]))
x <- mpi_rows(t(tenx(file))[cells, ], normalize = "log1p_cpm")
case("none on blocks", kmeans_reduced(x, 3, method = "none", seed = 1))
case("k differs", kmeans_reduced(x, 3 + (rank == last), seed = 1))
fit <- kmeans_reduced(x, 3, seed = 1)
results[["after"]] <- unlist(allgather(length(fit$cluster) == length(cells)))
finish()
