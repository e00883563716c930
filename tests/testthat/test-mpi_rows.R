# mpi_rows(): kmeans_reduced() across MPI ranks (pbdMPI) gives the partition
# of one process on the stacked matrix. Runs mpirun -np 2 when MPI and
# pbdMPI are installed; skipped otherwise.

# An error job's cases (case() in mpi/common.R): on each of the np ranks the
# same message, matching `expect[[case]]`.
expect_same_error_everywhere <- function(res, expect, np) {
  for (case in names(expect)) {
    msg <- res[[case]]
    expect_length(msg, np)
    expect_length(unique(msg), 1L)
    expect_match(msg[1L], expect[[case]], info = sprintf("%d ranks, %s", np, case))
  }
}

# A job's comparison of a distributed fit with one process's
# (compare_fits() in mpi/common.R).
expect_fit_of_one_process <- function(r, m) {
  expect_true(r$same_partition, info = m)
  expect_true(r$size, info = m)
  expect_lt(r$centers, 1e-10)
  expect_lt(r$objective, 1e-10)
  expect_lt(r$totss, 1e-10)
  expect_true(r$ranks_agree, info = m)
  expect_true(r$local_rows, info = m)
}

test_that("kmeans_reduced() on 2 MPI ranks equals one process on the stacked rows", {
  skip_on_cran()
  # Not skip_if_not_installed(): loading pbdMPI here would make this process
  # an MPI singleton whose environment confuses the mpirun started below.
  skip_if(!nzchar(system.file(package = "pbdMPI")), "pbdMPI is not installed")
  mpirun <- Sys.which("mpirun")
  skip_if(!nzchar(mpirun), "mpirun not found")
  skip_if(.Platform$OS.type == "windows", "runs OpenMPI's mpirun in a POSIX environment")
  script <- test_path("mpi", "kmeans.R")
  out <- tempfile(fileext = ".rds")
  args <- c("-np", "2", "--oversubscribe",
            if (identical(unname(Sys.info()[["user"]]), "root")) "--allow-run-as-root",
            file.path(R.home("bin"), "Rscript"), script, out)
  libs <- paste(unique(c(dirname(system.file(package = "kmreduce")), .libPaths())),
                collapse = .Platform$path.sep)
  mpi_env <- grep("^(OMPI_|PMIX_)", names(Sys.getenv()), value = TRUE)
  env <- c(R_LIBS = libs, OMP_NUM_THREADS = "1",
           stats::setNames(rep(NA_character_, length(mpi_env)), mpi_env))
  log <- withr::with_envvar(env, suppressWarnings(
    system2(mpirun, args, stdout = TRUE, stderr = TRUE)))
  if (!file.exists(out)) fail(paste(c("mpirun wrote no result:", log), collapse = "\n"))
  res <- readRDS(out)
  # every method the registry runs on MPI, then sparse rows and refine
  mpi_methods <- kmreduce:::registered_methods(source = c("source_mpi", "row_source"))
  expect_named(res, c(mpi_methods, "sparse/sparse_embedding", "sparse/none",
                      "rsvd/rank-deficient", "refine",
                      "n_reductions", "k-means||", "single", "single/gaussian", "collapsed",
                      "far/none", "far/sign", "awkward/none", "awkward/refine", "sketch/none",
                      "sketch/sign", "sketch/k-means||", "svd_rows"))
  for (m in names(res)) {
    expect_fit_of_one_process(res[[m]], m)
  }
  for (m in c("far/none", "far/sign")) {
    expect_identical(res[[m]]$empty, 0L, info = m)
    expect_lt(res[[m]]$order, 1e-12)
  }
  # Projections and the original rows: the very same labels (single precision
  # too: each rank scales its rows by its own power of two, which changes no
  # rounding).
  for (m in c("none", kmreduce:::registered_methods("projection", c("source_mpi", "row_source")), "sparse/none",
              "n_reductions", "k-means||", "single", "single/gaussian", "far/none", "far/sign",
              "awkward/none", "awkward/refine", "sketch/none", "sketch/sign", "sketch/k-means||",
              "svd_rows")) {
    expect_true(res[[m]]$identical_labels, info = m)
  }
  # a reduction that merged rows: found across the ranks, refined
  expect_match(res$collapsed$warned, "fewer than k = 4 distinct rows")
  expect_gte(res$collapsed$refine, 1)
  expect_true(res$collapsed$identical_labels)
  # above the sketches' size, with the default control: the replicates ran on
  # the sketches of one process, with its passes
  for (m in c("sketch/none", "sketch/sign", "sketch/k-means||")) {
    expect_true(res[[m]]$sketched, info = m)
  }
})

test_that("user errors on some MPI ranks stop every rank with the same error (2 and 3 ranks)", {
  # A rank whose rows fail the checks, or ranks called with different
  # arguments, used to leave the other ranks waiting forever in a collective
  # step: the job is run under `timeout`, so a hang fails here (after 600 s:
  # a limit for a hang, far above the job's time even on a busy machine).
  skip_on_cran()
  skip_if(!nzchar(system.file(package = "pbdMPI")), "pbdMPI is not installed")
  mpirun <- Sys.which("mpirun")
  skip_if(!nzchar(mpirun), "mpirun not found")
  timeout <- Sys.which("timeout")
  skip_if(!nzchar(timeout), "timeout not found")
  libs <- paste(unique(c(dirname(system.file(package = "kmreduce")), .libPaths())),
                collapse = ":")
  mpi_env <- grep("^(OMPI_|PMIX_)", names(Sys.getenv()), value = TRUE)
  env <- c(R_LIBS = libs, OMP_NUM_THREADS = "1",
           stats::setNames(rep(NA_character_, length(mpi_env)), mpi_env))
  for (np in 2:3) {
    out <- tempfile(fileext = ".rds")
    args <- c("600", mpirun, "-np", np, "--oversubscribe",
              if (identical(unname(Sys.info()[["user"]]), "root")) "--allow-run-as-root",
              file.path(R.home("bin"), "Rscript"), test_path("mpi", "errors.R"), out)
    log <- withr::with_envvar(env, suppressWarnings(
      system2(timeout, args, stdout = TRUE, stderr = TRUE)))
    if (!file.exists(out)) fail(paste(c(sprintf("%d ranks: no result (a hang?)", np), log),
                                      collapse = "\n"))
    res <- readRDS(out)
    last <- np - 1L
    expect <- list(
      "zero rows" = sprintf("mpi_rows\\(\\) stopped on every MPI rank: the rows of rank %d failed the checks: `x_local` must have at least one row", last),
      "NA" = sprintf("rank %d failed the checks: `x_local` must contain only finite numbers", last),
      "column names" = "`x_local` must have the same column names on every rank",
      "k differs" = sprintf("the ranks must call it with the same arguments, but `k` is 3 on rank 0 and 4 on rank %d", last),
      "method differs" = "but `method` is \"gaussian\" on rank 0 and \"sign\"",
      "bad k on one rank" = sprintf("the checks failed on rank %d: `k` must be a whole number", last),
      "control differs" = "`control\\$tol` is 0 on rank 0",
      "seed policy differs" = "`seed` is 5 on rank 0",
      "bad method everywhere" = "`method` \"cssp\" is not available on distributed rows",
      "minibatch" = "`algorithm` \"minibatch\" \\(batches drawn from all the rows\\) is not available on distributed rows")
    expect_same_error_everywhere(res, expect, np)
    expect_identical(res$after, rep(TRUE, np))
  }
})

test_that("mpi_rows() needs pbdMPI and kmeans_reduced() checks distributed arguments", {
  if (!nzchar(system.file(package = "pbdMPI"))) {
    expect_error(mpi_rows(matrix(1, 2, 2)), "mpi_rows\\(\\) needs the pbdMPI package")
  }
  fake <- structure(list(x = matrix(rnorm(20), 10), rank = 0L, size = 1L, n = 10,
                         offset = 0, n_local = 10L), class = "kmreduce_mpi")
  expect_error(kmeans_reduced(fake, 2, method = "cssp", dims = 1), "`method` \"cssp\" is not available on distributed rows")
  expect_error(kmeans_reduced(fake, 11), "`k` must be a whole number in \\[1, 10\\]")
  expect_error(kmeans_reduced(fake, matrix(0, 2, 2)), "not initial centres")
  expect_output(print(fake), "rank 0 of 1 holds rows 1-10 of 10")
})

# mpirun -np `np` Rscript mpi/<script> OUT FILE under `timeout` (a hang
# fails, after 600 s: far above the job's time even on a busy machine); the
# result the job saved, or a failure with its log.
run_mpi_file_job <- function(script, file, np = 2L) {
  mpirun <- Sys.which("mpirun")
  timeout <- Sys.which("timeout")
  libs <- paste(unique(c(dirname(system.file(package = "kmreduce")), .libPaths())),
                collapse = ":")
  mpi_env <- grep("^(OMPI_|PMIX_)", names(Sys.getenv()), value = TRUE)
  env <- c(R_LIBS = libs, OMP_NUM_THREADS = "1",
           stats::setNames(rep(NA_character_, length(mpi_env)), mpi_env))
  out <- tempfile(fileext = ".rds")
  args <- c("600", mpirun, "-np", np, "--oversubscribe",
            if (identical(unname(Sys.info()[["user"]]), "root")) "--allow-run-as-root",
            file.path(R.home("bin"), "Rscript"), test_path("mpi", script), out, file)
  log <- withr::with_envvar(env, suppressWarnings(
    system2(timeout, args, stdout = TRUE, stderr = TRUE)))
  if (!file.exists(out)) {
    fail(paste(c(sprintf("%s on %d ranks: no result (a hang?)", script, np), log),
               collapse = "\n"))
  }
  readRDS(out)
}

skip_without_mpi_files <- function() {
  skip_on_cran()
  skip_if(!nzchar(system.file(package = "pbdMPI")), "pbdMPI is not installed")
  skip_if(!nzchar(Sys.which("mpirun")), "mpirun not found")
  skip_if(!nzchar(Sys.which("timeout")), "timeout not found")
  skip_without_bioc(c("rhdf5", "HDF5Array", "SummarizedExperiment"))
}

test_that("2 MPI ranks, each reading its own cells of a 10x file, equal one process on the file", {
  skip_without_mpi_files()
  file <- tempfile(fileext = ".h5")
  write_tenx(sim_counts(n_genes = 200, n_cells = 600, n_types = 3, seed = 3)$counts, file)
  res <- run_mpi_file_job("files.R", file)
  tenx <- c("sparse_embedding", "sign", "refine", "blocks", "gaussian/none", "rsvd", "leverage",
            "auto", "sce", "sketch", "svd_rows", "default/tenx", "default/sce",
            "default/sizeFactors")
  expect_named(res, c(tenx, "memory", "delayed",
                      if (nzchar(system.file(package = "bigmemory"))) "big"))
  for (m in names(res)) {
    r <- res[[m]]
    # a range of a 10x file read with rhdf5, not through DelayedArray
    expect_identical(r$source, if (m %in% tenx) "source_tenx" else
      switch(m, big = "source_big", delayed = "source_delayed", memory = "NULL"), info = m)
    expect_match(r$print, if (m %in% tenx) {
      "rank 0 of 2 holds rows 1-250 of 600 \\(200 columns, read in blocks from the 10x file '.*' \\(cells 1\\.\\.250\\)\\)"
    } else if (m == "memory") "holds rows 1-250 of 600 \\(200 columns, sparse\\)" else
      "holds rows 1-250 of 600 \\(200 columns, read in blocks from a", info = m)
    expect_match(r$refused, "`x` is a set of distributed rows \\(mpi_rows\\(\\)\\); only kmeans_reduced\\(\\) takes them",
                 info = m)
    expect_fit_of_one_process(r, m)
    expect_true(r$identical_labels, info = m)
    expect_true(r$names, info = m)
  }
  expect_true(res$auto$auto)
  # the default call: the defaults for cells, and the normalization recorded
  # as one process records it
  for (m in c("default/tenx", "default/sce", "default/sizeFactors")) {
    expect_true(res[[m]]$defaults, info = m)
    expect_true(res[[m]]$input, info = m)
  }
})

test_that("a missing file or a bad cell range on one MPI rank stops every rank with the same error", {
  skip_without_mpi_files()
  file <- tempfile(fileext = ".h5")
  write_tenx(sim_counts(n_genes = 50, n_cells = 90, seed = 4)$counts, file)
  res <- run_mpi_file_job("files_errors.R", file)
  expect <- list(
    "missing file" = "mpi_rows\\(\\) stopped on every MPI rank: the rows of rank 1 failed the checks: .*no-such-file",
    "out of range" = "mpi_rows\\(\\) stopped on every MPI rank: the rows of rank 1 failed the checks: .*(bound|subscript)",
    "normalize differs" = "`normalize` must be the same on every rank; it is \"log1p_cpm\" on rank 0 and \"none\" on rank 1",
    "assay differs" = "`assay` must be the same on every rank; it is \"counts\" on rank 0 and 1 on rank 1",
    "mix" = "`x_local` must be in memory on every rank or read in blocks",
    "none on blocks" = "`method` \"none\" is not available on distributed rows read in blocks",
    "k differs" = "the ranks must call it with the same arguments, but `k` is 3 on rank 0 and 4 on rank 1")
  expect_same_error_everywhere(res, expect, 2L)
  expect_identical(res$after, c(TRUE, TRUE))
})
