#!/usr/bin/env bash
# Installs what bench/atlas needs besides kmreduce: the Bioconductor HDF5 stack
# from Debian (rhdf5, Rhdf5lib, HDF5Array, DelayedArray, beachmat,
# SingleCellExperiment, BiocParallel, benchmarkme; as root with apt-get), ClusterR
# from CRAN, and mbkmeans (not packaged by Debian) from a local copy of its
# source repository, into one R library.
#
#   bash bench/atlas/install-peers.sh MBKMEANS_SRC [LIB]
#
# MBKMEANS_SRC: a checkout of mbkmeans' source, or its git directory (a bare
# clone: it is checked out into a temporary folder first). Nothing is
# downloaded for mbkmeans. LIB: the R library to install into (default
# ./.Rlib); run the benchmarks with R_LIBS=LIB.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 MBKMEANS_SRC [LIB]" >&2; exit 2
fi
SRC="$(cd "$1" && pwd)"
cd "$(dirname "$0")/../.."
LIB="${2:-$PWD/.Rlib}"
mkdir -p "$LIB"
LIB="$(cd "$LIB" && pwd)"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends r-bioc-rhdf5 r-bioc-rhdf5lib \
    r-bioc-hdf5array r-bioc-delayedarray r-bioc-beachmat \
    r-bioc-singlecellexperiment r-bioc-biocparallel r-cran-benchmarkme \
    r-cran-rcpparmadillo time >/dev/null
fi
R_LIBS="$LIB" Rscript --no-save --no-restore -e '
  source("tools/repos.R")
  if (!requireNamespace("ClusterR", quietly = TRUE))
    install.packages("ClusterR", lib = Sys.getenv("R_LIBS"))'
# mbkmeans from the local source: a bare git directory is checked out first
PKG="$SRC"
if [ ! -f "$SRC/DESCRIPTION" ]; then
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
  git clone -q "$SRC" "$TMP/mbkmeans"
  PKG="$TMP/mbkmeans"
fi
R_LIBS="$LIB" R CMD INSTALL -l "$LIB" "$PKG"
R_LIBS="$LIB" Rscript -e 'suppressPackageStartupMessages(library(mbkmeans)); cat("mbkmeans", format(packageVersion("mbkmeans")), "installed\n")'
