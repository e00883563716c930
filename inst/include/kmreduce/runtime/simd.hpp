// kmreduce: the SIMD level of the kernels, chosen at run time. AVX-512 and
// AVX2+FMA kernels are compiled with GCC `target` attributes; which of them
// runs is decided once per process from what the processor and the
// operating system support (cpu_features(): cpuid and xgetbv, no compiler
// runtime), so no -march flag is needed; everywhere else the portable code
// runs. The kernels themselves are in kernels/ (cross_product.hpp: the
// products; nearest.hpp: the nearest centres and k-means++'s distances).
#ifndef KMREDUCE_SIMD_HPP
#define KMREDUCE_SIMD_HPP

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "parallel.hpp"


#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define KMREDUCE_X86_SIMD 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
#define KMREDUCE_UNROLL _Pragma("GCC unroll 16")
#else
#define KMREDUCE_UNROLL
#endif

namespace kmreduce {

enum class SimdLevel { Portable = 0, Avx2 = 1, Avx512 = 2 };

// KMREDUCE_MAX_SIMD (0 portable, 1 AVX2, 2 AVX-512) caps the level chosen at
// run time: a build for testing the fallbacks on a machine that has more.
#ifndef KMREDUCE_MAX_SIMD
#define KMREDUCE_MAX_SIMD 2
#endif

// What the processor and the operating system support, as the kernels need
// it: an instruction set counts only when the OS saves the registers it uses
// (XCR0: YMM state for AVX2/FMA, opmask and ZMM state for AVX-512). Found by
// cpuid and xgetbv, so no compiler runtime (compiler-rt's or libgcc's
// __cpu_model) is needed. Everything false off x86: on arm64 the portable
// kernels run, whose Eigen products use NEON, part of every arm64 processor,
// chosen at compile time.
struct CpuFeatures {
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512vl = false, avx512dq = false;
};

namespace detail {
#ifdef KMREDUCE_X86_SIMD
// Extended control register 0 (xgetbv with ecx = 0; only when OSXSAVE is set).
inline std::uint64_t read_xcr0() {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));  // xgetbv
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
#endif

inline CpuFeatures detect_cpu_features() {
  CpuFeatures f;
#ifdef KMREDUCE_X86_SIMD
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0 || a < 7) return f;
  __cpuid_count(1, 0, a, b, c, d);
  const bool osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
  if (!osxsave || !avx) return f;
  const std::uint64_t xcr0 = read_xcr0();
  const bool ymm = (xcr0 & 0x6) == 0x6;     // SSE and AVX state
  const bool zmm = (xcr0 & 0xe6) == 0xe6;   // and opmask, ZMM0-15 upper, ZMM16-31
  if (!ymm) return f;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = (b >> 5) & 1;
  f.fma = fma;
  if (zmm) {
    f.avx512f = (b >> 16) & 1;
    f.avx512dq = f.avx512f && ((b >> 17) & 1);
    f.avx512vl = f.avx512f && ((b >> 31) & 1);
  }
#endif
  return f;
}

// The level named by the environment variable KMREDUCE_SIMD ("portable",
// "avx2", "avx512"), or the highest one when it is unset or names none.
inline SimdLevel requested_simd_level() {
  const char* v = std::getenv("KMREDUCE_SIMD");
  if (v == nullptr) return SimdLevel::Avx512;
  if (std::strcmp(v, "portable") == 0) return SimdLevel::Portable;
  if (std::strcmp(v, "avx2") == 0) return SimdLevel::Avx2;
  return SimdLevel::Avx512;
}
}  // namespace detail

// The processor's features (detected once).
inline const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detail::detect_cpu_features();
  return f;
}

// The SIMD level of the kernels, chosen once per process: the highest the
// processor and the OS support, at most KMREDUCE_MAX_SIMD (compile time) and
// at most the level the environment variable KMREDUCE_SIMD names when the
// process first asks (tests: it can lower the level, never raise it).
inline SimdLevel simd_level() {
#ifdef KMREDUCE_X86_SIMD
  static const SimdLevel level = []() {
    const CpuFeatures& f = cpu_features();
    const int cap = std::min(static_cast<int>(KMREDUCE_MAX_SIMD),
                             static_cast<int>(detail::requested_simd_level()));
    if (cap >= 2 && f.avx512f) return SimdLevel::Avx512;
    if (cap >= 1 && f.avx2 && f.fma) return SimdLevel::Avx2;
    return SimdLevel::Portable;
  }();
  return level;
#else
  return SimdLevel::Portable;
#endif
}

inline const char* simd_level_name() {
  switch (simd_level()) {
    case SimdLevel::Avx512: return "avx512";
    case SimdLevel::Avx2: return "avx2";
    default: return "portable";
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_SIMD_HPP
