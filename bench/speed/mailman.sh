#!/usr/bin/env bash
# Mailman sign projection vs BLAS dgemm on the materialised sign matrix
# (issue 3), side by side in one run: OpenBLAS and R's reference BLAS,
# 1 and 2 threads; time (best of 3), ratio and peak memory (VmHWM of each
# process). Usage: R_LIBS=.Rlib bash bench/speed/mailman.sh > bench/speed/mailman.md
# (the table is copied into bench/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
REF_DIR=/usr/lib/x86_64-linux-gnu/blas
run() {  # blasdir threads args...
  local dir=$1 th=$2; shift 2
  R_LD_LIBRARY_PATH=$dir:/usr/lib/R/lib LD_LIBRARY_PATH=$dir OPENBLAS_NUM_THREADS=$th OMP_NUM_THREADS=$th Rscript bench/speed/mailman_one.R "$@" "$th"
}
echo "## Mailman sign projection vs dgemm (\`bench/speed/mailman.sh\`, issue 3)"
echo
echo "$(date -u +%F); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores;" \
     "kernel: $(Rscript -e 'cat(kmreduce:::simd_level_cpp())');" \
     "OpenBLAS: $OPENBLAS_DIR (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}); reference BLAS: $REF_DIR."
echo "Time in seconds (best of 3); peak = peak resident memory of the process in GB (input included);"
echo "ratio = dgemm time / mailman time (> 1: mailman faster). The sign matrix as doubles is d x dims x 8 bytes."
echo
echo "| n | d | dims | threads | mailman s | peak GB | OpenBLAS dgemm s | peak GB | ratio | reference dgemm s | ratio | max rel. diff |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for cfg in "8000 4000 240" "20000 2000 100" "2000 50000 500"; do
  for th in 1 2; do
    read -r tm pm dm <<< "$(run $OPENBLAS_DIR $th $cfg mailman)"
    read -r to po _ <<< "$(run $OPENBLAS_DIR $th $cfg dgemm)"
    if [ "$th" = 1 ]; then read -r tr _ _ <<< "$(run $REF_DIR 1 $cfg dgemm)"; else tr=NA; fi
    rr=$(awk -v a="$tr" -v b="$tm" 'BEGIN { if (a == "NA") print "NA"; else printf "%.1f", a / b }')
    ro=$(awk -v a="$to" -v b="$tm" 'BEGIN { printf "%.2f", a / b }')
    set -- $cfg
    echo "| $1 | $2 | $3 | $th | $tm | $pm | $to | $po | $ro | $tr | $rr | $dm |"
  done
done
