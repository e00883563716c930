# The pkgdown site (make site) refuses to build when a help topic or a
# vignette is missing from the indexes of _pkgdown.yml: checked here, so that
# a new help page or vignette without its entry fails `make test` and not
# only `make site`. Only in the source tree: R CMD check's copy of the tests
# has no _pkgdown.yml beside it (the file is left out of the built package,
# and so is this test: .Rbuildignore).

test_that("_pkgdown.yml indexes every help topic and every vignette", {
  root <- testthat::test_path("..", "..")
  desc <- file.path(root, "DESCRIPTION")
  skip_if_not(file.exists(file.path(root, "_pkgdown.yml")) && file.exists(desc) &&
                identical(unname(read.dcf(desc, "Package")[1L, 1L]), "kmreduce"),
              "_pkgdown.yml is not beside the tests (not the source tree)")
  skip_if(!requireNamespace("pkgdown", quietly = TRUE),
          "pkgdown is not installed (bash tools/install-deps.sh test installs it)")
  # (an error such as "All topics must be included in reference index.
  # Missing topics: ..." fails the test and names what is missing)
  expect_message(pkgdown::check_pkgdown(root), "No problems found")
})
