#!/usr/bin/env bash
# Installs pbdMPI (CRAN) for the MPI test and benchmarks, best effort: the
# package works without it and the MPI test is skipped when it is missing.
#
# pbdMPI 0.5-5 (the version CRAN serves; its archive is not reachable here)
# declares R >= 3.6 but calls R_getVarEx(), which R only has from 4.5.0;
# on older R a 6-line shim (findVar) is added before building. Needs
# OpenMPI's headers (Debian libopenmpi-dev) and mpirun (openmpi-bin).
set -uo pipefail
lib="${1:?usage: install-pbdmpi.sh LIB}"
here=$(cd "$(dirname "$0")" && pwd)
if R_LIBS="$lib${R_LIBS:+:$R_LIBS}" Rscript -e 'quit(status = !requireNamespace("pbdMPI", quietly = TRUE))' 2>/dev/null; then
  exit 0
fi
echo "install-pbdmpi: building pbdMPI from source for the MPI test ..."
command -v mpicc >/dev/null 2>&1 || { echo "install-pbdmpi: no mpicc (libopenmpi-dev): skipped"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
Rscript --no-save --no-restore -e "source('$here/repos.R'); download.packages('pbdMPI', destdir = '$work', quiet = TRUE)" >/dev/null 2>&1 \
  || { echo "install-pbdmpi: download failed: skipped"; exit 0; }
tar xzf "$work"/pbdMPI_*.tar.gz -C "$work" || exit 0
# Its own dependencies (float) from CRAN.
R_LIBS="$lib${R_LIBS:+:$R_LIBS}" Rscript --no-save --no-restore -e "
source('$here/repos.R')
d <- read.dcf('$work/pbdMPI/DESCRIPTION', c('Depends', 'Imports', 'LinkingTo'))
p <- unique(trimws(sub('[(].*', '', unlist(strsplit(d[!is.na(d)], ',')))))
p <- setdiff(p, c('R', rownames(installed.packages(priority = 'base'))))
p <- p[!vapply(p, function(q) nzchar(system.file(package = q)), logical(1))]
if (length(p)) install.packages(p, lib = '$lib', quiet = TRUE)
 " >"$work/deps.log" 2>&1 || tail -5 "$work/deps.log"
for f in "$work"/pbdMPI/src/pkg_tools.c "$work"/pbdMPI/src/pkg_dl.c; do
  [ -f "$f" ] && grep -q R_getVarEx "$f" || continue
  cat > "$f.new" <<'CEOF'
#include <Rversion.h>
#if R_VERSION < R_Version(4, 5, 0)
#include <Rinternals.h>
static SEXP kmr_getVarEx(SEXP sym, SEXP rho, Rboolean inherits, SEXP ifnf) {
  SEXP v = inherits ? findVar(sym, rho) : findVarInFrame(rho, sym);
  if (v == R_UnboundValue) return ifnf;
  if (TYPEOF(v) == PROMSXP) v = eval(v, rho);
  return v;
}
#define R_getVarEx kmr_getVarEx
#endif
CEOF
  cat "$f" >> "$f.new" && mv "$f.new" "$f"
done
R_LIBS="$lib${R_LIBS:+:$R_LIBS}" R CMD INSTALL -l "$lib" "$work/pbdMPI" >"$work/install.log" 2>&1 \
  && echo "install-pbdmpi: pbdMPI installed" \
  || { tail -20 "$work/install.log"; echo "install-pbdmpi: build failed: skipped"; }
exit 0
