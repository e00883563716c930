#!/usr/bin/env bash
# The routes from a 10x file to a partition of its cells side by side in one
# run: the plain rhdf5 read of the file (target.R's `read` part, the time
# bound), then each route of bench/atlas/routes.R in its own R process under
# /usr/bin/time -v (peak resident memory per route), then the exact WCSS of
# every saved partition on the log1p-size-factor data and its ARI against the
# planted types in one streaming pass (target.R's `score` part), and one
# table (routes_table.R).
#
#   R_LIBS=LIB bash bench/atlas/routes.sh FILE.h5 [k] [read_reps]
#
# k: default the number of distinct planted labels (FILE.h5.labels.rds).
# read_reps: the read is the best of this many (default 3).
# Environment:
#   ROUTES      the routes run, in this order (default "default no_cache
#               svd_rows_50k power0 dims100 svd_rows_10k cpm_embedding osca
#               mbkmeans"); a route not listed is printed as "not run"
#   ROUTE_REPS  runs of each route (default 1): time the best, peak RSS the
#               highest, labels of the last (all runs give the same labels)
#   ROUTES_OUT  where labels and logs go (default FILE without .h5, plus
#               ".routes")
#   MBK_CAP     wall-clock cap of the mbkmeans route in seconds (default 1800)
#   ROUTE_SEED  the seed of every route (default 1; see routes.R)
# osca needs scuttle, scran, scater, BiocSingular (Debian: r-bioc-scuttle
# r-bioc-scran r-bioc-scater r-bioc-biocsingular); mbkmeans is run only
# where it is installed.
set -u
FILE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
K="${2:-}"; READ_REPS="${3:-3}"
ROUTES="${ROUTES:-default no_cache svd_rows_50k power0 dims100 svd_rows_10k cpm_embedding osca mbkmeans}"
ROUTE_REPS="${ROUTE_REPS:-1}"
CAP="${MBK_CAP:-1800}"
OUT="${ROUTES_OUT:-${FILE%.h5}.routes}"
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
if [ -z "$K" ]; then
  K=$(Rscript -e "cat(length(unique(readRDS('$FILE.labels.rds')\$labels)))")
fi
# labels of an earlier run are not scored again
rm -f "$OUT"/*.labels.rds
RES="$OUT/results.txt"; : > "$RES"
has() { Rscript -e "quit(status = !requireNamespace('$1', quietly = TRUE))" 2>/dev/null; }
echo "# $(date -u +%FT%TZ) $(uname -n); file $FILE ($(du -h "$FILE" | cut -f1)); k=$K; read best of $READ_REPS; each route run $ROUTE_REPS time(s)"
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RES"
Rscript -e 'si <- sessionInfo(); cat("#", R.version.string, "; BLAS:", si$BLAS, "; LAPACK:", si$LAPACK, "\n");
  for (p in c("kmreduce", "rhdf5", "HDF5Array", "DelayedArray", "SingleCellExperiment",
              "scuttle", "scran", "scater", "BiocSingular", "irlba", "mbkmeans"))
    cat("#", p, if (requireNamespace(p, quietly = TRUE)) format(packageVersion(p)) else "not installed", "\n")'
echo "# seed ${ROUTE_SEED:-1}; kmreduce routes: n_threads=2 (OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset})"

# run_part NAME REPS CMD...: CMD under /usr/bin/time -v, REPS times; the
# RESULT lines of the fastest run, the highest peak RSS
run_part() {
  local name="$1" reps="$2"; shift 2
  local best="" best_s="" peak=0 rc=0 r
  for r in $(seq 1 "$reps"); do
    local log="$OUT/$name.$r.log"
    /usr/bin/time -v "$@" > "$log.out" 2> "$log"
    rc=$?
    local rss s
    rss=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
    [ "${rss:-0}" -gt "$peak" ] && peak="${rss:-0}"
    s=$(grep -m1 '^RESULT' "$log.out" | sed -n 's/.* seconds=\([^ ]*\).*/\1/p')
    echo "  ($name run $r: exit $rc, ${s:-?} s, peak ${rss:-?} kB, load $(cut -d' ' -f1 /proc/loadavg))"
    if [ $rc -ne 0 ]; then grep -v "^	" "$log" | tail -5; break; fi
    if [ -z "$best_s" ] || awk "BEGIN {exit !($s < $best_s)}"; then best_s="$s"; best="$log.out"; fi
  done
  [ -n "$best" ] && grep '^RESULT' "$best" | tee -a "$RES"
  echo "PEAK $name rc=$rc peak_rss_kb=$peak runs=$reps" | tee -a "$RES"
}

run_part read 1 Rscript bench/atlas/target.R "$FILE" read "$K" "$READ_REPS" "$OUT"
for route in $ROUTES; do
  case "$route" in
    mbkmeans)
      if has mbkmeans; then
        run_part mbkmeans 1 timeout "$CAP" Rscript bench/atlas/routes.R "$FILE" mbkmeans "$K" "$OUT"
      else
        echo "MISSING mbkmeans" | tee -a "$RES"
      fi ;;
    osca)
      if has scran && has scater && has BiocSingular; then
        run_part osca "$ROUTE_REPS" Rscript bench/atlas/routes.R "$FILE" osca "$K" "$OUT"
      else
        echo "MISSING osca" | tee -a "$RES"
      fi ;;
    *) run_part "$route" "$ROUTE_REPS" Rscript bench/atlas/routes.R "$FILE" "$route" "$K" "$OUT" ;;
  esac
done
scored=$(ls "$OUT"/*.labels.rds 2>/dev/null | xargs -n1 basename 2>/dev/null | sed 's/\.labels\.rds$//' | tr '\n' ' ')
ATLAS_SCORE_METHODS="$scored" ATLAS_SCORE_NORMALIZE=log1p_size_factors \
  run_part score 1 Rscript bench/atlas/target.R "$FILE" score "$K" 1 "$OUT"
echo "# end $(date -u +%FT%TZ); load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RES"
Rscript bench/atlas/routes_table.R "$RES" "$CAP"
