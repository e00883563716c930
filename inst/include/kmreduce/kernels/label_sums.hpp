// kmreduce: AVX-512 and AVX2 kernels for sums by cluster label over the
// columns of a column-major matrix: the cluster sums of Lloyd and of the
// statistics, and each row's squared distance to its cluster centre.
//
// Scalar code adds x[r] into acc[label[r]]: a load, an add and a store per
// value, chained whenever a cluster recurs. Here eight rows are one vector
// and cluster q has its own vector accumulator, added under the bit mask of
// the rows with label q (masks computed once per call), or the centres of
// a column sit in two registers and each row picks its own with a
// permutation. On AVX2 (any k) four columns are taken at a time: four rows
// of them transposed in registers, each row added to its cluster's
// four-wide accumulator (label_sums_columns4, and the two sweeps of the
// statistics, label_stats_columns4). Every sum has a fixed order (lanes,
// then a fixed reduction), so results do not depend on the number of threads.
#ifndef KMREDUCE_LABEL_SUMS_HPP
#define KMREDUCE_LABEL_SUMS_HPP

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/simd.hpp"

namespace kmreduce {

constexpr index_t kMaxMaskedClusters = 16;

// The sum of four copies of an accumulator (copy c of entry q at acc[c k +
// q]), in a fixed order: the copies of add_by_label4 (matrix.hpp) and, with
// stride 4 k, of the AVX2 kernels below.
inline double sum4(const double* acc, index_t k, index_t q) {
  return ((acc[q] + acc[k + q]) + acc[2 * k + q]) + acc[3 * k + q];
}

// Whether the kernels below serve k clusters on this CPU.
inline bool label_kernels(index_t k) {
#ifdef KMREDUCE_X86_SIMD
  const bool vl = cpu_features().avx512vl;
  return k >= 1 && k <= kMaxMaskedClusters && simd_level() == SimdLevel::Avx512 && vl;
#else
  (void)k;
  return false;
#endif
}

namespace detail {
// label_masks() for the groups [g0, g1) (scalar: one bit per row).
inline void label_masks_scalar(const int* label, index_t n, index_t k, index_t g0, index_t g1,
                               std::uint8_t* m) {
  for (index_t r = 8 * g0; r < std::min(n, 8 * g1); ++r)
    m[(r / 8) * k + label[r]] |= static_cast<std::uint8_t>(1u << (r % 8));
}
#ifdef KMREDUCE_X86_SIMD
// The same masks from 8 labels at a time, one comparison per cluster.
__attribute__((target("avx512f,avx512vl"))) inline void label_masks_avx512(
    const int* label, index_t n, index_t k, index_t g0, index_t g1, std::uint8_t* m) {
  const index_t full = n / 8;
  for (index_t g = g0; g < g1; ++g) {
    const __mmask8 lanes =
        g < full ? static_cast<__mmask8>(0xff) : static_cast<__mmask8>((1u << (n % 8)) - 1u);
    const __m256i l = _mm256_maskz_loadu_epi32(lanes, label + 8 * g);
    std::uint8_t* mg = m + g * k;
    for (index_t q = 0; q < k; ++q)
      mg[q] = static_cast<std::uint8_t>(
          _mm256_mask_cmpeq_epi32_mask(lanes, l, _mm256_set1_epi32(static_cast<int>(q))));
  }
}
#endif
}  // namespace detail

// For each group of 8 rows g and cluster q: bit l of masks[g * k + q] is set
// when row 8 g + l has label q (labels in [0, k)). Groups in runs on the
// threads (each writes its own bytes).
inline std::vector<std::uint8_t> label_masks(const int* label, index_t n, index_t k,
                                             int n_threads = 1) {
  std::vector<std::uint8_t> m =
      rows_array(static_cast<std::size_t>((n + 7) / 8 * k), std::uint8_t(0));
  const index_t groups = (n + 7) / 8;
  constexpr index_t run = 8192;  // groups per task
#ifdef KMREDUCE_X86_SIMD
  const bool vl = cpu_features().avx512vl;
  const bool vec = simd_level() == SimdLevel::Avx512 && vl;
#endif
  parallel_for(n_blocks(groups, run), n_threads, [&](index_t b, int) {
    const index_t g0 = b * run, g1 = std::min(groups, g0 + run);
#ifdef KMREDUCE_X86_SIMD
    if (vec) {
      detail::label_masks_avx512(label, n, k, g0, g1, m.data());
      return;
    }
#endif
    detail::label_masks_scalar(label, n, k, g0, g1, m.data());
  }, static_cast<double>(n) * static_cast<double>(k) / 8.0);
  return m;
}

namespace detail {
#ifdef KMREDUCE_X86_SIMD

// out[q] = sum of col[r] over the rows with label q (K clusters); Weighted:
// of w[r] (col[r] - shift).
template <int K, bool Weighted>
__attribute__((target("avx512f"))) void column_label_sums(
    const double* col, const double* w, double shift, index_t n, const std::uint8_t* masks,
    double* out) {
  __m512d acc[K];
  KMREDUCE_UNROLL
  for (int q = 0; q < K; ++q) acc[q] = _mm512_setzero_pd();
  const __m512d s = _mm512_set1_pd(shift);
  const index_t groups = (n + 7) / 8, full = n / 8;
  const __mmask8 tail = static_cast<__mmask8>((1u << (n % 8)) - 1u);
  for (index_t g = 0; g < groups; ++g) {
    // (whole groups by plain loads: with masked loads in the loop, the
    // weighted sums took 3.6x longer)
    __m512d x;
    if (!Weighted) {
      x = g < full ? _mm512_loadu_pd(col + 8 * g) : _mm512_maskz_loadu_pd(tail, col + 8 * g);
    } else if (g < full) {
      x = _mm512_mul_pd(_mm512_loadu_pd(w + 8 * g),
                        _mm512_sub_pd(_mm512_loadu_pd(col + 8 * g), s));
    } else {
      x = _mm512_mul_pd(_mm512_maskz_loadu_pd(tail, w + 8 * g),
                        _mm512_maskz_sub_pd(tail, _mm512_maskz_loadu_pd(tail, col + 8 * g), s));
    }
    const std::uint8_t* mg = masks + g * K;
    KMREDUCE_UNROLL
    for (int q = 0; q < K; ++q)
      acc[q] = _mm512_mask_add_pd(acc[q], static_cast<__mmask8>(mg[q]), acc[q], x);
  }
  KMREDUCE_UNROLL
  for (int q = 0; q < K; ++q) out[q] = _mm512_reduce_add_pd(acc[q]);
}

// column_label_sums() for k clusters (at most 16), weighted when w is given.
inline void column_label_sums_k(index_t k, const double* col, const double* w, double shift,
                                index_t n, const std::uint8_t* masks, double* out) {
  auto run = [&](auto kk) {
    constexpr int K = decltype(kk)::value;
    if (w != nullptr) {
      column_label_sums<K, true>(col, w, shift, n, masks, out);
    } else {
      column_label_sums<K, false>(col, nullptr, 0.0, n, masks, out);
    }
  };
  switch (k) {
#define KMREDUCE_K(K) \
  case K: run(std::integral_constant<int, K>()); break;
    KMREDUCE_K(1) KMREDUCE_K(2) KMREDUCE_K(3) KMREDUCE_K(4) KMREDUCE_K(5)
    KMREDUCE_K(6) KMREDUCE_K(7) KMREDUCE_K(8) KMREDUCE_K(9) KMREDUCE_K(10)
    KMREDUCE_K(11) KMREDUCE_K(12) KMREDUCE_K(13) KMREDUCE_K(14) KMREDUCE_K(15)
    default: run(std::integral_constant<int, 16>()); break;
#undef KMREDUCE_K
  }
}

// Rows [r0, r1) of a column-major n x d matrix (r0 a multiple of 8):
// dist[r - r0] = sum_j (x[r, j] - centres[label[r], j])^2 and the returned
// value sum_r sum_j (x[r, j] - mean[j])^2, both summed over j in order.
// `lanes` is scratch of (r1 - r0 + 7) / 8 * 8 doubles. Also adds the sum of
// squares of the block to *sumsq.
__attribute__((target("avx512f,avx512vl"))) inline double row_deviations_avx512(
    const double* x, index_t n, index_t d, index_t r0, index_t r1,
    const int* label, const double* centres, index_t k, const double* mean,
    double* lanes, double* sumsq) {
  const index_t groups = (r1 - r0 + 7) / 8, full = (r1 - r0) / 8;
  const __mmask8 tail = static_cast<__mmask8>((1u << ((r1 - r0) % 8)) - 1u);
  const __mmask8 lo = static_cast<__mmask8>(k >= 8 ? 0xff : (1u << k) - 1u);
  const __mmask8 hi = static_cast<__mmask8>(k <= 8 ? 0u : (1u << (k - 8)) - 1u);
  // The labels of each group as 64-bit permutation indices.
  std::vector<long long> idx(static_cast<std::size_t>(groups * 8));
  for (index_t g = 0; g < groups; ++g) {
    const __mmask8 m = g < full ? static_cast<__mmask8>(0xff) : tail;
    _mm512_storeu_si512(idx.data() + 8 * g, _mm512_cvtepi32_epi64(
        _mm256_maskz_loadu_epi32(m, label + r0 + 8 * g)));
    _mm512_storeu_pd(lanes + 8 * g, _mm512_setzero_pd());
  }
  __m512d tot = _mm512_setzero_pd(), sq = _mm512_setzero_pd();
  for (index_t j = 0; j < d; ++j) {
    const double* col = x + n * j + r0;
    const __m512d c_lo = _mm512_maskz_loadu_pd(lo, centres + k * j);
    const __m512d c_hi = _mm512_maskz_loadu_pd(hi, centres + k * j + 8);
    const __m512d mu = _mm512_set1_pd(mean[j]);
    // The next column's rows of the block are fetched while this one is
    // summed: one cache line per group of 8 rows.
    const char* next = reinterpret_cast<const char*>(j + 1 < d ? col + n : col);
    for (index_t g = 0; g < groups; ++g) {
      _mm_prefetch(next + 64 * g, _MM_HINT_T0);
      const __mmask8 m = g < full ? static_cast<__mmask8>(0xff) : tail;
      const __m512d v = _mm512_maskz_loadu_pd(m, col + 8 * g);
      const __m512d e = _mm512_maskz_sub_pd(
          m, v, _mm512_permutex2var_pd(c_lo, _mm512_loadu_si512(idx.data() + 8 * g), c_hi));
      const __m512d f = _mm512_maskz_sub_pd(m, v, mu);
      _mm512_storeu_pd(lanes + 8 * g,
                       _mm512_fmadd_pd(e, e, _mm512_loadu_pd(lanes + 8 * g)));
      tot = _mm512_fmadd_pd(f, f, tot);
      sq = _mm512_fmadd_pd(v, v, sq);
    }
  }
  *sumsq = _mm512_reduce_add_pd(sq);
  return _mm512_reduce_add_pd(tot);
}

// Four rows r.. r + 3 of the columns c0.. c3: the columns' vectors a_.. d_
// and, transposed, the rows' vectors row0_.. row3_ (each the four columns
// of one row). (A macro, not a lambda: a lambda would not get the calling
// function's target.)
#define KMREDUCE_TRANSPOSE4(r)                                                      \
  const __m256d a_ = _mm256_loadu_pd(c0 + (r)), b_ = _mm256_loadu_pd(c1 + (r));    \
  const __m256d c_ = _mm256_loadu_pd(c2 + (r)), d_ = _mm256_loadu_pd(c3 + (r));    \
  const __m256d t0_ = _mm256_unpacklo_pd(a_, b_), t1_ = _mm256_unpackhi_pd(a_, b_); \
  const __m256d t2_ = _mm256_unpacklo_pd(c_, d_), t3_ = _mm256_unpackhi_pd(c_, d_); \
  const __m256d row0_ = _mm256_permute2f128_pd(t0_, t2_, 0x20);                     \
  const __m256d row1_ = _mm256_permute2f128_pd(t1_, t3_, 0x20);                     \
  const __m256d row2_ = _mm256_permute2f128_pd(t0_, t2_, 0x31);                     \
  const __m256d row3_ = _mm256_permute2f128_pd(t1_, t3_, 0x31)

// `value` (the four columns of row `row`) added to its cluster's four-wide
// accumulator in copy `copy` of acc (16 k doubles: copy, cluster, column).
#define KMREDUCE_ADD_TO_COPY(copy, row, value)                                 \
  do {                                                                         \
    double* p_ = acc + 4 * ((copy) * k + label[row]);                          \
    _mm256_storeu_pd(p_, _mm256_add_pd(_mm256_loadu_pd(p_), (value)));         \
  } while (0)

// The four lanes of v summed in lane order (((v0 + v1) + v2) + v3).
// (Always inlined: no vector passed through a stack that MinGW would not
// align.)
__attribute__((target("avx2"), always_inline)) inline double lane_sum_avx2(__m256d v) {
  double l[4];  // (an unaligned store: MinGW does not align the stack beyond 16 bytes)
  _mm256_storeu_pd(l, v);
  return ((l[0] + l[1]) + l[2]) + l[3];
}

// AVX2, any k: the sums by label of four columns j0.. j0 + m - 1 (m <= 4;
// the missing columns' lanes read column j0 and are not used). Four rows of
// the four columns are loaded as columns and transposed in registers; row r
// is then added to its cluster's four-wide accumulator in copy r % 4 (no
// chain of dependent adds when a cluster recurs), the copies summed in a
// fixed order and added to sums (k x d). acc: scratch of 16 k doubles.
// Weighted: of w[r] (x[r, j] - shift[j]) (shift may be null).
template <bool Weighted>
__attribute__((target("avx2"))) void label_sums_block4_avx2(
    const double* x, index_t n, index_t j0, index_t m, const int* label, index_t k,
    const double* w, const double* shift, double* acc, double* sums) {
  std::fill(acc, acc + 16 * k, 0.0);
  const double* c0 = x + n * j0;
  const double* c1 = m > 1 ? c0 + n : c0;
  const double* c2 = m > 2 ? c0 + 2 * n : c0;
  const double* c3 = m > 3 ? c0 + 3 * n : c0;
  double sh[4] = {0.0, 0.0, 0.0, 0.0};
  if (shift != nullptr)
    for (index_t t = 0; t < m; ++t) sh[t] = shift[j0 + t];
  const __m256d s = _mm256_loadu_pd(sh);
  // (a macro, not a lambda: a lambda would not get this function's target)
#define KMREDUCE_ADD4(copy, row, value)                                        \
  KMREDUCE_ADD_TO_COPY(copy, row,                                              \
                       Weighted ? _mm256_mul_pd(_mm256_set1_pd(w[row]),        \
                                                _mm256_sub_pd((value), s))     \
                                : (value))
  index_t r = 0;
  for (; r + 4 <= n; r += 4) {
    KMREDUCE_TRANSPOSE4(r);
    KMREDUCE_ADD4(0, r, row0_);
    KMREDUCE_ADD4(1, r + 1, row1_);
    KMREDUCE_ADD4(2, r + 2, row2_);
    KMREDUCE_ADD4(3, r + 3, row3_);
  }
  for (; r < n; ++r) KMREDUCE_ADD4(0, r, _mm256_set_pd(c3[r], c2[r], c1[r], c0[r]));
#undef KMREDUCE_ADD4
  for (index_t t = 0; t < m; ++t)
    for (index_t q = 0; q < k; ++q) sums[q + k * (j0 + t)] += sum4(acc + t, 4 * k, 4 * q);
}

// The first sweep of label_stats_block4_avx2() over the columns col[0..4):
// each cluster's sums (rows transposed in registers and added in copy
// r % 4, as label_sums_block4_avx2) into acc (16 k), each column's sum and
// sum of squares (four rows per lane) into sum[4] and sumsq[4].
__attribute__((target("avx2,fma"))) inline void label_stats_sums_avx2(
    const double* const* col, index_t n, const int* label, index_t k, double* acc,
    double* sum, double* sumsq) {
  const double *c0 = col[0], *c1 = col[1], *c2 = col[2], *c3 = col[3];
  const index_t body = n - n % 4;
  std::fill(acc, acc + 16 * k, 0.0);
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  __m256d q0 = s0, q1 = s0, q2 = s0, q3 = s0;
  for (index_t r = 0; r < body; r += 4) {
    KMREDUCE_TRANSPOSE4(r);
    s0 = _mm256_add_pd(s0, a_); q0 = _mm256_fmadd_pd(a_, a_, q0);
    s1 = _mm256_add_pd(s1, b_); q1 = _mm256_fmadd_pd(b_, b_, q1);
    s2 = _mm256_add_pd(s2, c_); q2 = _mm256_fmadd_pd(c_, c_, q2);
    s3 = _mm256_add_pd(s3, d_); q3 = _mm256_fmadd_pd(d_, d_, q3);
    KMREDUCE_ADD_TO_COPY(0, r, row0_);
    KMREDUCE_ADD_TO_COPY(1, r + 1, row1_);
    KMREDUCE_ADD_TO_COPY(2, r + 2, row2_);
    KMREDUCE_ADD_TO_COPY(3, r + 3, row3_);
  }
  for (index_t r = body; r < n; ++r)
    KMREDUCE_ADD_TO_COPY(0, r, _mm256_set_pd(c3[r], c2[r], c1[r], c0[r]));
  sum[0] = lane_sum_avx2(s0); sum[1] = lane_sum_avx2(s1);
  sum[2] = lane_sum_avx2(s2); sum[3] = lane_sum_avx2(s3);
  sumsq[0] = lane_sum_avx2(q0); sumsq[1] = lane_sum_avx2(q1);
  sumsq[2] = lane_sum_avx2(q2); sumsq[3] = lane_sum_avx2(q3);
  for (int t = 0; t < 4; ++t) {
    for (index_t r = body; r < n; ++r) {
      sum[t] += col[t][r];
      sumsq[t] += col[t][r] * col[t][r];
    }
  }
}

// The second sweep: each row's squared deviations from its centre (cc: k
// rows of the four columns' centres) by cluster, in copy r % 4, into acc
// (16 k), and from the column means into dev[4].
__attribute__((target("avx2,fma"))) inline void label_stats_deviations_avx2(
    const double* const* col, index_t n, const int* label, index_t k, const double* cc,
    const double* mean, double* acc, double* dev) {
  const double *c0 = col[0], *c1 = col[1], *c2 = col[2], *c3 = col[3];
  const index_t body = n - n % 4;
  std::fill(acc, acc + 16 * k, 0.0);
  const __m256d m0 = _mm256_set1_pd(mean[0]), m1 = _mm256_set1_pd(mean[1]);
  const __m256d m2 = _mm256_set1_pd(mean[2]), m3 = _mm256_set1_pd(mean[3]);
  __m256d f0 = _mm256_setzero_pd(), f1 = f0, f2 = f0, f3 = f0;
#define KMREDUCE_DEV_ROW(copy, row, value)                                     \
  do {                                                                         \
    const __m256d e_ = _mm256_sub_pd((value), _mm256_loadu_pd(cc + 4 * label[row])); \
    double* p_ = acc + 4 * ((copy) * k + label[row]);                          \
    _mm256_storeu_pd(p_, _mm256_fmadd_pd(e_, e_, _mm256_loadu_pd(p_)));       \
  } while (0)
  for (index_t r = 0; r < body; r += 4) {
    KMREDUCE_TRANSPOSE4(r);
    const __m256d e0 = _mm256_sub_pd(a_, m0), e1 = _mm256_sub_pd(b_, m1);
    const __m256d e2 = _mm256_sub_pd(c_, m2), e3 = _mm256_sub_pd(d_, m3);
    f0 = _mm256_fmadd_pd(e0, e0, f0); f1 = _mm256_fmadd_pd(e1, e1, f1);
    f2 = _mm256_fmadd_pd(e2, e2, f2); f3 = _mm256_fmadd_pd(e3, e3, f3);
    KMREDUCE_DEV_ROW(0, r, row0_);
    KMREDUCE_DEV_ROW(1, r + 1, row1_);
    KMREDUCE_DEV_ROW(2, r + 2, row2_);
    KMREDUCE_DEV_ROW(3, r + 3, row3_);
  }
  for (index_t r = body; r < n; ++r)
    KMREDUCE_DEV_ROW(0, r, _mm256_set_pd(c3[r], c2[r], c1[r], c0[r]));
#undef KMREDUCE_DEV_ROW
  dev[0] = lane_sum_avx2(f0); dev[1] = lane_sum_avx2(f1);
  dev[2] = lane_sum_avx2(f2); dev[3] = lane_sum_avx2(f3);
  for (int t = 0; t < 4; ++t) {
    for (index_t r = body; r < n; ++r) {
      const double f = col[t][r] - mean[t];
      dev[t] += f * f;
    }
  }
}
#undef KMREDUCE_TRANSPOSE4
#undef KMREDUCE_ADD_TO_COPY

// AVX2, any k: the statistics of four columns j0.. j0 + m - 1 (m <= 4; the
// missing columns' lanes read column j0 and are not used), in two sweeps
// over their rows (label_stats_sums_avx2, label_stats_deviations_avx2); the
// centres are the sums over the cluster sizes. Writes, for column j = j0 +
// t: centres[q + k j], w[q + k j] (within-cluster sums of squares), tot[j]
// (about the column mean) and sq[j] (sum of squares). Squared differences
// are summed directly, as the portable loop. acc: scratch of 16 k doubles;
// cc: of 4 k.
inline void label_stats_block4_avx2(const double* x, index_t n, index_t j0, index_t m,
                                    const int* label, index_t k, const index_t* size,
                                    double* acc, double* cc, double* centres, double* w,
                                    double* tot, double* sq) {
  const double* c0 = x + n * j0;
  const double* col[4] = {c0, m > 1 ? c0 + n : c0, m > 2 ? c0 + 2 * n : c0,
                          m > 3 ? c0 + 3 * n : c0};
  double sum[4], sumsq[4], mean[4], dev[4];
  label_stats_sums_avx2(col, n, label, k, acc, sum, sumsq);
  for (int t = 0; t < 4; ++t) mean[t] = sum[t] / static_cast<double>(n);
  for (index_t q = 0; q < k; ++q)
    for (int t = 0; t < 4; ++t) {
      const double total = sum4(acc + t, 4 * k, 4 * q);
      cc[4 * q + t] = size[q] > 0 ? total / static_cast<double>(size[q]) : 0.0;
      if (t < m) centres[q + k * (j0 + t)] = cc[4 * q + t];
    }
  label_stats_deviations_avx2(col, n, label, k, cc, mean, acc, dev);
  for (index_t t = 0; t < m; ++t) {
    sq[j0 + t] = sumsq[t];
    tot[j0 + t] = dev[t];
    for (index_t q = 0; q < k; ++q) w[q + k * (j0 + t)] = sum4(acc + t, 4 * k, 4 * q);
  }
}

#endif  // KMREDUCE_X86_SIMD
}  // namespace detail

// The statistics of cluster_stats() (centres, k x d; within-cluster sums of
// squares by column, k x d; sums of squares about the column means and
// about zero, d each) for any k on AVX2, four columns at a time, in
// parallel over the blocks of four (each column's sums in a fixed order,
// the same for every thread count). size: the k cluster sizes. Requires
// label_kernels4().
inline void label_stats_columns4(const double* x, index_t n, index_t d, const int* label,
                                 index_t k, const index_t* size, double* centres, double* w,
                                 double* tot, double* sq, int n_threads) {
#ifdef KMREDUCE_X86_SIMD
  struct Scratch {
    std::vector<double> acc, cc;
  };
  parallel_for_scratch<Scratch>(n_blocks(d, 4), n_threads, [&](index_t b, Scratch& s) {
    s.acc.resize(static_cast<std::size_t>(16 * k));
    s.cc.resize(static_cast<std::size_t>(4 * k));
    const index_t j0 = 4 * b, m = std::min<index_t>(4, d - j0);
    detail::label_stats_block4_avx2(x, n, j0, m, label, k, size, s.acc.data(), s.cc.data(),
                                    centres, w, tot, sq);
  }, 2.0 * static_cast<double>(n) * d);
#else
  (void)x; (void)n; (void)d; (void)label; (void)k; (void)size; (void)centres; (void)w;
  (void)tot; (void)sq; (void)n_threads;
#endif
}

// Whether label_sums_columns4() runs here (AVX2 or AVX-512 CPUs, any k).
inline bool label_kernels4() {
#ifdef KMREDUCE_X86_SIMD
  return simd_level() != SimdLevel::Portable;
#else
  return false;
#endif
}

// label_sums_columns() for any k on AVX2 (four columns at a time, in
// parallel over the blocks of four: each column's sums in a fixed order, the
// same for every thread count). Requires label_kernels4().
inline void label_sums_columns4(const double* x, index_t n, index_t d, const int* label,
                                index_t k, double* sums, int n_threads,
                                const double* w = nullptr, const double* shift = nullptr) {
#ifdef KMREDUCE_X86_SIMD
  parallel_for_scratch<std::vector<double>>(n_blocks(d, 4), n_threads,
                                            [&](index_t b, std::vector<double>& acc) {
    acc.resize(static_cast<std::size_t>(16 * k));
    const index_t j0 = 4 * b, m = std::min<index_t>(4, d - j0);
    if (w != nullptr) {
      detail::label_sums_block4_avx2<true>(x, n, j0, m, label, k, w, shift, acc.data(), sums);
    } else {
      detail::label_sums_block4_avx2<false>(x, n, j0, m, label, k, nullptr, nullptr, acc.data(),
                                            sums);
    }
  }, (w != nullptr ? 2.0 : 1.0) * static_cast<double>(n) * d);
#else
  (void)x; (void)n; (void)d; (void)label; (void)k; (void)sums; (void)n_threads; (void)w;
  (void)shift;
#endif
}

// sums (k x d, column-major) += per-cluster sums of the columns of the
// column-major n x d matrix x; with w (one weight per row), of w[r] (x[r, j]
// - shift[j]) (shift may be null). Requires label_kernels(k).
inline void label_sums_columns(const double* x, index_t n, index_t d,
                               const int* label, index_t k, double* sums,
                               int n_threads, const double* w = nullptr,
                               const double* shift = nullptr) {
#ifdef KMREDUCE_X86_SIMD
  const std::vector<std::uint8_t> masks = label_masks(label, n, k, n_threads);
  parallel_for(d, n_threads, [&](index_t j, int) {
    double out[kMaxMaskedClusters];
    detail::column_label_sums_k(k, x + n * j, w, shift != nullptr ? shift[j] : 0.0, n,
                                masks.data(), out);
    for (index_t q = 0; q < k; ++q) sums[q + k * j] += out[q];
  }, (w != nullptr ? 2.0 : 1.0) * static_cast<double>(n) * d);
#else
  (void)x; (void)n; (void)d; (void)label; (void)k; (void)sums; (void)n_threads; (void)w;
  (void)shift;
#endif
}

// Each row's squared distance to its centre (dist, n) and the total sum of
// squares about the column means, by blocks of 1024 rows (fixed: block sums
// are added in block order); with sumsq, also the sum of squares of x.
// Requires label_kernels(k).
inline double row_deviations(const double* x, index_t n, index_t d,
                             const int* label, const double* centres,
                             index_t k, const double* mean, double* dist,
                             int n_threads, double* sumsq = nullptr) {
  constexpr index_t kBlock = 1024;
  const index_t nb = n_blocks(n, kBlock);
  std::vector<double> part(static_cast<std::size_t>(nb), 0.0);
  std::vector<double> sq(static_cast<std::size_t>(nb), 0.0);
#ifdef KMREDUCE_X86_SIMD
  const double work = static_cast<double>(n) * d;
  parallel_for_scratch<std::vector<double>>(nb, n_threads, [&](index_t b, std::vector<double>& lanes) {
    lanes.resize(kBlock);
    const index_t r0 = b * kBlock, r1 = std::min(n, r0 + kBlock);
    part[b] = detail::row_deviations_avx512(x, n, d, r0, r1, label, centres,
                                            k, mean, lanes.data(), &sq[b]);
    std::copy(lanes.begin(), lanes.begin() + (r1 - r0), dist + r0);
  }, work);
#else
  (void)x; (void)d; (void)label; (void)centres; (void)k; (void)mean; (void)dist;
  (void)n_threads;
#endif
  double tot = 0.0;
  for (double v : part) tot += v;
  if (sumsq != nullptr) {
    *sumsq = 0.0;
    for (double v : sq) *sumsq += v;
  }
  return tot;
}

}  // namespace kmreduce

#endif  // KMREDUCE_LABEL_SUMS_HPP
