# The block loops of the pipeline's steps (R/source_steps.R), one C++ pass
# each over the source's description (src/reduce.cpp,
# kmreduce/data/block_passes.hpp): the reduced rows (reduce_rows()), a
# sample of the rows (rows_at()) and the library sizes
# (source_library_sizes()) of every source read in blocks are those of the
# same rows in memory, bit for bit, whatever the blocks and the threads.

# A source read in blocks by a function alone (what a new source
# implements), counting its reads.
fn_source <- function(x, read = function(first, last) x[first:last, , drop = FALSE]) {
  reads <- new.env()
  reads$n <- 0L
  kmreduce:::new_row_source(list(read = function(first, last) {
    reads$n <- reads$n + 1L
    read(first, last)
  }, n = nrow(x), d = ncol(x), reads = reads), "source_fn_test")
}
fn_methods <- list(
  n_rows = function(src) src$data$n,
  n_cols = function(src) src$data$d,
  read_block = function(src, first, last) src$data$read(first, last),
  describe_source = function(src) "a test function"
)
for (generic in names(fn_methods)) {
  registerS3method(generic, "source_fn_test", fn_methods[[generic]],
                   envir = asNamespace("kmreduce"))
}

# The sources read in blocks holding the rows of x (dense), each made as
# kmeans_reduced() makes it: name -> source.
block_sources <- function(x) {
  out <- list(fn = fn_source(x))
  if (requireNamespace("bigmemory", quietly = TRUE)) {
    out$big <- kmreduce:::as_row_source(bigmemory::as.big.matrix(x))
  }
  if (requireNamespace("DelayedArray", quietly = TRUE)) {
    out$delayed <- kmreduce:::as_row_source(DelayedArray::DelayedArray(x))
  }
  if (requireNamespace("HDF5Array", quietly = TRUE)) {
    out$hdf5 <- kmreduce:::as_row_source(
      HDF5Array::writeHDF5Array(x, tempfile(fileext = ".h5"), "x"))
  }
  out
}

# The fitted reducers of the families: projections (their kernels and
# options: "sign" chooses its algorithm by the block, "fjlt" has a density),
# a selection and an extraction.
family_reducers <- function(x) {
  fit <- function(method, dims) {
    kmeans_reduced(x, 3, method = method, dims = dims, n_init = 1, seed = 7)$reducer
  }
  list(sign = fit("sign", 70), sign_small = fit("sign", 5), gaussian = fit("gaussian", 9),
       achlioptas = fit("achlioptas", 9), srht = fit("srht", 9),
       sparse_embedding = fit("sparse_embedding", 9), fjlt = fit("fjlt", 9),
       leverage = fit("leverage", 12), rsvd = fit("rsvd", 3))
}

test_that("the reduced rows of every source read in blocks are those in memory, bit for bit", {
  m <- make_mixture(n = 90, d = 80, k = 3, sd = 2, sep = 3)
  x <- unname(m$x)
  reducers <- family_reducers(x)
  sources <- block_sources(x)
  for (name in names(reducers)) {
    r <- reducers[[name]]
    ref <- kmreduce:::apply_reducer(r, x, 1L)
    # (a reducer just fitted: its shift fitted on all the reduced rows)
    r0 <- r
    r0$shift <- numeric(0)
    ref0 <- kmreduce:::reduce_training(r0, x, 1L)
    # (references outside the package: the selection and the extraction)
    if (name == "leverage") {
      f <- r$features
      expect_identical(unname(ref), unname(sweep(x[, f$index] * rep(f$scale, each = nrow(x)),
                                                 2L, r$shift)))
    }
    if (name == "rsvd") {
      expect_equal(unname(ref), unname(sweep(x %*% r$rotation, 2L, r$shift)), tolerance = 1e-12)
    }
    for (s in names(sources)) {
      for (block_rows in c(7L, 90L, 200L)) {
        for (threads in 1:2) {
          label <- sprintf("%s on %s, blocks of %d, %d threads", name, s, block_rows, threads)
          got <- kmreduce:::apply_reducer(r, sources[[s]], threads, block_rows)
          expect_identical(got, ref, label = label)
          got0 <- kmreduce:::reduce_training(r0, sources[[s]], threads, block_rows)
          expect_identical(got0, ref0, label = label)
        }
      }
    }
  }
  # the progress of long reads is reported as each block is read
  if (!is.null(sources$delayed)) {
    loud <- kmreduce:::set_progress(sources$delayed, TRUE)
    expect_message(kmreduce:::apply_reducer(reducers$sign, loud, 1L, 30L),
                   "read 3 blocks, rows 1..90 of 90")
  }
  # every block read once per pass
  src <- fn_source(x)
  kmreduce:::apply_reducer(reducers$sign, src, 1L, 20L)
  expect_identical(src$data$reads$n, 5L)
})

test_that("sparse blocks (a sparse DelayedMatrix) are reduced as the dgCMatrix in memory", {
  skip_if_not_installed("DelayedArray")
  x <- withr::with_seed(2, Matrix::rsparsematrix(70, 40, 0.2))
  x <- methods::as(x, "CsparseMatrix")
  src <- kmreduce:::as_row_source(DelayedArray::DelayedArray(x))
  for (method in c("sign", "sparse_embedding", "leverage", "rsvd")) {
    r <- kmeans_reduced(x, 3, method = method, dims = 6, n_init = 1, seed = 3)$reducer
    ref <- kmreduce:::apply_reducer(r, x, 1L)
    for (block_rows in c(9L, 100L)) {
      expect_identical(kmreduce:::apply_reducer(r, src, 2L, block_rows), ref,
                       label = sprintf("%s, blocks of %d", method, block_rows))
    }
  }
})

test_that("a method with its own apply maps each block through it", {
  entry <- kmreduce:::method_entry(
    "toy apply (columns halved)", "selection", NULL, default = function(k, d) 2,
    upper = function(n, d) d, sources = c("source_matrix", "row_source"),
    fit = function(src, method, dims, k, seed, ...) {
      kmreduce:::new_reducer(method, dims, seed, src,
                             features = kmreduce:::selected_features(src, seq_len(dims),
                                                                     rep(1, dims)))
    },
    apply = function(reducer, x, n_threads, limit, shift) {
      out <- as.matrix(x[, seq_len(reducer$dims), drop = FALSE]) / 2
      if (!is.null(shift)) out <- out - rep(shift, each = nrow(out))
      out
    })
  kmreduce:::register_method("toy_apply", entry)
  on.exit(kmreduce:::register_method("toy_apply", NULL), add = TRUE)
  x <- unname(make_mixture(n = 50, d = 6, k = 2)$x)
  r <- kmeans_reduced(x, 2, method = "toy_apply", dims = 3, n_init = 1, seed = 1)$reducer
  expect_identical(kmreduce:::reducer_spec(r, 1L)$family, "r")
  ref <- kmreduce:::apply_reducer(r, x)
  expect_identical(unname(ref), sweep(x[, 1:3] / 2, 2L, r$shift))
  for (block_rows in c(4L, 50L)) {
    expect_identical(kmreduce:::apply_reducer(r, fn_source(x), 1L, block_rows), ref)
  }
})

test_that("a sample of the rows read in blocks is the rows in memory, names and all", {
  x <- matrix(withr::with_seed(3, rnorm(45 * 8)), 45, 8,
              dimnames = list(sprintf("r%d", 1:45), sprintf("c%d", 1:8)))
  src <- fn_source(x)
  for (index in list(c(1L, 2L, 45L), c(3L, 9L, 10L, 11L, 30L), 17L, 1:45)) {
    for (block_rows in c(1L, 4L, 45L, 60L)) {
      label <- sprintf("rows %s, blocks of %d", paste(index, collapse = ","), block_rows)
      expect_identical(kmreduce:::rows_at(src, index, block_rows), x[index, , drop = FALSE],
                       label = label)
    }
  }
  # the blocks that hold no sampled row are not read
  src$data$reads$n <- 0L
  kmreduce:::rows_at(src, c(2L, 3L, 41L), 10L)
  expect_identical(src$data$reads$n, 2L)
  # none: the rows' type with no row
  expect_identical(kmreduce:::rows_at(src, integer(0), 10L), x[0L, , drop = FALSE])
  # the sources of the package
  y <- unname(x)
  index <- kmreduce:::sample_index(45, 11, 5)
  for (s in block_sources(y)) {
    for (block_rows in c(6L, 100L)) {
      drawn <- kmreduce:::sample_rows(s, 11, 5, block_rows)
      expect_identical(drawn$index, index)
      expect_identical(unname(drawn$rows), y[index, , drop = FALSE])
    }
  }
  # sparse blocks: the dgCMatrix of those rows
  skip_if_not_installed("DelayedArray")
  z <- methods::as(withr::with_seed(4, Matrix::rsparsematrix(45, 30, 0.1)), "CsparseMatrix")
  s <- kmreduce:::as_row_source(DelayedArray::DelayedArray(z))
  for (block_rows in c(5L, 100L)) {
    got <- kmreduce:::rows_at(s, index, block_rows)
    expect_s4_class(got, "dgCMatrix")
    expect_identical(got, z[index, , drop = FALSE])
  }
})

test_that("the library sizes of a source read in blocks are its row sums, its sample kept", {
  skip_if_not_installed("DelayedArray")
  counts <- withr::with_seed(5, matrix(rpois(60 * 25, 2), 60, 25))
  sparse <- methods::as(methods::as(counts, "dMatrix"), "CsparseMatrix")
  index <- kmreduce:::sample_index(60, 9, 2)
  for (x in list(counts, sparse)) {
    for (block_values in c(50, 1e6)) {
      src <- kmreduce:::new_source_delayed(DelayedArray::DelayedArray(x),
                                           normalize = "log1p_size_factors")
      src$block_values <- block_values
      src$values_per_row <- 25
      expect_identical(kmreduce:::source_library_sizes(src), rowSums(counts))
      expect_identical(kmreduce:::source_library_sizes(src, list(index = index)), rowSums(counts))
      kept <- src$cache$sample$counts
      want <- x[index, , drop = FALSE]
      if (is.matrix(want)) storage.mode(want) <- "double"
      expect_identical(kept, want)
    }
  }
  # the sums of values that are not whole (counts are numbers >= 0): those of
  # Matrix::rowSums(), dense or sparse
  y <- withr::with_seed(6, matrix(rexp(60 * 300) * 1e3, 60, 300))
  y[y < 500] <- 0
  for (x in list(y, methods::as(y, "CsparseMatrix"))) {
    src <- kmreduce:::new_source_delayed(DelayedArray::DelayedArray(x),
                                         normalize = "log1p_size_factors")
    src$block_values <- 3000
    expect_identical(kmreduce:::source_library_sizes(src), unname(Matrix::rowSums(x)))
  }
  # counts are checked on the way
  bad <- counts
  bad[33, 4] <- -1
  src <- kmreduce:::new_source_delayed(DelayedArray::DelayedArray(bad),
                                       normalize = "log1p_size_factors")
  expect_error(kmreduce:::source_library_sizes(src), "count")
})

test_that("a reader giving a block of the wrong shape, or failing, is an R error, not a crash", {
  skip_if_not_installed("callr")
  out <- callr::r(function() {
    spec <- function(read) kmreduce:::cpp_source(read = read, n = 10, d = 3, block_rows = 4)
    x <- matrix(as.numeric(1:30), 10, 3)
    reducer <- list(family = "extraction", names = c("a", "b"), rotation = diag(3)[, 1:2],
                    n_threads = 1L)
    try_msg <- function(expr) tryCatch({
      expr
      "no error"
    }, error = function(e) conditionMessage(e))
    wrong <- function(a, b) x[a:b, 1:2, drop = FALSE]
    short <- function(a, b) x[a:min(b, a + 1L), , drop = FALSE]
    fails <- function(a, b) if (a > 4) stop("the disk is gone") else x[a:b, , drop = FALSE]
    text <- function(a, b) matrix("a", b - a + 1L, 3)
    c(reduce_wrong = try_msg(kmreduce:::reduce_source_cpp(spec(wrong), reducer)),
      reduce_short = try_msg(kmreduce:::reduce_source_cpp(spec(short), reducer)),
      reduce_fails = try_msg(kmreduce:::reduce_source_cpp(spec(fails), reducer)),
      reduce_text = try_msg(kmreduce:::reduce_source_cpp(spec(text), reducer)),
      rows_fails = try_msg(kmreduce:::rows_at_cpp(spec(fails), c(2, 9))),
      rows_wrong = try_msg(kmreduce:::rows_at_cpp(spec(wrong), c(2, 9))),
      rows_index = try_msg(kmreduce:::rows_at_cpp(spec(wrong), c(9, 2))),
      sizes_fails = try_msg(kmreduce:::library_sizes_cpp(spec(fails), numeric(0))),
      fit_fails = try_msg(local({
        ns <- asNamespace("kmreduce")
        registerS3method("n_rows", "source_child", function(src) 10L, envir = ns)
        registerS3method("n_cols", "source_child", function(src) 3L, envir = ns)
        registerS3method("read_block", "source_child", function(src, first, last) fails(first, last),
                         envir = ns)
        registerS3method("describe_source", "source_child", function(src) "a child's rows",
                         envir = ns)
        kmreduce::kmeans_reduced(kmreduce:::new_row_source(list(), "source_child"), 2, method = "sign",
                       dims = 2, seed = 1, control = list(block_rows = 4))
      })),
      after = paste(dim(kmreduce:::reduce_source_cpp(spec(function(a, b) x[a:b, , drop = FALSE]),
                                                     reducer)), collapse = " x "))
  }, libpath = .libPaths())
  expect_match(out[["reduce_wrong"]], "rows 1\\.\\.4 read is 4 x 2, not 4 x 3")
  expect_match(out[["reduce_short"]], "rows 1\\.\\.4 read is 2 x 3, not 4 x 3")
  expect_match(out[["reduce_fails"]], "the disk is gone")
  expect_match(out[["reduce_text"]], "expected a double matrix or a dgCMatrix")
  expect_match(out[["rows_fails"]], "the disk is gone")
  expect_match(out[["rows_wrong"]], "not 4 x 3")
  expect_match(out[["rows_index"]], "increasing")
  expect_match(out[["sizes_fails"]], "the disk is gone")
  expect_match(out[["fit_fails"]], "the disk is gone")
  # (the process goes on)
  expect_identical(out[["after"]], "10 x 2")
})
