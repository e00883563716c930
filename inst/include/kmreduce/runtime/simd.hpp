// kmreduce: run-time selection of SIMD kernels and the dense cross-product
// kernel of Lloyd, k-means++ and the projections:
//   out (m x k) = X[r0:r1, ] C^T,  X column-major n x p, C column-major k x p.
// AVX-512 and AVX2+FMA versions are compiled with GCC `target` attributes and
// chosen at run time (cpu_features(): cpuid and xgetbv, no compiler
// runtime); everywhere else the Eigen GEMM is used. No -march flag is needed. Each output entry is one fused
// multiply-add chain over j = 0..p-1 in order, so results do not depend on
// the number of threads (they may differ in the last bits between kernels).
#ifndef KMREDUCE_SIMD_HPP
#define KMREDUCE_SIMD_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

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

namespace detail {

#ifdef KMREDUCE_X86_SIMD
constexpr index_t kPrefetchCols = 16;
// Rows read in place from column-major data (DIRECT kernels below): each
// column is a stream, prefetched this many rows ahead.
constexpr index_t kPrefetchRows = 32;

// The 8 values of rows [0, 8) of column j of a tile, as a packed tile holds
// them: read in place minus sh[j] when DIRECT (the subtraction the packing
// does), else as stored.
template <bool DIRECT>
__attribute__((target("avx512f"), always_inline)) inline __m512d tile_load(const double* xj,
                                                                          const double* sh,
                                                                          index_t j) {
  return DIRECT ? _mm512_sub_pd(_mm512_loadu_pd(xj), _mm512_set1_pd(sh[j]))
                : _mm512_loadu_pd(xj);
}

// 16 rows x NC centres (NC <= 12: 2 NC accumulators, two rows vectors and a
// broadcast fit in the 32 registers). DIRECT: rows read in place (ldx = the
// rows of the column-major data) minus sh, the values a packed tile holds.
template <int NC, bool DIRECT = false>
__attribute__((target("avx512f"))) void cross_tile_avx512(
    const double* x, index_t ldx, index_t p, const double* c, index_t k,
    double* out, index_t ldo, bool acc, const double* sh = nullptr) {
  __m512d a0[NC], a1[NC];
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) {
    a0[q] = acc ? _mm512_loadu_pd(out + ldo * q) : _mm512_setzero_pd();
    a1[q] = acc ? _mm512_loadu_pd(out + ldo * q + 8) : _mm512_setzero_pd();
  }
  for (index_t j = 0; j < p; ++j) {
    const double* xj = x + ldx * j;
    if (DIRECT) {
      // each column a stream: prefetch it some rows ahead
      _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchRows), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchRows + 8), _MM_HINT_T0);
    } else {
      // X is read with a stride of ldx: prefetch a few columns ahead.
      _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchCols * ldx), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchCols * ldx + 8), _MM_HINT_T0);
    }
    const __m512d x0 = tile_load<DIRECT>(xj, sh, j);
    const __m512d x1 = tile_load<DIRECT>(xj + 8, sh, j);
    const double* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m512d b = _mm512_set1_pd(cj[q]);
      a0[q] = _mm512_fmadd_pd(x0, b, a0[q]);
      a1[q] = _mm512_fmadd_pd(x1, b, a1[q]);
    }
  }
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) {
    _mm512_storeu_pd(out + ldo * q, a0[q]);
    _mm512_storeu_pd(out + ldo * q + 8, a1[q]);
  }
}

// 8 rows (one vector, stride ldx between columns) x NC centres, all p
// columns in one go: each entry is the same FMA chain as in the 16-row tile.
template <int NC>
__attribute__((target("avx512f"))) void cross_half_avx512(
    const double* x, index_t ldx, index_t p, const double* c, index_t k,
    double* out, index_t ldo) {
  __m512d a0[NC];
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) a0[q] = _mm512_setzero_pd();
  for (index_t j = 0; j < p; ++j) {
    const double* xj = x + ldx * j;
    _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchCols * ldx), _MM_HINT_T0);
    const __m512d x0 = _mm512_loadu_pd(xj);
    const double* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q)
      a0[q] = _mm512_fmadd_pd(x0, _mm512_set1_pd(cj[q]), a0[q]);
  }
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) _mm512_storeu_pd(out + ldo * q, a0[q]);
}

// 8 rows x NC centres.
template <int NC>
__attribute__((target("avx2,fma"))) void cross_tile_avx2(
    const double* x, index_t ldx, index_t p, const double* c, index_t k,
    double* out, index_t ldo, bool acc) {
  __m256d a0[NC], a1[NC];
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) {
    a0[q] = acc ? _mm256_loadu_pd(out + ldo * q) : _mm256_setzero_pd();
    a1[q] = acc ? _mm256_loadu_pd(out + ldo * q + 4) : _mm256_setzero_pd();
  }
  for (index_t j = 0; j < p; ++j) {
    const double* xj = x + ldx * j;
    _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchCols * ldx), _MM_HINT_T0);
    const __m256d x0 = _mm256_loadu_pd(xj);
    const __m256d x1 = _mm256_loadu_pd(xj + 4);
    const double* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m256d b = _mm256_broadcast_sd(cj + q);
      a0[q] = _mm256_fmadd_pd(x0, b, a0[q]);
      a1[q] = _mm256_fmadd_pd(x1, b, a1[q]);
    }
  }
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) {
    _mm256_storeu_pd(out + ldo * q, a0[q]);
    _mm256_storeu_pd(out + ldo * q + 4, a1[q]);
  }
}

// NC from nc at run time; DIRECT: rows read in place minus sh (see
// cross_tile_avx512).
template <bool DIRECT = false>
inline void cross_tile_512(int nc, const double* x, index_t ldx, index_t p,
                           const double* c, index_t k, double* out,
                           index_t ldo, bool acc, const double* sh = nullptr) {
#define KMREDUCE_TILE_CASE(N)                                                    \
  case N:                                                                        \
    cross_tile_avx512<N, DIRECT>(x, ldx, p, c, k, out, ldo, acc, sh); \
    break;
  switch (nc) {
    KMREDUCE_TILE_CASE(1)
    KMREDUCE_TILE_CASE(2)
    KMREDUCE_TILE_CASE(3)
    KMREDUCE_TILE_CASE(4)
    KMREDUCE_TILE_CASE(5)
    KMREDUCE_TILE_CASE(6)
    KMREDUCE_TILE_CASE(7)
    KMREDUCE_TILE_CASE(8)
    KMREDUCE_TILE_CASE(9)
    KMREDUCE_TILE_CASE(10)
    KMREDUCE_TILE_CASE(11)
    default: cross_tile_avx512<12, DIRECT>(x, ldx, p, c, k, out, ldo, acc, sh); break;
  }
#undef KMREDUCE_TILE_CASE
}
inline void cross_tile_256(int nc, const double* x, index_t ldx, index_t p,
                           const double* c, index_t k, double* out,
                           index_t ldo, bool acc) {
  switch (nc) {
    case 1: cross_tile_avx2<1>(x, ldx, p, c, k, out, ldo, acc); break;
    case 2: cross_tile_avx2<2>(x, ldx, p, c, k, out, ldo, acc); break;
    case 3: cross_tile_avx2<3>(x, ldx, p, c, k, out, ldo, acc); break;
    case 4: cross_tile_avx2<4>(x, ldx, p, c, k, out, ldo, acc); break;
    case 5: cross_tile_avx2<5>(x, ldx, p, c, k, out, ldo, acc); break;
    default: cross_tile_avx2<6>(x, ldx, p, c, k, out, ldo, acc); break;
  }
}
inline void cross_half_512(int nc, const double* x, index_t ldx, index_t p,
                           const double* c, index_t k, double* out,
                           index_t ldo) {
  switch (nc) {
    case 1: cross_half_avx512<1>(x, ldx, p, c, k, out, ldo); break;
    case 2: cross_half_avx512<2>(x, ldx, p, c, k, out, ldo); break;
    case 3: cross_half_avx512<3>(x, ldx, p, c, k, out, ldo); break;
    case 4: cross_half_avx512<4>(x, ldx, p, c, k, out, ldo); break;
    case 5: cross_half_avx512<5>(x, ldx, p, c, k, out, ldo); break;
    case 6: cross_half_avx512<6>(x, ldx, p, c, k, out, ldo); break;
    case 7: cross_half_avx512<7>(x, ldx, p, c, k, out, ldo); break;
    case 8: cross_half_avx512<8>(x, ldx, p, c, k, out, ldo); break;
    case 9: cross_half_avx512<9>(x, ldx, p, c, k, out, ldo); break;
    case 10: cross_half_avx512<10>(x, ldx, p, c, k, out, ldo); break;
    case 11: cross_half_avx512<11>(x, ldx, p, c, k, out, ldo); break;
    default: cross_half_avx512<12>(x, ldx, p, c, k, out, ldo); break;
  }
}

// 8 columns of A x 8 NV entries of M^T: acc[jj][v] = sum_r A[r, j0 + jj] *
// M[r, 8 v .. 8 v + 7], with M given row-major (ldm values per row).
template <int NV>
__attribute__((target("avx512f"))) void crossprod_tile_avx512(
    const double* a, index_t n, const double* mt, index_t ldm, double* res) {
  __m512d acc[8][NV];
  KMREDUCE_UNROLL
  for (int jj = 0; jj < 8; ++jj)
    KMREDUCE_UNROLL
    for (int v = 0; v < NV; ++v) acc[jj][v] = _mm512_setzero_pd();
  for (index_t r = 0; r < n; ++r) {
    __m512d mv[NV];
    KMREDUCE_UNROLL
    for (int v = 0; v < NV; ++v) mv[v] = _mm512_loadu_pd(mt + ldm * r + 8 * v);
    KMREDUCE_UNROLL
    for (int jj = 0; jj < 8; ++jj) {
      const __m512d b = _mm512_set1_pd(a[r + n * jj]);
      KMREDUCE_UNROLL
      for (int v = 0; v < NV; ++v) acc[jj][v] = _mm512_fmadd_pd(b, mv[v], acc[jj][v]);
    }
  }
  KMREDUCE_UNROLL
  for (int jj = 0; jj < 8; ++jj)
    KMREDUCE_UNROLL
    for (int v = 0; v < NV; ++v) _mm512_storeu_pd(res + (jj * NV + v) * 8, acc[jj][v]);
}
#endif  // KMREDUCE_X86_SIMD

}  // namespace detail

// out (m x k, column-major with leading dimension ldo >= m, m = r1 - r0)
// = X[r0:r1, ] C^T. ldo = 0 means m. With `sh` (AVX-512 only), column j
// of X minus sh[j] instead, subtracted as the rows are read: the same bits
// as X shifted beforehand (packed tiles of shifted rows, packed.hpp).
inline void cross_product_block(const double* x, index_t n, index_t p,
                                index_t r0, index_t r1, const double* c,
                                index_t k, double* out, index_t ldo = 0,
                                const double* sh = nullptr) {
  const index_t m = r1 - r0;
  if (ldo == 0) ldo = m;
  if (sh != nullptr && simd_level() != SimdLevel::Avx512)
    throw std::logic_error("cross_product_block: a shift needs AVX-512");
#ifdef KMREDUCE_X86_SIMD
  const SimdLevel level = simd_level();
  if (level != SimdLevel::Portable) {
    // Rows in tiles of `rows` (two SIMD vectors), centres in groups of `cols`
    // (2 * cols accumulators in registers), columns of X in chunks of kColChunk
    // so that all tiles of the block reuse the same few pages of X (TLB and
    // prefetcher friendly); partial sums are carried in `out` across chunks.
    const index_t rows = level == SimdLevel::Avx512 ? 16 : 8;
    // Centres in equal groups of at most 12 (AVX-512) or 6 (AVX2): every
    // group keeps enough independent FMA chains in flight.
    const index_t max_cols = level == SimdLevel::Avx512 ? 12 : 6;
    const index_t groups = (k + max_cols - 1) / max_cols;
    const index_t cols = (k + groups - 1) / groups;
    constexpr index_t kColChunk = 48;
    const index_t full = r0 + (m / rows) * rows;
    for (index_t j0 = 0; j0 < p; j0 += kColChunk) {
      const index_t pc = std::min(kColChunk, p - j0);
      for (index_t r = r0; r < full; r += rows) {
        for (index_t q0 = 0; q0 < k; q0 += cols) {
          const int nc = static_cast<int>(std::min(cols, k - q0));
          double* o = out + (r - r0) + ldo * q0;
          const double* xs = x + r + n * j0;
          const double* cs = c + q0 + k * j0;
          if (sh != nullptr)
            detail::cross_tile_512<true>(nc, xs, n, pc, cs, k, o, ldo, j0 > 0, sh + j0);
          else if (level == SimdLevel::Avx512)
            detail::cross_tile_512(nc, xs, n, pc, cs, k, o, ldo, j0 > 0);
          else
            detail::cross_tile_256(nc, xs, n, pc, cs, k, o, ldo, j0 > 0);
        }
      }
    }
    if (full < r1) {
      // The last rows, zero padded to a whole tile, go through the same
      // kernel: every row gets the same arithmetic wherever it sits, so a
      // row's result does not depend on how the rows are blocked.
      const index_t tail = r1 - full;
      thread_local std::vector<double> tx, to;
      tx.assign(static_cast<std::size_t>(rows * p), 0.0);
      to.assign(static_cast<std::size_t>(rows * k), 0.0);
      for (index_t j = 0; j < p; ++j) {
        const double* xj = x + full + n * j;
        if (sh != nullptr)
          for (index_t l = 0; l < tail; ++l) tx[l + rows * j] = xj[l] - sh[j];
        else
          for (index_t l = 0; l < tail; ++l) tx[l + rows * j] = xj[l];
      }
      for (index_t j0 = 0; j0 < p; j0 += kColChunk) {
        const index_t pc = std::min(kColChunk, p - j0);
        for (index_t q0 = 0; q0 < k; q0 += cols) {
          const int nc = static_cast<int>(std::min(cols, k - q0));
          double* o = to.data() + rows * q0;
          const double* xs = tx.data() + rows * j0;
          const double* cs = c + q0 + k * j0;
          if (level == SimdLevel::Avx512)
            detail::cross_tile_512(nc, xs, rows, pc, cs, k, o, rows, j0 > 0);
          else
            detail::cross_tile_256(nc, xs, rows, pc, cs, k, o, rows, j0 > 0);
        }
      }
      for (index_t q = 0; q < k; ++q)
        for (index_t l = 0; l < tail; ++l)
          out[(full - r0) + l + ldo * q] = to[l + rows * q];
    }
    return;
  }
#endif
  Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> xb(
      x + r0, m, p, Eigen::OuterStride<>(n));
  Eigen::Map<const Eigen::MatrixXd> cm(c, k, p);
  Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>> o(out, m, k,
                                                        Eigen::OuterStride<>(ldo));
  o.noalias() = xb * cm.transpose();
}

namespace detail {
#ifdef KMREDUCE_X86_SIMD
__attribute__((target("avx512f,avx512vl"))) inline void two_nearest_avx512(
    const double* buf, index_t m, index_t k, const double* cnorm, double* best,
    double* second, int* which) {
  const __m512d two = _mm512_set1_pd(2.0);
  const __m512d inf = _mm512_set1_pd(std::numeric_limits<double>::infinity());
  for (index_t g = 0; g < m; g += 8) {
    const __mmask8 lanes = static_cast<__mmask8>(
        m - g >= 8 ? 0xffu : (1u << (m - g)) - 1u);
    __m512d b = _mm512_sub_pd(_mm512_set1_pd(cnorm[0]),
                              _mm512_mul_pd(two, _mm512_maskz_loadu_pd(lanes, buf + g)));
    __m512d s2 = inf;
    __m256i w = _mm256_setzero_si256();
    for (index_t q = 1; q < k; ++q) {
      const __m512d v = _mm512_sub_pd(
          _mm512_set1_pd(cnorm[q]),
          _mm512_mul_pd(two, _mm512_maskz_loadu_pd(lanes, buf + g + m * q)));
      const __mmask8 lt = _mm512_cmp_pd_mask(v, b, _CMP_LT_OQ);
      // v < best: second = best, best = v; otherwise second = min(second, v).
      s2 = _mm512_mask_blend_pd(lt, _mm512_min_pd(v, s2), b);
      b = _mm512_mask_blend_pd(lt, b, v);
      w = _mm256_mask_blend_epi32(lt, w, _mm256_set1_epi32(static_cast<int>(q)));
    }
    _mm512_mask_storeu_pd(best + g, lanes, b);
    if (second != nullptr) _mm512_mask_storeu_pd(second + g, lanes, s2);
    _mm256_mask_storeu_epi32(which + g, lanes, w);
  }
}
#endif
}  // namespace detail

namespace detail {
#ifdef KMREDUCE_X86_SIMD
// The running nearest (bb), second nearest (ss) and label (ww) of 8 rows,
// updated with one more centre's values v by the comparisons of
// two_nearest_avx512 (`start`: the first centre, which sets them).
struct NearestLanes {
  __m512d bb, ss;
  __m256i ww;
  __attribute__((target("avx512f,avx512vl"), always_inline)) NearestLanes(const double* b,
                                                                        const double* s2,
                                                                        const int* w)
      : bb(_mm512_loadu_pd(b)), ss(_mm512_loadu_pd(s2)),
        ww(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))) {}
  __attribute__((target("avx512f,avx512vl"), always_inline)) void take(__m512d v, int q,
                                                                     bool start) {
    if (start) {
      bb = v;
      ss = _mm512_set1_pd(std::numeric_limits<double>::infinity());
      ww = _mm256_setzero_si256();
      return;
    }
    const __mmask8 lt = _mm512_cmp_pd_mask(v, bb, _CMP_LT_OQ);
    ss = _mm512_mask_blend_pd(lt, _mm512_min_pd(v, ss), bb);
    bb = _mm512_mask_blend_pd(lt, bb, v);
    ww = _mm256_mask_blend_epi32(lt, ww, _mm256_set1_epi32(q));
  }
  __attribute__((target("avx512f,avx512vl"), always_inline)) void store(double* b, double* s2,
                                                                      int* w) const {
    _mm512_storeu_pd(b, bb);
    _mm512_storeu_pd(s2, ss);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w), ww);
  }
};

// Fused products and nearest centres: RV vectors of 8 rows (stride ldx
// between columns) times NC centres (c and cnorm at the group's first
// centre, q0), each product the FMA chain of cross_tile_avx512, then the
// running nearest (b), second nearest (s2) and label (w) of each row updated
// with v = ||c_q||^2 - 2 x.c_q for q = q0, q0 + 1, ... with the comparisons
// of two_nearest_avx512 (2 x.c is exact, so v is as there): the same
// results without writing the products out. `first`: q0 = 0 starts them.
template <int NC, int RV, bool DIRECT = false>
__attribute__((target("avx512f,avx512vl"))) void nearest_tile_avx512(
    const double* x, index_t ldx, index_t p, const double* c, index_t k,
    const double* cnorm, int q0, bool first, double* b, double* s2, int* w,
    const double* sh = nullptr) {
  __m512d acc[RV][NC];
  KMREDUCE_UNROLL
  for (int v = 0; v < RV; ++v)
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) acc[v][q] = _mm512_setzero_pd();
  for (index_t j = 0; j < p; ++j) {
    const double* xj = x + ldx * j;
    if (DIRECT) {
      // (the first group of centres reads the rows; later groups find them
      // in the cache)
      if (q0 == 0) {
        KMREDUCE_UNROLL
        for (int v = 0; v < RV; ++v)
          _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchRows + 8 * v), _MM_HINT_T0);
      }
    } else {
      _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchCols * ldx), _MM_HINT_T0);
    }
    __m512d xv[RV];
    KMREDUCE_UNROLL
    for (int v = 0; v < RV; ++v) xv[v] = tile_load<DIRECT>(xj + 8 * v, sh, j);
    const double* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m512d bq = _mm512_set1_pd(cj[q]);
      KMREDUCE_UNROLL
      for (int v = 0; v < RV; ++v) acc[v][q] = _mm512_fmadd_pd(xv[v], bq, acc[v][q]);
    }
  }
  const __m512d two = _mm512_set1_pd(2.0);
  KMREDUCE_UNROLL
  for (int v = 0; v < RV; ++v) {
    NearestLanes lanes(b + 8 * v, s2 + 8 * v, w + 8 * v);
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q)
      lanes.take(_mm512_sub_pd(_mm512_set1_pd(cnorm[q]), _mm512_mul_pd(two, acc[v][q])), q0 + q,
                 first && q == 0);
    lanes.store(b + 8 * v, s2 + 8 * v, w + 8 * v);
  }
}

template <int RV, bool DIRECT = false>
inline void nearest_tile_512(int nc, const double* x, index_t ldx, index_t p, const double* c,
                             index_t k, const double* cnorm, int q0, bool first, double* b,
                             double* s2, int* w, const double* sh = nullptr) {
#define KMREDUCE_NEAREST_CASE(N)                                                         \
  case N:                                                                                \
    nearest_tile_avx512<N, RV, DIRECT>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w, sh); \
    break;
  switch (nc) {
    KMREDUCE_NEAREST_CASE(1)
    KMREDUCE_NEAREST_CASE(2)
    KMREDUCE_NEAREST_CASE(3)
    KMREDUCE_NEAREST_CASE(4)
    KMREDUCE_NEAREST_CASE(5)
    KMREDUCE_NEAREST_CASE(6)
    KMREDUCE_NEAREST_CASE(7)
    KMREDUCE_NEAREST_CASE(8)
    KMREDUCE_NEAREST_CASE(9)
    KMREDUCE_NEAREST_CASE(10)
    KMREDUCE_NEAREST_CASE(11)
    default:
      nearest_tile_avx512<12, RV, DIRECT>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w, sh);
      break;
  }
#undef KMREDUCE_NEAREST_CASE
}
#endif  // KMREDUCE_X86_SIMD
}  // namespace detail

// For the 16 rows of a tile (x: 16 values per column, p columns; half < 0)
// or the 8 rows of one half of it (half = 0 or 1): the nearest of the k centres (C,
// column-major) by ||c||^2 - 2 x.c, the second nearest and the label, as
// cross_product_block() then two_nearest() give them on AVX-512 (bit for
// bit), without the k products per row written out. Returns false (and
// does nothing) without AVX-512.
//
// With `sh` (not null), x is instead 16 rows of column-major data read in
// place, ldx values apart from one column to the next, and sh[j] is
// subtracted from column j: the values packing would put in the tile, so
// the same results.
inline bool nearest_in_tile(const double* x, index_t p, int half, const double* c, index_t k,
                            const double* cnorm, double* best, double* second, int* which,
                            const double* sh = nullptr, index_t ldx = 16) {
#ifdef KMREDUCE_X86_SIMD
  const bool vl = cpu_features().avx512vl;
  if (simd_level() != SimdLevel::Avx512 || !vl) return false;
  const index_t groups = (k + 11) / 12;
  const index_t cols = (k + groups - 1) / groups;
  // (both halves: 2 vectors of rows; one half: 1, from its first row)
  const double* xh = half < 0 ? x : x + 8 * half;
  for (index_t q0 = 0; q0 < k; q0 += cols) {
    const int nc = static_cast<int>(std::min(cols, k - q0));
    const int g0 = static_cast<int>(q0);
    if (sh != nullptr && half < 0)
      detail::nearest_tile_512<2, true>(nc, xh, ldx, p, c + q0, k, cnorm + q0, g0, g0 == 0, best,
                                        second, which, sh);
    else if (sh != nullptr)
      detail::nearest_tile_512<1, true>(nc, xh, ldx, p, c + q0, k, cnorm + q0, g0, g0 == 0, best,
                                        second, which, sh);
    else if (half < 0)
      detail::nearest_tile_512<2>(nc, xh, ldx, p, c + q0, k, cnorm + q0, g0, g0 == 0, best,
                                  second, which);
    else
      detail::nearest_tile_512<1>(nc, xh, ldx, p, c + q0, k, cnorm + q0, g0, g0 == 0, best,
                                  second, which);
  }
  return true;
#else
  (void)x; (void)p; (void)half; (void)c; (void)k; (void)cnorm; (void)best; (void)second;
  (void)which; (void)sh; (void)ldx;
  return false;
#endif
}

namespace detail {
// Final sum of 8 partial sums, in a fixed tree (both versions below).
inline double sum8(const double* acc) {
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}
#ifdef KMREDUCE_X86_SIMD
__attribute__((target("avx512f"))) inline double seed_distances_avx512(
    double* v, index_t m, const double* rn, double pn, index_t own, const double* dist,
    const double* reach, index_t* count, std::uint8_t* below) {
  const __m512d two = _mm512_set1_pd(2.0), zero = _mm512_setzero_pd(),
                vpn = _mm512_set1_pd(pn);
  __m512d acc = zero;
  index_t cnt = 0;
  for (index_t i = 0; i < m; i += 8) {
    const __mmask8 lanes = static_cast<__mmask8>(m - i >= 8 ? 0xffu : (1u << (m - i)) - 1u);
    __m512d x = _mm512_sub_pd(_mm512_maskz_loadu_pd(lanes, rn + i),
                              _mm512_mul_pd(two, _mm512_maskz_loadu_pd(lanes, v + i)));
    x = _mm512_max_pd(_mm512_add_pd(x, vpn), zero);
    if (own >= i && own < i + 8)
      x = _mm512_mask_blend_pd(static_cast<__mmask8>(1u << (own - i)), x, zero);
    _mm512_mask_storeu_pd(v + i, lanes, x);
    acc = _mm512_mask_add_pd(acc, lanes, acc,
                             _mm512_min_pd(_mm512_maskz_loadu_pd(lanes, dist + i), x));
    const __mmask8 lt =
        _mm512_mask_cmp_pd_mask(lanes, x, _mm512_maskz_loadu_pd(lanes, reach + i), _CMP_LT_OQ);
    below[i / 8] = static_cast<std::uint8_t>(lt);
    cnt += __builtin_popcount(lt);
  }
  double a[8];  // (the stack is not assumed aligned beyond 16 bytes)
  _mm512_storeu_pd(a, acc);
  *count += cnt;
  return sum8(a);
}
#endif
}  // namespace detail

// k-means++ (kmeanspp.hpp), for m rows and one candidate whose products
// with the rows are v: turns v into the squared distances
// max(0, rn - 2 v + pn) (0 for row `own`, the candidate itself; -1: none),
// returns sum_i min(dist[i], v[i]), adds to *count how many v[i] are below
// reach[i] and marks them in `below` (bit i mod 8 of byte i / 8). The sum
// is taken in 8 partial sums (row i into i mod 8), so AVX-512 and the
// portable loop give the same bits.
inline double seed_distances(double* v, index_t m, const double* rn, double pn, index_t own,
                             const double* dist, const double* reach, index_t* count,
                             std::uint8_t* below) {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() == SimdLevel::Avx512)
    return detail::seed_distances_avx512(v, m, rn, pn, own, dist, reach, count, below);
#endif
  std::fill(below, below + (m + 7) / 8, std::uint8_t(0));
  double acc[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  index_t cnt = 0;
  for (index_t i = 0; i < m; ++i) {
    double x = (rn[i] - 2.0 * v[i]) + pn;
    x = i == own ? 0.0 : std::max(x, 0.0);
    v[i] = x;
    acc[i & 7] += std::min(dist[i], x);
    if (x < reach[i]) {
      ++cnt;
      below[i / 8] = static_cast<std::uint8_t>(below[i / 8] | (1u << (i & 7)));
    }
  }
  *count += cnt;
  return detail::sum8(acc);
}

// For m rows whose products with k centres are buf (m x k, column-major):
// the smallest of cnorm[q] - 2 buf[r, q] over q (first q on ties), its q,
// and (unless second is null) the second smallest. AVX-512 takes 8 rows at
// a time with the same comparisons, so the results are the same.
inline void two_nearest(const double* buf, index_t m, index_t k,
                        const double* cnorm, double* best, double* second,
                        int* which) {
#ifdef KMREDUCE_X86_SIMD
  const bool vl = cpu_features().avx512vl;
  if (simd_level() == SimdLevel::Avx512 && vl) {
    detail::two_nearest_avx512(buf, m, k, cnorm, best, second, which);
    return;
  }
#endif
  for (index_t r = 0; r < m; ++r) {
    const double* br = buf + r;
    double b = cnorm[0] - 2.0 * br[0];
    double s2 = std::numeric_limits<double>::infinity();
    int w = 0;
    for (index_t q = 1; q < k; ++q) {
      const double v = cnorm[q] - 2.0 * br[m * q];
      if (v < b) {
        s2 = b;
        b = v;
        w = static_cast<int>(q);
      } else if (v < s2) {
        s2 = v;
      }
    }
    best[r] = b;
    if (second != nullptr) second[r] = s2;
    which[r] = w;
  }
}

namespace detail {
// Nearest and second nearest of k centres for one row, from its products
// with them (cross[len * q], q = 0, ..., k - 1) and the squared norms:
// squared distances max(0, ||x||^2 - 2 x.c + ||c||^2), the first on ties;
// with k = 1 the second is infinite (centre 0).
inline void nearest_two_of(const double* cross, index_t len, index_t k, double rnorm,
                           const double* cnorm, int& q1, double& b1, int& q2, double& b2) {
  b1 = std::numeric_limits<double>::infinity();
  b2 = b1;
  q1 = 0;
  q2 = 0;
  for (index_t q = 0; q < k; ++q) {
    const double dist = std::max(0.0, rnorm - 2.0 * cross[len * q] + cnorm[q]);
    if (dist < b1) {
      b2 = b1;
      q2 = q1;
      b1 = dist;
      q1 = static_cast<int>(q);
    } else if (dist < b2) {
      b2 = dist;
      q2 = static_cast<int>(q);
    }
  }
}

#ifdef KMREDUCE_X86_SIMD
// nearest_two_of() for 8 rows at a time: the same distances (2 x.c is
// exact, so fused or not the subtraction rounds once) and comparisons.
__attribute__((target("avx512f,avx512vl"))) inline void nearest_two_rows_avx512(
    const double* buf, index_t m, index_t k, const double* rn, const double* cnorm, int* q1,
    double* b1, int* q2, double* b2) {
  const __m512d two = _mm512_set1_pd(2.0), zero = _mm512_setzero_pd();
  const __m512d inf = _mm512_set1_pd(std::numeric_limits<double>::infinity());
  for (index_t g = 0; g < m; g += 8) {
    const __mmask8 lanes = static_cast<__mmask8>(
        m - g >= 8 ? 0xffu : (1u << (m - g)) - 1u);
    const __m512d r = _mm512_maskz_loadu_pd(lanes, rn + g);
    __m512d v1 = inf, v2 = inf;
    __m256i w1 = _mm256_setzero_si256(), w2 = w1;
    for (index_t q = 0; q < k; ++q) {
      const __m512d p = _mm512_maskz_loadu_pd(lanes, buf + g + m * q);
      // max(v, 0) returns 0 for NaN, as std::max(0.0, v)
      const __m512d v = _mm512_max_pd(
          _mm512_add_pd(_mm512_sub_pd(r, _mm512_mul_pd(two, p)), _mm512_set1_pd(cnorm[q])),
          zero);
      const __mmask8 lt1 = _mm512_cmp_pd_mask(v, v1, _CMP_LT_OQ);
      const __mmask8 lt2 = _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(~lt1), v, v2,
                                                   _CMP_LT_OQ);
      const __m256i qv = _mm256_set1_epi32(static_cast<int>(q));
      // v < b1: second = first, first = v; else v < b2: second = v.
      v2 = _mm512_mask_blend_pd(lt1, _mm512_mask_blend_pd(lt2, v2, v), v1);
      w2 = _mm256_mask_blend_epi32(lt1, _mm256_mask_blend_epi32(lt2, w2, qv), w1);
      v1 = _mm512_mask_blend_pd(lt1, v1, v);
      w1 = _mm256_mask_blend_epi32(lt1, w1, qv);
    }
    _mm512_mask_storeu_pd(b1 + g, lanes, v1);
    _mm512_mask_storeu_pd(b2 + g, lanes, v2);
    _mm256_mask_storeu_epi32(q1 + g, lanes, w1);
    if (q2 != nullptr) _mm256_mask_storeu_epi32(q2 + g, lanes, w2);
  }
}
#endif
}  // namespace detail

// nearest_two_of() for m rows whose products with k centres are buf (m x k,
// column-major) and whose squared norms are rn: labels q1, q2 (unless q2 is
// null) and squared distances b1, b2 of the nearest and second nearest
// (AVX-512: 8 rows at a time, the same results).
inline void nearest_two_rows(const double* buf, index_t m, index_t k, const double* rn,
                             const double* cnorm, int* q1, double* b1, int* q2, double* b2) {
#ifdef KMREDUCE_X86_SIMD
  const bool vl = cpu_features().avx512vl;
  if (simd_level() == SimdLevel::Avx512 && vl) {
    detail::nearest_two_rows_avx512(buf, m, k, rn, cnorm, q1, b1, q2, b2);
    return;
  }
#endif
  int unused = 0;
  for (index_t r = 0; r < m; ++r)
    detail::nearest_two_of(buf + r, m, k, rn[r], cnorm, q1[r], b1[r],
                           q2 != nullptr ? q2[r] : unused, b2[r]);
}

// out (8 x k, leading dimension ldo) = 8 rows given as x[l + ldx * j]
// (l < 8, j < p) times C^T, with exactly the arithmetic cross_product_block
// gives each row on AVX-512. Returns false (and does nothing) without it.
inline bool cross_product_half(const double* x, index_t ldx, index_t p,
                               const double* c, index_t k, double* out,
                               index_t ldo) {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() != SimdLevel::Avx512) return false;
  const index_t groups = (k + 11) / 12;
  const index_t cols = (k + groups - 1) / groups;
  for (index_t q0 = 0; q0 < k; q0 += cols) {
    const int nc = static_cast<int>(std::min(cols, k - q0));
    detail::cross_half_512(nc, x, ldx, p, c + q0, k, out + ldo * q0, ldo);
  }
  return true;
#else
  (void)x; (void)ldx; (void)p; (void)c; (void)k; (void)out; (void)ldo;
  return false;
#endif
}

// out (d x m, column-major) = A^T M for columns [j0, j1) of a column-major
// n x d matrix A, with M given row-major (mt: n rows of ldm >= m values,
// zero padded). AVX-512 tiles of 8 columns x 24 entries; returns false (and
// does nothing) when no AVX-512 kernel is available. Each entry is one
// fused multiply-add chain over the rows in order.
inline bool crossprod_columns_simd(const double* a, index_t n, index_t d,
                                   index_t j0, index_t j1, const double* mt,
                                   index_t ldm, index_t m, double* out) {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() != SimdLevel::Avx512) return false;
  double res[8 * 3 * 8];
  index_t j = j0;
  for (; j + 8 <= j1; j += 8) {
    for (index_t c0 = 0; c0 < m; c0 += 24) {
      const index_t mc = std::min<index_t>(24, m - c0);
      const int nv = static_cast<int>((mc + 7) / 8);
      const double* aj = a + n * j;
      if (nv == 1) detail::crossprod_tile_avx512<1>(aj, n, mt + c0, ldm, res);
      else if (nv == 2) detail::crossprod_tile_avx512<2>(aj, n, mt + c0, ldm, res);
      else detail::crossprod_tile_avx512<3>(aj, n, mt + c0, ldm, res);
      for (index_t jj = 0; jj < 8; ++jj)
        for (index_t c = 0; c < mc; ++c) out[(j + jj) + d * (c0 + c)] = res[jj * nv * 8 + c];
    }
  }
  for (; j < j1; ++j)  // last columns: plain loops
    for (index_t c = 0; c < m; ++c) {
      double s = 0.0;
      for (index_t r = 0; r < n; ++r) s += a[r + n * j] * mt[ldm * r + c];
      out[j + d * c] = s;
    }
  return true;
#else
  (void)a; (void)n; (void)d; (void)j0; (void)j1; (void)mt; (void)ldm; (void)m; (void)out;
  return false;
#endif
}

}  // namespace kmreduce

#endif  // KMREDUCE_SIMD_HPP
