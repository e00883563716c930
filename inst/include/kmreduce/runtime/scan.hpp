// kmreduce: one pass over a vector of doubles for the input checks: how many
// values are not finite, the first of them, and the largest finite magnitude.
#ifndef KMREDUCE_SCAN_HPP
#define KMREDUCE_SCAN_HPP

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "parallel.hpp"
#include "simd.hpp"

namespace kmreduce {

struct ScanResult {
  index_t nonfinite = 0;
  index_t first = -1;  // 0-based position of the first non-finite value
  double maxabs = 0.0;  // largest finite |value|
};

// Whether values are all finite and their largest magnitude, gathered by a
// kernel that reads them anyway (packing, sparse embedding) so that the
// input check needs no pass of its own. Merging is order-independent.
struct ValueSummary {
  bool finite = true;
  double maxabs = 0.0;
  void merge(const ValueSummary& o) {
    finite = finite && o.finite;
    maxabs = std::max(maxabs, o.maxabs);
  }
  void add(double v) {
    const double a = std::fabs(v);
    if (a <= DBL_MAX) {
      maxabs = std::max(maxabs, a);
    } else {
      finite = false;
    }
  }
};

namespace detail {
#ifdef KMREDUCE_X86_SIMD
// Notes 8 values in a running maximum of |x| (mx) and a mask of lanes that
// held Inf or NaN (bad): the check shared by the scan, the packing and the
// sparse embedding. mx is meaningful only while bad is empty.
__attribute__((target("avx512f"))) inline void note_values(__m512d x, __m512d& mx,
                                                           __mmask8& bad) {
  const __m512d a = _mm512_castsi512_pd(_mm512_and_si512(
      _mm512_castpd_si512(x), _mm512_set1_epi64(0x7fffffffffffffffLL)));
  bad |= _mm512_cmp_pd_mask(a, _mm512_set1_pd(DBL_MAX), _CMP_NLE_UQ);
  mx = _mm512_max_pd(mx, a);
}

// AVX-512 check of x[0, len), len a multiple of 16: writes the largest |x|
// to *maxabs and returns true when every value is finite.
__attribute__((target("avx512f"))) inline bool scan_chunk_avx512(
    const double* x, index_t len, double* maxabs) {
  __m512d m0 = _mm512_setzero_pd(), m1 = _mm512_setzero_pd();
  __mmask8 bad = 0;
  for (index_t t = 0; t < len; t += 16) {
    note_values(_mm512_loadu_pd(x + t), m0, bad);
    note_values(_mm512_loadu_pd(x + t + 8), m1, bad);
  }
  *maxabs = _mm512_reduce_max_pd(_mm512_max_pd(m0, m1));
  return bad == 0;
}

// The same note on AVX2: |x| by clearing the sign bit into a running
// maximum, and the lanes not <= DBL_MAX (Inf, NaN) into `bad` (all bits
// set). Shared by the scan and the sparse embedding.
__attribute__((target("avx2"))) inline void note_values_avx2(__m256d x, __m256d& mx,
                                                              __m256d& bad) {
  const __m256d a = _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL)));
  bad = _mm256_or_pd(bad, _mm256_cmp_pd(a, _mm256_set1_pd(DBL_MAX), _CMP_NLE_UQ));
  mx = _mm256_max_pd(mx, a);
}

// The largest of the four lanes of mx (unaligned store: MinGW does not
// align the stack beyond 16 bytes).
__attribute__((target("avx2"))) inline double max_lane_avx2(__m256d mx) {
  double lanes[4];
  _mm256_storeu_pd(lanes, mx);
  return std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
}

// The check of scan_chunk_avx512() on AVX2, running maxima in four
// registers. Returns true when every value is finite; len a multiple of 16.
__attribute__((target("avx2"))) inline bool scan_chunk_avx2(const double* x, index_t len,
                                                             double* maxabs) {
  __m256d m0 = _mm256_setzero_pd(), m1 = m0, m2 = m0, m3 = m0, bad = m0;
  for (index_t t = 0; t < len; t += 16) {
    note_values_avx2(_mm256_loadu_pd(x + t), m0, bad);
    note_values_avx2(_mm256_loadu_pd(x + t + 4), m1, bad);
    note_values_avx2(_mm256_loadu_pd(x + t + 8), m2, bad);
    note_values_avx2(_mm256_loadu_pd(x + t + 12), m3, bad);
  }
  if (_mm256_movemask_pd(bad) != 0) return false;
  *maxabs = max_lane_avx2(_mm256_max_pd(_mm256_max_pd(m0, m1), _mm256_max_pd(m2, m3)));
  return true;
}
#endif
}  // namespace detail

// Chunks of 2048 values are checked with branch-free loops (AVX-512 or AVX2
// when the CPU has it; elsewhere eight running maxima and one "all finite" flag, which
// compilers vectorize); a chunk holding a non-finite value is counted again
// with a plain loop. The maximum does not
// depend on the order, so the result is exact.
inline ScanResult scan_values(const double* x, index_t n) {
  constexpr index_t kChunk = 2048;
  ScanResult out;
  double m[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (index_t c0 = 0; c0 < n; c0 += kChunk) {
    const index_t c1 = std::min(n, c0 + kChunk);
    index_t t = c0;
#ifdef KMREDUCE_X86_SIMD
    if (c1 - c0 == kChunk && simd_level() != SimdLevel::Portable) {
      double cmax = 0.0;
      const bool finite = simd_level() == SimdLevel::Avx512
                              ? detail::scan_chunk_avx512(x + c0, kChunk, &cmax)
                              : detail::scan_chunk_avx2(x + c0, kChunk, &cmax);
      if (finite) {
        m[0] = std::max(m[0], cmax);
        continue;
      }
      t = c1;  // counted below
    }
#endif
    double cm[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    bool finite = t == c0;
    for (; t + 8 <= c1; t += 8) {
      for (int l = 0; l < 8; ++l) {
        const double a = std::fabs(x[t + l]);
        finite &= a <= DBL_MAX;  // false for Inf and NaN
        cm[l] = a > cm[l] ? a : cm[l];
      }
    }
    for (; t < c1; ++t) {
      const double a = std::fabs(x[t]);
      finite &= a <= DBL_MAX;
      cm[0] = a > cm[0] ? a : cm[0];
    }
    if (finite) {
      for (int l = 0; l < 8; ++l) m[l] = std::max(m[l], cm[l]);
      continue;
    }
    for (t = c0; t < c1; ++t) {
      const double a = std::fabs(x[t]);
      if (a <= DBL_MAX) {
        m[0] = std::max(m[0], a);
      } else {
        if (out.nonfinite == 0) out.first = t;
        ++out.nonfinite;
      }
    }
  }
  out.maxabs = *std::max_element(m, m + 8);
  return out;
}

// The smallest largest magnitude data may have (unless all zero):
// sqrt(DBL_MIN) / DBL_EPSILON, about 6.7e-139. Below it, squared
// differences at the data's own precision (eps max|x|)^2 are subnormal or
// zero and distances lose their digits (a silent change of partition).
// The same bound as min_abs_value() in R/checks_input.R.
inline double min_abs_value() { return std::sqrt(DBL_MIN) / DBL_EPSILON; }

// Values a kernel found (limit > 0: the largest magnitude allowed) that
// cannot be clustered: not finite, larger than the limit, or all nonzero
// ones too small.
inline bool values_out_of_range(const ValueSummary& v, double limit) {
  return !v.finite || v.maxabs > limit || (v.maxabs > 0.0 && v.maxabs < min_abs_value());
}

inline ValueSummary summarize_values(const double* x, index_t n) {
  const ScanResult s = scan_values(x, n);
  ValueSummary v;
  v.finite = s.nonfinite == 0;
  v.maxabs = s.maxabs;
  return v;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SCAN_HPP
