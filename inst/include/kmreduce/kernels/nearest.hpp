// kmreduce: the nearest centres of rows, from their products with the
// centres (two_nearest(), nearest_two_rows()) or fused with those products
// (nearest_in_tile(): Lloyd's assignments, the k-means|| rounds), and
// k-means++'s distances and potential sums (seed_distances()). The AVX-512
// versions (GCC `target` attributes, chosen at run time by
// runtime/simd.hpp) make the same comparisons and sums as the portable
// loops, so every SIMD level gives the same labels and seeds.
#ifndef KMREDUCE_KERNELS_NEAREST_HPP
#define KMREDUCE_KERNELS_NEAREST_HPP

#include <algorithm>
#include <cstdint>
#include <limits>

#include "cross_product.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/simd.hpp"

namespace kmreduce {


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

// two_nearest() with AVX2 for rows [g0, g1) (a multiple of 4 of them):
// 4 rows per vector, NV vectors at a time (independent chains of
// comparisons), the comparisons of the portable loop (2 x is exact, so
// ||c||^2 - 2 x is one rounding, as there); labels carried as doubles (exact
// for any k an int holds).
template <int NV>
__attribute__((target("avx2"))) inline void two_nearest_avx2_rows(
    const double* buf, index_t m, index_t g0, index_t g1, index_t k, const double* cnorm,
    double* best, double* second, int* which) {
  const __m256d two = _mm256_set1_pd(2.0);
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  for (index_t g = g0; g + 4 * NV <= g1; g += 4 * NV) {
    __m256d b[NV], s2[NV], w[NV];
    const __m256d c0 = _mm256_set1_pd(cnorm[0]);
    for (int v = 0; v < NV; ++v) {
      b[v] = _mm256_sub_pd(c0, _mm256_mul_pd(two, _mm256_loadu_pd(buf + g + 4 * v)));
      s2[v] = inf;
      w[v] = _mm256_setzero_pd();
    }
    for (index_t q = 1; q < k; ++q) {
      const __m256d cq = _mm256_set1_pd(cnorm[q]);
      const __m256d label = _mm256_set1_pd(static_cast<double>(q));
      const double* col = buf + g + m * q;
      for (int v = 0; v < NV; ++v) {
        const __m256d x = _mm256_sub_pd(cq, _mm256_mul_pd(two, _mm256_loadu_pd(col + 4 * v)));
        // x < best: second = best, best = x; otherwise second = min(second, x)
        const __m256d lt = _mm256_cmp_pd(x, b[v], _CMP_LT_OQ);
        s2[v] = _mm256_blendv_pd(_mm256_min_pd(x, s2[v]), b[v], lt);
        b[v] = _mm256_blendv_pd(b[v], x, lt);
        w[v] = _mm256_blendv_pd(w[v], label, lt);
      }
    }
    for (int v = 0; v < NV; ++v) {
      _mm256_storeu_pd(best + g + 4 * v, b[v]);
      if (second != nullptr) _mm256_storeu_pd(second + g + 4 * v, s2[v]);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(which + g + 4 * v),
                       _mm256_cvttpd_epi32(w[v]));
    }
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

// The running nearest (bb), second nearest (ss) and label (ww, as doubles)
// of 4 rows, updated with one more centre's values v by the comparisons of
// two_nearest_avx2_rows (`start`: the first centre, which sets them); the
// AVX2 kernels of nearest_in_tile(), double and float tiles.
struct NearestLanes4 {
  __m256d bb, ss, ww;
  __attribute__((target("avx2"), always_inline)) NearestLanes4(const double* b,
                                                               const double* s2,
                                                               const double* w)
      : bb(_mm256_loadu_pd(b)), ss(_mm256_loadu_pd(s2)), ww(_mm256_loadu_pd(w)) {}
  __attribute__((target("avx2"), always_inline)) void take(__m256d v, int q, bool start) {
    if (start) {
      bb = v;
      ss = _mm256_set1_pd(std::numeric_limits<double>::infinity());
      ww = _mm256_setzero_pd();
      return;
    }
    const __m256d lt = _mm256_cmp_pd(v, bb, _CMP_LT_OQ);
    ss = _mm256_blendv_pd(_mm256_min_pd(v, ss), bb, lt);
    bb = _mm256_blendv_pd(bb, v, lt);
    ww = _mm256_blendv_pd(ww, _mm256_set1_pd(static_cast<double>(q)), lt);
  }
  __attribute__((target("avx2"), always_inline)) void store(double* b, double* s2,
                                                            double* w) const {
    _mm256_storeu_pd(b, bb);
    _mm256_storeu_pd(s2, ss);
    _mm256_storeu_pd(w, ww);
  }
};

// The AVX2 twin of nearest_tile_avx512: RV vectors of 4 rows (stride ldx
// between columns) and NC centres, each product the FMA chain of
// cross_tile_avx2 over all p columns (the chunks cross_product_block() takes
// them in carry the same chain through memory exactly), then the running
// nearest (b), second nearest (s2) and label (w, as doubles) updated with
// the comparisons of two_nearest_avx2_rows: the same results without the
// products written out and read again.
template <int NC, int RV>
__attribute__((target("avx2,fma"))) void nearest_tile_avx2(const double* x, index_t ldx,
                                                           index_t p, const double* c, index_t k,
                                                           const double* cnorm, int q0,
                                                           bool first, double* b, double* s2,
                                                           double* w) {
  __m256d acc[RV][NC];
  KMREDUCE_UNROLL
  for (int v = 0; v < RV; ++v)
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) acc[v][q] = _mm256_setzero_pd();
  for (index_t j = 0; j < p; ++j) {
    const double* xj = x + ldx * j;
    _mm_prefetch(reinterpret_cast<const char*>(xj + kPrefetchCols * ldx), _MM_HINT_T0);
    __m256d xv[RV];
    KMREDUCE_UNROLL
    for (int v = 0; v < RV; ++v) xv[v] = _mm256_loadu_pd(xj + 4 * v);
    const double* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m256d bq = _mm256_broadcast_sd(cj + q);
      KMREDUCE_UNROLL
      for (int v = 0; v < RV; ++v) acc[v][q] = _mm256_fmadd_pd(xv[v], bq, acc[v][q]);
    }
  }
  const __m256d two = _mm256_set1_pd(2.0);
  KMREDUCE_UNROLL
  for (int v = 0; v < RV; ++v) {
    NearestLanes4 lanes(b + 4 * v, s2 + 4 * v, w + 4 * v);
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q)
      lanes.take(_mm256_sub_pd(_mm256_set1_pd(cnorm[q]), _mm256_mul_pd(two, acc[v][q])), q0 + q,
                 first && q == 0);
    lanes.store(b + 4 * v, s2 + 4 * v, w + 4 * v);
  }
}

// NC from nc at run time (at most 12 / RV).
template <int RV>
inline void nearest_tile_256(int nc, const double* x, index_t ldx, index_t p, const double* c,
                             index_t k, const double* cnorm, int q0, bool first, double* b,
                             double* s2, double* w) {
  constexpr int kMax = 12 / RV;
  switch (nc) {
    case 1: nearest_tile_avx2<1, RV>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w); break;
    case 2: nearest_tile_avx2<2, RV>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w); break;
    case 3: nearest_tile_avx2<kMax < 3 ? kMax : 3, RV>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w); break;
    case 4: nearest_tile_avx2<kMax < 4 ? kMax : 4, RV>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w); break;
    case 5: nearest_tile_avx2<kMax < 5 ? kMax : 5, RV>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w); break;
    default: nearest_tile_avx2<kMax, RV>(x, ldx, p, c, k, cnorm, q0, first, b, s2, w); break;
  }
}
#endif  // KMREDUCE_X86_SIMD
}  // namespace detail

// Whether the AVX2 fused kernels below pay for `rows` rows (8 or 16) of p
// columns and k centres: each group of centres (3 for 16 rows, 6 for 8)
// reads the rows' p columns again, from L1 while they fit there (16 KiB);
// wider rows with several groups are better served by cross_product_block(),
// which takes the columns in chunks for all groups, then two_nearest().
inline bool fused_pays_avx2(index_t p, index_t k, index_t rows) {
  const index_t max_cols = rows == 16 ? 3 : 6;
  return k <= max_cols || p * rows * static_cast<index_t>(sizeof(double)) <= 16384;
}

// For the 16 rows of a tile (x: 16 values per column, p columns; half < 0)
// or the 8 rows of one half of it (half = 0 or 1): the nearest of the k centres (C,
// column-major) by ||c||^2 - 2 x.c, the second nearest and the label, as
// cross_product_block() then two_nearest() give them on AVX-512 (bit for
// bit), without the k products per row written out; on AVX2 (packed tiles
// only, `sh` null) as cross_product_block() then two_nearest() give them
// there. Returns false (and does nothing) on other levels.
//
// With `sh` (not null), x is instead 16 rows of column-major data read in
// place, ldx values apart from one column to the next, and sh[j] is
// subtracted from column j: the values packing would put in the tile, so
// the same results.
inline bool nearest_in_tile(const double* x, index_t p, int half, const double* c, index_t k,
                            const double* cnorm, double* best, double* second, int* which,
                            const double* sh = nullptr, index_t ldx = 16) {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() == SimdLevel::Avx2 && sh == nullptr) {
    // the whole tile (4 vectors of rows, centres in groups of at most 3) or
    // one half (2 vectors, groups of at most 6)
    const index_t rows = half < 0 ? 16 : 8, max_cols = half < 0 ? 3 : 6;
    const index_t groups = (k + max_cols - 1) / max_cols;
    const index_t cols = (k + groups - 1) / groups;
    const double* xh = half < 0 ? x : x + 8 * half;
    double b[16] = {}, s2[16] = {}, w[16] = {};
    for (index_t q0 = 0; q0 < k; q0 += cols) {
      const int nc = static_cast<int>(std::min(cols, k - q0));
      if (half < 0)
        detail::nearest_tile_256<4>(nc, xh, ldx, p, c + q0, k, cnorm + q0, static_cast<int>(q0),
                                    q0 == 0, b, s2, w);
      else
        detail::nearest_tile_256<2>(nc, xh, ldx, p, c + q0, k, cnorm + q0, static_cast<int>(q0),
                                    q0 == 0, b, s2, w);
    }
    for (index_t r = 0; r < rows; ++r) {
      best[r] = b[r];
      second[r] = s2[r];
      which[r] = static_cast<int>(w[r]);
    }
    return true;
  }
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
// a time, AVX2 4, with the same comparisons, so the results are the same.
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
  index_t r = 0;
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() == SimdLevel::Avx2) {
    // (16 rows at a time, then 4; the last m % 4 by the loop below)
    const index_t m16 = m / 16 * 16, m4 = m / 4 * 4;
    detail::two_nearest_avx2_rows<4>(buf, m, 0, m16, k, cnorm, best, second, which);
    detail::two_nearest_avx2_rows<1>(buf, m, m16, m4, k, cnorm, best, second, which);
    r = m4;
  }
#endif
  for (; r < m; ++r) {
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

}  // namespace kmreduce

#endif  // KMREDUCE_KERNELS_NEAREST_HPP
