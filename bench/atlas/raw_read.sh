#!/bin/sh
# Builds bench/atlas/raw_read.c against the HDF5 that rhdf5 uses and runs it,
# 3 runs per block size. Rhdf5lib's static library when it has one (CRAN /
# Bioconductor builds); Debian's Rhdf5lib ships none (rhdf5 links the system
# libhdf5_serial), so there the system HDF5 through h5cc (libhdf5-dev).
#   sh bench/atlas/raw_read.sh FILE.h5 [group]
set -eu
cd "$(dirname "$0")"
BIN="$(mktemp)"
A="$(Rscript -e 'cat(system.file("libs", "libhdf5.a", package = "Rhdf5lib"))')"
if [ -n "$A" ]; then
  INC="$(Rscript -e 'cat(system.file("include", package = "Rhdf5lib"))')"
  cc -O2 -I"$INC" raw_read.c -o "$BIN" $(Rscript -e 'Rhdf5lib::pkgconfig("PKG_C_LIBS")')
else
  h5cc -O2 raw_read.c -o "$BIN"
fi
for b in 4194304 16777216 67108864; do
  for r in 1 2 3; do "$BIN" "$1" "${2:-mm10}" "$b"; done
done
rm -f "$BIN" raw_read.o   # h5cc leaves the object file here
