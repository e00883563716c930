#!/bin/sh
# Mailman block sizes on wide data (see mailman_blocks.cpp). Run from the
# package directory: sh bench/speed/mailman_blocks.sh [d n dims]
set -e
EIGEN=$(Rscript -e 'cat(system.file("include", package = "RcppEigen"))')
out=$(mktemp -d)
${CXX:-g++} -O2 -std=c++17 -pthread -DNDEBUG -DEIGEN_DONT_PARALLELIZE -Iinst/include \
  -I"$EIGEN" -w bench/speed/mailman_blocks.cpp -o "$out/mailman_blocks"
"$out/mailman_blocks" "$@"
rm -rf "$out"
