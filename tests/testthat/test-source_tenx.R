# The 10x HDF5 source (R/source_tenx.R): the same labels as the data in
# memory, whichever way the cells come, and a clear error for every bad file.

tenx_case <- function(n_genes = 400, n_cells = 900, n_types = 3, seed = 1) {
  s <- sim_counts(n_genes, n_cells, n_types, seed)
  file <- tempfile(fileext = ".h5")
  write_tenx(s$counts, file)
  # the reference: cells as rows in memory, log1p-CPM computed here
  rows <- Matrix::t(s$counts)
  lib <- Matrix::rowSums(rows)
  rows@x <- log1p(rows@x / lib[rows@i + 1L] * 1e6)
  c(s, list(file = file, rows = rows))
}

# The fit of the cells of the 10x file `f` in a child process (a crash
# shows as the child's status, not the test run's).
rewrite_indices <- function(f, i) {
  rhdf5::h5write(i, f, "mm10/indices")
  rhdf5::h5closeAll()
}

fit_file_in_child <- function(f) {
  run_child(
    c("rhdf5::h5errorHandling('normal')",
      sprintf("m <- HDF5Array::TENxMatrix(%s, 'mm10')", deparse(f))),
    paste("kmeans_reduced(t(m), 3, normalize = 'none', method = 'sparse_embedding', dims = 10,",
          "seed = 1, n_threads = 2)"))
}

fit_args <- list(k = 3, method = "sparse_embedding", dims = 100, n_init = 3, seed = 7,
                 n_threads = 2)

test_that("a TENxMatrix assay gives the labels and statistics of the data in memory", {
  skip_without_bioc()
  tc <- tenx_case()
  ref <- do.call(kmeans_reduced, c(list(tc$rows), fit_args))
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  for (block in list(NULL, 97L, 900L)) {
    fit <- do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm",
                                          control = list(block_rows = block)), fit_args))
    expect_identical(unname(fit$cluster), unname(ref$cluster))
    expect_equal(fit$centers, ref$centers, tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(fit$withinss, ref$withinss, tolerance = 1e-10)
    expect_equal(fit$totss, ref$totss, tolerance = 1e-10)
  }
  expect_identical(names(fit$cluster), colnames(tc$counts))
  expect_identical(colnames(fit$centers), rownames(tc$counts))
  # as good a partition as stats::kmeans() finds on the normalized cells
  km <- withr::with_seed(1, stats::kmeans(as.matrix(tc$rows), 3, nstart = 10, iter.max = 50))
  expect_lt(fit$tot.withinss, 1.02 * km$tot.withinss)
})

test_that("t(TENxMatrix) with normalize = \"none\" clusters the counts as rows", {
  skip_without_bioc()
  tc <- tenx_case(seed = 2)
  counts_rows <- Matrix::t(tc$counts)
  ref <- do.call(kmeans_reduced, c(list(counts_rows), fit_args))
  fit <- do.call(kmeans_reduced, c(list(t(tenx_matrix(tc$file)), normalize = "none",
                                        control = list(block_rows = 200L)), fit_args))
  expect_identical(unname(fit$cluster), unname(ref$cluster))
  expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10)
})

test_that("t(TENxMatrix) as x is clustered as single cells: normalized, principal components", {
  skip_without_bioc()
  tc <- tenx_case(n_genes = 400, n_cells = 2000, n_types = 5, seed = 31)
  x <- t(tenx_matrix(tc$file))
  expect_message(fit <- kmeans_reduced(x, 5, seed = 1, n_threads = 2),
                 paste0("the counts of the 10x file '.*' \\(t\\(\\) of a TENxMatrix\\) are normalized ",
                        "with normalize = \"log1p_size_factors\".*normalize = \"none\""))
  expect_identical(fit$method, "rsvd")
  expect_identical(fit$dims, 150L)
  expect_identical(fit$call[[1L]], as.name("kmeans_reduced"))
  # the known cell types, as from the file in a SingleCellExperiment
  expect_gt(adjusted_rand_index(fit$cluster, tc$type), 0.95)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  ref <- suppressMessages(kmeans_reduced(sce, 5, seed = 1, n_threads = 2))
  expect_identical(unname(fit$cluster), unname(ref$cluster))
  expect_equal(fit$tot.withinss, ref$tot.withinss)
  # predict(): the file's cells normalized as the fit's
  expect_identical(unname(predict(fit, x)), unname(fit$cluster))
  expect_identical(unname(predict(fit, sce)), unname(fit$cluster))
  # normalize = "none": the counts as they are, as rows in memory
  raw <- kmeans_reduced(x, 5, normalize = "none", seed = 1, n_threads = 2)
  expect_identical(unname(raw$cluster),
                   unname(kmeans_reduced(Matrix::t(tc$counts), 5, method = "rsvd", dims = 150,
                                         seed = 1, n_threads = 2,
                                         control = list(svd_rows = 20000, eps = 1))$cluster))
  # any other DelayedMatrix: its rows as they are; normalize is an error
  h5 <- HDF5Array::writeHDF5Array(as.matrix(tc$rows[1:60, ]), tempfile(fileext = ".h5"), "x")
  expect_error(kmeans_reduced(h5, 2, normalize = "log1p_cpm"),
               "`normalize` applies to counts: .*`x` \\(a HDF5Matrix\\) is clustered as it is")
  fit_h5 <- kmeans_reduced(h5, 2, seed = 1)
  expect_identical(unname(fit_h5$cluster),
                   unname(kmeans_reduced(as.matrix(tc$rows[1:60, ]), 2, seed = 1,
                                         method = "sign")$cluster))
  expect_identical(fit_h5$call, quote(kmeans_reduced(x = h5, k = 2, seed = 1)))
})

test_that("predict() matches genes by name on every source: genes permuted, genes added", {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment"))
  tc <- tenx_case(n_genes = 300, n_cells = 300, seed = 21)
  counts <- tc$counts
  sce <- function(a) SingleCellExperiment::SingleCellExperiment(list(counts = a))
  fit <- suppressMessages(kmeans_reduced(sce(counts), 3, seed = 1, n_init = 2))
  # the reference: the cells in memory, genes in the fit's order
  ref_l <- predict(fit, sce(counts))
  ref_d <- predict(fit, sce(counts), type = "distances")
  expect_identical(ref_l, fit$cluster)
  # a fit of the counts as rows (no normalization)
  fit_rows <- kmeans_reduced(Matrix::t(counts), 3, method = "sparse_embedding", dims = 30,
                             seed = 1, n_init = 2)
  ref_rows <- predict(fit_rows, Matrix::t(counts), type = "distances")
  perm <- withr::with_seed(3, sample(nrow(counts)))
  added <- methods::as(matrix(withr::with_seed(4, stats::rpois(5 * ncol(counts), 3)), 5,
                              dimnames = list(sprintf("new%d", 1:5), colnames(counts))),
                       "CsparseMatrix")
  variants <- list(permuted = counts[perm, ],
                   added = rbind(counts, added)[c(301:302, perm, 303:305), ])
  for (v in names(variants)) {
    m <- variants[[v]]
    f <- tempfile(fileext = ".h5")
    write_tenx(m, f)
    h5 <- HDF5Array::writeHDF5Array(as.matrix(m), tempfile(fileext = ".h5"), "counts",
                                    with.dimnames = TRUE)
    assays <- list(sparse = m, dense = as.matrix(m), delayed = DelayedArray::DelayedArray(m),
                   hdf5 = h5, tenx = tenx_matrix(f))
    for (a in names(assays)) {
      info <- paste(v, a)
      expect_identical(unname(predict(fit, sce(assays[[a]]))), unname(ref_l), info = info)
      expect_equal(unname(predict(fit, sce(assays[[a]]), type = "distances")), unname(ref_d),
                   tolerance = 1e-12, info = info)
    }
    # t() of the file: its cells, normalized as the fit's
    expect_equal(unname(predict(fit, t(assays$tenx), type = "distances")), unname(ref_d),
                 tolerance = 1e-12, info = v)
    # rows read in blocks, for a fit of rows: the same columns by name
    rows <- list(sparse = Matrix::t(m), delayed = t(DelayedArray::DelayedArray(m)), hdf5 = t(h5),
                 tenx = t(assays$tenx))
    for (r in names(rows)) {
      expect_equal(unname(predict(fit_rows, rows[[r]], type = "distances")), unname(ref_rows),
                   tolerance = 1e-12, info = paste(v, r, "as rows"))
    }
  }
  # a gene of the fit missing: an error naming it
  f <- tempfile(fileext = ".h5")
  write_tenx(counts[-7, ], f)
  expect_error(predict(fit, sce(tenx_matrix(f))),
               "`newdata` must have the genes \\(rows\\) of the data the model was fitted to; missing: 'gene7'")
  expect_error(predict(fit_rows, t(tenx_matrix(f))),
               "`newdata` must have the columns of the data the model was fitted to; missing: 'gene7'")
})

test_that("every source of the same normalized cells gives the same labels", {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment"))
  tc <- tenx_case(seed = 3)
  ref <- do.call(kmeans_reduced, c(list(tc$rows), fit_args))
  sce <- function(...) SingleCellExperiment::SingleCellExperiment(list(...))
  # counts in memory, normalized by kmeans_reduced()
  f_mem <- do.call(kmeans_reduced, c(list(sce(counts = tc$counts), normalize = "log1p_cpm"),
                                     fit_args))
  # a delayed log-normalisation of a DelayedMatrix
  dm <- DelayedArray::DelayedArray(tc$counts)
  lib <- DelayedArray::colSums(dm)
  delayed <- log1p(t(t(dm) / lib) * 1e6)
  f_delayed <- do.call(kmeans_reduced, c(list(sce(logcounts = delayed),
                                              control = list(block_rows = 250L)), fit_args))
  # an HDF5Matrix of the normalized cells as rows (dense on disk)
  h5 <- HDF5Array::writeHDF5Array(as.matrix(tc$rows), tempfile(fileext = ".h5"), "x")
  f_h5 <- do.call(kmeans_reduced, c(list(h5, control = list(block_rows = 333L)), fit_args))
  for (f in list(f_mem, f_delayed, f_h5)) {
    expect_identical(unname(f$cluster), unname(ref$cluster))
    expect_equal(f$tot.withinss, ref$tot.withinss, tolerance = 1e-10)
  }
})

test_that("predict() of a SingleCellExperiment applies the fit's assay and normalization", {
  skip_without_bioc()
  tc <- tenx_case(seed = 4)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  fit <- do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm"), fit_args))
  expect_identical(fit$input$normalize, "log1p_cpm")
  expect_identical(unname(predict(fit, sce)), unname(fit$cluster))
  expect_identical(unname(predict(fit, tc$rows)), unname(fit$cluster))
})

test_that("a long read reports its progress when verbose", {
  skip_without_bioc()
  tc <- tenx_case(seed = 5)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  msgs <- capture_messages(do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm",
                                                          verbose = TRUE,
                                                          control = list(block_rows = 300L)),
                                                     fit_args)))
  reads <- grep("read [0-9]+ blocks?, rows 1\\.\\.[0-9]+ of 900", msgs, value = TRUE)
  expect_true(any(grepl("read 3 blocks, rows 1..900 of 900 \\(100%\\)", reads)))
  expect_true(any(grepl("rows/s", reads)))
})

## Bad files ------------------------------------------------------------------

test_that("a file changed or truncated during the fit is an error naming it", {
  skip_without_bioc()
  tc <- tenx_case(seed = 6)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  input <- kmreduce:::check_se_input(sce, NULL, NULL, "log1p_cpm")
  src <- kmreduce:::se_rows(sce, input)
  Sys.setFileTime(tc$file, Sys.time() + 120)
  expect_error(do.call(kmeans_reduced, c(list(src), fit_args)),
               "10x file '.*' changed while it was being read")
  # truncated: a different size
  src <- kmreduce:::se_rows(sce, input)
  size <- file.size(tc$file)
  con <- file(tc$file, "r+b")
  truncate_to <- function(con, n) { seek(con, n, rw = "write"); truncate(con) }
  truncate_to(con, floor(size / 2))
  close(con)
  expect_error(do.call(kmeans_reduced, c(list(src), fit_args)), "changed while it was being read")
  # and a file truncated before: not readable as HDF5
  expect_error(kmreduce:::read_tenx_layout(tc$file, "mm10", 900, 400),
               "10x file '.*' \\(group \"mm10\"\\) cannot be read as HDF5")
})

test_that("a missing file or a malformed layout is an error naming what is wrong", {
  skip_without_bioc()
  layout <- kmreduce:::read_tenx_layout
  expect_error(layout(file.path(tempdir(), "no-such.h5"), "mm10", 10, 10), "does not exist")
  tc <- tenx_case(seed = 7)
  expect_error(layout(tc$file, "hg19", 900, 400), "has no dataset `data`")
  expect_error(layout(tc$file, "mm10", 899, 400), "`indptr` of length 901, not 900")
  # indptr decreasing
  f2 <- tempfile(fileext = ".h5")
  write_tenx(tc$counts, f2)
  p <- as.numeric(tc$counts@p)
  p[10] <- p[12]
  rhdf5::h5write(p, f2, "mm10/indptr")
  expect_error(layout(f2, "mm10", 900, 400), "does not run from 0 up to")
  # `data` as strings
  f3 <- tempfile(fileext = ".h5")
  rhdf5::h5createFile(f3)
  rhdf5::h5createGroup(f3, "g")
  rhdf5::h5write(c("a", "b"), f3, "g/data")
  rhdf5::h5write(c(0, 1), f3, "g/indices")
  rhdf5::h5write(c(0, 2), f3, "g/indptr")
  rhdf5::h5closeAll()
  expect_error(layout(f3, "g", 1, 2), "dataset `data` of class STRING; numbers were expected")
})

test_that("gene indices outside the genes are an error, not a crash (child process)", {
  skip_without_bioc()
  tc <- tenx_case(seed = 8)
  f <- tempfile(fileext = ".h5")
  write_tenx(tc$counts, f)
  i <- as.numeric(tc$counts@i)
  i[length(i) %/% 2] <- 400 + 5   # beyond the 400 genes
  rewrite_indices(f, i)
  res <- fit_file_in_child(f)
  expect_match(res$status, "^error: The 10x file '.*' has a gene index outside 0..399 at cell [0-9]+ \\(\"cell[0-9]+-1\"\\)\\.$")
})

test_that("a 64-bit gene index beyond R's integers is the error naming the cell, without rhdf5's warning", {
  skip_without_bioc()
  s <- sim_counts(30, 50, 2, seed = 35)
  f <- tempfile(fileext = ".h5")
  write_tenx(s$counts, f)
  i <- as.numeric(s$counts@i)
  i[s$counts@p[33] + 1L] <- 2^33 + 5  # (a gene index of cell 33)
  rewrite_indices(f, i)
  m <- tenx_matrix(f)
  for (own in tenx_readers()) with_own_reader(own, {
    warned <- character(0)
    err <- tryCatch(withCallingHandlers(
      kmeans_reduced(t(m), 2, normalize = "none", method = "sparse_embedding", dims = 5, seed = 1),
      warning = function(w) {
        warned <<- c(warned, conditionMessage(w))
        invokeRestart("muffleWarning")
      }), error = conditionMessage)
    expect_match(err, "^The 10x file '.*' has a gene index outside 0\\.\\.29 at cell 33 \\(\"cell33-1\"\\)\\.$")
    expect_identical(warned, character(0))
  })
})

test_that("NA or negative counts with normalize are an error naming the cell", {
  skip_without_bioc()
  tc <- tenx_case(seed = 9)
  f <- tempfile(fileext = ".h5")
  counts <- tc$counts
  counts@x[counts@p[5] + 1L] <- -3
  write_tenx(counts, f)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
  expect_error(do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm"), fit_args)),
               "needs counts \\(finite numbers >= 0\\) but the assay \"counts\" \\(the 10x file '.*'\\) has -3 at cell 5")
  # without normalize the values are taken as they are
  fit <- do.call(kmeans_reduced, c(list(sce, normalize = "none"), fit_args))
  expect_length(fit$cluster, 900)
})

test_that("cells_to_rows_cpp() is Matrix::t() of the stored block, normalized or not", {
  m <- withr::with_seed(3, Matrix::rsparsematrix(50, 40, 0.1, rand.x = function(n) rpois(n, 3) + 1))
  m[, 7] <- 0  # a cell without counts
  m <- methods::as(m, "CsparseMatrix")
  ptr <- as.numeric(m@p)
  raw <- kmreduce:::cells_to_rows_cpp(as.integer(m@x), m@i, ptr, 50L, 0, NULL, 1)
  expect_identical(raw, Matrix::t(m))
  norm <- kmreduce:::cells_to_rows_cpp(m@x, m@i, ptr, 50L, 1e6, NULL, 1)
  expect_identical(norm, Matrix::t(kmreduce:::normalize_columns(m, "log1p_cpm", "x")))
  expect_true(all(norm[7, ] == 0))
  expect_error(kmreduce:::cells_to_rows_cpp(m@x, m@i + 1L, ptr, 50L, 0, NULL, 11),
               "gene index outside 0..49 at cell")
  bad <- m@x
  bad[3] <- NA
  expect_error(kmreduce:::cells_to_rows_cpp(bad, m@i, ptr, 50L, 1e6, NULL, 1), "count NA at cell 1")
})

test_that("cells_to_rows_cpp() of a large block (its two-step scatter) is Matrix::t() too", {
  # over 2^20 stored values and 2048 genes: the values go through runs of
  # 512 genes before the genes' columns
  m <- withr::with_seed(4, Matrix::rsparsematrix(3000, 1800, 0.2,
                                                 rand.x = function(n) rpois(n, 2) + 1))
  m[, 11] <- 0
  m <- methods::as(m, "CsparseMatrix")
  expect_gt(length(m@x), 2^20)
  ptr <- as.numeric(m@p)
  raw <- kmreduce:::cells_to_rows_cpp(as.integer(m@x), m@i, ptr, 3000L, 0, NULL, 1)
  expect_identical(raw, Matrix::t(m))
  norm <- kmreduce:::cells_to_rows_cpp(m@x, m@i, ptr, 3000L, 1e6, NULL, 1)
  expect_identical(norm, Matrix::t(kmreduce:::normalize_columns(m, "log1p_cpm", "x")))
  bad <- m@i
  bad[length(bad) - 5L] <- 3000L
  expect_error(kmreduce:::cells_to_rows_cpp(m@x, bad, ptr, 3000L, 0, NULL, 1),
               "gene index outside 0..2999 at cell 1800")
})

# A block of cells as stored_cells() gives it to the C++ side.
stored <- function(x, i, ptr, n_genes, target, size_factors = NULL, first_cell = 1) {
  list(x = x, i = i, ptr = ptr, n_genes = n_genes, target = target, size_factors = size_factors,
       first_cell = first_cell)
}

# The statistics of the cells `conv` (a converted block: cells as rows) in
# one pass, as the source of a 10x file describes its rows: the rows read
# converted, or, with `cells` (the block as stored), the stored-layout
# kernel for the one pass (its error: the message).
one_pass_stats <- function(conv, cluster, k, threads, weights = NULL, cells = NULL) {
  spec <- kmreduce:::cpp_source(
    read = function(first, last) conv[first:last, , drop = FALSE], n = nrow(conv),
    d = ncol(conv), block_rows = nrow(conv), weights = weights, one_pass = TRUE,
    cells = if (!is.null(cells)) {
      list(read = function(first, last) cells, fail = function(st, msg) stop(msg))
    })
  kmreduce:::cluster_stats_cpp(spec, cluster, k, threads)
}

test_that("the stored cells' product and moments are those of the converted block, bit for bit", {
  # cells as the file stores them (one column per cell), 1100 cells: tasks
  # of 256 cells on both threads; small whole counts and larger ones; a
  # cell without counts; a cell stored out of gene order
  m <- withr::with_seed(6, Matrix::rsparsematrix(120, 1100, 0.15,
                                                 rand.x = function(n) rpois(n, 4) + 1))
  m[, 40] <- 0
  m <- methods::as(m, "CsparseMatrix")
  m@x[m@p[3] + 1:2] <- c(250, 7.5)
  i <- m@i
  x <- m@x
  cell <- (m@p[6] + 1):m@p[7]
  i[cell] <- rev(i[cell])
  x[cell] <- rev(x[cell])
  ptr <- as.numeric(m@p)
  b <- withr::with_seed(7, matrix(rnorm(120 * 11), 120, 11))
  rows <- kmreduce:::cells_multiply_rows_cpp(b)
  sf <- withr::with_seed(8, runif(1100, 0.5, 2))
  cluster <- withr::with_seed(9, sample.int(6, 1100, replace = TRUE))
  w <- withr::with_seed(10, runif(1100))
  for (norm in list(list(target = 1e4, sf = NULL), list(target = 1, sf = sf))) {
    conv <- kmreduce:::cells_to_rows_cpp(x, i, ptr, 120L, norm$target, norm$sf, 1)
    expect_identical(conv, kmreduce:::cells_to_rows_cpp(m@x, m@i, ptr, 120L, norm$target,
                                                        norm$sf, 1))
    for (threads in 1:2) {
      expect_identical(kmreduce:::cells_multiply_cpp(stored(x, i, ptr, 120L, norm$target, norm$sf),
                                                     rows, threads),
                       kmreduce:::multiply_cpp(conv, b, 1L))
      for (wt in list(NULL, w)) {
        expect_identical(one_pass_stats(conv, cluster, 6L, threads, wt,
                                        stored(x, i, ptr, 120L, norm$target, norm$sf)),
                         one_pass_stats(conv, cluster, 6L, 1L, wt))
      }
    }
  }
  # integer counts, and the product written into rows of a larger matrix
  into <- matrix(-1, 1105, 11)
  kmreduce:::cells_multiply_cpp(stored(as.integer(m@x), m@i, ptr, 120L, 1e4), rows, 2L, into, 3)
  conv <- kmreduce:::cells_to_rows_cpp(as.integer(m@x), m@i, ptr, 120L, 1e4, NULL, 1)
  expect_identical(into[4:1103, ], kmreduce:::multiply_cpp(conv, b, 1L))
  expect_true(all(into[c(1:3, 1104:1105), ] == -1))
  expect_error(kmreduce:::cells_multiply_cpp(stored(x, i, ptr, 120L, 1e4), rows, 2L, into, 6),
               "room for the block")
  expect_error(kmreduce:::cells_multiply_cpp(stored(x, i, ptr, 121L, 1e4), rows, 2L),
               "non-conformable")
  conv <- kmreduce:::cells_to_rows_cpp(x, i, ptr, 120L, 1e4, NULL, 1)
  expect_error(one_pass_stats(conv[-1, ], cluster[-1], 6L, 1L,
                              cells = stored(x, i, ptr, 120L, 1e4)),
               "a block of cells has the wrong shape")
  expect_error(one_pass_stats(conv, cluster, 5L, 1L, cells = stored(x, i, ptr, 120L, 1e4)),
               "cluster labels must be in \\[0, k\\)")
  expect_error(kmreduce:::cells_multiply_cpp(list(x = x, i = i), rows, 1L), "without `ptr`")
})

test_that("the stored cells' kernels stop at the first bad cell, as the conversion does", {
  m <- withr::with_seed(11, Matrix::rsparsematrix(60, 900, 0.2,
                                                  rand.x = function(n) rpois(n, 3) + 1))
  m <- methods::as(m, "CsparseMatrix")
  ptr <- as.numeric(m@p)
  rows <- kmreduce:::cells_multiply_rows_cpp(matrix(1, 60, 3))
  cluster <- rep_len(1:4, 900)
  # two bad cells, in different tasks of 256 cells: the first is named
  late <- m@p[801] + 1L
  early <- m@p[20] + 1:2
  bad_gene <- m@i
  bad_gene[late] <- 60L
  bad_gene[early[2]] <- bad_gene[early[1]]
  bad_count <- m@x
  bad_count[late] <- NA
  bad_count[m@p[300] + 1L] <- -2
  cases <- list(list(x = m@x, i = bad_gene, msg = "gene index [0-9]+ stored twice at cell 20$"),
                list(x = bad_count, i = m@i, msg = "count < 0 at cell 300$"))
  for (case in cases) {
    conv <- tryCatch(kmreduce:::cells_to_rows_cpp(case$x, case$i, ptr, 60L, 1e4, NULL, 1),
                     error = conditionMessage)
    expect_match(conv, case$msg)
    for (threads in 1:2) {
      expect_identical(tryCatch(kmreduce:::cells_multiply_cpp(stored(case$x, case$i, ptr, 60L,
                                                                     1e4), rows, threads),
                                error = conditionMessage), conv)
      expect_identical(tryCatch(one_pass_stats(matrix(0, 900, 60), cluster, 4L, threads,
                                               cells = stored(case$x, case$i, ptr, 60L, 1e4)),
                                error = conditionMessage), conv)
    }
  }
})

test_that("a block's values may be the first entries of longer vectors (reused read buffers)", {
  m <- withr::with_seed(5, Matrix::rsparsematrix(30, 20, 0.2, rand.x = function(n) rpois(n, 3) + 1))
  m <- methods::as(m, "CsparseMatrix")
  ptr <- as.numeric(m@p)
  longer <- kmreduce:::cells_to_rows_cpp(c(m@x, 5, 7), c(m@i, 99L, -1L), ptr, 30L, 1e6, NULL, 1)
  expect_identical(longer, Matrix::t(kmreduce:::normalize_columns(m, "log1p_cpm", "x")))
  expect_error(kmreduce:::cells_to_rows_cpp(m@x[-1], m@i, ptr, 30L, 1e6, NULL, 1),
               "offsets must end within")
  # rhdf5's reading vectors: outside R's heap, of the type asked, zeros
  b <- kmreduce:::read_buffer_new("integer", 12)
  expect_identical(unclass(b[]), integer(12))
  expect_identical(unclass(kmreduce:::read_buffer_new("double", 3) + 1), c(1, 1, 1))
  expect_error(kmreduce:::read_buffer_new("character", 3), "type")
  # is.na() answers for the whole buffer, as rhdf5 asks any(is.na(x)); a
  # copy, or a released buffer, gets R's own is.na()
  expect_identical(is.na(b), FALSE)
  expect_identical(is.na(kmreduce:::read_buffer_new("double", 3)), FALSE)
  copy <- b + 1L
  expect_identical(is.na(copy), rep(FALSE, 12))
  kmreduce:::read_buffer_release(b)
  expect_identical(is.na(b), logical(0))
})

# The file `f` without the attributes rhdf5 gives the datasets it writes
# ("rhdf5-NA.OK"): as Cell Ranger's files are, whose integer datasets rhdf5
# checks for NA after each read.
strip_rhdf5_attributes <- function(f) {
  fid <- rhdf5::H5Fopen(f)
  on.exit(rhdf5::H5Fclose(fid))
  for (d in c("data", "indices", "indptr", "shape")) {
    did <- rhdf5::H5Dopen(fid, paste0("mm10/", d))
    if (rhdf5::H5Aexists(did, "rhdf5-NA.OK")) rhdf5::H5Adelete(did, "rhdf5-NA.OK")
    rhdf5::H5Dclose(did)
  }
  invisible(f)
}

test_that("a file without rhdf5's attributes gives the same fit; an NA read into a buffer is found", {
  skip_without_bioc()
  tc <- tenx_case(seed = 4)
  bare <- tempfile(fileext = ".h5")
  file.copy(tc$file, bare)
  strip_rhdf5_attributes(bare)
  fits <- lapply(c(tc$file, bare), function(f) {
    sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
    do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm",
                                   control = list(block_rows = 150L)), fit_args))
  })
  expect_identical(fits[[2]]$cluster, fits[[1]]$cluster)
  expect_identical(fits[[2]]$tot.withinss, fits[[1]]$tot.withinss)
  # rhdf5's own check after a read into a buffer: quiet without NA, its
  # message with one (the first count of the file set to NA)
  b <- kmreduce:::read_buffer_new("integer", 4)
  expect_silent(kmreduce:::h5_read_into(bare, "mm10/data", 0, 4, b))
  expect_identical(is.na(b), FALSE)
  rhdf5::h5write(c(NA_integer_, 1L), bare, "mm10/data", start = 1, count = 2)
  rhdf5::h5closeAll()
  strip_rhdf5_attributes(bare)
  expect_message(kmreduce:::h5_read_into(bare, "mm10/data", 0, 4, b), "detected")
  expect_identical(is.na(b), TRUE)
})

test_that("a pass's blocks view a pool of two blocks' memory: Matrix::t(), copies kept, stale views an error", {
  m <- withr::with_seed(6, Matrix::rsparsematrix(40, 60, 0.15, rand.x = function(n) rpois(n, 3) + 1))
  m <- methods::as(m, "CsparseMatrix")
  part <- function(cols) methods::as(m[, cols, drop = FALSE], "CsparseMatrix")
  pool <- kmreduce:::cells_pool_new()
  conv <- function(s) {
    kmreduce:::cells_to_rows_finish(
      kmreduce:::cells_to_rows_start(s@x, s@i, as.numeric(s@p), 40L, 1e6, NULL, 1, pool))
  }
  ref <- function(s) Matrix::t(kmreduce:::normalize_columns(s, "log1p_cpm", "x"))
  s1 <- part(1:20); s2 <- part(21:45); s3 <- part(46:60)
  a <- conv(s1)
  expect_true(methods::validObject(a))
  expect_identical(a, ref(s1))
  kept <- unserialize(serialize(a, NULL))   # a copy of a view keeps its values
  b <- conv(s2)
  expect_identical(a, ref(s1))              # the pool holds two blocks
  expect_identical(b, ref(s2))
  d <- conv(s3)                             # into a's memory
  expect_identical(d, ref(s3))
  expect_identical(b, ref(s2))
  expect_error(sum(a@x), "used after its memory was reused")
  expect_error(a@i[1], "used after its memory was reused")
  expect_identical(kept, ref(s1))
  # a block larger than the memory so far gets new memory
  e <- conv(part(1:60))
  expect_identical(e, ref(m))
  expect_identical(d, ref(s3))
})

test_that("the memory a 10x source takes outside R's heap is freed when the function returns", {
  skip_without_bioc()
  tc <- tenx_case(seed = 12)
  held <- kmreduce:::held
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  fit <- kmeans_reduced(sce, 3, normalize = "log1p_cpm", method = "sparse_embedding",
                        dims = 20, seed = 1, control = list(block_rows = 100L))
  expect_identical(held$depth, 0L)
  expect_length(held$sources, 0L)
  x <- t(tenx_matrix(tc$file))
  src <- kmreduce:::new_source_tenx(x, kmreduce:::tenx_seed(x, TRUE), cells_first = TRUE, "log1p_cpm")
  blocks <- list()
  reader <- function(fail) {
    kmreduce:::hold_sources()
    on.exit(kmreduce:::leave_sources(), add = TRUE)
    blocks[[length(blocks) + 1L]] <<- kmreduce:::read_block_transient(src, 1L, 100L)
    expect_length(held$sources, 1L)  # (read vectors and the pool, while reading)
    if (fail) stop("a failure while reading")
    blocks[[length(blocks)]]@x[1:3]
  }
  expect_equal(reader(FALSE), tc$rows[1:100, ]@x[1:3])
  expect_error(reader(TRUE), "a failure while reading")
  expect_identical(held$depth, 0L)
  expect_length(held$sources, 0L)
  expect_null(src$ahead$pool)
  expect_null(src$ahead$buffers)
  # the blocks of the released pool are stale: an error, never other values
  expect_error(sum(blocks[[1]]@x), "used after its memory was reused")
  # a released source reads again
  again <- kmreduce:::read_block(src, 101L, 200L)
  expect_equal(unname(as.matrix(again)), unname(as.matrix(tc$rows[101:200, ])))
})

test_that("every block method, refine and dims = \"auto\" give the labels of the cells in memory", {
  skip_on_cran()
  skip_without_bioc()
  tc <- tenx_case(300, 600, 3, seed = 11)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  for (m in c("sign", "gaussian", "srht", "fjlt", "leverage", "rsvd")) {
    a <- kmeans_reduced(sce, 3, normalize = "log1p_cpm", method = m, dims = 20, n_init = 2,
                        seed = 1, refine = 1)
    # (method "rsvd" on cells: the cells' settings of the randomized SVD)
    ctl <- if (m == "rsvd") list(svd_rows = 20000, eps = 1) else list()
    b <- kmeans_reduced(tc$rows, 3, method = m, dims = 20, n_init = 2, seed = 1, refine = 1,
                        control = ctl)
    expect_identical(unname(a$cluster), unname(b$cluster), info = m)
    expect_equal(a$tot.withinss, b$tot.withinss, tolerance = 1e-10, info = m)
  }
  a <- kmeans_reduced(sce, 3, normalize = "log1p_cpm", method = "sparse_embedding",
                      dims = "auto", seed = 1)
  b <- kmeans_reduced(tc$rows, 3, method = "sparse_embedding", dims = "auto", seed = 1)
  expect_identical(unname(a$cluster), unname(b$cluster))
  expect_identical(a$dims, b$dims)
})

test_that("the reduced cells of a 10x file live outside R's heap and act as any matrix", {
  skip_without_bioc()
  tc <- tenx_case(300, 500, 3, seed = 13)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  a <- kmeans_reduced(sce, 3, normalize = "log1p_cpm", method = "rsvd", dims = 10, seed = 1)
  # (method "rsvd" on cells: the cells' settings of the randomized SVD)
  b <- kmeans_reduced(tc$rows, 3, method = "rsvd", dims = 10, seed = 1,
                      control = list(svd_rows = 20000, eps = 1))
  expect_identical(unname(a$cluster), unname(b$cluster))
  expect_equal(unname(a$reduced), unname(b$reduced), tolerance = 1e-10)
  expect_identical(dim(a$reduced), c(500L, 10L))
  expect_identical(rownames(a$reduced), colnames(tc$counts))
  expect_true(is.matrix(a$reduced) && is.double(a$reduced) && is.null(attr(a$reduced, "class")))
  # a copy changed leaves the fit's as it was; saved and read back, the same
  r <- a$reduced
  first <- r[1, 1]
  r[1, 1] <- first + 1
  expect_identical(a$reduced[1, 1], first)
  f <- tempfile(fileext = ".rds")
  saveRDS(a$reduced, f)
  expect_identical(readRDS(f), a$reduced)
  m <- kmreduce:::matrix_outside_heap_cpp(3, 2)
  expect_identical(m[, ], matrix(0, 3, 2))
  expect_error(kmreduce:::matrix_outside_heap_cpp(-1, 2), "dimensions")
})

# A job on a thread of its own (`start` makes `job`), abandoned across a
# fork (mclapply): in each child, waiting for it (`finish`) is an error
# naming the other process, never a hang or a crash; then the parent runs
# `after`, whose last line gives list(kids = kids, same = <its check>).
expect_fork_safe_job <- function(setup, start, finish, after) {
  res <- run_child(setup, c(
    start,
    "kids <- parallel::mclapply(1:2, function(i) {",
    sprintf("  e <- tryCatch(%s, error = conditionMessage)", finish),
    "  invisible(gc()); e }, mc.cores = 2)",
    after))
  expect_identical(res$status, "finished")
  expect_true(res$value$same)
  expect_match(unlist(res$value$kids), "started in another process", all = TRUE)
}

test_that("a block conversion abandoned before a fork neither hangs nor crashes the children", {
  skip_on_cran()
  skip_on_os("windows")
  expect_fork_safe_job(
    c("m <- methods::as(withr::with_seed(4, Matrix::rsparsematrix(3000, 4000, 0.2,",
      "  rand.x = function(n) rpois(n, 2) + 1)), 'CsparseMatrix')",
      "ptr <- as.numeric(m@p)"),
    "job <- kmreduce:::cells_to_rows_start(m@x, m@i, ptr, 3000L, 1e6, NULL, 1, NULL)",
    "kmreduce:::cells_to_rows_finish(job)",
    c("mine <- kmreduce:::cells_to_rows_finish(job)",
      "rm(job); invisible(gc())",
      "list(kids = kids, same = identical(mine, Matrix::t(kmreduce:::normalize_columns(m, 'log1p_cpm', 'x'))))"))
})

test_that("a range of cells (an MPI rank's) is read from the file: the rows of those cells", {
  skip_without_bioc()
  tc <- tenx_case(n_genes = 120, n_cells = 300, seed = 5)
  m <- tenx_matrix(tc$file)
  full <- kmreduce:::new_source_tenx(t(m), m@seed, cells_first = TRUE, "log1p_cpm")
  for (range in list(c(1, 299), c(101, 230), c(300, 300))) {
    cells <- range[1]:range[2]
    x <- t(m)[cells, , drop = FALSE]
    window <- kmreduce:::tenx_window(x, transposed = TRUE)
    expect_identical(unlist(window[c("first", "last")]), c(first = range[1], last = range[2]))
    src <- kmreduce:::new_source_tenx(x, window$seed, cells_first = window$cells_first, "log1p_cpm", window = window)
    expect_identical(kmreduce:::n_rows(src), length(cells))
    expect_match(kmreduce:::describe_source(src), sprintf("cells %d..%d", range[1], range[2]))
    # in two blocks and whole: the very rows of the whole file's source
    mid <- max(1L, length(cells) %/% 2L)
    expect_identical(kmreduce:::read_block(src, 1L, mid),
                     kmreduce:::read_block(full, cells[1], cells[mid]))
    expect_identical(kmreduce:::read_block(src, 1L, length(cells)),
                     kmreduce:::read_block(full, cells[1], cells[length(cells)]))
    expect_equal(as.matrix(kmreduce:::read_block(src, 1L, length(cells))),
                 unname(as.matrix(tc$rows[cells, , drop = FALSE])))
  }
  # not a range read from the file: other cells, genes dropped, a delayed operation
  expect_null(kmreduce:::tenx_window(t(m)[c(1, 3, 5), ], transposed = TRUE))
  expect_null(kmreduce:::tenx_window(t(m)[5:1, ], transposed = TRUE))
  expect_null(kmreduce:::tenx_window(t(m)[1:5, 1:10], transposed = TRUE))
  expect_null(kmreduce:::tenx_window(log1p(t(m)[1:5, ]), transposed = TRUE))
  expect_null(kmreduce:::tenx_window(t(m)[1:300, ], transposed = TRUE))  # (no subset: tenx_seed())
})

test_that("a bad count in a range of cells is an error naming the file's cell", {
  skip_without_bioc()
  s <- sim_counts(n_genes = 30, n_cells = 40, seed = 6)
  s$counts@x[s$counts@p[25] + 1L] <- -2
  file <- tempfile(fileext = ".h5")
  write_tenx(s$counts, file)
  m <- tenx_matrix(file)
  x <- t(m)[21:40, ]
  window <- kmreduce:::tenx_window(x, transposed = TRUE)
  src <- kmreduce:::new_source_tenx(x, window$seed, cells_first = window$cells_first, "log1p_cpm", window = window)
  expect_error(kmreduce:::read_block(src, 1L, 20L), "at cell 25\\b")
})

test_that("a square file keeps its names the right way round, as rows or as an assay", {
  skip_without_bioc()
  # as many genes as cells: the shape cannot tell the matrix from its transpose
  s <- sim_counts(n_genes = 300, n_cells = 300, n_types = 3, seed = 21)
  f <- tempfile(fileext = ".h5")
  write_tenx(s$counts, f)
  m <- tenx_matrix(f)
  rows <- Matrix::t(s$counts)
  args <- list(k = 3, method = "sparse_embedding", dims = 40, n_init = 2, seed = 3)
  ref <- do.call(kmeans_reduced, c(list(rows), args))
  fit <- do.call(kmeans_reduced, c(list(t(m), normalize = "none"), args))
  expect_identical(fit$cluster, ref$cluster)
  expect_identical(names(fit$cluster), colnames(s$counts))
  expect_identical(colnames(fit$centers), rownames(s$counts))
  expect_identical(predict(fit, rows), fit$cluster)
  # the same file as the assay of a SingleCellExperiment (cells as columns)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m))
  fit_se <- do.call(kmeans_reduced, c(list(sce, normalize = "none"), args))
  expect_identical(fit_se$cluster, ref$cluster)
  expect_identical(colnames(fit_se$centers), rownames(s$counts))
})

test_that("a gene stored twice for one cell is an error naming the file, the cell and the gene", {
  skip_without_bioc()
  tc <- tenx_case(seed = 22)
  f <- tempfile(fileext = ".h5")
  write_tenx(tc$counts, f)
  # cell 7's second gene index made equal to its first
  i <- as.numeric(tc$counts@i)
  at <- tc$counts@p[7] + 1L
  i[at + 1L] <- i[at]
  rewrite_indices(f, i)
  gene <- i[at] + 1
  msg <- sprintf("^The 10x file '.*' has a gene index %d \\(gene %d, \"gene%d\"\\) stored twice at cell 7 \\(\"cell7-1\"\\)\\.$",
                 gene - 1, gene, gene)
  m <- tenx_matrix(f)
  for (norm in c("none", "log1p_cpm")) {
    sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m))
    expect_error(do.call(kmeans_reduced, c(list(sce, normalize = norm), fit_args)), msg)
  }
  expect_error(do.call(kmeans_reduced, c(list(t(m), normalize = "none",
                                              control = list(block_rows = 5L)), fit_args)),
               msg)
  # (in a child process too: no crash)
  res <- fit_file_in_child(f)
  expect_match(res$status, "stored twice at cell 7")
})

test_that("an Inf count with normalize is an error naming the Inf and the cell", {
  skip_without_bioc()
  tc <- tenx_case(seed = 23)
  counts <- tc$counts
  counts@x <- as.double(counts@x)
  counts@x[counts@p[4] + 2L] <- Inf
  # in memory
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = counts))
  expect_error(do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm"), fit_args)),
               "needs counts \\(finite numbers >= 0\\) but the assay \"counts\" has Inf at cell 4\\.")
  # a 10x file of doubles
  f <- tempfile(fileext = ".h5")
  write_tenx(tc$counts, f)
  x <- as.double(tc$counts@x)
  x[tc$counts@p[4] + 2L] <- Inf
  rhdf5::h5delete(f, "mm10/data")
  rhdf5::h5createDataset(f, "mm10/data", dims = length(x), H5type = "H5T_IEEE_F64LE",
                         chunk = 4096L)
  rhdf5::h5write(x, f, "mm10/data")
  rhdf5::h5closeAll()
  sce_f <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
  expect_error(do.call(kmeans_reduced, c(list(sce_f, normalize = "log1p_cpm"), fit_args)),
               "needs counts \\(finite numbers >= 0\\) but the assay \"counts\" \\(the 10x file '.*'\\) has Inf at cell 4\\.")
})

test_that("k above the distinct cells of a file is the error of the data in memory", {
  skip_without_bioc()
  # 40 cells of 4 distinct profiles
  base <- sim_counts(n_genes = 50, n_cells = 4, n_types = 2, seed = 24)$counts
  counts <- base[, rep(1:4, 10)]
  colnames(counts) <- sprintf("cell%d-1", 1:40)
  f <- tempfile(fileext = ".h5")
  write_tenx(counts, f)
  msg <- "`k` must be a whole number in \\[1, 4\\] \\(the number of distinct rows of `x`\\), not 5\\."
  expect_error(kmeans_reduced(Matrix::t(counts), 5, method = "sparse_embedding", dims = 5,
                              seed = 1), msg)
  expect_error(kmeans_reduced(t(tenx_matrix(f)), 5, normalize = "none",
                              method = "sparse_embedding", dims = 5, seed = 1), msg)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
  expect_error(kmeans_reduced(sce, 5, normalize = "none", dims = 5, seed = 1, control = list(block_rows = 7L)), msg)
  # an all-zero file at k = 2
  zero <- Matrix::Matrix(0, 30, 20, sparse = TRUE)
  f0 <- tempfile(fileext = ".h5")
  suppressWarnings(write_tenx(zero, f0))  # (HDF5: chunks of an empty dataset)
  expect_error(kmeans_reduced(t(tenx_matrix(f0)), 2, normalize = "none",
                              method = "sparse_embedding", dims = 5, seed = 1),
               "`k` must be a whole number in \\[1, 1\\] \\(the number of distinct rows of `x`\\), not 2\\.")
  # at k = 4 the fit has no empty cluster
  fit <- kmeans_reduced(t(tenx_matrix(f)), 4, normalize = "none", method = "sparse_embedding",
                        dims = 5, seed = 1)
  expect_true(all(fit$size > 0))
})

test_that("the sample of cells of the default call is kept by the pass that sums the library sizes", {
  skip_without_bioc()
  tc <- tenx_case(300, 700, 3, seed = 12)
  file_sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  mem_sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tc$counts))
  ctl <- list(svd_rows = 250, block_rows = 97L)
  # passes over the file (reads of its first values), and blocks read then
  # converted whole
  counts <- new.env()
  counts$passes <- 0
  counts$converted <- 0
  counts$values <- 0  # (values read from the file)
  ns <- asNamespace("kmreduce")
  count <- function(what) {
    bquote(assign(.(what), get(.(what), envir = .(counts)) + 1, envir = .(counts)))
  }
  suppressMessages(trace("h5_read_into", bquote(if (grepl("data$", name)) {
    if (from == 0) .(count("passes"))
    assign("values", get("values", envir = .(counts)) + count, envir = .(counts))
  }), print = FALSE, where = ns))
  suppressMessages(trace("read_block.source_tenx", count("converted"), print = FALSE,
                         where = ns))
  # (the projection and the statistics read the stored cells: no block is
  # converted to cells as rows in any pass; the sample of cells is, once)
  counts$samples <- 0
  suppressMessages(trace("cells_to_rows_start", count("converted"), print = FALSE, where = ns))
  sample_kept <- NULL
  suppressMessages(trace("tenx_kept_sample", count("samples"), print = FALSE,
                         where = ns,
                         exit = bquote(assign("sample_kept", returnValue(),
                                              envir = .(environment())))))
  on.exit(suppressMessages({
    untrace("h5_read_into", where = ns)
    untrace("read_block.source_tenx", where = ns)
    untrace("cells_to_rows_start", where = ns)
    untrace("tenx_kept_sample", where = ns)
  }), add = TRUE)
  a <- suppressMessages(kmeans_reduced(file_sce, 3, dims = 10, n_init = 2, seed = 4,
                                       control = c(ctl, file_cache = 0)))
  # no pass for the sample alone: the library sizes and the sample, the
  # projection, the statistics
  expect_identical(counts$samples, 1)
  expect_identical(counts$converted, counts$samples)
  # the sample's cells (in a pool of the source's own) are freed when the
  # fit returns: a view of them is then an error, never other values
  expect_error(sum(sample_kept@x), "used after its memory was reused")
  expect_identical(counts$passes, 3)
  stored <- counts$values / 3
  # with the file's counts kept in memory by the first pass (the default
  # when they fit): one pass over the file, the same fit
  counts$passes <- 0
  kept <- suppressMessages(kmeans_reduced(file_sce, 3, dims = 10, n_init = 2, seed = 4,
                                          control = ctl))
  expect_identical(counts$passes, 1)
  expect_identical(kept$cluster, a$cluster)
  expect_identical(kept$centers, a$centers)
  expect_identical(kept$reduced, a$reduced)
  # a budget too small for them: every pass reads the file
  counts$passes <- 0
  small <- suppressMessages(kmeans_reduced(file_sce, 3, dims = 10, n_init = 2, seed = 4,
                                           control = c(ctl, file_cache = 1000)))
  expect_identical(counts$passes, 3)
  expect_identical(small$centers, a$centers)
  # a budget for about half of them: the file's first blocks are kept, and
  # the two later passes read only the others from the file (the first
  # pass in blocks of 97 cells too, as a larger file's would be several)
  counts$passes <- 0
  counts$values <- 0
  suppressMessages(trace("source_block_rows",
                         quote(if (is.null(block_rows) && inherits(src, "source_tenx")) {
                           block_rows <- 97L
                         }), print = FALSE, where = ns))
  part <- suppressMessages(kmeans_reduced(file_sce, 3, dims = 10, n_init = 2, seed = 4,
                                          control = c(ctl, file_cache = 6 * stored)))
  suppressMessages(untrace("source_block_rows", where = ns))
  expect_identical(counts$passes, 1)
  again <- counts$values - stored
  expect_true(again > 0 && again < 2 * stored && again %% 2 == 0)
  expect_identical(part$cluster, a$cluster)
  expect_identical(part$centers, a$centers)
  expect_identical(part$reduced, a$reduced)
  b <- suppressMessages(kmeans_reduced(mem_sce, 3, dims = 10, n_init = 2, seed = 4,
                                       control = ctl))
  expect_identical(unname(a$cluster), unname(b$cluster))
  expect_equal(a$reducer$rotation, b$reducer$rotation, tolerance = 1e-12)
  expect_equal(a$input$target, b$input$target)
  # with no seed the same: the seed drawn before the pass
  c1 <- withr::with_seed(8, suppressMessages(kmeans_reduced(file_sce, 3, dims = 10, n_init = 2,
                                                             control = ctl)))
  c2 <- withr::with_seed(8, suppressMessages(kmeans_reduced(mem_sce, 3, dims = 10, n_init = 2,
                                                             control = ctl)))
  expect_identical(c1$seed, c2$seed)
  expect_identical(unname(c1$cluster), unname(c2$cluster))
})

test_that("a block read from the file is multiplied while the next is read: the same numbers", {
  skip_without_bioc()
  tc <- tenx_case(300, 700, 3, seed = 14)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
  mem <- SingleCellExperiment::SingleCellExperiment(list(counts = tc$counts))
  ns <- asNamespace("kmreduce")
  started <- new.env()
  started$n <- 0
  suppressMessages(trace("cells_multiply_start_cpp",
                         bquote(assign("n", get("n", envir = .(started)) + 1, envir = .(started))),
                         print = FALSE, where = ns))
  on.exit(suppressMessages(untrace("cells_multiply_start_cpp", where = ns)), add = TRUE)
  fit <- function(x, threads, cache = 0) {
    suppressMessages(kmeans_reduced(x, 3, dims = 10, n_init = 2, seed = 4, n_threads = threads,
                                    control = list(svd_rows = 250, block_rows = 97L,
                                                   file_cache = cache)))
  }
  one <- fit(sce, 1L)
  expect_identical(started$n, 0)  # (one thread: no second thread)
  two <- fit(sce, 2L)
  expect_identical(started$n, 8)  # (8 blocks of at most 97 cells, every one from the file)
  kept <- fit(sce, 2L, "auto")    # (the blocks kept by the first pass: on R's thread)
  expect_identical(started$n, 8)
  ref <- fit(mem, 2L)
  expect_identical(two$reduced, one$reduced)
  expect_identical(kept$reduced, one$reduced)
  expect_identical(unname(two$reduced), unname(ref$reduced))
  expect_identical(two$cluster, one$cluster)
  # a bad cell in a block multiplied on its own thread: the error names it
  bad <- tc$counts
  at <- bad@p[650] + 1L  # (cell 650's first gene stored again as its second)
  i <- as.numeric(bad@i)
  i[at + 1L] <- i[at]
  f <- tempfile(fileext = ".h5")
  write_tenx(tc$counts, f)
  rewrite_indices(f, i)
  bsce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
  expect_error(fit(bsce, 2L), "stored twice at cell 650")
})

test_that("a product abandoned before a fork neither hangs nor crashes the children", {
  skip_on_cran()
  skip_on_os("windows")
  expect_fork_safe_job(
    c("m <- methods::as(withr::with_seed(4, Matrix::rsparsematrix(3000, 4000, 0.2,",
      "  rand.x = function(n) rpois(n, 2) + 1)), 'CsparseMatrix')",
      "cells <- list(x = m@x, i = m@i, ptr = as.numeric(m@p), n_genes = 3000L, target = 1e4,",
      "  size_factors = NULL, first_cell = 1)",
      "b <- kmreduce:::cells_multiply_rows_cpp(withr::with_seed(1, matrix(rnorm(3000 * 20), 3000)))",
      "into <- matrix(0, 4000, 20); ref <- matrix(0, 4000, 20)"),
    "job <- kmreduce:::cells_multiply_start_cpp(cells, b, 1L, into, 0)",
    "kmreduce:::cells_multiply_wait_cpp(job)",
    c("kmreduce:::cells_multiply_wait_cpp(job)",
      "rm(job); invisible(gc())",
      "kmreduce:::cells_multiply_cpp(cells, b, 2L, ref, 0)",
      "list(kids = kids, same = identical(into, ref))"))
})

test_that("a bad count found while summing library sizes names the file's cell", {
  skip_without_bioc()
  s <- sim_counts(50, 120, 2, seed = 3)
  m <- s$counts
  m@x[m@p[77] + 1L] <- -2  # (a value of cell 77)
  f <- tempfile(fileext = ".h5")
  write_tenx(m, f)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
  expect_error(suppressMessages(kmeans_reduced(sce, 2, seed = 1, control = list(block_rows = 30L))),
               "needs counts .* has -2 at cell 77")
})

# The package's own reader of a 10x file's chunks (src/tenx_hdf5.cpp), where
# it was built with HDF5: the values rhdf5 reads, or FALSE (rhdf5 reads).
test_that("the package's own 10x reader gives rhdf5's values, on 1 and 2 threads", {
  skip_without_own_reader()
  withr::local_seed(11)
  # (chunks large enough to be decoded on two threads)
  n <- 100003L
  small <- sample(0:5000, n, replace = TRUE)
  cases <- list(
    list(value = small, type = "H5T_STD_I32LE", out = "integer"),
    list(value = as.numeric(small), type = "H5T_STD_I64LE", out = "integer", shuffle = FALSE),
    list(value = small, type = "H5T_STD_U16LE", out = "integer", level = 9L),
    list(value = small, type = "H5T_STD_I32LE", out = "integer", level = 0L),  # chunks, no filter
    list(value = small + 0.25, type = "H5T_IEEE_F32LE", out = "double"),
    list(value = small / 3, type = "H5T_IEEE_F64LE", out = "double", chunk = 3001L),
    # (wider than R's integers: as doubles, exactly below 2^53)
    list(value = small + 2^52, type = "H5T_STD_I64LE", out = "double"),
    list(value = small + 2^31, type = "H5T_STD_U32LE", out = "double")
  )
  ranges <- list(c(0, n), c(0, 1), c(3999, 2), c(4000, 4000), c(1234, 90000), c(n - 1, 1),
                 c(5, 0))
  for (cs in cases) {
    f <- do.call(write_dataset, c(list(cs$value, cs$type),
                                  cs[intersect(names(cs), c("chunk", "level", "shuffle"))]))
    whole <- rhdf5::h5read(f, "d", bit64conversion = "double")
    for (r in ranges) for (threads in 1:2) {
      b <- kmreduce:::read_buffer_new(cs$out, max(1, r[2]))
      expect_true(kmreduce:::tenx_hdf5_read_cpp(f, "/d", r[1], r[2], b, threads))
      want <- as.vector(whole)[r[1] + seq_len(r[2])]
      got <- unclass(b)[seq_len(r[2])]
      if (cs$out == "integer") want <- as.integer(want)
      expect_identical(got, want, info = sprintf("%s %s, range %g+%g, %d threads", cs$type,
                                                 cs$out, r[1], r[2], threads))
    }
  }
})

test_that("the own 10x reader leaves to rhdf5 what it does not read as rhdf5 would", {
  skip_without_own_reader()
  b <- kmreduce:::read_buffer_new("integer", 10)
  # contiguous storage; a value beyond R's integers; R's integer NA
  contiguous <- write_dataset(1:10, "H5T_STD_I32LE", chunk = NULL, level = 0L)
  big <- write_dataset(c(1, 2, 3e9, 4:10), "H5T_STD_I64LE")
  na <- write_dataset(c(1L, NA, 3:10), "H5T_STD_I32LE")
  for (f in c(contiguous, big, na)) {
    expect_false(kmreduce:::tenx_hdf5_read_cpp(f, "/d", 0, 10, b, 2L))
  }
  # a 64-bit integer of magnitude 2^53 or more into a double (2^53 + 1 would
  # read as 2^53: rhdf5 reads them, and read_cells() says what cannot be held)
  d <- kmreduce:::read_buffer_new("double", 10)
  for (v in c(2^53, -2^53, 2^60)) {
    expect_false(kmreduce:::tenx_hdf5_read_cpp(write_dataset(c(1:9, v), "H5T_STD_I64LE"), "/d", 0,
                                               10, d, 2L))
  }
  expect_true(kmreduce:::tenx_hdf5_read_cpp(write_dataset(c(1:9, 2^53 - 1), "H5T_STD_I64LE"),
                                            "/d", 0, 10, d, 2L))
  expect_identical(unclass(d)[], c(1:9, 2^53 - 1))
  # a file or dataset HDF5 cannot open; a range past the end
  expect_false(kmreduce:::tenx_hdf5_read_cpp(tempfile(), "/d", 0, 10, b, 2L))
  expect_false(kmreduce:::tenx_hdf5_read_cpp(na, "/nothing", 0, 10, b, 2L))
  expect_false(kmreduce:::tenx_hdf5_read_cpp(na, "/d", 5, 10, b, 2L))
  # and then rhdf5 reads them (the NA as rhdf5 reads it)
  expect_silent(kmreduce:::h5_read_into(contiguous, "d", 0, 10, b))
  expect_identical(unclass(b)[], 1:10)
  kmreduce:::h5_read_into(na, "d", 0, 10, b)
  expect_identical(unclass(b)[1:4], c(1L, NA, 3L, 4L))
  # what R checks before the reader reads
  expect_error(kmreduce:::tenx_hdf5_read_cpp(na, "/d", 0, 11, b, 2L), "shorter")
  expect_error(kmreduce:::tenx_hdf5_read_cpp(na, "/d", -1, 1, b, 2L), "whole numbers")
  expect_error(kmreduce:::tenx_hdf5_read_cpp(na, "/d", 0, 1, letters, 2L), "integer or double")
})

test_that("a damaged chunk is an error naming the file, not a crash (child process)", {
  skip_without_own_reader()
  withr::local_seed(12)
  f <- write_dataset(sample.int(1e6, 2e5, replace = TRUE), "H5T_STD_I32LE", chunk = 10000L,
                     shuffle = FALSE)
  # bytes in the chunks' part of the file overwritten (its metadata and the
  # chunks' index come first)
  size <- file.size(f)
  con <- file(f, "r+b")
  seek(con, floor(size * 0.6), rw = "write")
  writeBin(as.raw(rep(0x55, 64)), con)
  close(con)
  res <- run_child("b <- kmreduce:::read_buffer_new('integer', 2e5)",
                   sprintf("kmreduce:::tenx_hdf5_read_cpp(%s, '/d', 0, 2e5, b, 2L)", deparse(f)))
  expect_match(res$status, "^error: .*could not be decompressed")
})

test_that("a fit through the own 10x reader is the fit through rhdf5, bit for bit", {
  skip_without_own_reader()
  skip_without_bioc()
  tc <- tenx_case(seed = 13)
  fit_with <- function(own) {
    old <- kmreduce:::held$own_hdf5_reader
    assign("own_hdf5_reader", own, envir = kmreduce:::held)
    on.exit(assign("own_hdf5_reader", old, envir = kmreduce:::held))
    sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(tc$file)))
    suppressMessages(kmeans_reduced(sce, 3, seed = 3, n_threads = 2,
                                    control = list(block_rows = 200L, file_cache = 0)))
  }
  own <- fit_with(TRUE)
  rhdf5_fit <- fit_with(FALSE)
  expect_identical(own$cluster, rhdf5_fit$cluster)
  expect_identical(own$centers, rhdf5_fit$centers)
  expect_identical(own$tot.withinss, rhdf5_fit$tot.withinss)
  expect_gt(adjusted_rand_index(own$cluster, tc$type), 0.9)
})

## Layouts other writers give: the root group, wide integers, offsets as doubles

test_that("a 10x layout in the root group is read on every path, by either reader", {
  skip_without_bioc()
  s <- sim_counts(120, 300, 3, seed = 31)
  f <- tempfile(fileext = ".h5")
  write_tenx(s$counts, f, group = "/")
  rows <- Matrix::t(s$counts)
  args <- list(k = 3, method = "sparse_embedding", dims = 20, n_init = 2, seed = 5,
               control = list(block_rows = 70L))
  ref <- do.call(kmeans_reduced, c(list(rows), args))
  m <- tenx_matrix(f, "/")
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m))
  in_memory <- function(cells) unname(as.matrix(rows[cells, ]))
  for (own in tenx_readers()) with_own_reader(own, {
    fit <- do.call(kmeans_reduced, c(list(t(m), normalize = "none"), args))
    expect_identical(fit$cluster, ref$cluster)
    fit_se <- do.call(kmeans_reduced, c(list(sce, normalize = "none"), args))
    expect_identical(fit_se$cluster, ref$cluster)
    expect_identical(unname(predict(fit_se, sce)), unname(ref$cluster))
    # an MPI rank's range of the cells, as x and as an assay
    x <- kmreduce:::mpi_local_rows(t(m)[101:230, ], "none")$rows
    expect_s3_class(x, "source_tenx")
    expect_identical(unname(as.matrix(kmreduce:::read_block(x, 1L, 130L))), in_memory(101:230))
    y <- kmreduce:::mpi_local_se(sce[, 101:230], "none", NULL)$rows
    expect_s3_class(y, "source_tenx")
    expect_identical(unname(as.matrix(kmreduce:::read_block(y, 1L, 130L))), in_memory(101:230))
  })
})

test_that("counts wider than R's integers are read exactly, as doubles", {
  skip_without_bioc()
  s <- sim_counts(60, 200, 2, seed = 32)
  counts <- s$counts
  counts@x[1] <- 2^31 + 1                    # (cell 1: beyond R's integers)
  counts@x[counts@p[150] + 1L] <- 3e9        # (cell 150, within unsigned 32-bit integers)
  wide <- counts
  wide@x[wide@p[120] + 1L] <- 2^53 - 1       # (cell 120: the largest exact in a double)
  args <- list(k = 2, method = "sparse_embedding", dims = 10, seed = 2,
               control = list(block_rows = 64L))
  cpm <- function(r) {
    lib <- Matrix::rowSums(r)
    r@x <- log1p(r@x / lib[r@i + 1L] * 1e6)
    r
  }
  cases <- list(list(type = "H5T_STD_I64LE", counts = wide),
                list(type = "H5T_STD_U64LE", counts = wide),
                list(type = "H5T_STD_U32LE", counts = counts))
  for (cs in cases) {
    f <- tempfile(fileext = ".h5")
    write_tenx(cs$counts, f, value_type = cs$type)
    m <- tenx_matrix(f)
    rows <- Matrix::t(cs$counts)
    # HDF5Array reads 64-bit counts as these doubles (and unsigned 32-bit ones
    # as R integers, those beyond them clamped, which the file reads exactly)
    if (cs$type != "H5T_STD_U32LE") expect_identical(methods::as(m, "dgCMatrix")@x, cs$counts@x)
    ref <- do.call(kmeans_reduced, c(list(rows), args))
    sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m))
    for (own in tenx_readers()) with_own_reader(own, {
      src <- kmreduce:::new_source_tenx(t(m), m@seed, cells_first = TRUE)
      expect_identical(unname(as.matrix(kmreduce:::read_block(src, 1L, 200L))),
                       unname(as.matrix(rows)), info = cs$type)
      fit <- do.call(kmeans_reduced, c(list(t(m), normalize = "none"), args))
      expect_identical(fit$cluster, ref$cluster, info = cs$type)
      expect_equal(fit$centers, ref$centers, info = cs$type)
      fit_se <- do.call(kmeans_reduced, c(list(sce, normalize = "log1p_cpm"), args))
      expect_identical(unname(fit_se$cluster),
                       unname(do.call(kmeans_reduced, c(list(cpm(rows)), args))$cluster),
                       info = cs$type)
    })
  }
})

test_that("a 64-bit count of 2^53 or more is an error naming the cell, by either reader", {
  skip_without_bioc()
  s <- sim_counts(40, 90, 2, seed = 33)
  for (big in c(2^53, 2^60, -2^60)) {
    counts <- s$counts
    counts@x[counts@p[77] + 2L] <- big
    f <- tempfile(fileext = ".h5")
    write_tenx(counts, f, value_type = "H5T_STD_I64LE")
    m <- tenx_matrix(f)
    for (own in tenx_readers()) with_own_reader(own, {
      expect_error(kmeans_reduced(t(m), 2, normalize = "none", method = "sparse_embedding", dims = 5, seed = 1,
                                  control = list(block_rows = 40L)),
                   paste0("^The 10x file '.*' has a count of 2\\^53 or more at cell 77 ",
                          "\\(\"cell77-1\"\\): stored as a 64-bit integer, which R's doubles cannot ",
                          "hold exactly\\.$"))
    })
  }
})

test_that("offsets stored as doubles must be whole, from 0 up, never decreasing: one error, whatever the blocks", {
  skip_without_bioc()
  s <- sim_counts(50, 60, 2, seed = 34)
  p <- as.numeric(s$counts@p)
  nnz <- length(s$counts@x)
  edit <- function(at, value) replace(p, at, value)
  cases <- list(
    list(p = edit(31, p[31] + 0.5), msg = "entry 31 \\(the end of cell 30\\) is [0-9]+\\.5, not a whole number"),
    list(p = edit(2, p[2] + 1e-9), msg = "entry 2 \\(the end of cell 1\\) is [0-9.]+, not a whole number"),
    list(p = edit(20, p[23]), msg = "entry 21 \\(the end of cell 20\\) is [0-9]+, below entry 20 \\([0-9]+\\)"),
    # (HDF5Array's TENxMatrix() refuses these two: the file changed after it)
    list(p = edit(1, 2), msg = "entry 1 \\(the start of cell 1\\) is 2, not 0", later = TRUE),
    list(p = edit(61, nnz - 1), msg = sprintf("entry 61 \\(the end of cell 60\\) is %d, not %d", nnz - 1, nnz),
         later = TRUE),
    list(p = edit(5, NaN), msg = "entry 5 \\(the end of cell 4\\) is NaN"),
    list(p = edit(9, Inf), msg = "entry 9 \\(the end of cell 8\\) is Inf, not a whole number")
  )
  for (cs in cases) {
    f <- tempfile(fileext = ".h5")
    write_tenx(s$counts, f, indptr = if (isTRUE(cs$later)) p else cs$p, indptr_type = "H5T_IEEE_F64LE")
    m <- suppressWarnings(tenx_matrix(f))  # (HDF5Array's own warning for Inf)
    if (isTRUE(cs$later)) {
      rhdf5::h5write(cs$p, f, "mm10/indptr")
      rhdf5::h5closeAll()
    }
    msg <- paste0("^The 10x file '.*' \\(group \"/?mm10\"\\) has an `indptr` that does not run ",
                  sprintf("from 0 up to the %d stored values: ", nnz), cs$msg, "\\.$")
    expect_error(kmreduce:::read_tenx_layout(f, "mm10", 60, 50), msg)
    sce <- SingleCellExperiment::SingleCellExperiment(list(counts = m))
    for (block in c(7L, 30L, 31L, 60L)) {
      expect_error(suppressMessages(kmeans_reduced(sce, 2, seed = 1,
                                                   control = list(block_rows = block))), msg)
      expect_error(kmeans_reduced(t(m), 2, normalize = "none", method = "sparse_embedding", dims = 5, seed = 1,
                                  control = list(block_rows = block)), msg)
    }
  }
})

test_that("a fault of a block as read is said in a sentence naming the file", {
  src <- list(file = "a.h5", names = list(c("AAA-1", "CCC-1"), c("g1", "g2")))
  expect_error(kmreduce:::stop_tenx_layout(src, "the offsets must end within the values and gene indices"),
               "^The 10x file 'a.h5' gave a block that cannot be used: the offsets must end within the values and gene indices\\.$")
  expect_error(kmreduce:::stop_tenx_layout(src, "a block of cells has bad value offsets"),
               "^The 10x file 'a.h5' gave a block that cannot be used: a block of cells has bad value offsets\\.$")
  expect_error(kmreduce:::stop_tenx_layout(src, "gene index 1 stored twice at cell 2"),
               "^The 10x file 'a.h5' has a gene index 1 \\(gene 2, \"g2\"\\) stored twice at cell 2 \\(\"CCC-1\"\\)\\.$")
})
