# The method registry: every entry is complete, and the package does what
# the entry says (methods are picked up from the registry, not listed here).

test_that("every registered method has a complete entry", {
  reg <- kmreduce:::method_registry()
  expect_true("none" %in% names(reg))
  for (m in names(reg)) {
    e <- reg[[m]]
    expect_true(is.character(e$label) && nzchar(e$label), label = m)
    expect_true(e$family %in% c("none", "projection", "selection", "extraction"), label = m)
    # (row-source classes: in memory, every source read in blocks, MPI rows)
    expect_true(all(e$sources %in% c("source_matrix", "row_source", "source_mpi")) &&
                  "source_matrix" %in% e$sources, label = m)
    expect_true(is.function(e$default) && is.function(e$upper), label = m)
    expect_lte(kmreduce:::method_dims_default(m, 3, 100, 40),
               kmreduce:::method_dims_upper(m, 100, 40))
  }
  expect_identical(kmreduce:::reduction_methods(), c("auto", names(reg)))
  # one fixed colour per method, all different, the reference black
  cols <- vapply(reg, function(e) e$colour, character(1))
  expect_false(anyDuplicated(cols) > 0)
  expect_identical(kmreduce:::method_colour(c("none", "sign")), unname(cols[c("none", "sign")]))
  expect_identical(unname(cols["none"]), "black")
})

test_that("a projection maps to at most ncol(x) dimensions; leverage samples may exceed it", {
  m <- make_mixture(n = 60, d = 12, k = 2)
  for (method in methods_of("projection")) {
    expect_error(kmeans_reduced(m$x, 2, method = method, dims = 13, seed = 1),
                 sprintf("`dims` must be at most the number of features \\(12\\) for method \"%s\", not 13", method))
    expect_error(reduce_dims(m$x, method = method, dims = 13, seed = 1),
                 "`dims` must be at most the number of features \\(12\\)")
    expect_identical(kmeans_reduced(m$x, 2, method = method, dims = 12, seed = 1)$dims, 12L)
  }
  # leverage-score sampling draws dims columns with replacement (the papers' r)
  fit <- kmeans_reduced(m$x, 2, method = "leverage", dims = 30, seed = 1)
  expect_identical(nrow(fit$reducer$features), 30L)
})

test_that("each method runs on every source its entry lists, and is refused on the others", {
  m <- make_mixture(n = 90, d = 20, k = 3, sd = 1, sep = 4)
  for (method in all_methods) {
    fit <- kmeans_reduced(m$x, 3, method = method, seed = 1, n_init = 1)
    info <- kmreduce:::method_info(method)
    expect_identical(fit$dims, kmreduce:::method_dims_default(method, 3, 90, 20), label = method)
    expect_identical(summary(fit)$method, method)
    expect_output(print(fit), info$label, fixed = TRUE)
    if (!is.null(info$prefix)) {
      expect_identical(colnames(fit$reduced), paste0(info$prefix, seq_len(fit$dims)))
    }
    expect_error(kmeans_reduced(m$x, 3, method = method,
                                dims = kmreduce:::method_dims_upper(method, 90, 20) + 1),
                 "`dims` must be (a whole number|at most the number of features)", label = method)
  }
  skip_if_not_installed("bigmemory")
  b <- bigmemory::as.big.matrix(m$x)
  for (method in c("none", all_methods)) {
    if (any(class(kmreduce:::as_row_source(b)) %in% kmreduce:::method_info(method)$sources)) {
      fit <- kmeans_reduced(b, 3, method = method, seed = 1, n_init = 1)
      expect_identical(length(fit$cluster), 90L, label = method)
    } else {
      expect_error(kmeans_reduced(b, 3, method = method, seed = 1),
                   "needs the whole matrix in memory", label = method)
    }
  }
})
