#!/usr/bin/env bash
# Renders vignettes/single-cell.Rmd on a 10x file of generate.R (instead of
# the small data set it simulates), with the planted types beside the file:
#
#   R_LIBS=LIB bash bench/atlas/render-vignette.sh FILE.h5 [k]
#
# The HTML goes to bench/atlas/out/ (not committed: .gitignore). k defaults
# to the number of planted types.
set -eu
FILE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
K="${2:-NULL}"
cd "$(dirname "$0")/../.."
OUT="$PWD/bench/atlas/out"
mkdir -p "$OUT"
NAME="single-cell-$(basename "${FILE%.h5}")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
/usr/bin/time -v Rscript -e "
  rmarkdown::render('vignettes/single-cell.Rmd', output_dir = '$OUT', output_file = '$NAME.html',
                    intermediates_dir = '$TMP', knit_root_dir = '$TMP', quiet = TRUE,
                    params = list(file = '$FILE', group = 'mm10', types = '$FILE.labels.rds',
                                  k = $K))" 2> "$TMP/time.log" || { cat "$TMP/time.log"; exit 1; }
grep -E 'Elapsed|Maximum resident|User time|System time' "$TMP/time.log"
echo "wrote $OUT/$NAME.html"
