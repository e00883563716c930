#!/usr/bin/env bash
# The C++ core's headers sit in folders by concern, one floor each:
#   runtime (0) < kernels (1) < data (2) < reduce, cluster (3)
# A header may include headers of its own folder and of the floors below it,
# never one of a floor above it, and reduce and cluster never include each
# other (two sides of the same floor). Includes inside the core are relative:
# "x.hpp" (same folder) or "../<folder>/x.hpp".
# tests/testthat/test-headers.R checks the same on the installed headers.
# Usage: bash tools/check-include-floors.sh [inst/include/kmreduce]
# Prints every include that breaks the rule and exits 1 when there is one.
set -uo pipefail
dir=${1:-$(dirname "$0")/../inst/include/kmreduce}
floor_of() {
  case $1 in
    runtime) echo 0 ;; kernels) echo 1 ;; data) echo 2 ;; reduce | cluster) echo 3 ;;
    *) echo -1 ;;
  esac
}
bad=0
for f in "$dir"/*.hpp; do
  [ -e "$f" ] || continue
  echo "$f: a header outside the floors (runtime, kernels, data, reduce, cluster)"
  bad=1
done
for f in "$dir"/*/*.hpp; do
  from=$(basename "$(dirname "$f")")
  rf=$(floor_of "$from")
  if [ "$rf" -lt 0 ]; then
    echo "$f: folder '$from' is not a floor"
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    case $inc in
      ../*/*) to=${inc#../}; to=${to%%/*} ;;
      */*) echo "$f: include \"$inc\" is neither \"x.hpp\" nor \"../<folder>/x.hpp\""; bad=1; continue ;;
      *) to=$from ;;
    esac
    if [ ! -e "$(dirname "$f")/$inc" ]; then
      echo "$f: includes \"$inc\", which does not exist"
      bad=1
    fi
    rt=$(floor_of "$to")
    if [ "$to" != "$from" ] && { [ "$rt" -lt 0 ] || [ "$rt" -ge "$rf" ]; }; then
      echo "$f: $from (floor $rf) includes \"$inc\" ($to, floor $rt)"
      bad=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*<kmreduce/' "$f"; then
    echo "$f: includes a core header with <kmreduce/...> (use a relative path)"
    bad=1
  fi
done
if [ "$bad" -eq 0 ]; then echo "include floors: ok ($(ls "$dir"/*/*.hpp | wc -l) headers)"; fi
exit $bad
