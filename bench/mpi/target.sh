#!/usr/bin/env bash
# The MPI target (bench/mpi/target.R): kmeans_reduced() through mpi_rows()
# under `mpirun -np 1` against the in-memory call, 100000 x 200 mixture,
# method "sign", one thread. Installs pbdMPI into .Rlib when it is missing
# (tools/install-pbdmpi.sh). Usage: bash bench/mpi/target.sh [reps=5] [n] [d]
set -euo pipefail
cd "$(dirname "$0")/../.."
export R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
bash tools/install-pbdmpi.sh "$PWD/.Rlib"
root=""; [ "$(id -u)" = "0" ] && root="--allow-run-as-root"
mpirun $root --oversubscribe -np 1 Rscript bench/mpi/target.R "$@"
