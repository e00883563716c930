#!/usr/bin/env bash
# One 10x file clustered in one process and by P MPI ranks each reading its
# own range of the cells (bench/mpi/files.R), side by side: elapsed, peak
# resident memory per process (/usr/bin/time -v), identical labels.
#   bash bench/mpi/files.sh FILE.h5 [k=30] [dims=50] [n_init=1] [P=2]
# The one-process fit runs with P threads, each rank with one.
set -euo pipefail
FILE="$1"; K="${2:-30}"; DIMS="${3:-50}"; N_INIT="${4:-1}"; P="${5:-2}"
cd "$(dirname "$0")/../.."
export R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
root=""; [ "$(id -u)" = "0" ] && root="--allow-run-as-root"
TMP="$(mktemp -d)"
echo "# $(date -u +%FT%TZ) $(uname -n); $FILE ($(du -h "$FILE" | cut -f1)); k=$K dims=$DIMS n_init=$N_INIT P=$P"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
peak() { awk -F': ' '/Maximum resident/ {printf "%s%.2f GB", sep, $2 / 1048576; sep = ", "}' "$1"; echo; }
/usr/bin/time -v -o "$TMP/one.time" Rscript bench/mpi/files.R one "$FILE" "$K" "$DIMS" "$N_INIT" "$P" "$TMP/one.rds"
echo "  peak RSS: $(peak "$TMP/one.time")"
mpirun $root --oversubscribe -np "$P" bash -c '/usr/bin/time -v -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$TMP/mpi.time" \
  Rscript bench/mpi/files.R mpi "$FILE" "$K" "$DIMS" "$N_INIT" 1 "$TMP/mpi.rds"
echo "  peak RSS per rank: $(cat "$TMP"/mpi.time.* | peak /dev/stdin)"
Rscript -e 'a <- readRDS(commandArgs(TRUE)[1]); b <- readRDS(commandArgs(TRUE)[2]);
  cat("same labels:", identical(a, b), "\n")' "$TMP/one.rds" "$TMP/mpi.rds"
rm -rf "$TMP"
