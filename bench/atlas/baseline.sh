#!/usr/bin/env bash
# Runs every part of bench/atlas/baseline.R on one file, each in its own
# process under /usr/bin/time -v (peak resident memory), and prints the
# RESULT lines with each part's peak RSS.
#
#   R_LIBS=LIB bash bench/atlas/baseline.sh FILE.h5 [k] [reps] [parts...]
#
# LIB must hold kmreduce, the HDF5 stack and mbkmeans (install-peers.sh).
set -u
FILE="$1"; K="${2:-30}"; REPS="${3:-3}"; shift $(( $# < 3 ? $# : 3 ))
PARTS="${*:-rhdf5 rhdf5_whole blockapply dgc_tenx dgc_rhdf5 mbkmeans kmreduce}"
cd "$(dirname "$0")/../.."
echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cores; file $FILE ($(du -h "$FILE" | cut -f1)); k=$K reps=$REPS"
for p in $PARTS; do
  LOG="$(mktemp)"
  /usr/bin/time -v Rscript bench/atlas/baseline.R "$FILE" "$p" "$K" "$REPS" > "$LOG.out" 2> "$LOG"
  rc=$?
  grep '^RESULT' "$LOG.out"
  rss=$(grep 'Maximum resident set size' "$LOG" | awk '{print $NF}')
  wall=$(grep 'Elapsed (wall clock)' "$LOG" | awk '{print $NF}')
  echo "PEAK $p rc=$rc peak_rss_mb=$(( ${rss:-0} / 1024 )) process_wall=$wall"
  if [ $rc -ne 0 ]; then grep -v "^	" "$LOG" | tail -5; fi
  rm -f "$LOG" "$LOG.out"
done
