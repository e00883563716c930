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

#include "matrix.hpp"
#include "parallel.hpp"

namespace kmreduce {

// out (n x m, column-major) = A B, B is d x m column-major.
inline void multiply(const DenseMatrix& a, const double* b, index_t m,
                     double* out, int n_threads) {
  const index_t nb = n_blocks(a.n, kRowBlock);
  Eigen::Map<const Eigen::MatrixXd> bm(b, a.d, m);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(n_threads)
#endif
  for (index_t blk = 0; blk < nb; ++blk) {
    const index_t r0 = blk * kRowBlock, r1 = std::min(a.n, r0 + kRowBlock);
    Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> xb(
        a.x + r0, r1 - r0, a.d, Eigen::OuterStride<>(a.n));
    Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>> ob(
        out + r0, r1 - r0, m, Eigen::OuterStride<>(a.n));
    ob.noalias() = xb * bm;
  }
  (void)n_threads;
}

inline void multiply(const SparseMatrix& a, const double* b, index_t m,
                     double* out, int n_threads) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(n_threads)
#endif
  for (index_t c = 0; c < m; ++c) {
    double* o = out + a.n * c;
    std::fill(o, o + a.n, 0.0);
    const double* bc = b + a.d * c;
    for (index_t j = 0; j < a.d; ++j) {
      const double bj = bc[j];
      if (bj == 0.0) continue;
      for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) o[a.i[t]] += a.x[t] * bj;
    }
  }
  (void)n_threads;
}

// out (n x m) = columns idx (0-based) of A, column t scaled by scale[t].
inline void gather_columns(const DenseMatrix& a, const std::vector<index_t>& idx,
                           const std::vector<double>& scale, double* out,
                           int n_threads) {
  const index_t m = static_cast<index_t>(idx.size());
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(n_threads)
#endif
  for (index_t c = 0; c < m; ++c) {
    const double* col = a.x + a.n * idx[c];
    double* o = out + a.n * c;
    for (index_t r = 0; r < a.n; ++r) o[r] = scale[c] * col[r];
  }
  (void)n_threads;
}

inline void gather_columns(const SparseMatrix& a,
                           const std::vector<index_t>& idx,
                           const std::vector<double>& scale, double* out,
                           int n_threads) {
  const index_t m = static_cast<index_t>(idx.size());
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(n_threads)
#endif
  for (index_t c = 0; c < m; ++c) {
    double* o = out + a.n * c;
    std::fill(o, o + a.n, 0.0);
    const index_t j = idx[c];
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) o[a.i[t]] = scale[c] * a.x[t];
  }
  (void)n_threads;
}

}  // namespace kmreduce

#endif  // KMREDUCE_PRODUCTS_HPP
