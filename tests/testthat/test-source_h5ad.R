# AnnData .h5ad files (R/source_h5ad.R): every layout anndata writes gives
# the labels of the same counts in memory and of a 10x file of the same
# cells; a bad file is an error naming the file, the matrix and the fault.

h5ad_case <- function(n_genes = 200, n_cells = 500, n_types = 3, seed = 1) {
  s <- sim_counts(n_genes, n_cells, n_types, seed)
  c(s, list(x = Matrix::t(s$counts)))  # cells x genes
}

skip_without_h5ad <- function() {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment"))
}

rows_args <- list(k = 3, method = "sparse_embedding", dims = 60, n_init = 3, seed = 7,
                  n_threads = 2, normalize = "none")

test_that("CSR, CSC and dense X, integer and float, gzip and none: the labels of the matrix in memory", {
  skip_without_h5ad()
  hc <- h5ad_case()
  ref <- do.call(kmeans_reduced, c(list(hc$x), rows_args[names(rows_args) != "normalize"]))
  obs <- list(cell_type = factor(letters[hc$type]), batch = factor(rep(1:2, length.out = 500)))
  for (format in c("csr", "csc", "dense")) {
    for (type in c("H5T_STD_I32LE", "H5T_IEEE_F32LE")) {
      for (level in c(0L, 4L)) {
        info <- paste(format, type, level)
        f <- tempfile(fileext = ".h5ad")
        write_h5ad(hc$x, f, format, obs = obs, value_type = type, level = level)
        cells <- h5ad_rows(f)
        expect_identical(dimnames(cells), dimnames(hc$x), info = info)
        # (blocks of 97 cells: six blocks, the last one short)
        fit <- do.call(kmeans_reduced, c(list(cells, control = list(block_rows = 97L)),
                                         rows_args))
        expect_identical(fit$cluster, ref$cluster, info = info)
        expect_equal(fit$centers, ref$centers, tolerance = 1e-10, info = info)
        expect_equal(fit$withinss, ref$withinss, tolerance = 1e-10, info = info)
      }
    }
  }
  expect_identical(predict(fit, cells), fit$cluster)
  # a CSR matrix is read as a 10x file is; the others through DelayedArray
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f, "csr")
  expect_s3_class(kmreduce:::as_row_source(h5ad_rows(f)), "source_tenx")
  f2 <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f2, "csc")
  src <- kmreduce:::as_row_source(h5ad_rows(f2))
  expect_false(inherits(src, "source_tenx"))
  expect_match(kmreduce:::describe_source(src), "the .h5ad file '.*' \\(matrix \"X\"\\)")
})

test_that("the own reader and rhdf5 give the same fit of a CSR file", {
  skip_without_h5ad()
  hc <- h5ad_case(seed = 2)
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f, "csr", value_type = "H5T_IEEE_F32LE")
  fits <- lapply(tenx_readers(), function(own) with_own_reader(own, {
    suppressMessages(kmeans_reduced(h5ad_rows(f), 3, seed = 3, n_threads = 2))
  }))
  expect_identical(fits[[1L]]$cluster, fits[[length(fits)]]$cluster)
  expect_identical(fits[[1L]]$tot.withinss, fits[[length(fits)]]$tot.withinss)
})

test_that("counts get the single-cell defaults: the labels of the SingleCellExperiment and of the 10x file", {
  skip_without_h5ad()
  hc <- h5ad_case(n_genes = 300, n_cells = 1500, n_types = 4, seed = 5)
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f, "csr", obs = list(type = factor(hc$type)))
  cells <- h5ad_rows(f)
  expect_message(fit <- kmeans_reduced(cells, 4, seed = 1, n_threads = 2),
                 paste0("the counts of the .h5ad file '.*' \\(matrix \"X\"\\) are normalized ",
                        "with normalize = \"log1p_size_factors\""))
  expect_identical(fit$method, "rsvd")
  expect_identical(fit$input$assay, "counts")
  expect_identical(names(fit$cluster), rownames(hc$x))
  expect_gt(adjusted_rand_index(fit$cluster, hc$type), 0.95)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = hc$counts))
  ref <- suppressMessages(kmeans_reduced(sce, 4, seed = 1, n_threads = 2))
  expect_identical(unname(fit$cluster), unname(ref$cluster))
  expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-10)
  f10 <- tempfile(fileext = ".h5")
  write_tenx(hc$counts, f10)
  tenx <- suppressMessages(kmeans_reduced(t(tenx_matrix(f10)), 4, seed = 1, n_threads = 2))
  expect_identical(unname(fit$cluster), unname(tenx$cluster))
  # its t() as the counts of a SingleCellExperiment: the same
  fit_sce <- suppressMessages(kmeans_reduced(
    SingleCellExperiment::SingleCellExperiment(list(counts = t(cells))), 4, seed = 1, n_threads = 2))
  expect_identical(fit_sce$cluster, fit$cluster)
  # predict(): the file's cells normalized as the fit's, as rows or in an SCE
  expect_identical(predict(fit, cells), fit$cluster)
  expect_identical(unname(predict(fit, sce)), unname(fit$cluster))
  # CSC and dense: the same labels
  for (format in c("csc", "dense")) {
    g <- tempfile(fileext = ".h5ad")
    write_h5ad(hc$x, g, format)
    other <- suppressMessages(kmeans_reduced(h5ad_rows(g), 4, seed = 1, n_threads = 2))
    expect_identical(other$cluster, fit$cluster, info = format)
  }
})

test_that("a layer of counts and raw/X are read with their own genes; values that are not counts as they are", {
  skip_without_h5ad()
  hc <- h5ad_case(seed = 8)
  logx <- hc$x
  logx@x <- log1p(logx@x)
  raw <- hc$x[, 1:150]
  colnames(raw) <- sprintf("raw_gene%d", 1:150)
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(logx, f, "csr", layers = list(counts = hc$x), raw = raw,
             value_type = "H5T_IEEE_F32LE", obs = list(type = factor(hc$type)))
  sce <- function(a, name = "counts") {
    SingleCellExperiment::SingleCellExperiment(stats::setNames(list(a), name))
  }
  ref <- suppressMessages(kmeans_reduced(sce(hc$counts), 3, seed = 2))
  for (layer in c("counts", "layers/counts")) {
    cells <- h5ad_rows(f, layer)
    expect_identical(dimnames(cells), dimnames(hc$x))
    fit <- suppressMessages(kmeans_reduced(cells, 3, seed = 2))
    expect_identical(unname(fit$cluster), unname(ref$cluster), info = layer)
  }
  cells_raw <- h5ad_rows(f, "raw/X")
  expect_identical(colnames(cells_raw), colnames(raw))
  fit_raw <- suppressMessages(kmeans_reduced(cells_raw, 3, seed = 2))
  ref_raw <- suppressMessages(kmeans_reduced(sce(Matrix::t(raw)), 3, seed = 2))
  expect_identical(unname(fit_raw$cluster), unname(ref_raw$cluster))
  # X of log values: said, and clustered as they are (principal components)
  expect_message(fit_x <- kmeans_reduced(h5ad_rows(f), 3, seed = 2),
                 "matrix \"X\"\\) holds values that are not counts \\(e.g. [0-9.]+\\): they are clustered as they are")
  expect_identical(fit_x$input$normalize, "none")
  ref_x <- kmeans_reduced(sce(Matrix::t(logx), "values"), 3, seed = 2)
  expect_equal(fit_x$tot.withinss, ref_x$tot.withinss, tolerance = 1e-6)
  expect_equal(adjusted_rand_index(fit_x$cluster, ref_x$cluster), 1)
})

test_that("an H5ADMatrix made by HDF5Array is read the same way", {
  skip_without_h5ad()
  hc <- h5ad_case(seed = 9)
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f, "csr")
  # (HDF5Array 1.26's H5ADMatrix() fails on this layout; its seed, with the
  # names, is what it would make)
  h5ad <- tryCatch(HDF5Array::H5ADMatrix(f), error = function(e) {
    rhdf5::h5errorHandling("normal")
    DelayedArray::DelayedArray(methods::new("CSC_H5ADMatrixSeed",
                                            HDF5Array::H5SparseMatrixSeed(f, "/X"),
                                            dimnames = list(colnames(hc$x), rownames(hc$x))))
  })
  expect_s4_class(h5ad, "H5ADMatrix")
  fit <- suppressMessages(kmeans_reduced(t(h5ad), 3, seed = 4))
  ref <- suppressMessages(kmeans_reduced(h5ad_rows(f), 3, seed = 4))
  expect_identical(fit$cluster, ref$cluster)
  src <- kmreduce:::as_row_source(t(h5ad))
  expect_s3_class(src, "source_tenx")
  fit_sce <- suppressMessages(kmeans_reduced(
    SingleCellExperiment::SingleCellExperiment(list(counts = h5ad)), 3, seed = 4))
  expect_identical(unname(fit_sce$cluster), unname(ref$cluster))
})

test_that("bad files and layers are errors naming the file, the matrix and the fault", {
  skip_without_h5ad()
  hc <- h5ad_case(n_genes = 30, n_cells = 40, seed = 10)
  expect_error(h5ad_rows(c("a", "b")), "`file` must be the path of an .h5ad file, not")
  expect_error(h5ad_rows(tempfile(fileext = ".h5ad")), "The .h5ad file '.*' does not exist")
  junk <- tempfile(fileext = ".h5ad")
  writeLines("not hdf5", junk)
  expect_error(h5ad_rows(junk), "The .h5ad file '.*' cannot be read as HDF5")
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f, "csr", layers = list(spliced = hc$x))
  expect_error(h5ad_rows(f, "counts"),
               "`layer` must name a matrix of the .h5ad file '.*' \\(it has \"X\", \"layers/spliced\"\\), not \"counts\"")
  expect_error(h5ad_rows(f, 1), "`layer` must name a matrix .*, not 1")
  # (each fault written into a fresh copy of the file)
  broken <- function(edit) {
    g <- tempfile(fileext = ".h5ad")
    file.copy(f, g)
    edit(g)
    rhdf5::h5closeAll()
    g
  }
  set_attr <- function(g, path, name, value) {
    fid <- rhdf5::H5Fopen(g)
    obj <- rhdf5::H5Gopen(fid, path)
    rhdf5::h5writeAttribute(value, obj, name, asScalar = is.character(value))
    rhdf5::H5Gclose(obj)
    rhdf5::H5Fclose(fid)
  }
  g <- broken(function(g) set_attr(g, "/X", "encoding-type", "coo_matrix"))
  expect_error(h5ad_rows(g),
               "The .h5ad file '.*' \\(matrix \"X\"\\) is a group with encoding-type \"coo_matrix\"; \"csr_matrix\" or \"csc_matrix\" was expected")
  g <- broken(function(g) rhdf5::h5deleteAttribute(g, "/X", "shape"))
  expect_error(h5ad_rows(g), "\\(matrix \"X\"\\) has no attribute `shape` of two whole numbers")
  g <- broken(function(g) rhdf5::h5delete(g, "/X/indices"))
  expect_error(h5ad_rows(g), "\\(group \"/X\"\\) has no dataset `indices`")
  g <- broken(function(g) set_attr(g, "/X", "shape", c(41L, 30L)))
  expect_error(h5ad_rows(g), "has `indptr` of length 41, not 42 \\(one more than its 41 cells\\)")
  g <- broken(function(g) {
    rhdf5::h5delete(g, "/obs/_index")
    rhdf5::h5write(sprintf("c%d", 1:39), g, "/obs/_index")
  })
  expect_error(h5ad_rows(g), "\\(matrix \"X\"\\) has 40 cells but its index `obs` names 39")
  g <- broken(function(g) {
    rhdf5::h5delete(g, "/X/data")
    rhdf5::h5write(rep("a", length(hc$x@x)), g, "/X/data")
  })
  expect_error(h5ad_rows(g), "has a dataset `data` of class STRING; numbers were expected")
  # a dense X of strings, of three dimensions
  d <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, d, "dense")
  g <- tempfile(fileext = ".h5ad")
  file.copy(d, g)
  rhdf5::h5delete(g, "/X")
  rhdf5::h5write(array(1, c(2, 3, 4)), g, "/X")
  expect_error(h5ad_rows(g), "\\(matrix \"X\"\\) is a dataset of 3 dimensions; a matrix of cells x genes was expected")
})

test_that("a gene index out of range is an error naming the cell, in CSR and CSC files", {
  skip_without_h5ad()
  hc <- h5ad_case(n_genes = 30, n_cells = 40, seed = 11)
  for (format in c("csr", "csc")) {
    f <- tempfile(fileext = ".h5ad")
    write_h5ad(hc$x, f, format)
    i <- rhdf5::h5read(f, "/X/indices")
    i[5] <- if (format == "csr") 30L else 40L
    rhdf5::h5write(i, f, "/X/indices")
    rhdf5::h5closeAll()
    # (in a child: a crash shows as its status)
    res <- run_child(
      sprintf("cells <- h5ad_rows(%s)", deparse(f)),
      "kmeans_reduced(cells, 3, normalize = 'none', method = 'sparse_embedding', dims = 10, seed = 1)")
    if (format == "csr") {
      expect_match(res$status, paste0("^error: The .h5ad file '.*' \\(matrix \"X\"\\) has a gene index ",
                                      "outside 0..29 at cell [0-9]+ \\(\"cell[0-9]+-1\"\\)"))
    } else {
      expect_match(res$status, paste0("^error: the assay \"counts\" \\(the .h5ad file '.*' ",
                                      "\\(matrix \"X\"\\)\\) could not be read \\(columns 1..40\\)"))
    }
  }
})

test_that("k_path() of an .h5ad file's cells is that of the same counts in a SingleCellExperiment", {
  skip_without_h5ad()
  hc <- h5ad_case(n_genes = 60, n_cells = 200, seed = 12)
  f <- tempfile(fileext = ".h5ad")
  write_h5ad(hc$x, f, "csr")
  expect_message(p <- k_path(h5ad_rows(f), k = 2:4, B = 2, seed = 1, n_threads = 1, verbose = FALSE),
                 "the counts of the .h5ad file")
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = hc$counts))
  ref <- suppressMessages(k_path(sce, k = 2:4, B = 2, seed = 1, n_threads = 1, verbose = FALSE))
  # (the statistics on the original cells summed by blocks of the file or
  # in memory: equal to rounding)
  expect_equal(as.data.frame(p), as.data.frame(ref), tolerance = 1e-12)
  expect_identical(unname(p$fit$cluster), unname(ref$fit$cluster))
})
