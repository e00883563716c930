# Sourced first by every MPI job script here (run by test-mpi_rows.R as
# mpirun -np P Rscript SCRIPT.R OUT.rds [FILE]): pbdMPI started, the
# arguments, this rank, and the ways the scripts record their results,
# which rank 0 saves in OUT.rds (finish()).
suppressPackageStartupMessages({
  library(pbdMPI)
  library(kmreduce)
})
init()
args <- commandArgs(TRUE)
out_file <- args[1]
rank <- comm.rank()
size <- comm.size()
last <- size - 1L
results <- list()

# A call that should fail on every rank: each rank's message (or "no
# error"), gathered.
case <- function(label, expr) {
  msg <- tryCatch({
    force(expr)
    "no error"
  }, error = function(e) conditionMessage(e))
  results[[label]] <<- unlist(allgather(msg))
}

# A difference relative to a reference value (0 where both are 0).
relative <- function(diff, ref) if (diff == 0) 0 else diff / abs(ref)

# A distributed fit against one process's fit of all the rows (`rows`:
# this rank's).
compare_fits <- function(fit, single, rows) {
  all_cluster <- unlist(allgather(unname(fit$cluster)))
  spread <- allreduce(max(abs(fit$centers)), op = "max") -
    allreduce(max(abs(fit$centers)), op = "min")
  list(
    identical_labels = identical(all_cluster, unname(single$cluster)),
    same_partition = all(rowSums(table(all_cluster, single$cluster) > 0) == 1L),
    centers = relative(max(abs(fit$centers - single$centers)), max(abs(single$centers))),
    objective = relative(abs(fit$tot.withinss - single$tot.withinss), single$tot.withinss),
    totss = relative(abs(fit$totss - single$totss), single$totss),
    size = identical(fit$size, single$size),
    ranks_agree = spread == 0,
    local_rows = length(fit$cluster) == length(rows))
}

# The 10x file of the file jobs (see tenx_matrix() in helper-hdf5.R).
tenx <- function(file) {
  rhdf5::h5errorHandling("normal")
  HDF5Array::TENxMatrix(file, "mm10")
}

finish <- function() {
  if (rank == 0L) saveRDS(results, out_file)
  finalize()
}
