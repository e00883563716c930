#!/usr/bin/env bash
# The targets of the atlas work side by side in one run: each part of
# bench/atlas/target.R in its own R process under /usr/bin/time -v (peak
# resident memory per part), mbkmeans under a wall-clock cap, then the
# exact WCSS and ARI of every partition in one pass, and one summary table
# with each target marked met / not met.
#
#   R_LIBS=LIB bash bench/atlas/target.sh FILE.h5 [k] [reps]
#
# Environment: MBK_CAP (seconds, default 1800; 0 skips mbkmeans),
# ATLAS_DIMS / ATLAS_N_INIT / ATLAS_THREADS / ATLAS_ITER_MAX (the kmreduce
# part, see target.R), PARTS (default "read kmreduce mbkmeans score").
# LIB must hold kmreduce, the HDF5 stack and mbkmeans (install-peers.sh).
set -u
FILE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
K="${2:-30}"; REPS="${3:-2}"
CAP="${MBK_CAP:-1800}"
PARTS="${PARTS:-read kmreduce mbkmeans score}"
OUT="${FILE%.h5}.target"
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
# labels of an earlier run are not scored again
for p in $PARTS; do rm -f "$OUT/$p.labels.rds"; done
RES="$(mktemp)"
echo "# $(date -u +%FT%TZ) $(uname -n); file $FILE ($(du -h "$FILE" | cut -f1)); k=$K reps=$REPS mbkmeans cap ${CAP}s"
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
Rscript -e 'si <- sessionInfo(); cat("#", R.version.string, "; BLAS:", si$BLAS, "; LAPACK:", si$LAPACK, "\n");
  for (p in c("kmreduce", "rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment", "mbkmeans"))
    if (requireNamespace(p, quietly = TRUE)) cat("#", p, format(packageVersion(p)), "\n")'
echo "# kmreduce part: dims=${ATLAS_DIMS:-50} n_init=${ATLAS_N_INIT:-1} n_threads=${ATLAS_THREADS:-2} iter_max=${ATLAS_ITER_MAX:-100}"
for p in $PARTS; do
  LOG="$OUT/$p.log"              # each part's output and /usr/bin/time report
  if [ "$p" = mbkmeans ]; then
    if [ "$CAP" = 0 ]; then continue; fi
    /usr/bin/time -v timeout "$CAP" Rscript bench/atlas/target.R "$FILE" "$p" "$K" "$REPS" "$OUT" > "$LOG.out" 2> "$LOG"
  else
    /usr/bin/time -v Rscript bench/atlas/target.R "$FILE" "$p" "$K" "$REPS" "$OUT" > "$LOG.out" 2> "$LOG"
  fi
  rc=$?
  grep '^RESULT' "$LOG.out" | tee -a "$RES"
  rss=$(grep 'Maximum resident set size' "$LOG" | awk '{print $NF}')
  wall=$(grep 'Elapsed (wall clock)' "$LOG" | awk '{print $NF}')
  echo "PEAK $p rc=$rc peak_rss_kb=${rss:-0} process_wall=$wall" | tee -a "$RES"
  if [ $rc -ne 0 ]; then grep -v "^	" "$LOG" | tail -5; fi
done
echo "# end $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
Rscript bench/atlas/target_table.R "$RES" "$CAP"
rm -f "$RES"
