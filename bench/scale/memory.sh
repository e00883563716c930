#!/usr/bin/env bash
# Peak memory of kmeans_reduced() (issue 4, goal 4), with /usr/bin/time -v
# (Debian package `time`): each run loads the data from an .rds file, and
# the peak resident size of a run that only loads it is the baseline.
# The extra memory of a method should be O((n + d) * dims), not n x d.
set -euo pipefail
cd "$(dirname "$0")/../.."
export R_LIBS="$PWD/.Rlib${R_LIBS:+:$R_LIBS}" OMP_NUM_THREADS=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
Rscript -e '
set.seed(1); n <- 20000L; d <- 2000L; k <- 10L
centres <- matrix(rnorm(k * d), k, d); truth <- sample(k, n, TRUE)
x <- centres[truth, ] + matrix(rnorm(n * d, sd = 3), n, d)
saveRDS(x, file.path(commandArgs(TRUE)[1], "dense.rds"), compress = FALSE)
s <- Matrix::rsparsematrix(100000, 50000, density = 0.002)
s@x <- abs(s@x)
saveRDS(s, file.path(commandArgs(TRUE)[1], "sparse.rds"), compress = FALSE)
' "$dir"
peak() {  # peak RSS in MB of: Rscript -e "x <- readRDS(file); $2"
  /usr/bin/time -v Rscript -e "suppressPackageStartupMessages({library(kmreduce); library(Matrix)}); x <- readRDS('$dir/$1'); invisible(gc()); $2" 2>&1 >/dev/null \
    | awk '/Maximum resident/ {printf "%.0f", $6 / 1024}'
}
echo "| data | run | peak RSS (MB) | over loading the data (MB) |"
echo "|---|---|---|---|"
for data in dense.rds sparse.rds; do
  base=$(peak "$data" "invisible(0)")
  echo "| $data | load only | $base | 0 |"
  if [ "$data" = dense.rds ]; then
    runs=("kmeans_reduced(x, 10, method = 'none', n_init = 1, seed = 1)"
          "kmeans_reduced(x, 10, method = 'sign', dims = 100, n_init = 1, seed = 1)"
          "kmeans_reduced(x, 10, method = 'sparse_embedding', dims = 100, n_init = 1, seed = 1)"
          "kmeans_reduced(x, 10, method = 'leverage', dims = 100, n_init = 1, seed = 1)"
          "kmeans_reduced(x, 10, method = 'rsvd', n_init = 1, seed = 1)")
  else
    runs=("kmeans_reduced(x, 10, method = 'sparse_embedding', dims = 100, n_init = 1, seed = 1)"
          "kmeans_reduced(x, 10, method = 'sign', dims = 100, n_init = 1, seed = 1)"
          "kmeans_reduced(x, 10, method = 'leverage', dims = 100, n_init = 1, seed = 1)")
  fi
  for r in "${runs[@]}"; do
    p=$(peak "$data" "$r")
    echo "| $data | \`$r\` | $p | $((p - base)) |"
  done
done
