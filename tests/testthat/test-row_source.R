# Row sources (R/row_source.R): a new source is one set of methods and one
# registration line. A toy source defined here -- rows delivered as a list of
# dense blocks of uneven sizes -- implements only the interface (n_rows,
# n_cols, read_block, describe_source) and takes every pipeline step from the
# defaults; kmeans_reduced() on it gives the fit of the same rows as a matrix.

# The toy: an object holding the blocks, and a counter of the blocks read.
toy_blocks <- function(x, sizes) {
  ends <- cumsum(sizes)
  stopifnot(ends[length(ends)] == nrow(x))
  starts <- c(1L, ends[-length(ends)] + 1L)
  reads <- new.env()
  reads$n <- 0L
  structure(list(blocks = lapply(seq_along(sizes), function(i) x[starts[i]:ends[i], , drop = FALSE]),
                 starts = starts, ends = ends, d = ncol(x), reads = reads),
            class = "toy_blocks")
}

# Its row source: the methods a source read in blocks implements (in a
# package they would be one file, R/source_toy.R; here they are registered
# with the package's generics by hand, as a test cannot add to its
# namespace).
toy_methods <- list(
  n_rows = function(src) src$data$ends[length(src$data$ends)],
  n_cols = function(src) src$data$d,
  read_block = function(src, first, last) {
    t <- src$data
    t$reads$n <- t$reads$n + 1L
    keep <- which(t$ends >= first & t$starts <= last)
    do.call(rbind, lapply(keep, function(i) {
      rows <- max(first, t$starts[i]):min(last, t$ends[i]) - t$starts[i] + 1L
      t$blocks[[i]][rows, , drop = FALSE]
    }))
  },
  describe_source = function(src) "a list of blocks"
)
for (generic in names(toy_methods)) {
  registerS3method(generic, "source_toy", toy_methods[[generic]],
                   envir = asNamespace("kmreduce"))
}
# The registration line.
kmreduce:::register_row_source(function(x) inherits(x, "toy_blocks"),
                               function(x) kmreduce:::new_row_source(x, "source_toy"))

test_that("a toy row source gives the fit of the same rows as a matrix", {
  m <- make_mixture(n = 300, d = 60, k = 4, sd = 2, sep = 3)
  x <- unname(m$x)
  toy <- toy_blocks(x, c(50, 7, 93, 100, 1, 49))
  expect_s3_class(kmreduce:::as_row_source(toy), "source_toy")
  for (method in c("sign", "sparse_embedding", "gaussian")) {
    for (refine in c(0L, 3L)) {
      label <- sprintf("%s, refine = %d", method, refine)
      before <- toy$reads$n
      a <- kmeans_reduced(x, 4, method = method, dims = 12, n_init = 2, seed = 3,
                          refine = refine)
      s <- kmeans_reduced(toy, 4, method = method, dims = 12, n_init = 2, seed = 3,
                          refine = refine, control = list(block_rows = 37))
      # (the rows came through read_block())
      expect_gt(toy$reads$n, before)
      expect_identical(s$cluster, a$cluster, label = label)
      expect_identical(s$reduced, a$reduced, label = label)
      expect_identical(s$reduced_centers, a$reduced_centers, label = label)
      expect_identical(s$size, a$size, label = label)
      # (the statistics and refine's Lloyd sum block by block, the matrix's
      # in one pass: equal to rounding)
      expect_equal(s$assignment_centers, a$assignment_centers, tolerance = 1e-12, label = label)
      expect_equal(s$centers, a$centers, tolerance = 1e-12, label = label)
      expect_equal(s$withinss, a$withinss, tolerance = 1e-12, label = label)
      expect_equal(s$totss, a$totss, tolerance = 1e-12, label = label)
    }
  }
  # One block: the centres of the matrix, bit for bit (the squared
  # deviations take a second pass, to rounding).
  for (method in c("sign", "sparse_embedding")) {
    a <- kmeans_reduced(x, 4, method = method, dims = 12, n_init = 2, seed = 3)
    s <- kmeans_reduced(toy, 4, method = method, dims = 12, n_init = 2, seed = 3)
    expect_identical(s$cluster, a$cluster)
    expect_identical(s$centers, a$centers)
    expect_equal(s$withinss, a$withinss, tolerance = 1e-12)
  }
  # predict() reads it in blocks too
  expect_identical(predict(s, toy), s$cluster)
})

test_that("a toy row source gets the checks and the registry of a source read in blocks", {
  m <- make_mixture(n = 120, d = 30, k = 3, sd = 2, sep = 3)
  toy <- toy_blocks(unname(m$x), c(60, 60))
  # methods that need the rows in memory are refused, by the registry
  expect_error(kmeans_reduced(toy, 3, method = "cssp", seed = 1),
               "`method` \"cssp\" needs the whole matrix in memory; a list of blocks `x` works with")
  expect_error(kmeans_reduced(toy, 3, method = "none", seed = 1), "needs the whole matrix in memory")
  # the values are checked block by block
  y <- unname(m$x)
  y[70, 4] <- NA
  expect_error(kmeans_reduced(toy_blocks(y, c(60, 60)), 3, seed = 1), "at row 70, column 4")
  # k at most the distinct rows
  same <- toy_blocks(matrix(1, 10, 3), c(4, 6))
  expect_error(kmeans_reduced(same, 2, seed = 1), "`k` must be a whole number in \\[1, 1\\] \\(the number of distinct rows of `x`\\), not 2")
  # functions that take rows in memory only say what the source is
  expect_error(leverage_scores(toy, 2), "`x` is a list of blocks; only kmeans_reduced")
  # the leverage scores and the randomized SVD read its blocks
  a <- kmeans_reduced(unname(m$x), 3, method = "leverage", dims = 10, seed = 5)
  s <- kmeans_reduced(toy, 3, method = "leverage", dims = 10, seed = 5)
  expect_true(same_partition(s$cluster, a$cluster))
  expect_equal(s$tot.withinss, a$tot.withinss, tolerance = 1e-8)
})

test_that("every source class in the registry names a row source", {
  classes <- unique(unlist(lapply(kmreduce:::method_registry(), `[[`, "sources")))
  known <- c("row_source", unique(unlist(lapply(
    list(matrix(0, 1, 1), Matrix::Matrix(0, 1, 1, sparse = TRUE)),
    function(x) class(kmreduce:::as_row_source(x))))), "source_mpi")
  expect_true(all(classes %in% known))
})

test_that("a sample of the rows is the same in memory and read in blocks", {
  x <- matrix(as.numeric(1:60), 20, 3)
  src <- kmreduce:::as_row_source(x)
  in_memory <- kmreduce:::sample_rows(src, 7, 3)
  # (the same rows as a source read in blocks)
  blocks <- src
  blocks$in_memory <- FALSE
  by_blocks <- kmreduce:::sample_rows(blocks, 7, 3, block_rows = 4)
  expect_identical(in_memory$index, kmreduce:::sample_index(20, 7, 3))
  expect_identical(by_blocks$index, in_memory$index)
  expect_equal(unname(by_blocks$rows), unname(x[in_memory$index, , drop = FALSE]))
  expect_equal(unname(in_memory$rows), unname(x[in_memory$index, , drop = FALSE]))
})

test_that("each step that reads rows has one C++ entry point, whatever the source", {
  ns <- asNamespace("kmreduce")
  entry <- grep("_cpp$", ls(ns, all.names = TRUE), value = TRUE)
  # (no entry point per source: MPI ranks and blocks are in the description)
  expect_identical(grep("^mpi_|_blocks_cpp$", entry, value = TRUE), character())
  expect_true(all(c("kmeans_cpp", "lloyd_cpp", "cluster_stats_cpp", "randomized_svd_cpp") %in%
                    entry))
  # the description of each kind of source, read by the same entry point
  x <- matrix(c(1, 2, 10, 11, 1.5, 10.5), 6, 1)
  c0 <- matrix(c(1, 10), 2, 1)
  opt <- list(iter_max = 10L, tol = 0, n_threads = 1L)
  mem <- kmreduce:::lloyd_cpp(x, c0, opt)
  desc <- kmreduce:::cpp_source(rows = x)
  blocks <- kmreduce:::cpp_source(read = function(a, b) x[a:b, , drop = FALSE], n = 6, d = 1,
                                  block_rows = 4)
  rank <- kmreduce:::cpp_source(rows = x, mpi = list(allreduce = function(v) v, rank = 0L,
                                                      size = 2L, offset = 0, n = 6))
  for (d in list(desc, blocks, rank)) {
    r <- kmreduce:::lloyd_cpp(d, c0, opt)
    expect_identical(r$cluster, mem$cluster)
    expect_equal(r$centers, mem$centers, tolerance = 1e-15)
    st <- kmreduce:::cluster_stats_cpp(d, mem$cluster, 2L, 1L)
    expect_equal(st$withinss, c(0.5, 0.5), tolerance = 1e-14)
  }
  # a description that is neither rows nor a reader is refused by name
  expect_error(kmreduce:::lloyd_cpp(list(rows = NULL, read = NULL), c0, opt), "rows or read")
})

test_that("kmeans_reduced() makes the row source of its data once", {
  calls <- 0L
  kmreduce:::register_row_source(function(x) {
    if (!inherits(x, "row_source")) calls <<- calls + 1L
    FALSE
  }, identity)
  reg <- kmreduce:::registered_sources
  on.exit(reg$types <- reg$types[-1L])
  x <- matrix(as.double(1:60), 20, 3)
  for (m in c("none", "sign", "rsvd")) {
    calls <- 0L
    kmeans_reduced(x, 2, method = m, dims = if (m != "none") 2L, n_init = 2, seed = 1)
    expect_identical(calls, 1L, label = m)
  }
})
