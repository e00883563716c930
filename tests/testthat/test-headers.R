# The C++ core's headers (inst/include/kmreduce/) are in folders by concern,
# one floor each: runtime < kernels < data < reduce, cluster. A header
# includes headers of its own folder and of floors below it only (reduce and
# cluster, two sides of the top floor, never include each other); the same
# rule as tools/check-include-floors.sh, here on the installed headers.

floor_violations <- function(dir) {
  floors <- c(runtime = 0, kernels = 1, data = 2, reduce = 3, cluster = 3)
  out <- character()
  top <- list.files(dir, pattern = "\\.hpp$")
  if (length(top)) out <- c(out, paste(top, "is outside the floors"))
  for (f in list.files(dir, pattern = "\\.hpp$", recursive = TRUE)) {
    from <- dirname(f)
    if (!from %in% names(floors)) {
      out <- c(out, paste(f, "is not in a floor"))
      next
    }
    lines <- readLines(file.path(dir, f), warn = FALSE)
    inc <- sub('^\\s*#\\s*include\\s*"([^"]*)".*$', "\\1",
               grep('^\\s*#\\s*include\\s*"', lines, value = TRUE, perl = TRUE), perl = TRUE)
    for (i in inc) {
      to <- if (grepl("^\\.\\./[^/]+/[^/]+$", i)) strsplit(i, "/")[[1]][2] else
        if (!grepl("/", i)) from else NA_character_
      if (is.na(to) || !file.exists(file.path(dir, from, i))) {
        out <- c(out, sprintf("%s includes \"%s\", not a core header by a relative path", f, i))
      } else if (to != from && (!to %in% names(floors) || floors[[to]] >= floors[[from]])) {
        out <- c(out, sprintf("%s (floor %s) includes \"%s\" (floor %s)", f, floors[[from]], i,
                              if (to %in% names(floors)) floors[[to]] else "none"))
      }
    }
    if (any(grepl("^\\s*#\\s*include\\s*<kmreduce/", lines, perl = TRUE)))
      out <- c(out, paste(f, "includes a core header by <kmreduce/...>"))
  }
  out
}

test_that("no installed core header includes one from a floor above it", {
  dir <- system.file("include", "kmreduce", package = "kmreduce")
  expect_true(nzchar(dir))
  headers <- list.files(dir, pattern = "\\.hpp$", recursive = TRUE)
  expect_gt(length(headers), 30L)
  expect_setequal(unique(dirname(headers)), c("runtime", "kernels", "data", "reduce", "cluster"))
  expect_identical(floor_violations(dir), character())
})

test_that("the floor check finds an upward include and one between reduce and cluster", {
  src <- system.file("include", "kmreduce", package = "kmreduce")
  dir <- file.path(tempfile("floors"), "kmreduce")
  dir.create(dir, recursive = TRUE)
  file.copy(file.path(src, c("runtime", "kernels", "data", "reduce", "cluster")), dir,
            recursive = TRUE)
  expect_identical(floor_violations(dir), character())
  f <- file.path(dir, "kernels", "label_sums.hpp")
  writeLines(c('#include "../cluster/lloyd.hpp"', readLines(f)), f)
  g <- file.path(dir, "reduce", "svd.hpp")
  writeLines(c('#include "../cluster/kmeans.hpp"', readLines(g)), g)
  v <- floor_violations(dir)
  expect_length(v, 2L)
  expect_match(v[grepl("label_sums", v)], "floor 1.*cluster/lloyd.hpp.*floor 3")
  expect_match(v[grepl("svd", v)], "floor 3.*cluster/kmeans.hpp.*floor 3")
})

test_that("the test hooks (src/test_hooks.cpp and three more) are called by no function of the package", {
  hooks <- c("hartigan_cpp", "local_search_cpp", "kmeans_parallel_cpp", "kmeanspp_trace_cpp",
             "packed_copy_limit_cpp", "single_products_cpp", "strong_rrqr_cpp", "fjlt_parts_cpp",
             "block_lanczos_cpp")
  ns <- asNamespace("kmreduce")
  expect_true(all(vapply(hooks, exists, logical(1), envir = ns, inherits = FALSE)))
  callers <- character()
  for (f in setdiff(ls(ns, all.names = TRUE), hooks)) {
    fun <- get(f, envir = ns)
    if (!is.function(fun)) next
    used <- intersect(hooks, all.names(body(fun)))
    if (length(used)) callers <- c(callers, paste(f, "calls", paste(used, collapse = ", ")))
  }
  expect_identical(callers, character())
})

test_that("ARCHITECTURE.md names only files and functions that exist (tools/check-architecture.R)", {
  # (in the source tree only: the built package carries neither file)
  root <- normalizePath(test_path("..", ".."), mustWork = FALSE)
  script <- file.path(root, "tools", "check-architecture.R")
  skip_if_not(file.exists(file.path(root, "ARCHITECTURE.md")) && file.exists(script),
              "not in the source tree")
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c(script, root),
                                  stdout = TRUE, stderr = TRUE))
  expect_match(out[1], "0 names not found", fixed = TRUE, info = paste(out, collapse = "\n"))
})

test_that("the structure targets hold: the R files in layers, no function over 100 lines (tools/)", {
  # (in the source tree only; the default call traced on the installed package)
  root <- normalizePath(test_path("..", ".."), mustWork = FALSE)
  scripts <- file.path(root, "tools", c("r-structure.R", "function-lengths.R"))
  skip_if_not(all(file.exists(scripts)) && dir.exists(file.path(root, "R")), "not in the source tree")
  skip_if_not_installed("codetools")
  lib <- dirname(find.package("kmreduce"))
  run <- function(args) {
    withr::with_dir(root, suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), args,
                                                   stdout = TRUE, stderr = TRUE)))
  }
  out <- run(c(scripts[1L], "--lib", lib))
  figure <- function(pattern) {
    as.numeric(sub(pattern, "\\1", grep(pattern, out, value = TRUE)[1L]))
  }
  info <- paste(out, collapse = "\n")
  expect_lte(figure("^S3 generics in R/: ([0-9]+)$"), 10, label = "S3 generics")
  expect_lte(figure("^largest circle of R files calling each other: ([0-9]+) files$"), 3,
             label = "the largest circle of files")
  expect_lte(figure("^default call: enters ([0-9]+) R files.*$"), 12, label = "files entered")
  # (the target is 60 calls crossing files; today 66: no more)
  expect_lte(figure("^default call: enters [0-9]+ R files, ([0-9]+) calls crossing files$"), 66,
             label = "calls crossing files")
  out <- run(c(scripts[2L], "--check"))
  expect_null(attr(out, "status"), info = paste(out, collapse = "\n"))
})
