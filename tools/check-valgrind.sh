#!/usr/bin/env bash
# Runs the test suite under valgrind (memcheck) with a normal build of
# kmreduce from a clean clone. Prints "valgrind: N errors, definitely lost: B
# bytes" and exits non-zero on errors. An optional argument is a testthat
# filter (e.g. "sign_project") to run a subset.
# Usage: bash tools/check-valgrind.sh [filter]
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind: skipped (not installed)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
mkdir -p "$work/lib"
KMREDUCE_KEEP_DEBUG=1 R CMD INSTALL --no-multiarch -l "$work/lib" "$work/src" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
filter=${1:-}
cat > "$work/run.R" <<REOF
Sys.setenv(NOT_CRAN = "true")
library(testthat)
res <- test_dir("tests/testthat", package = "kmreduce", load_package = "installed",
                filter = if (nzchar("$filter")) "$filter" else NULL,
                reporter = "summary", stop_on_failure = FALSE)
df <- as.data.frame(res)
cat(sprintf("%d passed, %d failed\n", sum(df\$passed), sum(df\$failed) + sum(df\$error)))
REOF
log="${VALGRIND_LOG:-$work/valgrind.log}"  # set VALGRIND_LOG to keep the log
(cd "$work/src" && R_LIBS="$work/lib${R_LIBS:+:$R_LIBS}" OMP_NUM_THREADS=2 \
  R --vanilla -d "valgrind --error-exitcode=0 --leak-check=full --suppressions=$repo/tools/valgrind.supp" \
  -f "$work/run.R") > "$log" 2>&1
grep -E "passed, .* failed" "$log" | tail -n 1
errors=$(grep -E "ERROR SUMMARY" "$log" | tail -n 1 | sed -E 's/.*ERROR SUMMARY: ([0-9]+) errors.*/\1/')
lost=$(grep -E "definitely lost:" "$log" | tail -n 1 | sed -E 's/.*definitely lost: ([0-9,]+) bytes.*/\1/')
if [ "${errors:-0}" != "0" ]; then
  grep -E "^==[0-9]+== (Invalid|Conditional|Use of|Mismatched|Source|Syscall)" -A12 "$log" | head -100
  grep -E "definitely lost in" -A14 "$log" | head -100
fi
echo "valgrind: ${errors:-?} errors, definitely lost: ${lost:-0} bytes"
[ "${errors:-1}" = "0" ]
