// kmreduce: single-precision packed rows (control$precision = "single",
// and the k-means|| rounds at large k: kmeans_parallel.hpp).
// The rows are packed in tiles of 16 as in packed.hpp, but as floats: half
// the memory and half the memory traffic of the double tiles, and twice the
// values per SIMD instruction. Only the products of the rows with centres
// (cross_block(), which every distance of the row-wise algorithms comes
// from) use them, accumulated in float and returned in double; row norms,
// cluster sums, moved rows and single rows are taken in double from the
// original matrix. The search of control$precision = "single" (seeding,
// Lloyd, the polish) runs on these rows; kmeans_single() (single.hpp) then
// finishes with Lloyd in double from its centres, so the result is a fixed
// point of Lloyd in double like any other.
//
// Range: the rows minus the shift are multiplied by a power of two that
// brings the largest |value| below 1 (and the centres by their own), so that
// data of any scale a double holds keep float's 24 bits relative to the
// largest value instead of overflowing or vanishing; the products are scaled
// back exactly. A few rows far from all the others (one at 1e30 among rows
// near 0) set that power alone: the other rows' products, about (1e-30)^2
// of the largest, then vanish below float's range, and the search sees
// distances of zero. holds_bulk() says whether the typical row's products
// stay within float's range with their 24 bits; where they do not, the
// callers search in double instead (kmeans_single(), the k-means|| rounds).
#ifndef KMREDUCE_PACKED_SINGLE_HPP
#define KMREDUCE_PACKED_SINGLE_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "matrix.hpp"
#include "nearest.hpp"
#include "packed.hpp"

namespace kmreduce {

namespace detail {

// The power-of-two exponent e with m * 2^-e < 1 (0 for 0 or a non-finite m).
// (Kept within +-1000, so that 2^-e is a finite, nonzero double.)
inline int scale_exponent(double m) {
  if (!(m > 0.0) || !std::isfinite(m)) return 0;
  int e = 0;
  std::frexp(m, &e);
  return std::max(-1000, std::min(1000, e));
}

#if defined(KMREDUCE_X86_SIMD)
// The products of NT tiles (16 rows each, d columns of 16 floats) with NC
// centres (float, column-major with leading dimension k): each one float
// FMA chain over the columns in order (both kernels below).
template <int NC, int NT>
__attribute__((target("avx512f"), always_inline)) inline void f32_products(
    const float* x, index_t d, const float* c, index_t k, __m512 (&acc)[NT][NC]) {
  KMREDUCE_UNROLL
  for (int t = 0; t < NT; ++t)
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) acc[t][q] = _mm512_setzero_ps();
  for (index_t j = 0; j < d; ++j) {
    __m512 xv[NT];
    KMREDUCE_UNROLL
    for (int t = 0; t < NT; ++t) xv[t] = _mm512_loadu_ps(x + (t * d + j) * 16);
    const float* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m512 b = _mm512_set1_ps(cj[q]);
      KMREDUCE_UNROLL
      for (int t = 0; t < NT; ++t) acc[t][q] = _mm512_fmadd_ps(xv[t], b, acc[t][q]);
    }
  }
}

// Rows 8 h .. 8 h + 7 of a tile's 16 float products, in double, times m
// (both kernels below).
__attribute__((target("avx512f"), always_inline)) inline __m512d f32_half_times(__m512 acc,
                                                                               int h,
                                                                               __m512d m) {
  return _mm512_mul_pd(h == 0 ? _mm512_cvtps_pd(_mm512_castps512_ps256(acc))
                              : _mm512_cvtps_pd(_mm256_castpd_ps(
                                    _mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1))),
                       m);
}

// NT tiles (16 rows each, d columns of 16 floats) times NC centres (float,
// column-major with leading dimension k): every product is one float FMA
// chain over the columns in order, then times `mult` in double.
template <int NC, int NT>
__attribute__((target("avx512f"))) void cross_tiles_f32_avx512(
    const float* x, index_t d, const float* c, index_t k, double mult, double* out,
    index_t ldo) {
  __m512 acc[NT][NC];
  f32_products<NC, NT>(x, d, c, k, acc);
  const __m512d m = _mm512_set1_pd(mult);
  KMREDUCE_UNROLL
  for (int t = 0; t < NT; ++t)
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      double* o = out + ldo * q + 16 * t;
      _mm512_storeu_pd(o, f32_half_times(acc[t][q], 0, m));
      _mm512_storeu_pd(o + 8, f32_half_times(acc[t][q], 1, m));
    }
}

// The products of one tile (two vectors of 8 rows) with NC centres, AVX2:
// each one float FMA chain over the columns in order (both kernels below).
template <int NC>
__attribute__((target("avx2,fma"), always_inline)) inline void f32_products_avx2(
    const float* x, index_t d, const float* c, index_t k, __m256 (&a0)[NC], __m256 (&a1)[NC]) {
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q) a0[q] = a1[q] = _mm256_setzero_ps();
  for (index_t j = 0; j < d; ++j) {
    const __m256 x0 = _mm256_loadu_ps(x + 16 * j), x1 = _mm256_loadu_ps(x + 16 * j + 8);
    const float* cj = c + k * j;
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m256 b = _mm256_set1_ps(cj[q]);
      a0[q] = _mm256_fmadd_ps(x0, b, a0[q]);
      a1[q] = _mm256_fmadd_ps(x1, b, a1[q]);
    }
  }
}

// Rows 4 v to 4 v + 3 of a tile's float products (a0: rows 0-7, a1: 8-15)
// in double, times mult (exact: a power of two).
__attribute__((target("avx2"), always_inline)) inline __m256d f32_quarter_times(__m256 a0,
                                                                               __m256 a1, int v,
                                                                               __m256d m) {
  const __m256 a = v < 2 ? a0 : a1;
  const __m128 h = v % 2 == 0 ? _mm256_castps256_ps128(a) : _mm256_extractf128_ps(a, 1);
  return _mm256_mul_pd(_mm256_cvtps_pd(h), m);
}

// One tile times NC centres, AVX2: the same chains.
template <int NC>
__attribute__((target("avx2,fma"))) void cross_tile_f32_avx2(
    const float* x, index_t d, const float* c, index_t k, double mult, double* out,
    index_t ldo) {
  __m256 a0[NC], a1[NC];
  f32_products_avx2<NC>(x, d, c, k, a0, a1);
  const __m256d m = _mm256_set1_pd(mult);
  KMREDUCE_UNROLL
  for (int q = 0; q < NC; ++q)
    KMREDUCE_UNROLL
    for (int v = 0; v < 4; ++v)
      _mm256_storeu_pd(out + ldo * q + 4 * v, f32_quarter_times(a0[q], a1[q], v, m));
}

// Fused, AVX2: the products of cross_tile_f32_avx2 (the same float chains,
// converted and scaled the same way), then the running nearest (b), second
// nearest (s2) and label (w, as doubles) of the tile's 16 rows updated with
// v = ||c_q||^2 - 2 x.c_q for q = q0, q0 + 1, ... with the comparisons of
// two_nearest_avx2_rows: the results of cross_block() then two_nearest().
template <int NC>
__attribute__((target("avx2,fma"))) void nearest_tile_f32_avx2(
    const float* x, index_t d, const float* c, index_t k, double mult, const double* cnorm,
    int q0, bool first, double* b, double* s2, double* w) {
  __m256 a0[NC], a1[NC];
  f32_products_avx2<NC>(x, d, c, k, a0, a1);
  const __m256d m = _mm256_set1_pd(mult), two = _mm256_set1_pd(2.0);
  KMREDUCE_UNROLL
  for (int v = 0; v < 4; ++v) {  // vectors of 4 rows
    NearestLanes4 lanes(b + 4 * v, s2 + 4 * v, w + 4 * v);
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q)
      lanes.take(_mm256_sub_pd(_mm256_set1_pd(cnorm[q]),
                               _mm256_mul_pd(two, f32_quarter_times(a0[q], a1[q], v, m))),
                 q0 + q, first && q == 0);
    lanes.store(b + 4 * v, s2 + 4 * v, w + 4 * v);
  }
}

inline void nearest_tile_f32_256(int nc, const float* x, index_t d, const float* c, index_t k,
                                 double mult, const double* cnorm, int q0, bool first, double* b,
                                 double* s2, double* w) {
  switch (nc) {
    case 1: nearest_tile_f32_avx2<1>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
    case 2: nearest_tile_f32_avx2<2>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
    case 3: nearest_tile_f32_avx2<3>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
    case 4: nearest_tile_f32_avx2<4>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
    case 5: nearest_tile_f32_avx2<5>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
    default: nearest_tile_f32_avx2<6>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
  }
}

// Fused: the products of cross_tiles_f32_avx512 (the same float chains,
// converted and scaled the same way), then the running nearest (b), second
// nearest (s2) and label (w) of the NT * 16 rows updated with
// v = ||c_q||^2 - 2 x.c_q for q = q0, q0 + 1, ... with the comparisons of
// two_nearest_avx512: the results of cross_block() then two_nearest().
template <int NC, int NT>
__attribute__((target("avx512f,avx512vl"))) void nearest_tiles_f32_avx512(
    const float* x, index_t d, const float* c, index_t k, double mult, const double* cnorm,
    int q0, bool first, double* b, double* s2, int* w) {
  __m512 acc[NT][NC];
  f32_products<NC, NT>(x, d, c, k, acc);
  const __m512d m = _mm512_set1_pd(mult), two = _mm512_set1_pd(2.0);
  KMREDUCE_UNROLL
  for (int h = 0; h < 2 * NT; ++h) {  // vectors of 8 rows
    const int t = h / 2;
    NearestLanes lanes(b + 8 * h, s2 + 8 * h, w + 8 * h);
    KMREDUCE_UNROLL
    for (int q = 0; q < NC; ++q) {
      const __m512d prod = f32_half_times(acc[t][q], h % 2, m);
      lanes.take(_mm512_sub_pd(_mm512_set1_pd(cnorm[q]), _mm512_mul_pd(two, prod)), q0 + q,
                 first && q == 0);
    }
    lanes.store(b + 8 * h, s2 + 8 * h, w + 8 * h);
  }
}

template <int NT>
inline void nearest_tiles_f32_512(int nc, const float* x, index_t d, const float* c, index_t k,
                                  double mult, const double* cnorm, int q0, bool first,
                                  double* b, double* s2, int* w) {
  switch (nc) {
#define KMREDUCE_F32_CASE(N) \
    case N: nearest_tiles_f32_avx512<N, NT>(x, d, c, k, mult, cnorm, q0, first, b, s2, w); break;
    KMREDUCE_F32_CASE(1) KMREDUCE_F32_CASE(2) KMREDUCE_F32_CASE(3) KMREDUCE_F32_CASE(4)
    KMREDUCE_F32_CASE(5) KMREDUCE_F32_CASE(6) KMREDUCE_F32_CASE(7) KMREDUCE_F32_CASE(8)
    KMREDUCE_F32_CASE(9) KMREDUCE_F32_CASE(10) KMREDUCE_F32_CASE(11)
#undef KMREDUCE_F32_CASE
    default: nearest_tiles_f32_avx512<12, NT>(x, d, c, k, mult, cnorm, q0, first, b, s2, w);
  }
}

template <int NT>
inline void cross_tiles_f32_512(int nc, const float* x, index_t d, const float* c, index_t k,
                                double mult, double* out, index_t ldo) {
  switch (nc) {
    case 1: cross_tiles_f32_avx512<1, NT>(x, d, c, k, mult, out, ldo); break;
    case 2: cross_tiles_f32_avx512<2, NT>(x, d, c, k, mult, out, ldo); break;
    case 3: cross_tiles_f32_avx512<3, NT>(x, d, c, k, mult, out, ldo); break;
    case 4: cross_tiles_f32_avx512<4, NT>(x, d, c, k, mult, out, ldo); break;
    case 5: cross_tiles_f32_avx512<5, NT>(x, d, c, k, mult, out, ldo); break;
    case 6: cross_tiles_f32_avx512<6, NT>(x, d, c, k, mult, out, ldo); break;
    case 7: cross_tiles_f32_avx512<7, NT>(x, d, c, k, mult, out, ldo); break;
    case 8: cross_tiles_f32_avx512<8, NT>(x, d, c, k, mult, out, ldo); break;
    case 9: cross_tiles_f32_avx512<9, NT>(x, d, c, k, mult, out, ldo); break;
    case 10: cross_tiles_f32_avx512<10, NT>(x, d, c, k, mult, out, ldo); break;
    case 11: cross_tiles_f32_avx512<11, NT>(x, d, c, k, mult, out, ldo); break;
    default: cross_tiles_f32_avx512<12, NT>(x, d, c, k, mult, out, ldo); break;
  }
}
inline void cross_tile_f32_256(int nc, const float* x, index_t d, const float* c, index_t k,
                               double mult, double* out, index_t ldo) {
  switch (nc) {
    case 1: cross_tile_f32_avx2<1>(x, d, c, k, mult, out, ldo); break;
    case 2: cross_tile_f32_avx2<2>(x, d, c, k, mult, out, ldo); break;
    case 3: cross_tile_f32_avx2<3>(x, d, c, k, mult, out, ldo); break;
    case 4: cross_tile_f32_avx2<4>(x, d, c, k, mult, out, ldo); break;
    case 5: cross_tile_f32_avx2<5>(x, d, c, k, mult, out, ldo); break;
    default: cross_tile_f32_avx2<6>(x, d, c, k, mult, out, ldo); break;
  }
}
#endif  // KMREDUCE_X86_SIMD

// Portable: one tile times nc centres, the same chains in plain loops.
inline void cross_tile_f32_portable(int nc, const float* x, index_t d, const float* c,
                                    index_t k, double mult, double* out, index_t ldo) {
  for (int q = 0; q < nc; ++q) {
    float acc[16] = {0.0f};
    for (index_t j = 0; j < d; ++j) {
      const float b = c[q + k * j];
      const float* xj = x + 16 * j;
      for (int l = 0; l < 16; ++l) acc[l] += xj[l] * b;
    }
    for (int l = 0; l < 16; ++l) out[ldo * q + l] = static_cast<double>(acc[l]) * mult;
  }
}

}  // namespace detail

// Whether the float tiles are kept (they take half the bytes of the double
// tiles: kept up to twice as many values as those).
inline bool keep_single_copy(index_t n, index_t d) {
  return static_cast<double>(n) * static_cast<double>(d) * sizeof(float) <=
         packed_copy_max_bytes();
}

struct PackedRowsF {
  static constexpr index_t T = 16;  // rows per tile
  const DenseMatrix& src;
  const double* shift;  // subtracted from every row, or nullptr
  index_t n, d, tiles;
  bool stored;
  int exponent;     // tiles hold (x - shift) * 2^-exponent, rounded to float
  double typical = 0.0;  // the median over up to 256 rows spread over them of
                         // the largest |x - shift| of a row
  detail::HugeBuffer<float> v;
  std::vector<double> norms;  // squared norms of the rows minus the shift (double)
  ValueSummary values;        // of the original values

  PackedRowsF(const DenseMatrix& a, int n_threads, const double* shift_, bool store)
      : src(a), shift(shift_), n(a.n), d(a.d), tiles((a.n + T - 1) / T), stored(store),
        exponent(0),
        v(store ? detail::huge_buffer<float>(static_cast<std::size_t>(tiles * a.d * T))
                : detail::HugeBuffer<float>()),
        norms(rows_array(static_cast<std::size_t>(tiles * T), 0.0)) {
    // The values first (column by column): the scale needs their range.
    std::vector<ValueSummary> col(static_cast<std::size_t>(d));
    parallel_for(d, n_threads, [&](index_t j, int) {
      col[j] = summarize_values(a.x + a.n * j, a.n);
    }, static_cast<double>(n) * d);
    double smax = 0.0;
    for (index_t j = 0; j < d; ++j) {
      values.merge(col[j]);
      if (shift != nullptr) smax = std::max(smax, std::fabs(shift[j]));
    }
    exponent = values.finite ? detail::scale_exponent(values.maxabs + smax) : 0;
    typical = typical_magnitude();
    // Norms (in double, of the values as the rows minus the shift) and, when
    // kept, the tiles: 16 tiles (one row block) at a time.
    const index_t per_block = kRowBlock / T;
    parallel_for(n_blocks(tiles, per_block), n_threads, [&](index_t b, int) {
      const index_t t0 = b * per_block, t1 = std::min(tiles, t0 + per_block);
      for (index_t j = 0; j < d; ++j) {
        const double* c = a.x + a.n * j;
        const double sj = shift != nullptr ? shift[j] : 0.0;
        for (index_t r = t0 * T; r < std::min(n, t1 * T); ++r) {
          const double x = c[r] - sj;
          norms[r] += x * x;
        }
      }
      if (stored)
        for (index_t t = t0; t < t1; ++t) pack_tile(t, v.get() + t * d * T);
    }, static_cast<double>(n) * d);
  }

  // Whether the typical row, scaled, is at least 2^-48: its products with
  // centres of its size, about 2^-96 at least, keep float's 24 bits above
  // its smallest normal number (2^-126).
  bool holds_bulk() const {
    return !(typical > 0.0) || std::ldexp(typical, -exponent) >= std::ldexp(1.0, -48);
  }

  // (typical: the rows i (n - 1) / (m - 1), rounded, m = min(n, 256))
  double typical_magnitude() const {
    const index_t m = std::min<index_t>(n, 256);
    if (m == 0) return 0.0;
    std::vector<double> top(static_cast<std::size_t>(m), 0.0);
    for (index_t i = 0; i < m; ++i) {
      const index_t r = m == 1 ? 0 : (i * (n - 1) + (m - 1) / 2) / (m - 1);
      for (index_t j = 0; j < d; ++j) {
        const double x = std::fabs(src.x[r + src.n * j] - (shift != nullptr ? shift[j] : 0.0));
        top[i] = std::max(top[i], x);
      }
    }
    // (NaN after every number: an order whatever the values, which are
    // checked after this, values.finite)
    std::nth_element(top.begin(), top.begin() + (m - 1) / 2, top.end(),
                     [](double u, double w) { return u < w || (w != w && u == u); });
    return top[(m - 1) / 2];
  }

  // Tile t, scaled and rounded (zero-padded when it is the last, partial one).
  void pack_tile(index_t t, float* out) const {
    const index_t r0 = t * T, len = std::min<index_t>(index_t(T), n - r0);
    const double f = std::ldexp(1.0, -exponent);  // (exact: a power of two)
    for (index_t j = 0; j < d; ++j) {
      const double* col = src.x + src.n * j + r0;
      float* dst = out + j * T;
      const double sj = shift != nullptr ? shift[j] : 0.0;
      for (index_t l = 0; l < len; ++l) dst[l] = static_cast<float>((col[l] - sj) * f);
      for (index_t l = len; l < T; ++l) dst[l] = 0.0f;
    }
  }

  // Tiles [t0, t0 + count): where they are kept, or packed now into a
  // per-thread buffer (valid until this thread's next call).
  const float* tiles_at(index_t t0, index_t count) const {
    if (stored) return v.get() + t0 * d * T;
    thread_local std::vector<float> buf;
    buf.resize(static_cast<std::size_t>(count * d * T));
    for (index_t t = 0; t < count; ++t) pack_tile(t0 + t, buf.data() + t * d * T);
    return buf.data();
  }
};

inline const double* row_sqnorms_of(const PackedRowsF& a, std::vector<double>& /*store*/,
                                    int /*n_threads*/) {
  return a.norms.data();
}
inline void row_sqnorms(const PackedRowsF& a, double* out, int /*n_threads*/) {
  std::copy(a.norms.begin(), a.norms.begin() + a.n, out);
}

// The centres in float, multiplied by a power of two of their own (once per
// pass: see prepare_centres() in matrix.hpp).
inline CentreView prepare_centres(const PackedRowsF& a, const double* c, index_t k) {
  CentreView cv{c, std::vector<float>(static_cast<std::size_t>(k * a.d)), 0};
  double cmax = 0.0;
  for (index_t i = 0; i < k * a.d; ++i) cmax = std::max(cmax, std::fabs(c[i]));
  cv.exponent = detail::scale_exponent(cmax);
  const double f = std::ldexp(1.0, -cv.exponent);
  for (index_t i = 0; i < k * a.d; ++i) cv.f[i] = static_cast<float>(c[i] * f);
  return cv;
}

// Float accumulation over d columns: rounding up to about (d + 2) 2^-24
// relative to ||x||^2 + ||c||^2.
inline double product_slack(const PackedRowsF& a) {
  return 2.0 * static_cast<double>(a.d + 2) * std::ldexp(1.0, -24);
}

// out (m x k) = rows [r0, r1) times C^T, from the float tiles: whole tiles
// from the one holding r0, every row through the same arithmetic wherever it
// sits (results do not depend on the blocking or the thread count).
inline void cross_block(const PackedRowsF& a, index_t r0, index_t r1, const CentreView& cv,
                        index_t k, double* out) {
  constexpr index_t T = PackedRowsF::T;
  const index_t m = r1 - r0, d = a.d;
  const std::vector<float>& cf = cv.f;
  const double mult = std::ldexp(1.0, a.exponent + cv.exponent);
  const index_t off = r0 % T;
  const index_t tiles = (off + m + T - 1) / T;
  const index_t ld = tiles * T;
  // Whole tiles are written in place, part tiles through a buffer.
  thread_local std::vector<double> part;
  const bool whole = off == 0 && m == ld;
  if (!whole) part.resize(static_cast<std::size_t>(ld * k));
  double* res = whole ? out : part.data();
  const float* xs = a.tiles_at(r0 / T, tiles);
#if defined(KMREDUCE_X86_SIMD)
  const SimdLevel level = simd_level();
#endif
  index_t t = 0;
#if defined(KMREDUCE_X86_SIMD)
  if (level == SimdLevel::Avx512) {
    // Centres in equal groups of at most 12, tiles in pairs.
    const index_t groups = (k + 11) / 12, cols = (k + groups - 1) / groups;
    for (; t + 2 <= tiles; t += 2)
      for (index_t q0 = 0; q0 < k; q0 += cols)
        detail::cross_tiles_f32_512<2>(static_cast<int>(std::min(cols, k - q0)),
                                       xs + t * d * T, d, cf.data() + q0, k, mult,
                                       res + t * T + ld * q0, ld);
    for (; t < tiles; ++t)
      for (index_t q0 = 0; q0 < k; q0 += cols)
        detail::cross_tiles_f32_512<1>(static_cast<int>(std::min(cols, k - q0)),
                                       xs + t * d * T, d, cf.data() + q0, k, mult,
                                       res + t * T + ld * q0, ld);
  } else if (level == SimdLevel::Avx2) {
    const index_t groups = (k + 5) / 6, cols = (k + groups - 1) / groups;
    for (; t < tiles; ++t)
      for (index_t q0 = 0; q0 < k; q0 += cols)
        detail::cross_tile_f32_256(static_cast<int>(std::min(cols, k - q0)), xs + t * d * T,
                                   d, cf.data() + q0, k, mult, res + t * T + ld * q0,
                                   ld);
  }
#endif
  for (; t < tiles; ++t)
    detail::cross_tile_f32_portable(static_cast<int>(k), xs + t * d * T, d, cf.data(), k,
                                    mult, res + t * T, ld);
  if (!whole)
    for (index_t q = 0; q < k; ++q)
      std::copy(res + ld * q + off, res + ld * q + off + m, out + m * q);
}

// The nearest centres of rows [r0, r1) from their float tiles, fused
// (AVX-512, AVX2): the same results as cross_block() then two_nearest().
inline bool nearest_block(const PackedRowsF& a, index_t r0, index_t r1, const CentreView& cv,
                          const double* cnorm, index_t k, double* best, double* second,
                          int* which) {
#if defined(KMREDUCE_X86_SIMD)
  constexpr index_t T = PackedRowsF::T;
  const index_t m = r1 - r0, off = r0 % T, d = a.d;
  const index_t tiles = (off + m + T - 1) / T;
  if (simd_level() == SimdLevel::Avx2) {
    const float* xs = a.tiles_at(r0 / T, tiles);
    const double mult = std::ldexp(1.0, a.exponent + cv.exponent);
    const index_t groups = (k + 5) / 6, cols = (k + groups - 1) / groups;
    double b[T] = {}, s[T] = {}, w[T] = {};
    for (index_t t = 0; t < tiles; ++t) {
      for (index_t q0 = 0; q0 < k; q0 += cols)
        detail::nearest_tile_f32_256(static_cast<int>(std::min(cols, k - q0)), xs + t * d * T,
                                     d, cv.f.data() + q0, k, mult, cnorm + q0,
                                     static_cast<int>(q0), q0 == 0, b, s, w);
      // rows of this tile in [r0, r1)
      for (index_t l = 0; l < T; ++l) {
        const index_t r = (r0 / T + t) * T + l;
        if (r < r0 || r >= r1) continue;
        best[r - r0] = b[l];
        if (second != nullptr) second[r - r0] = s[l];
        which[r - r0] = static_cast<int>(w[l]);
      }
    }
    return true;
  }
  const bool vl = cpu_features().avx512vl;
  if (simd_level() != SimdLevel::Avx512 || !vl) return false;
  const float* xs = a.tiles_at(r0 / T, tiles);
  const double mult = std::ldexp(1.0, a.exponent + cv.exponent);
  const index_t groups = (k + 11) / 12, cols = (k + groups - 1) / groups;
  double b[2 * T], s[2 * T];
  int w[2 * T];
  for (index_t t = 0; t < tiles;) {
    const index_t nt = tiles - t >= 2 ? 2 : 1;
    for (index_t q0 = 0; q0 < k; q0 += cols) {
      const int nc = static_cast<int>(std::min(cols, k - q0));
      if (nt == 2)
        detail::nearest_tiles_f32_512<2>(nc, xs + t * d * T, d, cv.f.data() + q0, k, mult,
                                         cnorm + q0, static_cast<int>(q0), q0 == 0, b, s, w);
      else
        detail::nearest_tiles_f32_512<1>(nc, xs + t * d * T, d, cv.f.data() + q0, k, mult,
                                         cnorm + q0, static_cast<int>(q0), q0 == 0, b, s, w);
    }
    // rows of these tiles in [r0, r1)
    for (index_t l = 0; l < nt * T; ++l) {
      const index_t r = (r0 / T + t) * T + l;
      if (r < r0 || r >= r1) continue;
      best[r - r0] = b[l];
      if (second != nullptr) second[r - r0] = s[l];
      which[r - r0] = w[l];
    }
    t += nt;
  }
  return true;
#else
  (void)a; (void)r0; (void)r1; (void)cv; (void)cnorm; (void)k; (void)best; (void)second;
  (void)which;
  return false;
#endif
}

inline void cross_block(const PackedRowsF& a, index_t r0, index_t r1, const double* c,
                        index_t k, double* out) {
  cross_block(a, r0, r1, prepare_centres(a, c, k), k, out);
}

// What the algorithms read in double: from the column-major original, minus
// the shift (as the double tiles of packed.hpp when they are not kept).
inline void get_row(const PackedRowsF& a, index_t r, double* out) {
  get_row(a.src, r, out);
  if (a.shift != nullptr)
    for (index_t j = 0; j < a.d; ++j) out[j] -= a.shift[j];
}

inline void cluster_sums(const PackedRowsF& a, const int* label, index_t k, double* sums,
                         int n_threads) {
  shifted_cluster_sums(a.src, a.shift, label, k, sums, n_threads);
}

inline void move_rows(const PackedRowsF& a, const std::vector<index_t>& rows, const int* from,
                      const int* to, index_t k, double* sums, int /*n_threads*/) {
  detail::move_rows_by_row(a, rows, from, to, k, sums);
}

inline void weighted_cluster_sums(const PackedRowsF& a, const int* label, const double* w,
                                  index_t k, double* sums, int n_threads) {
  weighted_cluster_sums(a.src, label, w, k, sums, n_threads, a.shift);
}

}  // namespace kmreduce

#endif  // KMREDUCE_PACKED_SINGLE_HPP
