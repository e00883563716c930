# Builds the pkgdown site into docs/ (make site), offline: the package must be
# installed (make install), the articles are precomputed Markdown.
if (!requireNamespace("pkgdown", quietly = TRUE)) {
  stop("make site needs pkgdown: bash tools/install-deps.sh docs", call. = FALSE)
}
# Packages that ask for the time zone warn when it is unset and the machine
# has no timedatectl.
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
# Offline: no look-up of the package on CRAN or Bioconductor.
options(pkgdown.internet = FALSE)
pkgdown::build_site(".", preview = FALSE, install = FALSE, new_process = FALSE)
