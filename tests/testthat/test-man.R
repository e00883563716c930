# The help pages (man/, roxygen2): what their usage shows can be called.
# Only in the source tree (the built package keeps the pages in its Rd
# database, not as files).

test_that("every function a usage section shows as callable is exported", {
  man <- testthat::test_path("..", "..", "man")
  skip_if_not(dir.exists(man) && file.exists(file.path(man, "kmeans_reduced.Rd")),
              "man/ is not beside the tests (not the source tree)")
  exported <- getNamespaceExports("kmreduce")
  shown <- character()
  for (f in list.files(man, pattern = "\\.Rd$", full.names = TRUE)) {
    lines <- readLines(f, encoding = "UTF-8")
    from <- which(lines == "\\usage{")
    if (!length(from)) next
    to <- from + which(lines[-seq_len(from)] == "}")[1L]
    usage <- lines[seq.int(from + 1L, to - 1L)]
    # (an S3 method is shown as \method{generic}{class}(...): its generic is
    # what users call)
    usage <- gsub("\\\\method\\{([^}]*)\\}\\{[^}]*\\}", "\\1", usage)
    calls <- regmatches(usage, regexpr("^[A-Za-z.][A-Za-z0-9._]*(?=\\()", usage, perl = TRUE))
    shown <- c(shown, stats::setNames(calls, rep(basename(f), length(calls))))
  }
  expect_gt(length(shown), 20L)
  # generics of other packages (print, plot, autoplot, ...) are called
  # through them
  generics <- c("print", "plot", "summary", "predict", "fitted", "autoplot", "tidy", "glance",
                "augment", "as.data.frame", "kmeans_reduced")
  bad <- shown[!(shown %in% exported | shown %in% generics)]
  expect_identical(paste(names(bad), bad), character(0))
})
