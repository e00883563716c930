#!/usr/bin/env bash
# Time of a fresh install of the built package, as a user gets it: builds
# the tarball (R CMD build, from a clean clone of HEAD, or of the directory
# given), then installs it into empty libraries without any user Makevars
# (no ccache), with MAKEFLAGS=-j1 and -j2, REPS times each. Prints per run
# the wall time, the lines written on stderr and the installed size, and
# per translation unit the compiler's user and wall seconds (last -j1 run).
# Usage: [JOBS="1 2"] bash bench/scale/install_time.sh [REPS] [source directory]
set -uo pipefail
reps=${1:-2}
repo=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
(cd "$work" && R CMD build --no-build-vignettes --no-manual src > build.log 2>&1) ||
  { cat "$work/build.log"; exit 1; }
tarball=$(ls "$work"/kmreduce_*.tar.gz)
# R's own compiler (R CMD config reads ~/.R/Makevars whatever
# R_MAKEVARS_USER says: take it from R's Makeconf), each call timed (user and
# wall seconds) into $work/tu.times. R 4.2 compiles C++14 with CXX14.
cxx=$(sed -n 's/^CXX14 *= *//p' "$(R RHOME)/etc/Makeconf")
timed="/usr/bin/time -a -o $work/tu.times -f \"%U %e %C\""
printf 'CXX = %s %s -std=gnu++14\nCXX14 = %s %s\nCXX17 = %s %s\n' \
  "$timed" "$cxx" "$timed" "$cxx" "$timed" "$cxx" > "$work/timing.mk"
echo "$(date -u +%F), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "compiler: $($cxx --version | head -n 1)"
for jobs in ${JOBS:-1 2}; do
  for rep in $(seq "$reps"); do
    lib="$work/lib$jobs-$rep"
    mkdir -p "$lib"
    rm -f "$work/tu.times"
    t0=$(date +%s.%N)
    CCACHE_DISABLE=1 MAKEFLAGS=-j$jobs R_MAKEVARS_USER="$work/timing.mk" \
      R CMD INSTALL --no-multiarch -l "$lib" "$tarball" > "$work/out" 2> "$work/err"
    rc=$?
    t1=$(date +%s.%N)
    size=$(du -sk "$lib/kmreduce" | cut -f1)
    so=$(du -k "$lib/kmreduce/libs/kmreduce.so" | cut -f1)
    printf 'MAKEFLAGS=-j%s run %s: %.0f s (exit %s), %s stderr lines (%s warning lines), installed %.1f MB (library %.1f MB)\n' \
      "$jobs" "$rep" "$(echo "$t1 - $t0" | bc)" "$rc" "$(wc -l < "$work/err")" \
      "$(grep -c 'warning:' "$work/err")" "$(echo "$size / 1024" | bc -l)" "$(echo "$so / 1024" | bc -l)"
    [ "$jobs" = 1 ] && cp "$work/tu.times" "$work/tu.j1"
  done
done
echo "per translation unit (last -j1 run): user s, wall s"
grep -o '^[0-9.]* [0-9.]* .* -c [A-Za-z0-9_]*\.cpp' "$work/tu.j1" |
  awk '{print $1, $2, $NF}' | sort -rn
echo "stderr of the last run:"
head -n 20 "$work/err"
