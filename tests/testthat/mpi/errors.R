# Run by test-mpi_rows.R as: mpirun -np P Rscript errors.R OUT.rds
# User errors on some MPI ranks: every rank must stop with the same clear
# error (no rank left waiting in a collective step), and the session goes
# on (a correct call afterwards works).
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "common.R"))
set.seed(1)
n <- 90L
x <- matrix(rnorm(n * 4), n, 4) + rep(c(0, 6, 12), length.out = n)
colnames(x) <- paste0("v", 1:4)
rows <- split(seq_len(n), rep(seq_len(size), length.out = n))[[rank + 1L]]
local <- x[rows, , drop = FALSE]
case("zero rows", mpi_rows(if (rank == last) local[0, , drop = FALSE] else local))
case("NA", mpi_rows(if (rank == last) { y <- local; y[2, 3] <- NA; y } else local))
case("column names", mpi_rows(if (rank == last) unname(local) else local))
xm <- mpi_rows(local)
case("k differs", kmeans_reduced(xm, 3 + (rank == last), seed = 1))
case("method differs", kmeans_reduced(xm, 3, method = if (rank == last) "sign" else "gaussian",
                                      dims = 2, seed = 1))
case("bad k on one rank", kmeans_reduced(xm, if (rank == last) 0 else 3, seed = 1))
case("control differs", kmeans_reduced(xm, 3, seed = 1,
                                       control = list(tol = if (rank == last) 1e-3 else 0)))
case("seed policy differs", kmeans_reduced(xm, 3, seed = if (rank == last) NULL else 5))
case("bad method everywhere", kmeans_reduced(xm, 3, method = "cssp", dims = 2))
case("minibatch", kmeans_reduced(xm, 3, algorithm = "minibatch"))
fit <- kmeans_reduced(xm, 3, seed = 1)
results[["after"]] <- unlist(allgather(length(fit$cluster) == length(rows)))
finish()
