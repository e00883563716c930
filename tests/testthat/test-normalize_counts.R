# The normalizations of counts (R/normalize_counts.R): the field's formulas
# (scuttle's logNormCounts, Seurat's NormalizeData), in memory and block by
# block, with the same numbers however the cells are read.

norm_case <- function(seed = 1) {
  s <- sim_counts(n_genes = 120, n_cells = 200, n_types = 3, seed = seed)
  counts <- s$counts
  counts[, 5] <- 0  # a cell without counts
  s$counts <- methods::as(counts, "CsparseMatrix")
  c(s, list(rows = Matrix::t(s$counts)))
}

test_that("log1p_size_factors is scuttle's logNormCounts (natural log), log1p_cp10k Seurat's formula", {
  nc <- norm_case()
  lib <- Matrix::colSums(nc$counts)
  # scuttle: size factors lib / mean(lib), log2(x / sf + 1)
  sf <- lib / mean(lib)
  ref_sf <- as.matrix(Matrix::t(nc$counts))
  ok <- lib > 0
  ref_sf[ok, ] <- log1p(ref_sf[ok, ] / sf[ok])
  got <- kmreduce:::normalize_rows(nc$rows, "log1p_size_factors", "x")
  expect_equal(as.matrix(got), ref_sf, tolerance = 1e-12, ignore_attr = TRUE)
  if (requireNamespace("scuttle", quietly = TRUE)) {
    sc <- scuttle::normalizeCounts(as.matrix(nc$counts[, ok]), log = TRUE, pseudo.count = 1,
                                   size.factors = scuttle::librarySizeFactors(nc$counts[, ok]))
    mine <- kmreduce:::normalize_rows(Matrix::t(nc$counts[, ok]), "log1p_size_factors", "x")
    expect_equal(as.matrix(mine) / log(2), t(as.matrix(sc)), tolerance = 1e-10,
                 ignore_attr = TRUE)
  }
  # Seurat's LogNormalize: log1p(x / lib * 1e4)
  ref_10k <- as.matrix(Matrix::t(nc$counts))
  ref_10k[ok, ] <- log1p(ref_10k[ok, ] / lib[ok] * 1e4)
  got_10k <- kmreduce:::normalize_rows(nc$rows, "log1p_cp10k", "x")
  expect_equal(as.matrix(got_10k), ref_10k, tolerance = 1e-12, ignore_attr = TRUE)
  # dense rows: the same numbers
  expect_identical(kmreduce:::normalize_rows(as.matrix(nc$rows), "log1p_cp10k", "x"),
                   as.matrix(got_10k))
})

test_that("every normalization gives the same numbers in memory, from a DelayedMatrix and from a 10x file", {
  skip_without_bioc()
  nc <- norm_case(seed = 2)
  f <- tempfile(fileext = ".h5")
  write_tenx(nc$counts, f)
  se <- function(a) SingleCellExperiment::SingleCellExperiment(list(counts = a))
  args <- list(k = 3, method = "sparse_embedding", dims = 30, n_init = 2, seed = 4)
  for (how in c("log1p_size_factors", "log1p_cp10k", "log1p_cpm")) {
    ref <- do.call(kmeans_reduced, c(list(se(nc$counts), normalize = how), args))
    by_file <- do.call(kmeans_reduced, c(list(se(tenx_matrix(f)), normalize = how,
                                              control = list(block_rows = 37L)), args))
    by_delayed <- do.call(kmeans_reduced, c(list(se(DelayedArray::DelayedArray(nc$counts)),
                                                 normalize = how,
                                                 control = list(block_rows = 50L)), args))
    for (fit in list(by_file, by_delayed)) {
      expect_identical(unname(fit$cluster), unname(ref$cluster))
      expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-12)
      expect_equal(fit$centers, ref$centers, tolerance = 1e-12, ignore_attr = TRUE)
    }
    # the fit's data: the formula's
    rows <- kmreduce:::normalize_rows(nc$rows, how, "x")
    expect_equal(ref$totss, sum(scale(as.matrix(rows), scale = FALSE)^2), tolerance = 1e-10)
  }
})

test_that("size factors come from the object when it has them", {
  skip_without_bioc("SingleCellExperiment")
  nc <- norm_case(seed = 3)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = nc$counts))
  sf <- withr::with_seed(1, runif(ncol(sce), 0.5, 2))
  SingleCellExperiment::sizeFactors(sce) <- sf
  args <- list(k = 3, method = "sparse_embedding", dims = 30, n_init = 2, seed = 4)
  fit <- do.call(kmeans_reduced, c(list(sce, normalize = "log1p_size_factors"), args))
  # (centred at 1, as scuttle's logNormCounts() centres them)
  rows <- nc$rows
  rows@x <- log1p(rows@x / (sf / mean(sf))[rows@i + 1L])
  ref <- do.call(kmeans_reduced, c(list(rows), args))
  expect_identical(unname(fit$cluster), unname(ref$cluster))
  expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-12)
  # bad size factors: an error naming them
  SingleCellExperiment::sizeFactors(sce) <- replace(sf, 3, 0)
  expect_error(do.call(kmeans_reduced, c(list(sce, normalize = "log1p_size_factors"), args)),
               "size factors of `x` .* must be 200 finite numbers > 0")
})

test_that("predict() applies the fit's mean library size to new cells", {
  skip_without_bioc("SummarizedExperiment")
  nc <- norm_case(seed = 4)
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = nc$counts))
  fit <- suppressMessages(kmeans_reduced(se, 3, seed = 1, n_init = 2))
  expect_identical(fit$input$normalize, "log1p_size_factors")
  expect_equal(fit$input$target, mean(Matrix::colSums(nc$counts)))
  expect_identical(predict(fit, se), fit$cluster)
  # a subset of the cells: the same labels (the fit's mean library size,
  # not the subset's)
  expect_identical(predict(fit, se[, 1:40]), fit$cluster[1:40])
})

test_that("log1p_size_factors is scuttle's logNormCounts() times log(2), in memory and from files", {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment", "scuttle"))
  nc <- norm_case(seed = 5)
  # (scuttle refuses a cell without counts when the size factors are its
  # library sizes)
  counts <- nc$counts[, Matrix::colSums(nc$counts) > 0]
  f <- tempfile(fileext = ".h5")
  write_tenx(counts, f)
  h5 <- HDF5Array::writeHDF5Array(as.matrix(counts), tempfile(fileext = ".h5"), "counts")
  assays <- list(sparse = counts, dense = as.matrix(counts),
                 delayed = DelayedArray::DelayedArray(counts), hdf5 = h5, tenx = tenx_matrix(f))
  sce <- function(a, sf) {
    x <- SingleCellExperiment::SingleCellExperiment(list(counts = a))
    if (!is.null(sf)) SingleCellExperiment::sizeFactors(x) <- sf
    x
  }
  args <- list(k = 3, method = "sparse_embedding", dims = 30, n_init = 2, seed = 4, n_threads = 1)
  # the size factors of the object (not centred: the library sizes), or none
  for (sf in list(Matrix::colSums(counts), NULL)) {
    ref <- t(as.matrix(SingleCellExperiment::logcounts(scuttle::logNormCounts(sce(counts, sf))))) *
      log(2)
    for (name in names(assays)) {
      x <- sce(assays[[name]], sf)
      expect_message(fit <- do.call(kmeans_reduced, c(list(x, control = list(block_rows = 37L)),
                                                      args)),
                     if (is.null(sf)) "divided by the library sizes centred at 1" else
                       "divided by the size factors of `x` \\(sizeFactors\\(\\)\\) centred at 1")
      # the fit's statistics are those of scuttle's values
      expect_equal(fit$totss, sum(scale(ref, scale = FALSE)^2), tolerance = 1e-10, info = name)
      means <- rowsum(ref, fit$cluster) / as.vector(table(fit$cluster))
      expect_equal(unname(fit$centers), unname(means), tolerance = 1e-10, info = name)
    }
    # the values themselves, cell by cell
    expect_equal(as.matrix(kmreduce:::se_rows(sce(counts, sf),
                                              list(assay = "counts", normalize = "log1p_size_factors"))),
                 ref, tolerance = 1e-12, ignore_attr = TRUE)
  }
  # multiplying the size factors by a constant changes nothing
  a <- kmreduce:::se_rows(sce(counts, Matrix::colSums(counts)),
                          list(assay = "counts", normalize = "log1p_size_factors"))
  b <- kmreduce:::se_rows(sce(counts, Matrix::colSums(counts) / 1e4),
                          list(assay = "counts", normalize = "log1p_size_factors"))
  expect_equal(a, b, tolerance = 1e-14)
})

test_that("every normalization is one complete entry of the list, its transform one of the core's", {
  reg <- kmreduce:::normalization_registry()
  expect_identical(names(reg), kmreduce:::normalize_choices())
  expect_identical(names(reg)[1:4], c("none", "log1p_cpm", "log1p_cp10k", "log1p_size_factors"))
  for (how in names(reg)) {
    e <- reg[[how]]
    expect_true(kmreduce:::valid_normalization_entry(e), label = how)
    for (from in c("sizeFactors", "library_sizes")) {
      expect_true(is.character(e$describe(from)) && nzchar(e$describe(from)), label = how)
    }
  }
  # the core's list: every transform named by an entry, and only those
  expect_identical(kmreduce:::cell_transforms_cpp(), c("identity", "log1p_scaled"))
  expect_setequal(vapply(reg, `[[`, "", "transform"), kmreduce:::cell_transforms_cpp())
  expect_error(kmreduce:::normalize_cells_cpp(matrix(1, 2, 2), TRUE, "sqrt", 1, NULL, 1),
               "must be one of \"identity\", \"log1p_scaled\", not \"sqrt\"")
  # the fits' records and their reading back follow from target and size factors
  sfs <- kmreduce:::complete_normalization("log1p_size_factors", c(1, 3))
  expect_identical(kmreduce:::normalization_record(sfs), list(size_factors_from = "sizeFactors",
                                                              target = 2))
  expect_identical(kmreduce:::normalization_record(kmreduce:::complete_normalization("log1p_cpm")),
                   list())
})

test_that("the core's transform is the formula on every layout, fractional counts and size factors too", {
  set.seed(3)
  m <- Matrix::rsparsematrix(30, 12, 0.4, rand.x = function(n) runif(n, 0, 40))
  m[4, ] <- 0
  sf <- runif(30, 0.5, 2)
  lib <- Matrix::rowSums(m)
  dense <- as.matrix(m)
  by_lib <- log1p(dense / ifelse(lib == 0, 1, lib) * 1e4)
  by_sf <- log1p(dense / sf * 7)
  norm <- list(how = "log1p_size_factors", target = 7, size_factors = sf)
  expect_equal(kmreduce:::normalize_rows(dense, "log1p_cp10k", "x"), by_lib, tolerance = 1e-15)
  expect_equal(as.matrix(kmreduce:::normalize_rows(m, "log1p_cp10k", "x")), by_lib,
               tolerance = 1e-15)
  expect_equal(as.matrix(Matrix::t(kmreduce:::normalize_columns(Matrix::t(m), "log1p_cp10k", "x"))),
               by_lib, tolerance = 1e-15)
  expect_equal(kmreduce:::normalize_rows(dense, norm, "x"), by_sf, tolerance = 1e-15)
  # a block of the cells: their own size factors
  expect_equal(kmreduce:::normalize_rows(dense[11:20, ], norm, "x", first = 11L), by_sf[11:20, ],
               tolerance = 1e-15)
  expect_equal(as.matrix(kmreduce:::normalize_rows(m[11:20, ], norm, "x", first = 11L)),
               by_sf[11:20, ], tolerance = 1e-15)
  # the input is left as it was
  expect_identical(dense, as.matrix(m))
})

# A toy normalization, added through its entry alone: log1p of counts per
# 100 (a fixed target, the core's transform log1p_scaled).
test_that("a normalization added to the list runs on every reader and in predict()", {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment"))
  entry <- kmreduce:::normalization_entry(function(from = NULL) "log1p of counts per 100",
                                          "log1p_scaled", target = 100)
  expect_error(kmreduce:::register_normalization("log1p_cpm", entry),
               "`name` must be a new normalization name")
  expect_error(kmreduce:::register_normalization("toy", utils::modifyList(entry, list(transform = "sqrt"))),
               "`entry` must be a normalization_entry\\(\\)")
  kmreduce:::register_normalization("log1p_cp100", entry)
  on.exit(kmreduce:::register_normalization("log1p_cp100", NULL), add = TRUE)
  expect_true("log1p_cp100" %in% kmreduce:::normalize_choices())
  nc <- norm_case(seed = 6)
  # the reference: the formula, by hand
  lib <- Matrix::colSums(nc$counts)
  rows <- nc$rows
  rows@x <- log1p(rows@x / lib[rows@i + 1L] * 100)
  args <- list(k = 3, method = "sparse_embedding", dims = 30, n_init = 2, seed = 4)
  ref <- do.call(kmeans_reduced, c(list(rows), args))
  f <- tempfile(fileext = ".h5")
  write_tenx(nc$counts, f)
  se <- function(a) SingleCellExperiment::SingleCellExperiment(list(counts = a))
  inputs <- list(memory = nc$counts, delayed = DelayedArray::DelayedArray(nc$counts),
                 tenx = tenx_matrix(f))
  for (name in names(inputs)) {
    fit <- do.call(kmeans_reduced, c(list(se(inputs[[name]]), normalize = "log1p_cp100",
                                          control = list(block_rows = 37L)), args))
    expect_identical(unname(fit$cluster), unname(ref$cluster), label = name)
    expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-12, label = name)
    expect_identical(fit$input$normalize, "log1p_cp100")
    # new cells normalized by the entry, each alone
    expect_identical(predict(fit, se(nc$counts[, 1:40])), fit$cluster[1:40], label = name)
  }
  bad <- nc$counts
  bad[2, 9] <- -1
  expect_error(kmeans_reduced(se(bad), 3, normalize = "log1p_cp100"),
               "`normalize = \"log1p_cp100\"` needs counts .* has -1 at cell 9")
})
