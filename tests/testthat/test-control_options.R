# The options of `control`, each declared once for R and C++ (the core's
# table, kmeans_options.def, read by R/control_options.R): the arguments of
# kmeans_control(), its help, check_control() and the C++ options all come
# from that table.

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
  # (the table's options of kmeans_control() in its order, then the
  # methods' options)
  table <- kmreduce:::kmeans_option_table_cpp()
  mine <- names(Filter(function(o) o$scope != "call", table))
  expect_identical(names(formals(kmeans_control)),
                   c(mine, names(kmreduce:::builtin_params())))
  expect_identical(mine, c("tol", "keep_reduced", "block_rows", "precision", "seeding",
                           "oversampling", "rounds", "local_search", "polish", "polish_starts",
                           "polish_work", "sketch_rows", "file_cache", "tries", "split_rounds",
                           "dims_tol", "batch_size", "reassignment_ratio"))
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

test_that("R and the core read one table: the same names, defaults and bounds", {
  table <- kmreduce:::kmeans_option_table_cpp()
  expect_identical(names(table), unname(vapply(table, `[[`, "", "name")))
  defaults <- kmreduce:::control_formals()
  opts <- kmreduce:::control_options()
  n <- 1e4
  for (o in table) {
    label <- o$name
    # every option of kmeans_control() is a row; its default is the row's
    if (o$scope != "call") {
      expect_identical(defaults[[o$name]],
                       kmreduce:::option_check(o)(eval(str2lang(o$value)), o$name), label = label)
      expect_identical(gsub("\n[ ]+", "\n", o$help), opts[[o$name]]$help, label = label)
    }
    # R's check and the core's validator accept and refuse the same values
    probes <- list(NULL, "auto", "x", TRUE, NA, c(1, 2), Inf, -Inf, 0.5, 1.5, o$lower, o$upper,
                   o$lower - 1, o$upper + 1, o$lower + 0.5, o$choices[1])
    check <- kmreduce:::option_check(o)
    for (v in probes) {
      r_ok <- !inherits(tryCatch(check(v, "x"), error = function(e) e), "error")
      cpp_ok <- !inherits(tryCatch(kmreduce:::kmeans_resolved_cpp(stats::setNames(list(v), o$name), n),
                                   error = function(e) e), "error")
      expect_identical(r_ok, cpp_ok, label = sprintf("%s = %s", label, deparse(v)))
    }
  }
  # the seedings the table offers are the core's
  expect_setequal(setdiff(table$seeding$choices, "auto"), kmreduce:::kmeans_seedings_cpp())
  # R sends every option the core reads from kmeans_control(), and the names
  # of the calls, all in the table
  control <- kmreduce:::check_control(list(sketch_rows = 100))
  mb <- kmreduce:::algorithm_control(control, "minibatch")
  sent <- c(names(kmreduce:::kmeans_cpp_options(4L, 3L, settings = kmreduce:::kmeans_settings(control))),
            names(kmreduce:::lloyd_cpp_options(10L, settings = kmreduce:::kmeans_settings(mb))))
  expect_identical(setdiff(sent, names(table)), character())
  expect_identical(setdiff(names(Filter(function(o) o$scope == "control", table)), sent),
                   character())
  # (split_confirm: a tolerance of the core that R does not set)
  expect_identical(setdiff(names(Filter(function(o) o$scope == "call", table)), sent),
                   "split_confirm")
})

test_that("check_control() checks each option by its declaration, messages unchanged", {
  opts <- kmreduce:::control_options()
  expect_error(kmreduce:::check_control(list(tries = 0)),
               "^`control\\$tries` must be a whole number in \\[1, 1e\\+06\\], not 0\\.$")
  expect_error(kmreduce:::check_control(list(polish_starts = 0)),
               "^`control\\$polish_starts` must be \"auto\" or a whole number in \\[1, 1e\\+06\\], not 0\\.$")
  expect_error(kmreduce:::check_control(list(sketch_rows = 1.5)),
               "^`control\\$sketch_rows` must be \"auto\" or a whole number in \\[0, Inf\\], not 1\\.5\\.$")
  expect_identical(kmreduce:::check_control(list(sketch_rows = 10))$sketch_rows, 10L)
  expect_identical(kmreduce:::check_control(list(block_rows = 100))$block_rows, 100L)
})

test_that("recipe: an option added in its one declaration reaches the core and R", {
  skip_on_cran()
  # C++: a toy row in a temporary copy of the core's table gives the core's
  # struct its field with the default, and its one validator its bounds
  cxx <- Sys.which("g++")
  skip_if(!nzchar(cxx), "no g++ to compile the core")
  inc <- system.file("include", package = "kmreduce")
  tmp <- tempfile("options")
  dir.create(tmp)
  on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
  file.copy(file.path(inc, "kmreduce"), tmp, recursive = TRUE)
  def <- file.path(tmp, "kmreduce", "cluster", "kmeans_options.def")
  row <- paste0('  X(toy_option, Whole, R"-(3)-", 1, 10, 0, "", Control, ',
                'R"-(A toy option.)-")')
  cat(row, "\n", file = def, append = TRUE, sep = "")
  prog <- file.path(tmp, "toy.cpp")
  writeLines(c(
    '#include <cstdio>',
    '#include "kmreduce/cluster/kmeans_options.hpp"',
    'int main() {',
    '  using namespace kmreduce;',
    '  KmeansControl c;',
    '  std::printf("default %g\\n", c.toy_option);',
    '  OptionValue v; v.type = OptionValue::Number; v.number = 11;',
    '  try { set_option(c, "toy_option", v); } catch (const std::exception& e) {',
    '    std::printf("error %s\\n", e.what()); }',
    '  v.number = 7; set_option(c, "toy_option", v);',
    '  std::printf("set %g\\n", c.toy_option);',
    '  std::printf("last %s\\n", kmeans_option_specs().back().name);',
    '  return 0;',
    '}'), prog)
  exe <- file.path(tmp, "toy")
  out <- suppressWarnings(system2(cxx, c("-std=c++14", "-pthread", "-I", shQuote(tmp),
                                         shQuote(prog), "-o", shQuote(exe)),
                                  stdout = TRUE, stderr = TRUE))
  expect_null(attr(out, "status"), label = paste(out, collapse = "\n"))
  res <- system2(exe, stdout = TRUE)
  expect_identical(res[1], "default 3")
  expect_match(res[2], "^error .*`toy_option` must be a whole number in \\[1, 10\\]")
  expect_identical(res[3:4], c("set 7", "last toy_option"))
  # R: the same row in the table R reads gives kmeans_control() the
  # argument with its default, its check and its help
  env <- environment(kmreduce:::option_table)
  table <- kmreduce:::option_table()
  on.exit(env$table <- table, add = TRUE)
  toy <- table[["tol"]]
  toy[c("name", "kind", "value", "lower", "upper", "auto", "null", "open_lower", "open_upper",
        "scope", "help")] <- list("toy_option", "whole", "3", 1, 10, FALSE, FALSE, FALSE, FALSE,
                                  "control", "A toy option.")
  env$table <- c(table, list(toy_option = toy))
  expect_identical(kmreduce:::control_formals()$toy_option, 3L)
  expect_identical(kmreduce:::check_control(list(toy_option = 7))$toy_option, 7L)
  expect_error(kmreduce:::check_control(list(toy_option = 11)),
               "`control\\$toy_option` must be a whole number in \\[1, 10\\], not 11")
  expect_true(any(grepl("^@param toy_option A toy option", kmreduce:::control_rd_params())))
})
