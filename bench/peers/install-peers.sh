#!/usr/bin/env bash
# Installs the peers the benchmarks compare against (not needed by the
# package or its tests): scikit-learn and Fashion-MNIST from Debian, irlba
# and rsvd from Debian (r-cran-*), ClusterR, RnavGraphImageData (USPS, ORL)
# and lda 1.4.2 (20 Newsgroups) from CRAN into .Rlib, and
# OpenBLAS, which becomes the system BLAS (numpy, rsvd and irlba run at their
# best with it).
# Works as root with apt; otherwise only the CRAN part (into .Rlib).
set -eu
cd "$(dirname "$0")/../.."
LIB="$PWD/.Rlib"
mkdir -p "$LIB"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3-sklearn \
    dataset-fashion-mnist r-cran-irlba r-cran-rsvd libopenblas0-pthread time >/dev/null
fi
R_LIBS="$LIB" Rscript --no-save --no-restore -e '
  source("tools/repos.R")
  need <- c("ClusterR", "irlba", "rsvd", "RnavGraphImageData")
  miss <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
  if (length(miss)) install.packages(miss, lib = Sys.getenv("R_LIBS"))
  # 20 Newsgroups (bench/speed/newsgroups.R): lda 1.4.2 from the CRAN archive (the
  # current lda needs R >= 4.3).
  if (!requireNamespace("lda", quietly = TRUE))
    install.packages(paste0(contrib.url(getOption("repos")[["CRAN"]]), "/Archive/lda/lda_1.4.2.tar.gz"),
                     repos = NULL, type = "source", lib = Sys.getenv("R_LIBS"))'
