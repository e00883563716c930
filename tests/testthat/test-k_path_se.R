# k_path() of the cells of a SummarizedExperiment / SingleCellExperiment and
# of t() of a TENxMatrix: the cells read, normalized and reduced once as
# kmeans_reduced() does, then the path of the reduced cells.

kpath_cells <- function(seed = 1) {
  s <- sim_counts(200, 400, 3, seed)
  rows <- Matrix::t(s$counts)
  lib <- Matrix::rowSums(rows)
  logn <- rows  # log1p_size_factors: library sizes centred at their mean
  logn@x <- log1p(logn@x / lib[logn@i + 1L] * mean(lib))
  c(s, list(logn = logn))
}

args <- list(k = 1:5, B = 3, seed = 3, n_init = 3, n_threads = 1, verbose = FALSE)
# (the defaults for cells given to the matrix: principal components of a
# sample of cells, no certificate)
cell_args <- list(method = "rsvd", dims = 150, bound = FALSE,
                  control = list(svd_rows = 20000, eps = 1))

same_path <- function(p, ref, tolerance = 1e-8) {
  expect_equal(p$results, ref$results, tolerance = tolerance)
  expect_identical(p$chosen, ref$chosen)
  for (q in p$results$k) expect_identical(unname(p$fits[[q]]$cluster), unname(ref$fits[[q]]$cluster))
}

test_that("the cells of a SingleCellExperiment give the path of their normalized matrix", {
  skip_without_bioc("SingleCellExperiment")
  sc <- kpath_cells()
  ref <- do.call(k_path, c(list(sc$logn), cell_args, args))
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts))
  expect_message(p <- do.call(k_path, c(list(sce), args)),
                 "k_path\\(\\): the assay \"counts\" is normalized with normalize = \"log1p_size_factors\"")
  expect_identical(p$results, ref$results)
  expect_identical(p$chosen, ref$chosen)
  expect_identical(p$chosen[["gap_firstSEmax"]], 3L)
  expect_identical(p$input$normalize, "log1p_size_factors")
  # each fit is kmeans_reduced() of the cells at that k, with the same
  # arguments, and takes new cells in predict()
  fit <- suppressMessages(kmeans_reduced(sce, 3, n_init = 3, seed = 3, n_threads = 1))
  expect_identical(p$fits[[3]]$cluster, fit$cluster)
  expect_identical(p$fits[[3]]$centers, fit$centers)
  expect_identical(p$fits[[3]]$input, fit$input)
  pc <- suppressMessages(k_path(sce, k = 2:3, B = 0, verbose = FALSE))
  expect_identical(pc$fits[[3]]$call$x, as.name("sce"))
  expect_identical(suppressMessages(predict(p$fits[[3]], sce)), fit$cluster)
  # a reduced dimension: the path of that matrix
  SingleCellExperiment::reducedDim(sce, "PCA") <- as.matrix(fit$reduced[, 1:10])
  pr <- k_path(sce, use_reduced_dim = "PCA", k = 1:4, B = 2, seed = 1, verbose = FALSE)
  pm <- k_path(as.matrix(fit$reduced[, 1:10]), k = 1:4, B = 2, seed = 1, bound = FALSE,
               verbose = FALSE)
  expect_identical(pr$results, pm$results)
  expect_error(k_path(sce, use_reduced_dim = "UMAP"), "`use_reduced_dim` must be the name")
})

test_that("a 10x file gives the path of the same cells in memory, for any thread count", {
  skip_without_bioc()
  sc <- kpath_cells(2)
  ref <- do.call(k_path, c(list(sc$logn), cell_args, args))
  file <- tempfile(fileext = ".h5")
  write_tenx(sc$counts, file)
  tx <- tenx_matrix(file)
  p1 <- suppressMessages(do.call(k_path, c(list(t(tx)), args)))
  same_path(p1, ref)
  p2 <- suppressMessages(do.call(k_path, c(list(t(tx), n_threads = 2), args[-5])))
  expect_identical(p2$results, p1$results)
  # as the "counts" assay of a SingleCellExperiment
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = tx))
  p3 <- suppressMessages(do.call(k_path, c(list(sce), args)))
  expect_identical(p3$results, p1$results)
  expect_identical(p3$fits[[3]]$cluster, p1$fits[[3]]$cluster)
  # on a sample of the reduced cells: the same sample, and the chosen k
  # fitted to every cell as kmeans_reduced() fits it
  ps <- suppressMessages(do.call(k_path, c(list(t(tx), path_rows = 200), args)))
  rs <- do.call(k_path, c(list(sc$logn, path_rows = 200), cell_args, args))
  expect_identical(ps$path_index, rs$path_index)
  expect_equal(ps$results, rs$results, tolerance = 1e-8)
  expect_identical(ps$chosen, rs$chosen)
  fit <- suppressMessages(kmeans_reduced(t(tx), ps$chosen[["gap_firstSEmax"]], n_init = 3,
                                         seed = 3, n_threads = 1))
  expect_identical(ps$fit$cluster, fit$cluster)
  expect_identical(ps$fit$input, fit$input)
  expect_error(suppressMessages(k_path(t(tx), bound = TRUE, B = 0, verbose = FALSE)),
               "`bound = TRUE` needs the rows in memory")
})
