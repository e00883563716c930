// kmreduce: the products every linear reducer ends with, C = A B for a dense
// d x m matrix B, and column gathering C = A[, idx] diag(scale).
// Dense A: row blocks, each an Eigen GEMM (BLAS-independent, same result on
// every machine's BLAS). Sparse A (CSC): parallel over output columns, each
// entry accumulated in column order of A. Both deterministic.
#ifndef KMREDUCE_PRODUCTS_HPP
#define KMREDUCE_PRODUCTS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <vector>

#include "cross_product.hpp"
#include "matrix.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// out (n x m, column-major) = A B, B is d x m column-major: row blocks of A
// times B by the SIMD cross-product kernel (cross_product.hpp) on B^T.
inline void multiply(const DenseMatrix& a, const double* b, index_t m,
                     double* out, int n_threads) {
  std::vector<double> bt(m * a.d);
  for (index_t c = 0; c < m; ++c)
    for (index_t j = 0; j < a.d; ++j) bt[c + m * j] = b[j + a.d * c];
  const index_t nb = n_blocks(a.n, kRowBlock);
  parallel_for(nb, n_threads, [&](index_t blk, int) {
    const index_t r0 = blk * kRowBlock, r1 = std::min(a.n, r0 + kRowBlock);
    cross_product_block(a.x, a.n, a.d, r0, r1, bt.data(), m, out + r0, a.n);
  }, static_cast<double>(a.n) * a.d * m);
}

// The entries of one column of a sparse matrix times one row of the dense
// side: for u < count, the row rows[u] of `out` (mp doubles each, row-major,
// mp a multiple of 8) += value[u] * b_row. Each element gets one product and
// then one sum, never fused into one rounding, on every SIMD level: the
// numbers of the portable loop, as multiply() sums them.
namespace detail {
inline void add_scaled_row_portable(const int* rows, const double* value, index_t count,
                                    const double* b_row, double* out, index_t mp) {
  for (index_t u = 0; u < count; ++u) {
    const double v = value[u];
    double* o = out + mp * static_cast<index_t>(rows[u]);
    for (index_t p = 0; p < mp; p += 8)
      for (index_t q = 0; q < 8; ++q) o[p + q] += v * b_row[p + q];
  }
}
#ifdef KMREDUCE_X86_SIMD
// (the empty asm keeps the product a value of its own: compilers would
// otherwise fuse the product and the sum where the target has FMA)
__attribute__((target("avx512f"))) inline void add_scaled_row_avx512(
    const int* rows, const double* value, index_t count, const double* b_row, double* out,
    index_t mp) {
  for (index_t u = 0; u < count; ++u) {
    const __m512d v = _mm512_set1_pd(value[u]);
    double* o = out + mp * static_cast<index_t>(rows[u]);
    for (index_t p = 0; p < mp; p += 8) {
      __m512d prod = _mm512_mul_pd(v, _mm512_loadu_pd(b_row + p));
      __asm__("" : "+v"(prod));
      _mm512_storeu_pd(o + p, _mm512_add_pd(_mm512_loadu_pd(o + p), prod));
    }
  }
}
__attribute__((target("avx2"))) inline void add_scaled_row_avx2(
    const int* rows, const double* value, index_t count, const double* b_row, double* out,
    index_t mp) {
  for (index_t u = 0; u < count; ++u) {
    const __m256d v = _mm256_set1_pd(value[u]);
    double* o = out + mp * static_cast<index_t>(rows[u]);
    for (index_t p = 0; p < mp; p += 4) {
      __m256d prod = _mm256_mul_pd(v, _mm256_loadu_pd(b_row + p));
      __asm__("" : "+x"(prod));
      _mm256_storeu_pd(o + p, _mm256_add_pd(_mm256_loadu_pd(o + p), prod));
    }
  }
}
#endif
}  // namespace detail

using AddScaledRow = void (*)(const int*, const double*, index_t, const double*, double*,
                              index_t);

// The add_scaled_row kernel of this machine's SIMD level.
inline AddScaledRow add_scaled_row_kernel() {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() == SimdLevel::Avx512) return &detail::add_scaled_row_avx512;
  if (simd_level() == SimdLevel::Avx2) return &detail::add_scaled_row_avx2;
#endif
  return &detail::add_scaled_row_portable;
}

// The panel kernel of crossprod() below, on one panel of 8 columns of the
// dense side: s (8) += A[, j]^T mp, mp (n x 8, row-major); for every stored
// entry, 8 products then 8 sums, never fused (the numbers of the portable
// loop on every SIMD level). (multiply()'s panels use add_scaled_row.)
namespace detail {
inline void sparse_panel_dot_portable(const SparseMatrix& a, index_t j, const double* mp,
                                      double* s) {
  for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
    const double v = a.x[t];
    const double* row = mp + 8 * static_cast<index_t>(a.i[t]);
    for (index_t c = 0; c < 8; ++c) s[c] += v * row[c];
  }
}
#ifdef KMREDUCE_X86_SIMD
// (the empty asm keeps each product a value of its own: compilers would
// otherwise fuse the product and the sum where the target has FMA)
__attribute__((target("avx512f"))) inline void sparse_panel_dot_avx512(
    const SparseMatrix& a, index_t j, const double* mp, double* s) {
  __m512d acc = _mm512_loadu_pd(s);
  for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
    __m512d prod = _mm512_mul_pd(_mm512_set1_pd(a.x[t]),
                                 _mm512_loadu_pd(mp + 8 * static_cast<index_t>(a.i[t])));
    __asm__("" : "+v"(prod));
    acc = _mm512_add_pd(acc, prod);
  }
  _mm512_storeu_pd(s, acc);
}
__attribute__((target("avx2"))) inline void sparse_panel_dot_avx2(
    const SparseMatrix& a, index_t j, const double* mp, double* s) {
  __m256d s0 = _mm256_loadu_pd(s), s1 = _mm256_loadu_pd(s + 4);
  for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
    const double* row = mp + 8 * static_cast<index_t>(a.i[t]);
    const __m256d v = _mm256_set1_pd(a.x[t]);
    __m256d p0 = _mm256_mul_pd(v, _mm256_loadu_pd(row)),
            p1 = _mm256_mul_pd(v, _mm256_loadu_pd(row + 4));
    __asm__("" : "+x"(p0), "+x"(p1));
    s0 = _mm256_add_pd(s0, p0);
    s1 = _mm256_add_pd(s1, p1);
  }
  _mm256_storeu_pd(s, s0);
  _mm256_storeu_pd(s + 4, s1);
}
#endif
inline void sparse_panel_dot(const SparseMatrix& a, index_t j, const double* mp, double* s) {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() == SimdLevel::Avx512) return sparse_panel_dot_avx512(a, j, mp, s);
  if (simd_level() == SimdLevel::Avx2) return sparse_panel_dot_avx2(a, j, mp, s);
#endif
  sparse_panel_dot_portable(a, j, mp, s);
}
}  // namespace detail

// Sparse A: the m columns of B in panels of kPanel, each panel's product
// accumulated row-major (a row's kPanel entries in one cache line), so that
// A is read once per panel rather than once per column; every entry is still
// summed in column order of A (the same result as one column at a time).
constexpr index_t kPanel = 8;
static_assert(kPanel == 8, "the panel kernels take 8 columns");

inline void multiply(const SparseMatrix& a, const double* b, index_t m,
                     double* out, int n_threads) {
  const index_t panels = n_blocks(m, kPanel);
  const AddScaledRow add_row = add_scaled_row_kernel();
  parallel_for(panels, n_threads, [&](index_t pn, int) {
    const index_t c0 = pn * kPanel, w = std::min(kPanel, m - c0);
    // this panel of B row-major (lanes beyond w are 0) and of the product
    std::vector<double> bp(static_cast<std::size_t>(a.d * kPanel), 0.0);
    for (index_t c = 0; c < w; ++c)
      for (index_t j = 0; j < a.d; ++j) bp[kPanel * j + c] = b[j + a.d * (c0 + c)];
    std::vector<double> op(static_cast<std::size_t>(a.n * kPanel), 0.0);
    for (index_t j = 0; j < a.d; ++j)
      add_row(a.i + a.p[j], a.x + a.p[j], a.p[j + 1] - a.p[j], bp.data() + kPanel * j,
              op.data(), kPanel);
    for (index_t c = 0; c < w; ++c) {
      double* oc = out + a.n * (c0 + c);
      for (index_t r = 0; r < a.n; ++r) oc[r] = op[kPanel * r + c];
    }
  }, static_cast<double>(a.p[a.d]) * m);
}

// out (d x m, column-major) = A^T M, M is n x m column-major. Dense: blocks
// of columns of A, an Eigen GEMM each; sparse: one dot product per column.
constexpr index_t kColBlock = 64;

inline void crossprod(const DenseMatrix& a, const double* mm, index_t m,
                      double* out, int n_threads) {
  const index_t nb = n_blocks(a.d, kColBlock);
  if (simd_level() == SimdLevel::Avx512) {
    // M row-major, rows padded to a multiple of 8 with zeros.
    const index_t ldm = (m + 7) / 8 * 8;
    std::vector<double> mt(static_cast<std::size_t>(a.n * ldm), 0.0);
    for (index_t c = 0; c < m; ++c)
      for (index_t r = 0; r < a.n; ++r) mt[ldm * r + c] = mm[r + a.n * c];
    parallel_for(nb, n_threads, [&](index_t blk, int) {
      const index_t j0 = blk * kColBlock, j1 = std::min(a.d, j0 + kColBlock);
      crossprod_columns_simd(a.x, a.n, a.d, j0, j1, mt.data(), ldm, m, out);
    }, static_cast<double>(a.n) * a.d * m);
    return;
  }
  Eigen::Map<const Eigen::MatrixXd> mmap(mm, a.n, m);
  parallel_for(nb, n_threads, [&](index_t blk, int) {
    const index_t j0 = blk * kColBlock, j1 = std::min(a.d, j0 + kColBlock);
    Eigen::Map<const Eigen::MatrixXd> ab(a.x + a.n * j0, a.n, j1 - j0);
    Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>> ob(
        out + j0, j1 - j0, m, Eigen::OuterStride<>(a.d));
    ob.noalias() = ab.transpose() * mmap;
  }, static_cast<double>(a.n) * a.d * m);
}

inline void crossprod(const SparseMatrix& a, const double* mm, index_t m,
                      double* out, int n_threads) {
  // M in panels of kPanel columns, row-major (lanes beyond the last column
  // are 0): one cache line per stored entry of A and panel; each dot product
  // is summed in the order of its column of A, as one column at a time.
  const index_t panels = n_blocks(m, kPanel);
  std::vector<double> mp(static_cast<std::size_t>(a.n * kPanel));
  for (index_t pn = 0; pn < panels; ++pn) {
    const index_t c0 = pn * kPanel, w = std::min(kPanel, m - c0);
    std::fill(mp.begin(), mp.end(), 0.0);
    for (index_t c = 0; c < w; ++c) {
      const double* mc = mm + a.n * (c0 + c);
      for (index_t r = 0; r < a.n; ++r) mp[kPanel * r + c] = mc[r];
    }
    parallel_for(a.d, n_threads, [&](index_t j, int) {
      double s[kPanel] = {0.0};
      detail::sparse_panel_dot(a, j, mp.data(), s);
      for (index_t c = 0; c < w; ++c) out[j + a.d * (c0 + c)] = s[c];
    }, static_cast<double>(a.p[a.d]) * w);
  }
}

// The Gram matrix of the smaller side: A^T A (d x d) when d <= n, else
// A A^T (n x n), column-major, by the threaded product kernels.
inline void gram(const DenseMatrix& a, double* out, int n_threads) {
  if (a.d <= a.n) {
    crossprod(a, a.x, a.d, out, n_threads);
    return;
  }
  std::vector<double> at(static_cast<std::size_t>(a.d * a.n));
  for (index_t j = 0; j < a.d; ++j)
    for (index_t r = 0; r < a.n; ++r) at[j + a.d * r] = a.x[r + a.n * j];
  multiply(a, at.data(), a.n, out, n_threads);
}

// Squared norm of every column.
inline std::vector<double> column_sqnorms(const DenseMatrix& a) {
  std::vector<double> out(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    double s = 0.0;
    for (index_t r = 0; r < a.n; ++r) s += col[r] * col[r];
    out[j] = s;
  }
  return out;
}

inline std::vector<double> column_sqnorms(const SparseMatrix& a) {
  std::vector<double> out(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j)
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) out[j] += a.x[t] * a.x[t];
  return out;
}

// Squared norm of every column of the centred A - 1 center^T, summed as
// squared deviations (no cancellation for data far from the origin). Sparse:
// the nonzeros' deviations plus (n - nnz_j) center_j^2 for the zeros.
inline std::vector<double> column_sqnorms(const DenseMatrix& a, const double* center) {
  if (center == nullptr) return column_sqnorms(a);
  std::vector<double> out(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    double s = 0.0;
    for (index_t r = 0; r < a.n; ++r) s += (col[r] - center[j]) * (col[r] - center[j]);
    out[j] = s;
  }
  return out;
}

inline std::vector<double> column_sqnorms(const SparseMatrix& a, const double* center) {
  if (center == nullptr) return column_sqnorms(a);
  std::vector<double> out(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    double s = 0.0;
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t)
      s += (a.x[t] - center[j]) * (a.x[t] - center[j]);
    out[j] = s + static_cast<double>(a.n - (a.p[j + 1] - a.p[j])) * center[j] * center[j];
  }
  return out;
}

// Products with the centred matrix A_c = A - 1 center^T, never formed (a
// sparse A stays sparse): A_c B = A B - 1 (center^T B) and
// A_c^T M = A^T M - center (1^T M). `out` holds the product with A; these
// subtract the centring term in place. center == nullptr: nothing to do.
//   out (n x m) -= 1 (center^T B), B d x m
inline void center_product(double* out, index_t n, const double* center,
                           const double* b, index_t d, index_t m) {
  if (center == nullptr) return;
  for (index_t c = 0; c < m; ++c) {
    double s = 0.0;
    for (index_t j = 0; j < d; ++j) s += center[j] * b[j + d * c];
    double* o = out + n * c;
    for (index_t r = 0; r < n; ++r) o[r] -= s;
  }
}
//   out (n x m) -= 1 row^T for a row vector of length m (already center^T B)
inline void subtract_row(double* out, index_t n, const double* row, index_t m) {
  for (index_t c = 0; c < m; ++c) {
    double* o = out + n * c;
    for (index_t r = 0; r < n; ++r) o[r] -= row[c];
  }
}
//   the column sums 1^T M (length m) of M (n x m)
inline std::vector<double> column_sums(const double* mm, index_t n, index_t m) {
  std::vector<double> out(m, 0.0);
  for (index_t c = 0; c < m; ++c)
    for (index_t r = 0; r < n; ++r) out[c] += mm[r + n * c];
  return out;
}
//   out (d x m) -= center colsum^T
inline void subtract_outer(double* out, index_t d, const double* center,
                           const std::vector<double>& colsum) {
  for (index_t c = 0; c < static_cast<index_t>(colsum.size()); ++c)
    for (index_t j = 0; j < d; ++j) out[j + d * c] -= center[j] * colsum[c];
}
//   out (d x m) -= center (1^T M), M n x m
inline void center_crossprod(double* out, index_t d, const double* center,
                             const double* mm, index_t n, index_t m) {
  if (center == nullptr) return;
  subtract_outer(out, d, center, column_sums(mm, n, m));
}

// Observation weights in the decompositions: they are of the weighted,
// centred M = W^(1/2) (A - 1 center^T), W = diag(w), center the weighted
// column means (for whole weights, M^T M is that of the rows repeated). The
// products with A stay as they are; `row_scale` (s = sqrt(w), nullptr: none)
// scales their rows: M B = S (A B - 1 center^T B), M^T Y = A_c^T (S Y).
//   out (n x m): row r times s[r]
inline void scale_rows(double* out, index_t n, index_t m, const double* s) {
  if (s == nullptr) return;
  for (index_t c = 0; c < m; ++c) {
    double* o = out + n * c;
    for (index_t r = 0; r < n; ++r) o[r] *= s[r];
  }
}
//   S Y as a copy (n x m), or Y itself without a scale
inline const double* scaled_rows(const double* y, index_t n, index_t m, const double* s,
                                 std::vector<double>& keep) {
  if (s == nullptr) return y;
  keep.assign(y, y + n * m);
  scale_rows(keep.data(), n, m, s);
  return keep.data();
}
//   squared norm of every column of M (s r (a_rj - center_j) squared, summed)
inline std::vector<double> column_sqnorms(const DenseMatrix& a, const double* center,
                                          const double* s) {
  if (s == nullptr) return column_sqnorms(a, center);
  std::vector<double> out(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    const double cj = center != nullptr ? center[j] : 0.0;
    double t = 0.0;
    for (index_t r = 0; r < a.n; ++r) {
      const double e = s[r] * (col[r] - cj);
      t += e * e;
    }
    out[j] = t;
  }
  return out;
}
inline std::vector<double> column_sqnorms(const SparseMatrix& a, const double* center,
                                          const double* s) {
  if (s == nullptr) return column_sqnorms(a, center);
  double wall = 0.0;  // sum of the weights
  for (index_t r = 0; r < a.n; ++r) wall += s[r] * s[r];
  std::vector<double> out(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    const double cj = center != nullptr ? center[j] : 0.0;
    double t = 0.0, wnz = 0.0;
    for (index_t p = a.p[j]; p < a.p[j + 1]; ++p) {
      const double sr = s[a.i[p]], e = sr * (a.x[p] - cj);
      t += e * e;
      wnz += sr * sr;
    }
    out[j] = t + std::max(0.0, wall - wnz) * cj * cj;  // the zeros
  }
  return out;
}

// out (n x m) = columns idx (0-based) of A, column t scaled by scale[t].
inline void gather_columns(const DenseMatrix& a, const std::vector<index_t>& idx,
                           const std::vector<double>& scale, double* out,
                           int n_threads) {
  const index_t m = static_cast<index_t>(idx.size());
  parallel_for(m, n_threads, [&](index_t c, int) {
    const double* col = a.x + a.n * idx[c];
    double* o = out + a.n * c;
    for (index_t r = 0; r < a.n; ++r) o[r] = scale[c] * col[r];
  }, static_cast<double>(a.n) * m);
}

inline void gather_columns(const SparseMatrix& a,
                           const std::vector<index_t>& idx,
                           const std::vector<double>& scale, double* out,
                           int n_threads) {
  const index_t m = static_cast<index_t>(idx.size());
  parallel_for(m, n_threads, [&](index_t c, int) {
    double* o = out + a.n * c;
    std::fill(o, o + a.n, 0.0);
    const index_t j = idx[c];
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) o[a.i[t]] = scale[c] * a.x[t];
  }, static_cast<double>(a.n) * m);
}

// Columns per panel when a d x m random matrix is generated panel by panel:
// at most ~32 MB of it exist at once.
inline index_t panel_width(index_t d, index_t m) {
  const index_t budget = (index_t(32) << 20) / (8 * std::max<index_t>(d, 1));
  return std::max<index_t>(1, std::min(m, std::max<index_t>(budget, 16)));
}

// out (n x m) = A R for a random matrix R (d x m) that a Generator writes
// panel by panel: r.cols(), r.panel(c0, c1, buffer d x (c1 - c0)).
template <class Matrix, class Generator>
void project_by_panels(const Matrix& a, const Generator& r, double* out,
                       int n_threads) {
  const index_t m = r.cols();
  const index_t w = panel_width(a.d, m);
  std::vector<double> panel(a.d * w);
  for (index_t c0 = 0; c0 < m; c0 += w) {
    const index_t c1 = std::min(m, c0 + w);
    r.panel(c0, c1, panel.data());
    multiply(a, panel.data(), c1 - c0, out + a.n * c0, n_threads);
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_PRODUCTS_HPP
