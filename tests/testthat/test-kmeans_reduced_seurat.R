# Seurat objects (R/kmeans_reduced_seurat.R): the labels of a
# SingleCellExperiment of the same counts, data or reduction.

skip_without_seurat <- function() {
  if (!requireNamespace("SeuratObject", quietly = TRUE)) {
    skip("SeuratObject is not installed (Debian: r-cran-seuratobject)")
  }
  skip_without_bioc(c("SummarizedExperiment", "SingleCellExperiment"))
}

seurat_case <- function(seed = 3, n_cells = 800) {
  s <- sim_counts(300, n_cells, 4, seed = seed)
  so <- suppressWarnings(SeuratObject::CreateSeuratObject(s$counts))
  c(s, list(so = so,
            sce = function(a, name = "counts") {
              SingleCellExperiment::SingleCellExperiment(stats::setNames(list(a), name))
            }))
}

test_that("the counts of a Seurat object give the labels of the SingleCellExperiment", {
  skip_without_seurat()
  sc <- seurat_case()
  expect_message(fit <- kmeans_reduced(sc$so, 4, seed = 1, n_threads = 2),
                 "the counts of the assay \"RNA\" of `x` \\(a Seurat object\\) are normalized with normalize = \"log1p_size_factors\"")
  ref <- suppressMessages(kmeans_reduced(sc$sce(sc$counts), 4, seed = 1, n_threads = 2))
  expect_identical(fit$cluster, ref$cluster)
  expect_equal(fit$tot.withinss, ref$tot.withinss)
  expect_identical(fit$method, "rsvd")
  expect_identical(fit$call, quote(kmeans_reduced(x = sc$so, k = 4, seed = 1, n_threads = 2)))
  expect_gt(adjusted_rand_index(fit$cluster, sc$type), 0.95)
  expect_identical(fit$input[c("seurat_assay", "layer")], list(seurat_assay = "RNA", layer = "counts"))
  # normalize given: as for the SingleCellExperiment
  cp <- kmeans_reduced(sc$so, 4, seed = 2, normalize = "log1p_cp10k")
  expect_identical(cp$cluster,
                   kmeans_reduced(sc$sce(sc$counts), 4, seed = 2, normalize = "log1p_cp10k")$cluster)
  # predict(): each cell alone or with others, as the fit's
  expect_identical(predict(fit, sc$so), fit$cluster)
  expect_identical(predict(fit, sc$so[, 1:100]), fit$cluster[1:100])
  expect_identical(predict(ref, sc$so), ref$cluster)
  # the clusters into meta.data, and augment()
  so <- sc$so
  so$kmeans <- factor(fit$cluster)
  expect_identical(as.integer(so$kmeans), unname(fit$cluster))
  aug <- augment(fit, data = so)
  expect_identical(aug$.cell, colnames(so))
  expect_identical(as.integer(aug$.cluster), unname(fit$cluster))
  expect_true("nCount_RNA" %in% names(aug))
  expect_identical(as.integer(augment(fit, newdata = sc$so[, 1:10])$.cluster),
                   unname(fit$cluster[1:10]))
})

test_that("the normalized data are clustered as they are, by choice or for want of counts", {
  skip_without_seurat()
  sc <- seurat_case(seed = 4, n_cells = 500)
  lognorm <- sc$counts
  lib <- Matrix::colSums(lognorm)
  lognorm@x <- log1p(lognorm@x / rep(lib, diff(lognorm@p)) * 1e4)  # (NormalizeData())
  so <- SeuratObject::SetAssayData(sc$so, slot = "data", new.data = lognorm)
  ref <- kmeans_reduced(sc$sce(lognorm, "logcounts"), 4, seed = 1)
  expect_message(fit <- kmeans_reduced(so, 4, seed = 1, layer = "data"),
                 "the layer \"data\" of the assay \"RNA\" is clustered as it is")
  expect_identical(fit$cluster, ref$cluster)
  expect_identical(predict(fit, so), fit$cluster)
  # the same values as the counts with normalize = "log1p_cp10k"
  cp <- kmeans_reduced(sc$so, 4, seed = 1, normalize = "log1p_cp10k")
  expect_equal(adjusted_rand_index(cp$cluster, fit$cluster), 1)
  # an assay of data only: its data by default
  # (SeuratObject 4 warns that it sets the assay's key)
  only <- suppressWarnings(
    SeuratObject::CreateSeuratObject(SeuratObject::CreateAssayObject(data = lognorm)))
  expect_message(fit2 <- kmeans_reduced(only, 4, seed = 1), "layer \"data\"")
  expect_identical(fit2$cluster, ref$cluster)
})

test_that("an existing reduction is clustered as it is", {
  skip_without_seurat()
  sc <- seurat_case(seed = 5, n_cells = 400)
  pcs <- prcomp(as.matrix(Matrix::t(log1p(sc$counts))), rank. = 20)$x
  rownames(pcs) <- colnames(sc$counts)
  colnames(pcs) <- paste0("PC_", 1:20)
  so <- sc$so
  so[["pca"]] <- SeuratObject::CreateDimReducObject(embeddings = pcs, key = "PC_", assay = "RNA")
  fit <- kmeans_reduced(so, 4, seed = 1, reduction = "pca")
  expect_identical(fit$cluster, kmeans_reduced(pcs, 4, seed = 1)$cluster)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts),
                                                    reducedDims = list(PCA = pcs))
  expect_identical(unname(fit$cluster),
                   unname(kmeans_reduced(sce, 4, seed = 1, use_reduced_dim = "PCA")$cluster))
  expect_identical(predict(fit, so), fit$cluster)
  expect_error(predict(fit, sc$so), "`newdata` has no reduction \"pca\", which the fit clustered")
})

test_that("a bad assay, layer or reduction is an error naming the argument", {
  skip_without_seurat()
  sc <- seurat_case(seed = 6, n_cells = 100)
  expect_error(kmeans_reduced(sc$so, 2, assay = "ADT"),
               "`assay` must be the name of an assay of `x` \\(\"RNA\"\\), not \"ADT\"")
  expect_error(kmeans_reduced(sc$so, 2, layer = "scale.data"),
               "`layer` must be \"counts\" or \"data\", not \"scale.data\"")
  expect_error(kmeans_reduced(sc$so, 2, reduction = "pca"),
               "`reduction` must be the name of a reduction of `x` \\(it has none\\), not \"pca\"")
  expect_error(kmeans_reduced(sc$so, 2, use_reduced_dim = "pca"),
               "`use_reduced_dim` names a reduced dimension of a SingleCellExperiment; give `reduction`")
  expect_error(kmeans_reduced(sc$so, 2, reduction = "pca", assay = "RNA"),
               "`reduction` must be the name of a reduction")
})
