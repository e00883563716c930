#!/usr/bin/env bash
# Screenshots of the built pkgdown site (make site) in headless Chromium at a
# laptop width (1280 px) and a phone width (390 px), to check that the pages
# read well and that the formulas are rendered (KaTeX, offline).
# Usage: bash tools/site-screenshots.sh [outdir]   (default tools/screenshots)
# Needs chromium (Debian package chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-tools/screenshots}"
[ -f docs/index.html ] || { echo "no docs/: run make site first" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "no chromium: apt-get install chromium" >&2; exit 1; }
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# page (under docs/), name, height at 1280 px, height at 390 px
pages="index.html:home:1600:2400
reference/reduction_methods.html:reduction_methods:2200:3200
reference/dims_for.html:dims_for:1600:2600
articles/boutsidis2014.html:article:1600:2600"
for spec in $pages; do
  IFS=: read -r page name h_wide h_narrow <<<"$spec"
  for w in 1280 390; do
    h=$([ "$w" = 1280 ] && echo "$h_wide" || echo "$h_narrow")
    # --virtual-time-budget lets the deferred KaTeX scripts run before the shot
    "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --hide-scrollbars --user-data-dir="$profile" --virtual-time-budget=10000 \
      --window-size="$w,$h" --screenshot="$out/$name-$w.png" \
      "file://$PWD/docs/$page" >/dev/null 2>&1
    echo "$out/$name-$w.png"
  done
done
