# Runs the testthat suite against the installed package and prints the
# closing line "N passed, N failed"; exits non-zero on any failure.
suppressPackageStartupMessages(library(testthat))
# Run the long cases too (skip_on_cran() skips them only on CRAN).
Sys.setenv(NOT_CRAN = "true")
# Packages that ask for the time zone (tidyclust's dependencies) warn when it
# is unset and the machine has no timedatectl.
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
res <- testthat::test_dir("tests/testthat", package = "kmreduce",
                          load_package = "installed", stop_on_failure = FALSE,
                          reporter = testthat::ProgressReporter$new(show_praise = FALSE))
df <- as.data.frame(res)
passed <- sum(df$passed)
failed <- sum(df$failed) + sum(df$error)
skipped <- sum(df$skipped)
cat(sprintf("\n%d passed, %d failed, %d skipped\n", passed, failed, skipped))
quit(status = if (failed > 0L) 1L else 0L)
