#!/usr/bin/env bash
# Installs what kmreduce needs to build, test and run its demo.
# As root with apt: Debian's prebuilt r-cran-* packages. Anywhere: whatever is
# still missing comes from CRAN into the first writable library (or .Rlib).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS="r-cran-rcpp r-cran-rcpparmadillo r-cran-rcppeigen r-cran-matrix \
  r-cran-testthat r-cran-withr r-cran-knitr r-cran-rmarkdown r-cran-roxygen2 r-cran-broom r-cran-factoextra \
  r-cran-clue r-cran-generics r-cran-ggplot2 r-cran-bigmemory pandoc qpdf \
  openmpi-bin libopenmpi-dev"
R_PKGS="Rcpp RcppArmadillo RcppEigen Matrix testthat withr knitr rmarkdown clue generics ggplot2 bigmemory"

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  missing=""
  for p in $APT_PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "install-deps: apt-get install$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
fi

mkdir -p .Rlib
R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" Rscript --vanilla - $R_PKGS <<'REOF'
pkgs <- commandArgs(trailingOnly = TRUE)
installed <- function(p) nzchar(system.file(package = p))
missing <- pkgs[!vapply(pkgs, installed, logical(1))]
if (length(missing) > 0L) {
  lib <- Filter(function(p) file.access(p, 2L) == 0L, .libPaths())[1L]
  message("install-deps: from CRAN into ", lib, ": ", paste(missing, collapse = " "))
  install.packages(missing, lib = lib, repos = "https://cloud.r-project.org", quiet = TRUE)
  still <- missing[!vapply(missing, installed, logical(1))]
  if (length(still) > 0L) stop("could not install: ", paste(still, collapse = " "))
}
REOF

# pbdMPI (Suggests) for the MPI test; best effort, see the script.
bash tools/install-pbdmpi.sh "$PWD/.Rlib"
