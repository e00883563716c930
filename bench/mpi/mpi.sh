#!/usr/bin/env bash
# -np 1 vs -np 2 on one machine (bench/mpi/mpi.R), one thread per rank.
set -euo pipefail
cd "$(dirname "$0")/../.."
export R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
bash tools/install-pbdmpi.sh "$PWD/.Rlib"
root=""; [ "$(id -u)" = "0" ] && root="--allow-run-as-root"
for np in 1 2; do
  mpirun $root --oversubscribe -np $np Rscript bench/mpi/mpi.R
done
