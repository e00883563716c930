#!/usr/bin/env bash
# Runs the test suite on builds capped at each SIMD level below the
# machine's (KMREDUCE_MAX_SIMD: 0 portable, 1 AVX2), so that the fallbacks
# users on other machines get are tested here too. Prints one
# "N passed, N failed" line per level; exits non-zero on any failure.
# Usage: bash tools/check-simd-levels.sh
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
status=0
for level in 1 0; do
  mkdir -p "$work/lib$level"
  printf 'CPPFLAGS += -DKMREDUCE_MAX_SIMD=%s\n' "$level" > "$work/Makevars$level"
  R_MAKEVARS_USER="$work/Makevars$level" R CMD INSTALL --preclean --no-multiarch -l "$work/lib$level" "$work/src" \
    > "$work/install$level.log" 2>&1 || { tail -n 30 "$work/install$level.log"; exit 1; }
  out=$(cd "$work/src" && R_LIBS="$work/lib$level${R_LIBS:+:$R_LIBS}" Rscript tools/run-tests.R 2>&1)
  rc=$?
  level_name=$(R_LIBS="$work/lib$level" Rscript -e 'cat(kmreduce:::simd_level_cpp())')
  echo "SIMD level $level ($level_name): $(echo "$out" | tail -n 1)"
  [ $rc -eq 0 ] || { echo "$out" | grep -E "^(Failure|Error) \(" -A6 | head -40; status=1; }
done
exit $status
