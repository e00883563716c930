#!/usr/bin/env bash
# Runs the test suite at each SIMD level below the machine's, so that the
# fallbacks users on other machines get are tested here too: one build, and
# the environment variable KMREDUCE_SIMD (portable, avx2) lowering the level
# of each run. Prints one "N passed, N failed" line per level; exits
# non-zero on any failure. (KMREDUCE_MAX_SIMD caps the level at compile
# time instead: CPPFLAGS += -DKMREDUCE_MAX_SIMD=0 in a Makevars.)
# Usage: bash tools/check-simd-levels.sh
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
mkdir -p "$work/lib"
R CMD INSTALL --no-multiarch -l "$work/lib" "$work/src" > "$work/install.log" 2>&1 ||
  { tail -n 30 "$work/install.log"; exit 1; }
top=$(R_LIBS="$work/lib" Rscript -e 'cat(kmreduce:::simd_level_cpp())')
case "$top" in
  avx512) levels="avx2 portable" ;;
  avx2) levels="portable" ;;
  *) levels="" ;;
esac
[ -n "$levels" ] || echo "this machine runs the portable level only: nothing below it to check"
status=0
for level in $levels; do
  out=$(cd "$work/src" && KMREDUCE_SIMD=$level R_LIBS="$work/lib${R_LIBS:+:$R_LIBS}" Rscript tools/run-tests.R 2>&1)
  rc=$?
  echo "SIMD level $level (machine: $top): $(echo "$out" | tail -n 1)"
  [ $rc -eq 0 ] || { echo "$out" | grep -E "^(Failure|Error) \(" -A6 | head -40; status=1; }
done
exit $status
