test_that("kmeans_control() holds every option with its default, the same as control = list()", {
  ctl <- kmeans_control()
  expect_s3_class(ctl, "kmreduce_control")
  expect_identical(unclass(ctl), kmreduce:::check_control(list()))
  expect_identical(names(ctl), names(formals(kmeans_control)))
  expect_identical(ctl$polish, "auto")
  expect_null(ctl$local_search)
  # options as given, checked and normalised (whole numbers become integers)
  ctl <- kmeans_control(polish = "none", tries = 4, seeding = "k-means||")
  expect_identical(ctl$tries, 4L)
  expect_identical(ctl$seeding, "k-means||")
})

test_that("kmeans_control() refuses bad values by their argument name", {
  expect_error(kmeans_control(polish = "yes"),
               "`polish` must be one of \"auto\", \"split_merge\", \"hartigan\", \"none\", not \"yes\"")
  expect_error(kmeans_control(tol = -1), "`tol` must be a number in \\[0, 1\\), not -1")
  expect_error(kmeans_control(tries = 0), "`tries`")
  expect_error(kmeans_control(keep_reduced = NA), "`keep_reduced` must be TRUE or FALSE, not NA")
  expect_error(kmeans_control(polish_starts = "all"), "`polish_starts` must be \"auto\" or a whole number")
  expect_error(kmeans_control(polish_work = -1),
               "`polish_work` must be a number in \\[0, Inf\\], not -1")
  expect_error(kmeans_control(polish_work = NA), "`polish_work` must be a number in")
  expect_error(kmeans_control(polish_work = "all"), "`polish_work` must be a number in")
  expect_identical(kmeans_control(polish_work = Inf)$polish_work, Inf)
  expect_identical(kmeans_control(polish_work = 1L)$polish_work, 1)
  expect_error(kmeans_control(fjlt_density = 2), "`fjlt_density` must be NULL or a number in \\(0, 1\\]")
  expect_error(kmeans_control(poilsh = "none"), "unused argument")
  # as a plain list the names are those of control
  expect_error(kmeans_reduced(matrix(rnorm(20), 10), 2, control = list(polish = "yes")),
               "`control\\$polish` must be one of")
})

test_that("a kmeans_control() object and the same plain list give the same fit", {
  m <- make_mixture(n = 300, d = 8, k = 4, sd = 1, sep = 4, seed = 5)
  a <- kmeans_reduced(m$x, 4, n_init = 3, seed = 2, control = kmeans_control(polish = "none", tol = 0))
  b <- kmeans_reduced(m$x, 4, n_init = 3, seed = 2, control = list(polish = "none", tol = 0))
  expect_identical(a$cluster, b$cluster)
  expect_identical(a$tot.withinss, b$tot.withinss)
  # and it reaches reduce_dims() too
  r1 <- reduce_dims(m$x, "leverage", dims = 5, k = 4, seed = 1, control = kmeans_control(sampling = "top"))
  r2 <- reduce_dims(m$x, "leverage", dims = 5, k = 4, seed = 1, control = list(sampling = "top"))
  expect_identical(r1$reduced, r2$reduced)
})

test_that("print() lists every option and marks those changed", {
  out <- capture.output(print(kmeans_control(tries = 5, polish = "hartigan")))
  expect_match(out[1], "changed from the default")
  expect_length(out, length(formals(kmeans_control)) + 1L)
  expect_match(grep("^  tries ", out, value = TRUE), "5  \\*$")
  expect_match(grep("^  polish ", out, value = TRUE), "\"hartigan\"  \\*$")
  expect_false(grepl("\\*", grep("^  tol ", out, value = TRUE)))
  expect_match(grep("^  local_search ", out, value = TRUE), "NULL$")
  out <- capture.output(x <- print(kmeans_control()))
  expect_false(any(grepl("\\*", out)))
  expect_s3_class(x, "kmreduce_control")
})

test_that("seeding = \"auto\" is k-means|| from n k = 1e6 up, greedy k-means++ below", {
  seeding <- function(control, k, n) {
    kmreduce:::kmeans_resolved(k, 3L, n, kmreduce:::kmeans_settings(control))$seeding
  }
  expect_identical(seeding(kmeans_control(), 10, 99999), "k-means++")
  expect_identical(seeding(kmeans_control(), 10, 1e5), "k-means||")
  expect_identical(seeding(kmeans_control(seeding = "k-means++"), 10, 1e7), "k-means++")
  x <- matrix(withr::with_seed(1, rnorm(1e5 * 2)), ncol = 2)
  # (structureless data: Lloyd may stop at iter_max, which warns)
  msg <- capture.output(type = "message", {
    a <- suppressWarnings(kmeans_reduced(x, 10, n_init = 1, seed = 3, n_threads = 1,
                                         verbose = TRUE))
  })
  expect_match(paste(msg, collapse = "\n"), "1 k-means\\|\\| replicate")
  b <- suppressWarnings(kmeans_reduced(x, 10, n_init = 1, seed = 3, n_threads = 1,
                                       control = list(seeding = "k-means||")))
  expect_identical(a$cluster, b$cluster)
  # below the threshold: the greedy k-means++ fit
  y <- x[1:2000, ]
  expect_identical(kmeans_reduced(y, 10, n_init = 2, seed = 3)$cluster,
                   kmeans_reduced(y, 10, n_init = 2, seed = 3,
                                  control = list(seeding = "k-means++"))$cluster)
})

test_that("file_cache is \"auto\" or a number of bytes", {
  expect_identical(kmeans_control()$file_cache, "auto")
  expect_identical(kmeans_control(file_cache = 2^30)$file_cache, 2^30)
  expect_error(kmeans_control(file_cache = -1),
               "`file_cache` must be \"auto\" or a number in \\[0, Inf\\], not -1")
  expect_error(kmeans_reduced(matrix(rnorm(40), 20), 2, control = list(file_cache = "all")),
               "`control\\$file_cache` must be \"auto\" or a number in \\[0, Inf\\]")
  # "auto": a tenth of the memory available, none when that is unknown
  expect_identical(kmreduce:::file_cache_budget(123), 123)
  avail <- kmreduce:::available_memory()
  budget <- kmreduce:::file_cache_budget("auto")
  if (is.na(avail)) {
    expect_identical(budget, 0)
  } else {
    expect_gt(budget, 0)
    expect_lt(budget, as.numeric(avail) / 5)  # (a tenth, as memory may move in between)
  }
})

# The checks of `control` (check_control()).

test_that("a tiny eps uses the most accurate randomized SVD, not the least", {
  x <- withr::with_seed(5, matrix(rnorm(40 * 8), 40))
  fit <- expect_warning(kmeans_reduced(x, 2, control = list(eps = 1e-12), method = "leverage",
                                       dims = 4, seed = 1), NA)
  # min(n, d) test vectors: the randomized SVD is exact up to rounding.
  expect_equal(fit$reducer$scores, leverage_scores(x, 2, "exact"), tolerance = 1e-8)
})

test_that("an option given twice is refused, naming it, wherever `control` is read", {
  x <- withr::with_seed(1, matrix(rnorm(60 * 4), 60))
  # a plain list: two answers to one question (the last used to win silently)
  twice <- "`control` must give each option once, but gives 'polish' 2 times \\(\"none\", \"hartigan\"\\)\\.$"
  expect_error(kmeans_reduced(x, 3, control = list(polish = "none", polish = "hartigan")), twice)
  expect_error(kmeans_reduced(x, 3, seed = 1, control = list(tol = 0, polish = "none", tol = 0.1,
                                                             polish = "none")),
               "gives 'tol' 2 times \\(0, 0.1\\); also given more than once: 'polish'\\.$")
  # the same value twice is still given twice
  expect_error(kmeans_reduced(x, 3, control = list(tries = 2, tries = 2)),
               "`control` must give each option once, but gives 'tries' 2 times")
  # a kmeans_control() object with an option appended
  expect_error(kmeans_reduced(x, 3, control = c(kmeans_control(), list(polish = "none"))),
               "`control` must give each option once, but gives 'polish' 2 times \\(\"auto\", \"none\"\\)")
  # the methods' options, and every function that takes `control`
  expect_error(reduce_dims(x, "leverage", dims = 2, k = 2, control = list(eps = 0.5, eps = 0.2)),
               "`control` must give each option once, but gives 'eps' 2 times \\(0.5, 0.2\\)")
  expect_error(k_path(x, 1:2, B = 0, verbose = FALSE, control = list(tol = 0, tol = 1e-4)),
               "`control` .* gives 'tol' 2 times")
  expect_error(dims_path(x, 2, methods = "sign", dims = 2, verbose = FALSE,
                         control = list(tries = 1, tries = 2)),
               "`control` .* gives 'tries' 2 times")
  # kmeans_control(): R itself refuses a formal given twice, by its name
  expect_error(kmeans_control(polish = "none", polish = "hartigan"), "\"polish\" matched by multiple")
  # each name once is fine, and a modified kmeans_control() object too
  expect_silent(kmeans_reduced(x, 3, seed = 1, control = list(polish = "none", tol = 0)))
  expect_silent(kmeans_reduced(x, 3, seed = 1,
                               control = utils::modifyList(kmeans_control(), list(polish = "none"))))
})

# The options of `control`, each declared once for R and C++ (the core's
# table, kmeans_options.def, read by R/kmeans_control.R): the arguments of
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
  # (every default passes its own check unchanged: check_control() checks
  # only the options a call gives)
  expect_identical(unclass(kmeans_control()), kmreduce:::control_formals())
  expect_identical(kmreduce:::check_control(NULL), kmreduce:::control_formals())
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
