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
  cols <- stats::setNames(kmreduce:::method_colour(names(reg)), names(reg))
  expect_false(anyDuplicated(cols) > 0)
  expect_identical(kmreduce:::method_colour(c("none", "sign")), unname(cols[c("none", "sign")]))
  expect_identical(unname(cols["none"]), "black")
  expect_error(kmreduce:::method_colour("nope"), "nope")
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

test_that("an option several methods read is declared with the same check by each", {
  reg <- kmreduce:::method_registry()
  params <- kmreduce:::method_params()
  formals_ <- names(formals(kmeans_control))
  for (m in names(reg)) {
    for (p in names(reg[[m]]$params)) {
      expect_identical(reg[[m]]$params[[p]]$check, params[[p]]$check, label = paste(m, p))
      # the built-in methods' options are formals of kmeans_control() (their defaults)
      expect_true(p %in% formals_, label = paste(m, p))
    }
  }
  # every option a method reads is validated by kmeans_control() and
  # control = list(): a value of the wrong type is refused by its name
  for (p in names(params)) {
    expect_error(kmeans_control(tol = 0.5)[[p]], NA)
    expect_error(kmreduce:::check_control(setNames(list(list(1)), p)), sprintf("`control\\$%s`", p),
                 label = p)
  }
})

test_that("projections cross to C++ through one options list, refused when wrong", {
  m <- make_mixture(n = 30, d = 12, k = 2)
  opts <- kmreduce:::reduce_options("gaussian", 4, 1, 1L)
  expect_identical(dim(kmreduce:::project_cpp(m$x, opts)), c(30L, 4L))
  expect_error(kmreduce:::project_cpp(m$x, c(opts, list(colour = 1))), "unknown reduce option `colour`")
  expect_error(kmreduce:::project_cpp(m$x, kmreduce:::reduce_options("nope", 4, 1)),
               'projection must be one of "sign", .*, not "nope"')
  # the sign projection's two kernels are one dispatch: the same product
  s <- kmreduce:::sign_matrix_cpp(12, 4, 3)
  for (alg in c("mailman", "gemm")) {
    p <- kmreduce:::project_cpp(m$x, kmreduce:::reduce_options("sign", 4, 3, 1L,
                                                                 more = list(algorithm = alg)))
    expect_equal(p, m$x %*% s, tolerance = 1e-12, label = alg)
  }
})

test_that("the core's list of projections is the registry's projections, one each", {
  reg <- kmreduce:::method_registry()
  cpp <- unlist(lapply(reg, `[[`, "cpp"))
  projections <- names(reg)[vapply(reg, function(e) identical(e$family, "projection"), NA)]
  # every projection of the registry names one policy of the core's list,
  # and every policy is a method of the registry
  expect_identical(sort(names(cpp)), sort(projections))
  expect_false(anyDuplicated(cpp) > 0)
  expect_setequal(unname(cpp), kmreduce:::projections_cpp())
  # each projects a matrix, dense and sparse, to the same numbers: the map
  # depends on (seed, ncol, dims) alone
  m <- make_mixture(n = 40, d = 16, k = 2)
  sp <- Matrix::Matrix(m$x * (abs(m$x) > 1), sparse = TRUE)
  for (name in kmreduce:::projections_cpp()) {
    o <- kmreduce:::reduce_options(name, 5, 7, 1L)
    dense <- kmreduce:::project_cpp(as.matrix(sp), o)
    expect_identical(dim(dense), c(40L, 5L), label = name)
    expect_equal(kmreduce:::project_cpp(sp, o), dense, tolerance = 1e-12, label = name)
    expect_identical(kmreduce:::project_cpp(as.matrix(sp), o), dense, label = name)
  }
})

test_that("method colours stay distinct for any number of methods; the first ten are Tableau 10", {
  cols <- kmreduce:::method_palette(200)
  expect_identical(length(cols), 200L)
  expect_false(anyDuplicated(cols) > 0)
  expect_identical(cols[1:10], unname(grDevices::palette.colors(10L, "Tableau 10")))
  # a method's colour does not change when methods are added after it
  expect_identical(kmreduce:::method_palette(40), cols[1:40])
  expect_identical(kmreduce:::method_palette(12), cols[1:12])
  expect_false("black" %in% cols)
})

test_that("the method table of ?reduction_methods is the registry's (make document is current)", {
  rd <- tools::Rd_db("kmreduce")[["reduction_methods.Rd"]]
  skip_if(is.null(rd), "help pages of the installed package not found")
  text <- paste(as.character(rd, deparse = TRUE), collapse = "")
  table <- sub("\n}.*", "", sub(".*\\\\tabular\\{lllll\\}\\{\n", "", text))
  installed <- strsplit(table, " *\\\\cr\n")[[1]][-1]  # (the header row aside)
  generated <- grep("^\\\\code\\{\"", kmreduce:::registry_rd_table(), value = TRUE)
  generated <- sub(" *\\\\cr$", "", unlist(strsplit(generated, "\n")))
  expect_identical(sub(" +$", "", installed), sub(" +$", "", generated))
  expect_identical(length(generated), length(kmreduce:::method_registry()))
})

# A toy method, added through its registry entry alone: a selection of the
# first `dims` columns times the option `toy_weight` (an option no formal
# of kmeans_control() has, so its default is the entry's), fitted and
# applied in R with the package's gather kernel.
toy_entry <- function() {
  kmreduce:::method_entry(
    "toy selection (first columns, weighted)", "selection", NULL,
    default = function(k, d) min(d, 2 * k), upper = function(n, d) d, sources = "source_matrix",
    params = list(toy_weight = kmreduce:::param(function(v, arg) {
      kmreduce:::check_number(v, arg, 0, Inf, open_lower = TRUE)
    }, default = 2)),
    fit = function(src, method, dims, k, seed, n_threads, control, ...) {
      kmreduce:::new_reducer(method, dims, seed, src,
                             features = kmreduce:::selected_features(src, seq_len(dims),
                                                                     rep(control$toy_weight, dims)))
    })
}

test_that("a method added by a registry entry alone works everywhere the registry reaches", {
  expect_error(kmreduce:::register_method("sign", toy_entry()), "`name` must be a new method name")
  expect_error(kmreduce:::register_method("toy", list(family = "selection")), "`entry` must be")
  bad <- toy_entry()
  bad$params <- list(toy_level = kmreduce:::param(function(v, arg) kmreduce:::check_whole(v, arg, 1, 9), 0))
  expect_error(kmreduce:::register_method("toy", bad), "option 'toy_level' has a default")
  kmreduce:::register_method("toy", toy_entry())
  on.exit(kmreduce:::register_method("toy", NULL), add = TRUE)
  m <- make_mixture(n = 120, d = 10, k = 3, sd = 1, sep = 4)
  # argument checks and kmeans_control() validation
  expect_true("toy" %in% kmreduce:::reduction_methods())
  expect_identical(kmeans_control()$toy_weight, 2)
  expect_identical(kmreduce:::check_control(list(toy_weight = 3))$toy_weight, 3)
  expect_error(kmeans_reduced(m$x, 3, method = "toy", control = list(toy_weight = -1)),
               "`control\\$toy_weight` must be a number in \\(0, Inf\\), not -1")
  expect_error(kmeans_reduced(m$x, 3, method = "toy", dims = 11),
               "`dims` must be a whole number in \\[1, 10\\]")
  if (requireNamespace("bigmemory", quietly = TRUE)) {
    expect_error(kmeans_reduced(bigmemory::as.big.matrix(m$x), 3, method = "toy"),
                 "needs the whole matrix in memory")
  }
  # the fit: the default dims of its entry, the reduced rows as defined
  fit <- kmeans_reduced(m$x, 3, method = "toy", seed = 1, n_init = 2,
                        control = list(toy_weight = 3))
  expect_identical(fit$dims, 6L)
  expect_equal(unname(fit$reduced), unname(sweep(3 * m$x[, 1:6], 2L, lower_medians(3 * m$x[, 1:6]))),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_identical(colnames(fit$reduced), colnames(m$x)[1:6])
  expect_identical(predict(fit, m$x), fit$cluster)
  expect_gt(adjusted_rand_index(fit$cluster, m$truth), 0.9)
  expect_output(print(fit), "toy selection (first columns, weighted)", fixed = TRUE)
  expect_identical(summary(fit)$method, "toy")
  r <- reduce_dims(m$x, "toy", dims = 4, seed = 1)
  expect_equal(unname(r$reduced), unname(2 * m$x[, 1:4]), tolerance = 1e-12)
  # dims_path: its colour (the registry's last) and its runs
  path <- dims_path(m$x, 3, methods = c("sign", "toy"), dims = c(2, 4), repeats = 1, seed = 1,
                    n_init = 1)
  expect_setequal(unique(path$results$method), c("sign", "toy", "none"))
  coloured <- length(kmreduce:::method_registry()) - 1L  # ("none" is black)
  expect_identical(kmreduce:::method_colour("toy"), kmreduce:::method_palette(coloured)[coloured])
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(path), path)
  # gone when unregistered
  kmreduce:::register_method("toy", NULL)
  expect_false("toy" %in% kmreduce:::reduction_methods())
  expect_error(kmeans_reduced(m$x, 3, method = "toy"), "`method` must be one of")
})

test_that("no code outside the registry keeps its own list of method names", {
  # A `c(...)` of two or more registered method names in a function body is a
  # hand-kept list that goes stale when a method is added; such lists are
  # derived from the registry (registered_methods(), reduction_methods()).
  ns <- asNamespace("kmreduce")
  methods <- names(kmreduce:::method_registry())
  lists_in <- function(e) {
    found <- character()
    if (is.call(e)) {
      if (identical(e[[1]], as.name("c"))) {
        strings <- unlist(Filter(is.character, as.list(e)[-1]))
        if (sum(strings %in% methods) >= 2L) found <- paste(deparse(e), collapse = " ")
      }
      for (i in seq_along(e)[-1]) {
        if (!identical(e[[i]], quote(expr = ))) found <- c(found, lists_in(e[[i]]))
      }
    }
    found
  }
  own <- "builtin_methods"  # the registry's entries
  hits <- list()
  for (f in setdiff(ls(ns, all.names = TRUE), own)) {
    fun <- get(f, envir = ns)
    if (is.function(fun) && !is.primitive(fun)) {
      found <- lists_in(body(fun))
      if (length(found) > 0L) hits[[f]] <- found
    }
  }
  expect_identical(hits, list())
  # the scan finds such a list
  expect_length(lists_in(quote(if (m %in% c("sign", "srht")) 1)), 1L)
})

# The checks of method, dims and the counts (check_method(), check_dims()).

m <- make_mixture(n = 50, d = 6)

test_that("bad method, dims, counts, seed and control are refused", {
  expect_error(kmeans_reduced(m$x, 2, method = "pca"), "`method` must be one of \"auto\", \"none\".*not \"pca\"")
  expect_error(kmeans_reduced(m$x, 2, method = c("sign", "svd")), "`method` must be one of")
  expect_error(kmeans_reduced(m$x, 2, method = "sign", dims = 0), "`dims` must be a whole number >= 1|`dims` must be a whole number in \\[1")
  expect_error(kmeans_reduced(m$x, 2, method = "sign", dims = NA), "`dims` must be a whole number.*not NA")
  expect_error(kmeans_reduced(m$x, 2, method = "svd", dims = 7), "`dims` must be a whole number in \\[1, 6\\], not 7")
  expect_error(kmeans_reduced(m$x, 2, n_init = 0), "`n_init` must be a whole number in \\[1, 1e\\+06\\], not 0")
  expect_error(kmeans_reduced(m$x, 2, iter_max = -1), "`iter_max` must be a whole number")
  expect_error(kmeans_reduced(m$x, 2, n_threads = 0), "`n_threads` must be a whole number >= 1, not 0")
  expect_error(kmeans_reduced(m$x, 2, seed = "x"), "`seed` must be NULL or a single whole number, not \"x\"")
  expect_error(kmeans_reduced(m$x, 2, seed = 1.5), "`seed` must be NULL or a single whole number, not 1.5")
  expect_error(kmeans_reduced(m$x, 2, seed = c(1, 2)), "`seed` must be NULL or a single whole number")
  expect_error(kmeans_reduced(m$x, 2, control = list(tolerance = 1)), "`control` has unknown name 'tolerance'; known names: 'tol', 'keep_reduced'")
  expect_error(kmeans_reduced(m$x, 2, control = list(1)), "`control` must be a named list")
  expect_error(kmeans_reduced(m$x, 2, control = list(tol = -1)), "`control\\$tol` must be a number in \\[0, 1\\), not -1")
  expect_error(kmeans_reduced(m$x, 2, control = list(keep_reduced = NA)), "`control\\$keep_reduced` must be TRUE or FALSE")
})

test_that("a kmeans() call written positionally gets an error that says how to name it", {
  # kmeans(x, 3, 20) runs (iter.max = 20); here the third argument is
  # `method`, and the error says that iter.max and nstart must be named.
  expect_error(kmeans_reduced(m$x, 2, 20),
               "`method` must be one of .*not 20\\. The third argument of kmeans_reduced\\(\\) is `method`, where stats::kmeans\\(\\) has `iter.max`.*kmeans_reduced\\(x, 3, iter.max = 20, nstart = 5\\)")
  expect_error(kmeans_reduced(m$x, 2, 20, 5), "`method` must be one of .*not 20\\. The third argument")
  # (a misspelt method name keeps the plain message)
  expect_error(kmeans_reduced(m$x, 2, "pca"), "`method` must be one of .*not \"pca\"\\.$")
  # The calls the help says carry over run, with kmeans()'s names, and give
  # kmeans()'s partition from the same centres.
  c0 <- m$x[c(1, 30), ]
  ref <- stats::kmeans(m$x, c0, iter.max = 20, algorithm = "Lloyd")
  fit <- kmeans_reduced(m$x, c0, iter.max = 20, algorithm = "Lloyd", trace = FALSE)
  expect_equal(fit$tot.withinss, ref$tot.withinss)
  expect_identical(as.vector(fit$cluster), as.vector(ref$cluster))
  ref <- withr::with_seed(1, stats::kmeans(m$x, 2, iter.max = 20, nstart = 5))
  fit <- kmeans_reduced(m$x, 2, iter.max = 20, nstart = 5, seed = 1)
  expect_equal(fit$tot.withinss, ref$tot.withinss, tolerance = 1e-8)
})
