#!/usr/bin/env bash
# Builds kmreduce from a clean clone with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the whole test suite under them.
# R itself is not instrumented: the ASan runtime is preloaded, leak detection
# is off (R frees little at exit by design). Prints "sanitizers: N findings"
# and exits non-zero on findings or test failures.
# Usage: bash tools/check-sanitizers.sh   (Linux, gcc)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(uname)" != "Linux" ] || ! command -v gcc >/dev/null; then
  echo "sanitizers: skipped (needs Linux and gcc)"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/src"
mkdir -p "$work/lib"
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
cat > "$work/Makevars" <<MK
CXXFLAGS = $flags
CXX14FLAGS = $flags
CXX17FLAGS = $flags
LDFLAGS = -fsanitize=address,undefined
MK
KMREDUCE_KEEP_DEBUG=1 R_MAKEVARS_USER="$work/Makevars" R CMD INSTALL --no-multiarch --no-test-load -l "$work/lib" "$work/src" \
  > "$work/install.log" 2>&1 || { tail -n 30 "$work/install.log"; exit 1; }
log="$work/tests.log"
(cd "$work/src" && \
  LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  R_LIBS="$work/lib${R_LIBS:+:$R_LIBS}" Rscript tools/run-tests.R) > "$log" 2>&1
status=$?
findings=$(grep -cE "ERROR: AddressSanitizer|runtime error:" "$log")
grep -E "ERROR: AddressSanitizer|runtime error:" -A20 "$log" | head -80
grep -E "^(Failure|Error) \(" -A8 "$log" | head -60
tail -n 1 "$log"
echo "sanitizers: $findings findings"
[ "$findings" -eq 0 ] && [ "$status" -eq 0 ]
