// kmreduce: the dense cross-product kernels of Lloyd, k-means++ and the
// projections:
//   out (m x k) = X[r0:r1, ] C^T,  X column-major n x p, C column-major k x p,
// and A^T M for the randomized SVD and CSSP. AVX-512 and AVX2+FMA versions
// (GCC `target` attributes) run at the level runtime/simd.hpp chooses;
// everywhere else the Eigen GEMM is used. Each output entry is one fused
// multiply-add chain over j = 0..p-1 in order, so results do not depend on
// the number of threads (they may differ in the last bits between kernels).
#ifndef KMREDUCE_KERNELS_CROSS_PRODUCT_HPP
#define KMREDUCE_KERNELS_CROSS_PRODUCT_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "../runtime/parallel.hpp"
#include "../runtime/simd.hpp"

namespace kmreduce {


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

#endif  // KMREDUCE_KERNELS_CROSS_PRODUCT_HPP
