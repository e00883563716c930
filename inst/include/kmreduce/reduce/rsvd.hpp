// kmreduce: randomized SVD (Halko, Martinsson & Tropp 2011, Algorithms 4.3 and
// 5.1) with a Gaussian test matrix generated from the seed, QR-normalised
// power iterations, and LAPACK (Armadillo) for the small QR and SVD. With
// power_iters = 0 and oversample = ceil(k / eps + 1) it is the
// FastFrobeniusSVD of Lemma 4 of Boutsidis et al. (2015).
#ifndef KMREDUCE_RSVD_HPP
#define KMREDUCE_RSVD_HPP

#include <armadillo>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../kernels/products.hpp"
#include "random_projection.hpp"
#include "../runtime/rng.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

struct Svd {
  std::vector<double> d;  // k singular values, decreasing
  std::vector<double> u;  // n x k, column-major
  std::vector<double> v;  // d x k, column-major
  index_t k = 0;
};

// Standard normal test matrix, d x l, entry (i, j) from counter i * l + j.
class GaussianTestMatrix {
 public:
  GaussianTestMatrix(std::uint64_t seed, index_t d, index_t l)
      : key_(stream_key(seed, kStreamRsvd)), d_(d), l_(l) {}
  index_t cols() const { return l_; }
  void panel(index_t c0, index_t c1, double* out) const {
    for (index_t c = c0; c < c1; ++c)
      for (index_t i = 0; i < d_; ++i)
        out[i + d_ * (c - c0)] =
            counter_normal(key_, static_cast<std::uint64_t>(i * l_ + c));
  }

 private:
  std::uint64_t key_;
  index_t d_, l_;
};

namespace detail {
// LAPACK on a helper thread where the caller can be interrupted (the
// helper owns a copy of y).
inline arma::mat orthonormal_basis(const arma::mat& y) {
  auto yy = std::make_shared<const arma::mat>(y);
  return run_interruptible<arma::mat>([yy]() {
    arma::mat q, r;
    if (!arma::qr_econ(q, r, *yy)) throw std::runtime_error("QR (LAPACK) failed");
    return q;
  });
}

// y (n x l, A Omega) minus 1 (center^T Omega): the range finder's product
// with the centred A.
inline void center_range(double* y, index_t n, const double* center, index_t d,
                         const GaussianTestMatrix& omega) {
  if (center == nullptr) return;
  std::vector<double> row(omega.cols());
  project_by_panels(DenseMatrix(center, 1, d), omega, row.data(), 1);
  subtract_row(y, n, row.data(), omega.cols());
}

// The SVD of B^T = A^T Q (z, d x l) = W S Ub^T, so that A ~ Q B = (Q Ub) S
// W^T: the top k singular values and vectors (u of the rows q holds). LAPACK
// on a helper thread where the caller can be interrupted.
inline Svd finish_svd(const arma::mat& q, const arma::mat& z, index_t k) {
  struct Both {
    arma::mat w, ub;
    arma::vec s;
  };
  auto zz = std::make_shared<const arma::mat>(z);
  const Both f = run_interruptible<Both>([zz]() {
    Both b;
    if (!arma::svd_econ(b.w, b.s, b.ub, *zz, "both", "dc") &&
        !arma::svd_econ(b.w, b.s, b.ub, *zz, "both", "std"))
      throw std::runtime_error("the SVD (LAPACK) did not converge");
    return b;
  });
  const arma::mat u = q * f.ub;
  Svd out;
  out.k = k;
  out.d.assign(f.s.begin(), f.s.begin() + k);
  out.u.assign(u.memptr(), u.memptr() + u.n_rows * k);
  out.v.assign(f.w.memptr(), f.w.memptr() + f.w.n_rows * k);
  return out;
}
}  // namespace detail

// With `center` (length d), the SVD of the centred A - 1 center^T (its
// principal components), through products with A (a sparse A stays sparse).
// With `row_scale` (s = sqrt(w) of observation weights w), of
// diag(s) (A - 1 center^T) (products.hpp); u holds its left vectors.
template <class Matrix>
Svd randomized_svd(const Matrix& a, index_t k, index_t oversample,
                   int power_iters, std::uint64_t seed, int n_threads,
                   const InterruptCheck& interrupt = InterruptCheck(),
                   const double* center = nullptr, const double* row_scale = nullptr) {
  const index_t n = a.n, d = a.d;
  if (k < 1 || k > std::min(n, d))
    throw std::invalid_argument("randomized_svd: k must be in [1, min(n, d)]");
  const index_t l = std::min(k + std::max<index_t>(oversample, 0), std::min(n, d));
  arma::mat y(n, l), z(d, l);
  const GaussianTestMatrix omega(seed, d, l);
  std::vector<double> keep;  // (with row_scale: S Q)
  project_by_panels(a, omega, y.memptr(), n_threads);
  detail::center_range(y.memptr(), n, center, d, omega);
  scale_rows(y.memptr(), n, l, row_scale);
  arma::mat q = detail::orthonormal_basis(y);
  for (int it = 0; it < power_iters; ++it) {
    check_interrupt(interrupt);
    const double* sq = scaled_rows(q.memptr(), n, l, row_scale, keep);
    crossprod(a, sq, l, z.memptr(), n_threads);
    center_crossprod(z.memptr(), d, center, sq, n, l);
    const arma::mat qz = detail::orthonormal_basis(z);
    multiply(a, qz.memptr(), l, y.memptr(), n_threads);
    center_product(y.memptr(), n, center, qz.memptr(), d, l);
    scale_rows(y.memptr(), n, l, row_scale);
    q = detail::orthonormal_basis(y);
  }
  check_interrupt(interrupt);
  // B^T = A^T Q (d x l) = W S Ub^T, so A ~ Q B = (Q Ub) S W^T.
  const double* sq = scaled_rows(q.memptr(), n, l, row_scale, keep);
  crossprod(a, sq, l, z.memptr(), n_threads);
  center_crossprod(z.memptr(), d, center, sq, n, l);
  return detail::finish_svd(q, z, k);
}

// randomized_svd() of rows read block by block or spread over processes
// (src.visit_blocks(f), f(block, r0); Combine: row_source.hpp): the same
// test matrix and steps, with every product taken block by block and A^T M
// summed over blocks and processes. The orthonormal basis of the tall Y is a
// QR on one process, Cholesky QR twice across processes. With center, of the
// centred rows: the column means come with the range finder's pass.
// out.u holds this process's rows.
namespace detail {
template <class Source>
void blocks_multiply(const Source& src, index_t n, const double* b, index_t m, double* out,
                     int n_threads) {  // (out: all rows; row scales applied by the caller)
  std::vector<double> part;
  src.visit_blocks([&](const auto& a, index_t r0) {
    part.resize(static_cast<std::size_t>(a.n * m));
    multiply(a, b, m, part.data(), n_threads);
    for (index_t c = 0; c < m; ++c)
      std::copy(part.data() + a.n * c, part.data() + a.n * (c + 1), out + r0 + n * c);
  });
}

// out (d x m) = A_c^T M summed over blocks and processes (A_c: A minus
// 1 center^T when center is given, as center_crossprod()).
// With `row_scale` (s, one per row), of S M instead of M.
template <class Source, class Combine>
void blocks_crossprod(const Source& src, const Combine& combine, index_t n, const double* mm,
                      index_t m, double* out, int n_threads, const double* center,
                      const double* row_scale = nullptr) {
  const index_t d = src.d();
  std::vector<double> keep;
  mm = scaled_rows(mm, n, m, row_scale, keep);
  std::fill(out, out + d * m, 0.0);
  std::vector<double> rows, part(static_cast<std::size_t>(d * m));
  src.visit_blocks([&](const auto& a, index_t r0) {
    rows.resize(static_cast<std::size_t>(a.n * m));
    for (index_t c = 0; c < m; ++c)
      std::copy(mm + r0 + n * c, mm + r0 + a.n + n * c, rows.data() + a.n * c);
    crossprod(a, rows.data(), m, part.data(), n_threads);
    for (index_t t = 0; t < d * m; ++t) out[t] += part[t];
  });
  combine.sum(out, d * m);
  if (center != nullptr) {  // minus center (1^T M), the column sums of all rows
    std::vector<double> colsum = column_sums(mm, n, m);
    combine.sum(colsum.data(), m);
    subtract_outer(out, d, center, colsum);
  }
}

// Orthonormal basis of the columns of y (n x l, this process's rows) by a
// tall-skinny QR across processes (TSQR): each process's Householder QR,
// Y_p = Q_p R_p, then the QR of the processes' R_p stacked in process order
// (every process gets them: one sum), S = Q_s R; this process's rows of the
// basis are Q_p times its block of Q_s. Householder reflections keep the
// basis orthonormal when Y is rank-deficient (few columns, or many zero
// columns), where Cholesky QR fails.
template <class Combine>
arma::mat tsqr_basis(const arma::mat& y, const Combine& combine) {
  const arma::uword n = y.n_rows, l = y.n_cols;
  const arma::uword np = static_cast<arma::uword>(combine.size());
  const arma::uword me = static_cast<arma::uword>(combine.rank());
  arma::mat qp(n, l, arma::fill::zeros), rp(l, l, arma::fill::zeros);
  if (n > 0) {
    arma::mat q, r;
    if (!arma::qr_econ(q, r, y)) throw std::runtime_error("QR (LAPACK) failed");
    qp.cols(0, q.n_cols - 1) = q;  // (fewer rows than l: Q_p is n x n)
    rp.rows(0, r.n_rows - 1) = r;
  }
  arma::mat stacked(np * l, l, arma::fill::zeros);
  stacked.rows(me * l, me * l + l - 1) = rp;
  combine.sum(stacked.memptr(), static_cast<index_t>(stacked.n_elem));
  arma::mat qs, r;
  if (!arma::qr_econ(qs, r, stacked)) throw std::runtime_error("QR (LAPACK) failed");
  return qp * qs.rows(me * l, me * l + l - 1);
}

// Orthonormal basis of the columns of y (n x l, this process's rows):
// Cholesky QR twice across processes (one sum of the l x l Gram matrix
// each), or TSQR (tsqr_basis()) where the basis is rank-deficient.
template <class Combine>
arma::mat combined_basis(const arma::mat& y, const Combine& combine) {
  if (combine.size() == 1) return orthonormal_basis(y);
  arma::mat q = y;
  for (int pass = 0; pass < 2; ++pass) {  // Cholesky QR twice
    arma::mat g = q.t() * q;
    combine.sum(g.memptr(), static_cast<index_t>(g.n_elem));
    g = 0.5 * (g + g.t());
    arma::mat r;
    // (the same on every process: the Gram matrix is their sum)
    if (!arma::chol(r, g)) return tsqr_basis(y, combine);
    q = q * arma::inv(arma::trimatu(r));
  }
  return q;
}
}  // namespace detail

// With `weight` (observation weights, one per row of the source), of
// W^(1/2) (A - 1 mu^T) with mu the weighted column means (products.hpp).
template <class Source, class Combine = LocalCombine>
Svd randomized_svd_blocks(const Source& src, index_t k, index_t oversample, int power_iters,
                          std::uint64_t seed, int n_threads, bool center,
                          const InterruptCheck& interrupt = InterruptCheck(),
                          const Combine& combine = Combine(),
                          const double* weight = nullptr) {
  const index_t n = src.n(), d = src.d();
  const index_t n_all = combine.total_rows(n);
  if (k < 1 || k > std::min(n_all, d))
    throw std::invalid_argument("randomized_svd: k must be in [1, min(n, d)]");
  const index_t l = std::min(k + std::max<index_t>(oversample, 0), std::min(n_all, d));
  arma::mat y(n, l), z(d, l);
  const GaussianTestMatrix omega(seed, d, l);
  std::vector<double> mu(d, 0.0), part, scale;
  double total = static_cast<double>(n_all);  // rows, or the sum of the weights
  if (weight != nullptr) {
    scale.resize(n);
    total = 0.0;
    for (index_t r = 0; r < n; ++r) {
      scale[r] = std::sqrt(weight[r]);
      total += weight[r];
    }
    total = combined_sum(combine, total);
  }
  const double* s = weight != nullptr ? scale.data() : nullptr;
  src.visit_blocks([&](const auto& a, index_t r0) {
    part.resize(static_cast<std::size_t>(a.n * l));
    project_by_panels(a, omega, part.data(), n_threads);
    for (index_t c = 0; c < l; ++c)
      std::copy(part.data() + a.n * c, part.data() + a.n * (c + 1), y.memptr() + r0 + n * c);
    if (center) {
      const std::vector<double> ones(a.n, 1.0);
      std::vector<double> sums(d);
      crossprod(a, weight != nullptr ? weight + r0 : ones.data(), 1, sums.data(), n_threads);
      for (index_t j = 0; j < d; ++j) mu[j] += sums[j];
    }
  });
  const double* cen = nullptr;
  if (center) {
    combine.sum(mu.data(), d);
    for (double& v : mu) v /= total;
    cen = mu.data();
    detail::center_range(y.memptr(), n, cen, d, omega);
  }
  scale_rows(y.memptr(), n, l, s);
  arma::mat q = detail::combined_basis(y, combine);
  for (int it = 0; it < power_iters; ++it) {
    check_interrupt(interrupt);
    detail::blocks_crossprod(src, combine, n, q.memptr(), l, z.memptr(), n_threads, cen, s);
    const arma::mat qz = detail::orthonormal_basis(z);
    detail::blocks_multiply(src, n, qz.memptr(), l, y.memptr(), n_threads);
    center_product(y.memptr(), n, cen, qz.memptr(), d, l);
    scale_rows(y.memptr(), n, l, s);
    q = detail::combined_basis(y, combine);
  }
  check_interrupt(interrupt);
  detail::blocks_crossprod(src, combine, n, q.memptr(), l, z.memptr(), n_threads, cen, s);
  return detail::finish_svd(q, z, k);
}

}  // namespace kmreduce

#endif  // KMREDUCE_RSVD_HPP
