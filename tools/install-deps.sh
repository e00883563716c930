#!/usr/bin/env bash
# Installs what kmreduce needs, by level:
#   install-deps.sh build   the packages it is built with and imports (make demo)
#   install-deps.sh test    + the test suite's packages, OpenMPI and pbdMPI (make test)
#   install-deps.sh check   + pandoc and qpdf for R CMD check (make check)
#   install-deps.sh docs    + roxygen2 and pkgdown (make document, make site)
#   install-deps.sh extras  + tidyclust, whose engine test is skipped without
#                           it (from source: about 40 packages, 20 minutes)
# As root with apt: Debian's prebuilt r-cran-* packages. Anywhere: whatever is
# still missing comes from your configured repository (tools/repos.R) into the
# first writable library (or .Rlib).
set -euo pipefail
cd "$(dirname "$0")/.."
level="${1:-test}"

APT_BUILD="r-cran-rcpp r-cran-rcpparmadillo r-cran-rcppeigen r-cran-matrix r-cran-clue r-cran-generics"
R_BUILD="Rcpp RcppArmadillo RcppEigen Matrix clue generics"
APT_TEST="r-cran-testthat r-cran-withr r-cran-knitr r-cran-rmarkdown r-cran-broom r-cran-factoextra \
  r-cran-ggplot2 r-cran-tibble r-cran-bigmemory r-cran-cluster r-cran-cli r-cran-glue r-cran-vctrs \
  pandoc openmpi-bin libopenmpi-dev \
  r-bioc-rhdf5 r-bioc-hdf5array r-bioc-delayedarray r-bioc-summarizedexperiment \
  r-bioc-singlecellexperiment r-bioc-scuttle r-bioc-scater r-cran-pkgdown r-cran-seuratobject"
# (the Bioconductor packages, for HDF5 files and SingleCellExperiment input,
# come from Debian only: their tests are skipped where they are missing;
# scater draws the single-cell vignette's last plot, skipped without it;
# SeuratObject, for Seurat objects as input, from Debian only too)
# (pkgdown, for the test that _pkgdown.yml indexes every help topic and
# vignette: Debian's, about 12 MB with what it adds to the list above; from
# Debian only, the test is skipped without it)
# (modelenv, for the tidyclust engine's registration test, needs a newer rlang
# than Debian 12 has: a name>=version entry is installed when older.)
R_TEST="testthat withr knitr rmarkdown broom ggplot2 tibble bigmemory cluster rlang>=1.1.0 modelenv"
APT_CHECK="qpdf devscripts"
# (devscripts: checkbashisms, for R CMD check of the configure script)
APT_DOCS="r-cran-roxygen2 r-cran-pkgdown libjs-katex"
R_DOCS="roxygen2 pkgdown"

case "$level" in
  build) apt_pkgs="$APT_BUILD"; r_pkgs="$R_BUILD" ;;
  test)  apt_pkgs="$APT_BUILD $APT_TEST"; r_pkgs="$R_BUILD $R_TEST" ;;
  check) apt_pkgs="$APT_BUILD $APT_TEST $APT_CHECK"; r_pkgs="$R_BUILD $R_TEST" ;;
  docs)  apt_pkgs="$APT_BUILD $APT_TEST $APT_DOCS"; r_pkgs="$R_BUILD $R_TEST $R_DOCS" ;;
  extras) apt_pkgs="$APT_BUILD $APT_TEST"; r_pkgs="$R_BUILD $R_TEST tidyclust" ;;
  *) echo "usage: install-deps.sh build|test|check|docs|extras" >&2; exit 2 ;;
esac

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  missing=""
  for p in $apt_pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "install-deps: system packages (apt-get install$missing) ..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
fi

# Not --vanilla: the user's and the site's profiles say which repository to use.
mkdir -p .Rlib
R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" Rscript --no-save --no-restore - $r_pkgs <<'REOF'
spec <- strsplit(commandArgs(trailingOnly = TRUE), ">=", fixed = TRUE)
pkgs <- vapply(spec, `[`, "", 1L)
least <- vapply(spec, function(s) if (length(s) > 1L) s[2L] else "0", "")
installed <- function(p, v = "0") {
  nzchar(system.file(package = p)) && utils::packageVersion(p) >= v
}
missing <- pkgs[!mapply(installed, pkgs, least)]
if (length(missing) > 0L) {
  source("tools/repos.R")
  lib <- Filter(function(p) file.access(p, 2L) == 0L, .libPaths())[1L]
  message("install-deps: R packages from ", getOption("repos")[[1L]], " into ", lib, ": ",
          paste(missing, collapse = " "), " ...")
  install.packages(missing, lib = lib, quiet = TRUE,
                   Ncpus = max(1L, parallel::detectCores(), na.rm = TRUE))
  still <- missing[!mapply(installed, missing, least[match(missing, pkgs)])]
  if (length(still) > 0L) stop("could not install: ", paste(still, collapse = " "))
}
REOF

# pbdMPI (Suggests) for the MPI test; best effort, see the script.
if [ "$level" != "build" ]; then
  bash tools/install-pbdmpi.sh "$PWD/.Rlib"
fi
echo "install-deps: $level dependencies ready"
