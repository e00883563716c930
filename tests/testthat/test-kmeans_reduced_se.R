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
  fit_c <- do.call(kmeans_reduced, c(list(se, assay = "counts", normalize = "none"), args))
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
               "`normalize` must be one of \"none\", \"log1p_cpm\", \"log1p_cp10k\", \"log1p_size_factors\", not \"cpm\"")
  expect_error(kmeans_reduced(se, 3, use_reduced_dim = "PCA"), "needs a SingleCellExperiment")
  expect_error(kmeans_reduced(sce, 3, use_reduced_dim = "PCA"),
               "reduced dimensions of `x` \\(it has none\\), not \"PCA\"")
  expect_error(kmeans_reduced(sce, 3, use_reduced_dim = "PCA", normalize = "log1p_cpm"),
               "without `assay` and with normalize = \"none\"")
  # the stats::kmeans() names, passed on to the default method, are named in errors
  expect_error(suppressMessages(kmeans_reduced(se, centers = 0)), "^`centers` must be a whole number")
  expect_error(suppressMessages(kmeans_reduced(se, 3, nstart = 0)), "^`nstart` must be a whole number")
  # a misspelt argument is not ignored
  expect_error(suppressMessages(kmeans_reduced(se, 3, nstrat = 2)), "has no argument `nstrat`")
  expect_error(kmeans_reduced(sc$logn, 3, nstrat = 2), "has no argument `nstrat`")
  # values that are not numbers, and counts that are not counts
  chr <- SummarizedExperiment::SummarizedExperiment(list(x = matrix(letters[1:12], 3)))
  expect_error(kmeans_reduced(chr, 2), "the assay \"x\" of `x` must hold numbers, not values of type character")
  neg <- as.matrix(sc$counts)
  neg[2, 7] <- -1
  se_neg <- SummarizedExperiment::SummarizedExperiment(list(counts = neg))
  expect_error(kmeans_reduced(se_neg, 3, normalize = "log1p_cpm"),
               "needs counts \\(finite numbers >= 0\\) but the assay \"counts\" has -1 at cell 7")
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
  expect_error(dims_path(se, 2), "kmeans_reduced\\(\\), k_path\\(\\) and predict\\(\\) take it; elsewhere give the cells as rows")
})

test_that("the assay is recorded by name: predict() finds it whatever the order of the assays", {
  skip_without_bioc("SummarizedExperiment")
  sc <- se_case(seed = 5)
  raw <- Matrix::t(sc$rows)
  other <- raw * 0 + 1
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = raw, other = other))
  # the default assay (the first): recorded as "counts"
  fit <- do.call(kmeans_reduced, c(list(se, normalize = "none"), args))
  expect_identical(fit$input$assay, "counts")
  fit1 <- do.call(kmeans_reduced, c(list(se, assay = 1, normalize = "none"), args))
  expect_identical(fit1$input$assay, "counts")
  swapped <- SummarizedExperiment::SummarizedExperiment(list(other = other, counts = raw))
  expect_identical(predict(fit, swapped), predict(fit, sc$rows))
  expect_identical(unname(predict(fit, swapped)), unname(fit$cluster))
  # a missing name is an error naming it
  missing <- SummarizedExperiment::SummarizedExperiment(list(other = other))
  expect_error(predict(fit, missing),
               "`newdata` has no assay \"counts\", the assay the fit clustered \\(it has \"other\"\\)")
  # unnamed assays: by position
  se_u <- SummarizedExperiment::SummarizedExperiment(list(raw))
  fit_u <- do.call(kmeans_reduced, c(list(se_u), args))
  expect_identical(fit_u$input$assay, 1L)
  expect_identical(predict(fit_u, se_u), fit_u$cluster)
})

test_that("augment() of a SummarizedExperiment gives one row per cell with its colData", {
  skip_without_bioc("SummarizedExperiment")
  sc <- se_case(seed = 6)
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = Matrix::t(sc$rows)),
                                                   colData = data.frame(type = sc$type))
  fit <- do.call(kmeans_reduced, c(list(se, normalize = "none"), args))
  au <- augment(fit, data = se)
  expect_identical(nrow(au), ncol(se))
  expect_identical(au$.cell, colnames(se))
  expect_identical(au$type, sc$type)
  expect_identical(as.integer(au$.cluster), unname(fit$cluster))
  an <- augment(fit, newdata = se[, 1:20])
  expect_identical(nrow(an), 20L)
  expect_identical(as.integer(an$.cluster), unname(fit$cluster[1:20]))
  # a SummarizedExperiment of other cells: counted in cells, not genes
  expect_error(augment(fit, data = se[, 1:60]),
               "`data` must have the 500 cells \\(columns of a SummarizedExperiment\\) of the fit, not 60\\.")
})

test_that("counts are normalized by default, with a message, and cells reduced to 150 principal components", {
  skip_without_bioc("SingleCellExperiment")
  sc <- se_case(seed = 7)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts))
  expect_message(fit <- kmeans_reduced(sce, 3, seed = 2, n_init = 2),
                 "the assay \"counts\" is normalized with normalize = \"log1p_size_factors\".*normalize = \"none\"")
  expect_identical(fit$method, "rsvd")
  expect_identical(ncol(fit$reduced), 150L)
  expect_identical(fit$input$normalize, "log1p_size_factors")
  # the same as the normalized cells in memory, reduced the same way
  rows <- sc$rows
  lib <- Matrix::rowSums(rows)
  rows@x <- log1p(rows@x / lib[rows@i + 1L] * mean(lib))
  ref <- kmeans_reduced(rows, 3, method = "rsvd", dims = 150, seed = 2, n_init = 2)
  expect_identical(fit$cluster, ref$cluster)
  expect_equal(fit$tot.withinss, ref$tot.withinss)
  # normalize = "none": the counts as they are, no message
  expect_silent(raw <- kmeans_reduced(sce, 3, normalize = "none", seed = 2, n_init = 2))
  expect_identical(raw$cluster, kmeans_reduced(sc$rows, 3, method = "rsvd", dims = 150, seed = 2,
                                               n_init = 2)$cluster)
  # a logcounts assay is taken as it is; a method given is kept
  sce2 <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts,
                                                          logcounts = Matrix::t(rows)))
  expect_silent(fit2 <- kmeans_reduced(sce2, 3, seed = 2, n_init = 2))
  expect_identical(fit2$input$assay, "logcounts")
  expect_identical(fit2$cluster, ref$cluster)
  fit3 <- suppressMessages(kmeans_reduced(sce, 3, method = "sparse_embedding", dims = 20, seed = 2,
                                          n_init = 2))
  expect_identical(fit3$method, "sparse_embedding")
  # small data: at most as many components as cells and genes
  small <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts[1:30, 1:40]))
  fit4 <- suppressMessages(kmeans_reduced(small, 2, seed = 1, n_init = 2))
  expect_identical(ncol(fit4$reduced), 30L)
})

test_that("the cells' defaults: 150 principal components of 20000 cells (eps 1), where no method is given", {
  rows <- c(30, 200)
  def <- kmreduce:::cell_defaults(list(), TRUE, rows)
  expect_identical(def[c("method", "dims")], list(method = "rsvd", dims = 30L))
  expect_identical(def$control$svd_rows, 20000)
  expect_identical(kmreduce:::cell_defaults(list(), TRUE, c(500, 300))$dims, 150L)
  kept <- kmreduce:::cell_defaults(list(control = list(svd_rows = Inf, tol = 0)), TRUE, rows)
  expect_identical(kept$control, list(svd_rows = Inf, tol = 0, eps = 1))
  # (an eps given is kept)
  expect_identical(kmreduce:::cell_defaults(list(control = list(eps = 0.5)), TRUE, rows)$control$eps,
                   0.5)
  ctl <- kmreduce:::cell_defaults(list(control = kmeans_control(tol = 0)), TRUE, rows)$control
  expect_s3_class(ctl, "kmreduce_control")
  expect_identical(ctl$svd_rows, 20000)
  expect_identical(ctl$eps, 1)
  # a method given, or a reduced dimension clustered: nothing added
  expect_identical(kmreduce:::cell_defaults(list(method = "sign"), TRUE, rows),
                   list(method = "sign"))
  expect_identical(kmreduce:::cell_defaults(list(), FALSE, rows), list())
})

test_that("n_threads above the cores is said once", {
  skip_without_bioc("SummarizedExperiment")
  sc <- se_case()
  se <- SummarizedExperiment::SummarizedExperiment(list(counts = sc$counts))
  said <- character(0)
  fit <- withCallingHandlers(
    kmeans_reduced(se, 3, method = "sparse_embedding", dims = 20, n_init = 1, seed = 1,
                   n_threads = 10000),
    message = function(m) {
      said <<- c(said, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  expect_identical(sum(grepl("is more than the", said)), 1L)
  expect_length(fit$cluster, ncol(se))
})

test_that("the default assay is the same whether normalize is NULL or \"none\"", {
  skip_without_bioc("SummarizedExperiment")
  m <- matrix(1, 4, 3)
  se <- function(names) {
    assays <- rep(list(m), length(names))
    if (!all(names == "")) names(assays) <- names
    SummarizedExperiment::SummarizedExperiment(assays)
  }
  chosen <- function(names, normalize) {
    unlist(kmreduce:::check_se_input(se(names), NULL, NULL, normalize)[c("assay", "normalize")])
  }
  # assays present x normalize NULL / "none" / a normalization of counts:
  # the assay, and the normalization it gets
  cases <- list(
    list(c("spliced", "counts"), c("counts", "log1p_size_factors"), c("counts", "none"),
         c("counts", "log1p_cp10k")),
    list(c("counts", "spliced"), c("counts", "log1p_size_factors"), c("counts", "none"),
         c("counts", "log1p_cp10k")),
    list(c("counts", "logcounts"), c("logcounts", "none"), c("logcounts", "none"),
         c("counts", "log1p_cp10k")),
    list(c("logcounts", "counts"), c("logcounts", "none"), c("logcounts", "none"),
         c("counts", "log1p_cp10k")),
    list(c("spliced", "logcounts"), c("logcounts", "none"), c("logcounts", "none"),
         c("spliced", "log1p_cp10k")),
    list("counts", c("counts", "log1p_size_factors"), c("counts", "none"),
         c("counts", "log1p_cp10k")),
    list("spliced", c("spliced", "none"), c("spliced", "none"), c("spliced", "log1p_cp10k")),
    list("logcounts", c("logcounts", "none"), c("logcounts", "none"), NULL),
    list(c("", ""), c("1", "none"), c("1", "none"), c("1", "log1p_cp10k")))
  for (case in cases) {
    for (j in 1:3) {
      normalize <- list(NULL, "none", "log1p_cp10k")[[j]]
      want <- case[[j + 1L]]
      if (is.null(want)) {
        expect_error(chosen(case[[1L]], normalize),
                     "`normalize = \"log1p_cp10k\"` normalizes counts, but `x` has no assay \"counts\".*give the assay of counts as `assay`")
      } else {
        expect_identical(unname(chosen(case[[1L]], normalize)), want,
                         info = paste(paste(case[[1L]], collapse = "+"), format(normalize)))
      }
    }
  }
  # the assay of the message: normalize = "none" clusters the counts it named
  sc <- se_case(seed = 8)
  two <- SummarizedExperiment::SummarizedExperiment(list(spliced = sc$counts * 2,
                                                         counts = sc$counts))
  expect_message(kmeans_reduced(two, 3, method = "sparse_embedding", dims = 10, seed = 1),
                 "the assay \"counts\" is normalized")
  raw <- do.call(kmeans_reduced, c(list(two, normalize = "none"), args))
  expect_identical(raw$input$assay, "counts")
  expect_identical(unname(raw$cluster), unname(do.call(kmeans_reduced, c(list(sc$rows), args))$cluster))
})

test_that("method = \"rsvd\" given keeps the defaults for cells", {
  skip_without_bioc("SingleCellExperiment")
  rows <- c(500, 300)
  given <- kmreduce:::cell_defaults(list(method = "rsvd"), TRUE, rows)
  expect_identical(given, kmreduce:::cell_defaults(list(), TRUE, rows))
  expect_identical(given$dims, 150L)
  expect_identical(given$control[c("svd_rows", "eps")], list(svd_rows = 20000, eps = 1))
  # only what is not given
  mine <- kmreduce:::cell_defaults(list(method = "rsvd", dims = 7, control = list(eps = 2)), TRUE,
                                   rows)
  expect_identical(mine$dims, 7)
  expect_identical(mine$control, list(eps = 2, svd_rows = 20000))
  # a fit: the same as the default call, not dims = k of all cells
  sc <- se_case(seed = 9)
  sce <- SingleCellExperiment::SingleCellExperiment(list(counts = sc$counts))
  by_default <- suppressMessages(kmeans_reduced(sce, 3, seed = 2, n_init = 2))
  named <- suppressMessages(kmeans_reduced(sce, 3, method = "rsvd", seed = 2, n_init = 2))
  expect_identical(named$dims, 150L)
  expect_identical(named$cluster, by_default$cluster)
  expect_identical(named$reduced, by_default$reduced)
})

test_that("predict() gives a new cell the same cluster and distances alone as in any batch", {
  skip_without_bioc()
  s <- sim_counts(200, 406, 3, seed = 11)
  old <- s$counts[, 1:400]
  new <- s$counts[, 401:406]
  # size factors on one scale for all cells (not centred)
  sf <- withr::with_seed(2, stats::runif(406, 0.5, 2)) * Matrix::colSums(s$counts) / 100
  sce <- function(a, sf = NULL) {
    x <- SingleCellExperiment::SingleCellExperiment(list(counts = a))
    if (!is.null(sf)) SingleCellExperiment::sizeFactors(x) <- sf
    x
  }
  # the new cells in 10x files: each alone, and all in one
  file_of <- function(m) {
    f <- tempfile(fileext = ".h5")
    write_tenx(m, f)
    tenx_matrix(f)
  }
  one_file <- lapply(1:6, function(i) file_of(new[, i, drop = FALSE]))
  all_file <- file_of(new)
  ways <- list(size_factors = c("log1p_size_factors", "object"),
               library_sizes = c("log1p_size_factors", "none"),
               cp10k = c("log1p_cp10k", "none"), cpm = c("log1p_cpm", "none"))
  for (way in names(ways)) {
    how <- ways[[way]][1L]
    use_sf <- ways[[way]][2L] == "object"
    fit <- kmeans_reduced(sce(old, if (use_sf) sf[1:400]), 3, normalize = how, seed = 1,
                          n_init = 2)
    # the reference: the new cells normalized here by the definition, given
    # as rows (taken as the values the fit clustered)
    s_new <- if (use_sf) sf[401:406] else Matrix::colSums(new)
    t_fit <- switch(how, log1p_cp10k = 1e4, log1p_cpm = 1e6,
                    mean(if (use_sf) sf[1:400] else Matrix::colSums(old)))
    rows <- Matrix::t(new)
    rows@x <- log1p(rows@x / s_new[rows@i + 1L] * t_fit)
    ref_d <- predict(fit, rows, type = "distances")
    ref_l <- predict(fit, rows)
    batch_mem <- sce(new, if (use_sf) sf[401:406])
    batch_file <- sce(all_file, if (use_sf) sf[401:406])
    for (batch in list(batch_mem, batch_file)) {
      expect_identical(unname(predict(fit, batch)), unname(ref_l), info = way)
      expect_equal(unname(predict(fit, batch, type = "distances")), unname(ref_d),
                   tolerance = 1e-12, info = way)
    }
    d_batch <- predict(fit, batch_mem, type = "distances")
    for (i in 1:6) {
      alone <- list(memory = sce(new[, i, drop = FALSE], if (use_sf) sf[400 + i]),
                    file = sce(one_file[[i]], if (use_sf) sf[400 + i]))
      for (where in names(alone)) {
        info <- paste(way, where, "cell", i)
        expect_identical(unname(predict(fit, alone[[where]])), unname(ref_l[i]), info = info)
        expect_identical(unname(predict(fit, alone[[where]], type = "distances")[1L, ]),
                         unname(d_batch[i, ]), info = info)
      }
    }
  }
  # a fit on size factors needs those of the new cells; a fit on library
  # sizes does not use them
  fit_sf <- kmeans_reduced(sce(old, sf[1:400]), 3, normalize = "log1p_size_factors", seed = 1,
                           n_init = 2)
  expect_identical(fit_sf$input$size_factors_from, "sizeFactors")
  expect_equal(fit_sf$input$target, mean(sf[1:400]))
  expect_error(predict(fit_sf, sce(new)),
               "`newdata` \\(a SingleCellExperiment, the assay \"counts\"\\) must have size factors \\(sizeFactors\\(\\)\\)")
  expect_error(predict(fit_sf, t(all_file)), "must have size factors")
  fit_lib <- suppressMessages(kmeans_reduced(sce(old), 3, seed = 1, n_init = 2))
  expect_identical(fit_lib$input$size_factors_from, "library_sizes")
  expect_identical(predict(fit_lib, sce(new, sf[401:406]), type = "distances"),
                   predict(fit_lib, sce(new), type = "distances"))
  expect_identical(predict(fit_lib, sce(new, replace(sf[401:406], 2, 0))),
                   predict(fit_lib, sce(new)))
  expect_error(predict(fit_sf, sce(new, replace(sf[401:406], 2, 0))),
               "size factors of `newdata` \\(a SingleCellExperiment\\) \\(sizeFactors\\(\\)\\) must be 6 finite numbers > 0")
})

test_that("an assay whose HDF5 file was removed or damaged is an error naming the file", {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment"))
  s <- sim_counts(40, 50, 2, seed = 9)
  sce_of <- function(a) SingleCellExperiment::SingleCellExperiment(list(counts = a))
  quote_re <- function(s) gsub("([][.\\\\()^$*+?{}|])", "\\\\\\1", s, perl = TRUE)
  fit_of <- function(x) kmeans_reduced(x, 2, normalize = "none", seed = 1)
  # a TENxMatrix: as an assay, as t(x) and for predict() the same message
  f <- tempfile(fileext = ".h5")
  write_tenx(s$counts, f)
  m <- tenx_matrix(f)
  sce <- sce_of(m)
  fit <- fit_of(sce)
  file.remove(f)
  gone <- sprintf("^The 10x file '%s' \\(group \"/mm10\"\\) does not exist\\.$", quote_re(f))
  expect_error(fit_of(sce), gone)
  expect_error(kmeans_reduced(t(m), 2, seed = 1), gone)
  expect_error(predict(fit, sce), gone)
  # truncated: HDF5 cannot open it
  write_tenx(s$counts, f)
  con <- file(f, "r+b")
  seek(con, 200, rw = "write")
  truncate(con)
  close(con)
  expect_error(fit_of(sce), sprintf("^The 10x file '%s' \\(group \"/mm10\"\\) cannot be read as HDF5",
                                    quote_re(f)))
  # an HDF5Matrix, before and during the fit (removed once its source is made)
  h <- HDF5Array::writeHDF5Array(as.matrix(s$counts), tempfile(fileext = ".h5"), "counts")
  hfile <- h@seed@filepath
  hsce <- sce_of(h)
  logged <- sce_of(log1p(h))  # (a delayed operation on it)
  src <- kmreduce:::se_rows(hsce, kmreduce:::check_se_input(hsce, NULL, NULL, "none"))
  file.remove(hfile)
  gone <- sprintf("^The HDF5 file '%s' \\(dataset \"/counts\"\\) does not exist\\.$", quote_re(hfile))
  expect_error(fit_of(hsce), gone)
  expect_error(fit_of(logged), gone)
  expect_error(kmeans_reduced(t(h), 2, seed = 1), gone)
  expect_error(kmeans_reduced(src, 2, seed = 1), gone)
})

test_that("predict() names the cells it reads in blocks, as it names cells in memory", {
  skip_without_bioc(c("rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment"))
  s <- sim_counts(60, 80, 2, seed = 12)
  f <- tempfile(fileext = ".h5")
  write_tenx(s$counts, f)
  on_file <- SingleCellExperiment::SingleCellExperiment(list(counts = tenx_matrix(f)))
  in_memory <- SingleCellExperiment::SingleCellExperiment(list(counts = s$counts))
  fit <- suppressMessages(kmeans_reduced(in_memory, 2, seed = 1))
  for (type in c("cluster", "distances")) {
    from_file <- predict(fit, on_file, type = type)
    expect_identical(from_file, predict(fit, in_memory, type = type), info = type)
    expect_identical(if (type == "cluster") names(from_file) else rownames(from_file),
                     colnames(s$counts), info = type)
  }
})
