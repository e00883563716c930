#!/usr/bin/env bash
# Platform checks of the C++ core (not part of `make test`; a few minutes).
#
# 1. Builds the core's standalone tests (tools/platforms/core_tests.cpp: the
#    SIMD kernels, k-means, Lloyd, statistics and projections against naive
#    loops, and the alignment of the SIMD buffers) for
#      - this machine with g++ and with clang++ (x86_64-linux-gnu),
#      - this machine with KMREDUCE_GENERIC_ALLOC (the allocation branch of
#        the systems other than Linux),
#      - Windows, x86_64-w64-mingw32 (MinGW-w64, posix threads, as Rtools),
#        run under Wine,
#      - Linux on arm64, aarch64-linux-gnu, run under qemu-aarch64,
#    and runs each at every SIMD level the target has (KMREDUCE_SIMD lowers
#    the level), printing one line per platform and level:
#      x86_64-w64-mingw32 (wine) avx2: N passed, N failed
# 2. Compiles every translation unit of the package (src/*.cpp) with
#    MinGW-w64 and the flags of R on Windows, disassembles the objects and
#    fails on any ALIGNED ymm/zmm move to or from a stack slot
#    (vmovapd/vmovaps/vmovdqa*/vmovnt* with %rsp or %rbp): MinGW's GCC cannot
#    align the stack beyond 16 bytes (GCC bug 54412), so such a move faults
#    at random on Windows.
#
# Needs: g++, clang++ (optional), x86_64-w64-mingw32-g++-posix, wine64,
# aarch64-linux-gnu-g++, qemu-aarch64; on Debian or Ubuntu:
#   apt-get install g++-mingw-w64-x86-64-posix wine64 g++-aarch64-linux-gnu qemu-user clang
# Usage: bash tools/check-platforms.sh   (JOBS=2 by default; OBJECTS=0 skips
# the MinGW objects of the package, the slower half)
# Exits non-zero when a test fails, a build fails or an aligned stack move
# is found.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
objects=${OBJECTS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

rinc() { Rscript -e "cat(system.file('include', package = '$1'))" 2>/dev/null; }
EIGEN=${EIGEN:-$(rinc RcppEigen)}
RCPP=${RCPP:-$(rinc Rcpp)}
ARMA=${ARMA:-$(rinc RcppArmadillo)}
RHOME_INC=${RHOME_INC:-$(Rscript -e 'cat(R.home("include"))' 2>/dev/null)}
[ -d "$EIGEN" ] || { echo "RcppEigen's headers not found (set EIGEN=...)"; exit 2; }

MINGW=${MINGW:-x86_64-w64-mingw32-g++-posix}
ARM=${ARM:-aarch64-linux-gnu-g++}
CLANG=${CLANG:-$(command -v clang++ || command -v clang++-14 || true)}
WINE=${WINE:-$(command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)}
QEMU=${QEMU:-$(command -v qemu-aarch64 || true)}

echo "Compilers:"
for c in g++ "$CLANG" "$MINGW" "$ARM"; do
  [ -n "$c" ] && command -v "$c" > /dev/null && echo "  $c: $("$c" --version | head -n 1)"
done
[ -n "$WINE" ] && echo "  wine: $("$WINE" --version 2>/dev/null)"
[ -n "$QEMU" ] && echo "  qemu-aarch64: $("$QEMU" --version | head -n 1)"

core_flags="-std=c++14 -O2 -DEIGEN_DONT_PARALLELIZE -I$repo/inst/include -I$EIGEN -Wno-ignored-attributes"
src="$repo/tools/platforms/core_tests.cpp"

# name | compiler | extra flags | runner ("" = native, or wine / qemu)
builds=(
  "x86_64-linux-gnu (g++)|g++|-pthread|"
  "x86_64-linux-gnu (g++, generic allocation)|g++|-pthread -DKMREDUCE_GENERIC_ALLOC|"
)
[ -n "$CLANG" ] && builds+=("x86_64-linux-gnu (clang++)|$CLANG|-pthread|")
if command -v "$MINGW" > /dev/null && [ -n "$WINE" ]; then
  builds+=("x86_64-w64-mingw32 (wine)|$MINGW|-static|wine")
else
  echo "x86_64-w64-mingw32: compiler or Wine missing, not checked"; status=1
fi
if command -v "$ARM" > /dev/null && [ -n "$QEMU" ]; then
  builds+=("aarch64-linux-gnu (qemu)|$ARM|-pthread -static|qemu")
else
  echo "aarch64-linux-gnu: compiler or qemu-aarch64 missing, not checked"; status=1
fi

# Build the test programs (JOBS at a time) and, at the same time, the
# MinGW objects of the package.
i=0
for b in "${builds[@]}"; do
  IFS='|' read -r name cxx extra runner <<< "$b"
  echo "$cxx $core_flags $extra $src -o $work/test$i > $work/build$i.log 2>&1"
  i=$((i + 1))
done > "$work/jobs"
if [ "$objects" = 1 ] && command -v "$MINGW" > /dev/null; then
  # The flags of R on Windows (etc/x64/Makeconf) and of src/Makevars.win.
  pkg_cppflags=$(sed -n 's/^PKG_CPPFLAGS *= *//p' "$repo/src/Makevars.win")
  pkg_cxxflags=$(sed -n 's/^PKG_CXXFLAGS *= *//p' "$repo/src/Makevars.win")
  mkdir -p "$work/mingw"
  for f in "$repo"/src/*.cpp; do
    o="$work/mingw/$(basename "$f" .cpp).o"
    echo "cd $repo/src && $MINGW -std=gnu++14 -I$RHOME_INC -DNDEBUG $pkg_cppflags -I$RCPP -I$ARMA -I$EIGEN $pkg_cxxflags -O2 -Wall -mfpmath=sse -msse2 -mstackrealign -c $f -o $o > $o.log 2>&1"
  done >> "$work/jobs"
fi
tr '\n' '\0' < "$work/jobs" | xargs -0 -P "$jobs" -I{} sh -c '{}'

# Run each test program at every level its target has.
i=0
for b in "${builds[@]}"; do
  IFS='|' read -r name cxx extra runner <<< "$b"
  exe="$work/test$i"
  [ "$runner" = wine ] && { mv "$exe" "$exe.exe" 2> /dev/null; exe="$exe.exe"; }
  run() {
    case "$runner" in
      wine) WINEDEBUG=-all WINEPREFIX="$work/wineprefix" KMREDUCE_SIMD="$1" "$WINE" "$exe" ;;
      qemu) KMREDUCE_SIMD="$1" "$QEMU" "$exe" ;;
      *) KMREDUCE_SIMD="$1" "$exe" ;;
    esac
  }
  if [ ! -f "$exe" ]; then
    echo "$name: build failed"; tail -n 20 "$work/build$i.log"; status=1; i=$((i + 1)); continue
  fi
  # The highest level of this target: what the program runs without a request.
  top=$(run "" 2> /dev/null | sed -n 's/^SIMD level: \([a-z0-9]*\).*/\1/p')
  case "$top" in
    avx512) levels="portable avx2 avx512" ;;
    avx2) levels="portable avx2" ;;
    *) levels="portable" ;;
  esac
  for level in $levels; do
    out=$(run "$level" 2>&1 | tr -d '\r')  # (Windows programs end lines with CR LF)
    rc=${PIPESTATUS[0]}
    line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    [ -n "$line" ] || { line="0 passed, 1 failed (no summary: exit status $rc)"; rc=1; }
    echo "$name $level: $line"
    if [ "$rc" -ne 0 ]; then
      echo "$out" | grep -E '^FAILED' | head -n 10
      status=1
    fi
  done
  [ "$top" = avx512 ] || [ "$runner" = qemu ] ||
    echo "$name avx512: not run (this processor has no AVX-512)"
  i=$((i + 1))
done

# Aligned ymm/zmm moves to or from the stack in the MinGW objects.
if [ -d "$work/mingw" ]; then
  objs=0; failed_builds=0; spills=0; aligned=0
  for f in "$repo"/src/*.cpp; do
    o="$work/mingw/$(basename "$f" .cpp).o"
    if [ ! -f "$o" ]; then
      echo "x86_64-w64-mingw32: $(basename "$f") did not compile"; grep -m 5 error "$o.log"
      failed_builds=$((failed_builds + 1)); continue
    fi
    objs=$((objs + 1))
    x86_64-w64-mingw32-objdump -d --no-show-raw-insn "$o" > "$o.s"
    s=$(grep -cE '%[yz]mm[0-9]+.*\((%rsp|%rbp)\)|\((%rsp|%rbp)\).*%[yz]mm[0-9]+' "$o.s")
    a=$(grep -E 'vmov(ap[sd]|dqa(32|64)?|nt(p[sd]|dq|dqa))[[:space:]]' "$o.s" |
        grep -cE '%[yz]mm[0-9]+.*\((%rsp|%rbp)\)|\((%rsp|%rbp)\).*%[yz]mm[0-9]+')
    spills=$((spills + s)); aligned=$((aligned + a))
    if [ "$a" -gt 0 ]; then
      echo "x86_64-w64-mingw32: $(basename "$o"): $a aligned ymm/zmm stack moves, e.g."
      grep -E 'vmov(ap[sd]|dqa(32|64)?|nt(p[sd]|dq|dqa))[[:space:]]' "$o.s" |
        grep -E '%[yz]mm[0-9]+.*\((%rsp|%rbp)\)|\((%rsp|%rbp)\).*%[yz]mm[0-9]+' | head -n 3
    fi
  done
  echo "x86_64-w64-mingw32 objects: $objs of $(ls "$repo"/src/*.cpp | wc -l) translation units compiled; $spills ymm/zmm stack accesses, $aligned of them aligned moves"
  [ "$aligned" -eq 0 ] && [ "$failed_builds" -eq 0 ] || status=1
fi
exit $status
