# kmeans_reduced() of a SummarizedExperiment / SingleCellExperiment: the
# cells (columns) are clustered, from the assay or reduced dimension asked for.

se_case <- function(seed = 1) {
  s <- sim_counts(300, 500, 3, seed)
  rows <- Matrix::t(s$counts)
  lib <- Matrix::rowSums(rows)
  logn <- rows
  logn@x <- log1p(logn@x / lib[logn@i + 1L] * 1e6)
  c(s, list(rows = rows, logn = logn))
}

args <- list(k = 3, method = "sparse_embedding", dims = 60, n_init = 2, seed = 3, n_threads = 1)

test_that("the cells of a SummarizedExperiment are clustered as the matrix of its cells", {
  skip_without_bioc("SummarizedExperiment")
  sc <- se_case()
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = sc$counts,
                                                        logcounts = Matrix::t(sc$logn)))
  ref <- do.call(kmeans_reduced, c(list(sc$logn), args))
  # the default assay: "logcounts"
  fit <- do.call(kmeans_reduced, c(list(se), args))
  expect_identical(fit$cluster, ref$cluster)
  expect_equal(fit$centers, ref$centers)
  expect_identical(names(fit$cluster), colnames(se))
  expect_identical(fit$input, list(assay = "logcounts", use_reduced_dim = NULL, normalize = "none"))
  expect_identical(fit$call[[1L]], as.name("kmeans_reduced"))
  # counts normalized on the fly: the same numbers
  fit_n <- do.call(kmeans_reduced, c(list(se, normalize = "log1p_cpm"), args))
  expect_identical(fit_n$cluster, ref$cluster)
  expect_identical(fit_n$input$assay, "counts")
  # by number, and dense in memory
  se2 <- SummarizedExperiment::SummarizedExperiment(list(as.matrix(Matrix::t(sc$logn))))
  fit_d <- do.call(kmeans_reduced, c(list(se2, assay = 1), args))
  expect_identical(unname(fit_d$cluster), unname(do.call(kmeans_reduced,
                                                         c(list(as.matrix(sc$logn)), args))$cluster))
  # the counts as they are
  fit_c <- do.call(kmeans_reduced, c(list(se, assay = "counts"), args))
  expect_identical(fit_c$cluster, do.call(kmeans_reduced, c(list(sc$rows), args))$cluster)
})

test_that("use_reduced_dim clusters a reduced dimension of a SingleCellExperiment", {
  skip_without_bioc("SingleCellExperiment")
  sc <- se_case(2)
  pcs <- randomized_svd(sc$logn, 10, seed = 1)
  emb <- pcs$u %*% diag(pcs$d)
  rownames(emb) <- colnames(sc$counts)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts),
                                                    reducedDims = list(PCA = emb))
  fit <- kmeans_reduced(sce, 3, use_reduced_dim = "PCA", seed = 1)
  ref <- kmeans_reduced(emb, 3, seed = 1)
  expect_identical(fit$cluster, ref$cluster)
  expect_identical(fit$method, "none")
  ref_km <- withr::with_seed(1, stats::kmeans(emb, 3, nstart = 10))
  expect_lte(fit$tot.withinss, ref_km$tot.withinss * (1 + 1e-8))
  # stored back as Bioconductor users do
  sce$cluster <- factor(fit$cluster)
  expect_identical(levels(sce$cluster), c("1", "2", "3"))
})

test_that("bad choices of what to cluster are errors naming the argument", {
  skip_without_bioc("SingleCellExperiment")
  sc <- se_case(3)
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = sc$counts))
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts))
  expect_error(kmeans_reduced(se, 3, assay = "logcounts"),
               "`assay` must be the name or number of an assay of `x` \\(\"counts\"\\), not \"logcounts\"")
  expect_error(kmeans_reduced(se, 3, assay = 2), "not 2")
  expect_error(kmeans_reduced(se, 3, normalize = "cpm"),
               "`normalize` must be one of \"none\", \"log1p_cpm\", not \"cpm\"")
  expect_error(kmeans_reduced(se, 3, use_reduced_dim = "PCA"), "needs a SingleCellExperiment")
  expect_error(kmeans_reduced(sce, 3, use_reduced_dim = "PCA"),
               "reduced dimensions of `x` \\(it has none\\), not \"PCA\"")
  expect_error(kmeans_reduced(sce, 3, use_reduced_dim = "PCA", normalize = "log1p_cpm"),
               "without `assay` and with normalize = \"none\"")
  # the stats::kmeans() names, passed on to the default method, are named in errors
  expect_error(kmeans_reduced(se, centers = 0), "^`centers` must be a whole number")
  expect_error(kmeans_reduced(se, 3, nstart = 0), "^`nstart` must be a whole number")
  # a misspelt argument is not ignored
  expect_error(kmeans_reduced(se, 3, nstrat = 2), "has no argument `nstrat`")
  expect_error(kmeans_reduced(sc$logn, 3, nstrat = 2), "has no argument `nstrat`")
  # values that are not numbers, and counts that are not counts
  chr <- SummarizedExperiment::SummarizedExperiment(list(x = matrix(letters[1:12], 3)))
  expect_error(kmeans_reduced(chr, 2), "the assay \"x\" of `x` must hold numbers, not values of type character")
  neg <- as.matrix(sc$counts)
  neg[2, 7] <- -1
  se_neg <- SummarizedExperiment::SummarizedExperiment(list(counts = neg))
  expect_error(kmeans_reduced(se_neg, 3, normalize = "log1p_cpm"),
               "needs counts \\(numbers >= 0\\) but the assay \"counts\" has -1 at cell 7")
  na <- sc$counts
  na@x[1] <- NA
  se_na <- SummarizedExperiment::SummarizedExperiment(list(counts = na))
  expect_error(kmeans_reduced(se_na, 3, normalize = "log1p_cpm"), "has NA at cell 1")
})

test_that("normalize_rows() and normalize_columns() give the same numbers", {
  sc <- se_case(4)
  a <- kmreduce:::normalize_rows(sc$rows, "log1p_cpm", "x")
  b <- Matrix::t(kmreduce:::normalize_columns(sc$counts, "log1p_cpm", "x"))
  expect_identical(a, b)
  d <- kmreduce:::normalize_rows(as.matrix(sc$rows), "log1p_cpm", "x")
  expect_identical(d, as.matrix(a))
  # the definition, cell by cell
  r <- as.matrix(sc$rows)[5, ]
  expect_equal(unname(d[5, ]), unname(log1p(r / sum(r) * 1e6)))
  # a cell without counts stays zero
  z <- sc$rows
  z[3, ] <- 0
  expect_true(all(kmreduce:::normalize_rows(z, "log1p_cpm", "x")[3, ] == 0))
})

test_that("functions that take rows in memory say how to give a SummarizedExperiment", {
  skip_without_bioc("SummarizedExperiment")
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = matrix(1:200, 10)))
  expect_error(k_path(se, 2:3), "kmeans_reduced\\(\\) and predict\\(\\) take it; elsewhere give the cells as rows")
})
