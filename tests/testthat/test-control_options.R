# The options of `control`, each declared once (R/control_options.R): the
# arguments of kmeans_control(), its help, check_control() and the C++
# options all come from that table.

test_that("every option is declared with its default, its check and its help", {
  opts <- kmreduce:::control_options()
  expect_false(anyDuplicated(names(opts)) > 0L)
  for (p in names(opts)) {
    o <- opts[[p]]
    expect_named(o, c("check", "default", "help"), label = p)
    expect_true(is.function(o$check), label = p)
    expect_length(formals(o$check), 2L)  # (value, arg)
    expect_true(is.character(o$help) && length(o$help) == 1L && nzchar(o$help), label = p)
    # the default passes its own check unchanged
    expect_identical(o$check(o$default, p), o$default, label = p)
    # a value of the wrong type is refused by the option's name
    expect_error(o$check(list(1), paste0("control$", p)), sprintf("`control\\$%s`", p),
                 label = p)
  }
  # the built-in methods' options are among them, with their registry checks
  params <- kmreduce:::method_params()
  expect_true(all(names(params) %in% names(opts)))
  expect_identical(names(kmreduce:::builtin_params()),
                   intersect(names(opts), names(params)))
})

test_that("kmeans_control()'s arguments are the table's options with their defaults", {
  expect_identical(as.list(formals(kmeans_control)), kmreduce:::control_formals())
  expect_identical(names(formals(kmeans_control)), names(kmreduce:::control_options()))
  # (the usage of ?kmeans_control as it was written by hand before the table)
  expect_identical(names(formals(kmeans_control)),
                   c("tol", "keep_reduced", "block_rows", "precision", "seeding",
                     "oversampling", "rounds", "local_search", "polish", "polish_starts",
                     "polish_work", "sketch_rows", "file_cache", "tries", "split_rounds",
                     "svd", "eps", "power_iters", "svd_rows", "scores", "sampling", "c",
                     "repeats", "residual", "qr", "fjlt_density", "dims_tol", "batch_size",
                     "reassignment_ratio"))
  expect_identical(kmreduce:::control_defaults(), kmreduce:::control_formals())
  expect_identical(unclass(kmeans_control()), kmreduce:::control_formals())
})

test_that("the arguments of ?kmeans_control are the table's help (make document is current)", {
  rd <- tools::Rd_db("kmreduce")[["kmeans_control.Rd"]]
  skip_if(is.null(rd), "help pages of the installed package not found")
  tags <- vapply(rd, function(e) attr(e, "Rd_tag"), "")
  args <- rd[[which(tags == "\\arguments")]]
  items <- Filter(function(e) identical(attr(e, "Rd_tag"), "\\item"), args)
  installed <- vapply(items, function(e) paste(unlist(e[[1]]), collapse = ""), "")
  generated <- sub("^@param (\\S+) .*", "\\1", kmreduce:::control_rd_params())
  expect_identical(gsub(" ", "", installed), generated)
  # every option documented once
  expect_setequal(unlist(strsplit(generated, ",")), names(formals(kmeans_control)))
})

test_that("the names R sends to the C++ k-means are those its parser reads, and the defaults agree", {
  cpp <- kmreduce:::kmeans_options_cpp()
  control <- kmreduce:::check_control(list(sketch_rows = 100))
  mb <- kmreduce:::algorithm_control(control, "minibatch")
  sent <- c(names(kmreduce:::kmeans_cpp_options(4L, 3L, settings = kmreduce:::kmeans_settings(
              control, 4L, 3L, n = 1e4))),
            names(kmreduce:::kmeans_cpp_options(4L, 3L, settings = kmreduce:::kmeans_settings(
              mb, 4L, 3L, n = 1e4, seed = 1))),
            names(kmreduce:::lloyd_cpp_options(10L, settings = kmreduce:::kmeans_settings(
              mb, 4L, 1L, seed = 1))))
  expect_identical(setdiff(sent, cpp$names), character())
  # (split_confirm: a tolerance of the core that R does not set)
  expect_identical(setdiff(cpp$names, sent), "split_confirm")
  # a name R does not send keeps the core's default: the same as R's
  defaults <- kmreduce:::control_formals()
  for (p in names(cpp$defaults)) {
    expect_equal(cpp$defaults[[p]], defaults[[p]], label = p)
  }
})

test_that("check_control() checks each option by its declaration, messages unchanged", {
  opts <- kmreduce:::control_options()
  expect_error(kmreduce:::check_control(list(tries = 0)),
               "^`control\\$tries` must be a whole number in \\[1, 1e\\+06\\], not 0\\.$")
  expect_error(kmreduce:::check_control(list(polish_starts = 0)),
               "^`control\\$polish_starts` must be \"auto\" or a whole number in \\[1, 1e\\+06\\], not 0\\.$")
  expect_error(kmreduce:::check_control(list(sketch_rows = 1.5)),
               "^`control\\$sketch_rows` must be \"auto\", a whole number >= 0 or Inf \\(all rows\\), not 1\\.5\\.$")
  expect_identical(kmreduce:::check_control(list(sketch_rows = 10L))$sketch_rows, 10)
  expect_identical(kmreduce:::check_control(list(block_rows = 100))$block_rows, 100L)
})
