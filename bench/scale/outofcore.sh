#!/usr/bin/env bash
# Out-of-core benchmark (issue 7): a file-backed matrix larger than the memory
# limit of a cgroup (v1 memory controller) is clustered; reading it whole in
# the same cgroup fails. Needs root (to make the cgroup) and bigmemory.
# Usage: bash bench/scale/outofcore.sh [N D LIMIT_MB]   (default 400000 1000 1024)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-400000}; D=${2:-1000}; LIMIT=${3:-1024}
DIR=${KMR_BENCH_DIR:-/tmp/kmr-outofcore}
export R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" OMP_NUM_THREADS=1
mkdir -p "$DIR"
[ -f "$DIR/x.desc" ] || Rscript bench/scale/outofcore.R make "$DIR" "$N" "$D"
base=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
cg="$base/kmr-bench-$$"
mkdir "$cg"
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
echo $((LIMIT * 1024 * 1024)) > "$cg/memory.limit_in_bytes"
echo $((LIMIT * 1024 * 1024)) > "$cg/memory.memsw.limit_in_bytes" 2>/dev/null || true
echo "cgroup memory limit: $LIMIT MB; data: $(du -h "$DIR/x.bin" | cut -f1)"
run_in_cg() { sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$@\"" sh "$@"; }
run_in_cg /usr/bin/time -v Rscript bench/scale/outofcore.R fit "$DIR" 2> "$DIR/time.log" || true
grep -E "Maximum resident|Elapsed" "$DIR/time.log"
echo "cgroup peak usage (incl. page cache): $(( $(cat "$cg/memory.max_usage_in_bytes") / 1048576 )) MB"
echo "reading the whole matrix in the same cgroup:"
status=0
run_in_cg Rscript bench/scale/outofcore.R inmemory "$DIR" > "$DIR/inmemory.log" 2>&1 || status=$?
tail -1 "$DIR/inmemory.log"
echo "  exit status: $status (137 = killed by the OOM killer: over the limit)"
