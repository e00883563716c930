// kmreduce: exact top-k right singular vectors through LAPACK (Armadillo's
// svd_econ, divide and conquer). A sparse matrix is densified for this step
// only: the exact SVD needs the dense matrix anyway.
#ifndef KMREDUCE_SVD_HPP
#define KMREDUCE_SVD_HPP

#include <armadillo>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../kernels/products.hpp"

namespace kmreduce {

struct TopSvd {
  std::vector<double> d;  // k singular values, decreasing
  std::vector<double> v;  // n_features x k, column-major
};

namespace detail {
inline TopSvd top_svd_dense(const arma::mat& x, index_t k) {
  arma::mat u, v;
  arma::vec s;
  if (!arma::svd_econ(u, s, v, x, "right", "dc") &&
      !arma::svd_econ(u, s, v, x, "right", "std"))
    throw std::runtime_error("the SVD (LAPACK) did not converge");
  const index_t r = static_cast<index_t>(v.n_cols);
  TopSvd out;
  out.d.assign(k, 0.0);
  out.v.assign(x.n_cols * k, 0.0);
  // With fewer than k singular vectors (k > min(n, d)) the rest stay zero.
  for (index_t q = 0; q < std::min(k, r); ++q) {
    out.d[q] = s[q];
    for (index_t i = 0; i < static_cast<index_t>(x.n_cols); ++i)
      out.v[i + x.n_cols * q] = v(i, q);
  }
  return out;
}
}  // namespace detail

// LAPACK cannot be interrupted: where an interrupt check is installed the
// decomposition runs on a helper thread (run_interruptible) and owns a copy
// of the data, so that an interrupted caller can return at once.
// With `center` (length d): the SVD of the centred copy A - 1 center^T;
// with `row_scale` (s = sqrt(w) of observation weights w), of
// diag(s) (A - 1 center^T) (products.hpp).
inline TopSvd top_svd(const DenseMatrix& a, index_t k, const double* center = nullptr,
                      const double* row_scale = nullptr) {
  if (!interruptible_here() && center == nullptr && row_scale == nullptr) {
    const arma::mat x(const_cast<double*>(a.x), a.n, a.d, false, true);
    return detail::top_svd_dense(x, k);
  }
  auto x = std::make_shared<arma::mat>(a.x, a.n, a.d);
  if (center != nullptr)
    for (index_t j = 0; j < a.d; ++j) x->col(j) -= center[j];
  scale_rows(x->memptr(), a.n, a.d, row_scale);
  if (!interruptible_here()) return detail::top_svd_dense(*x, k);
  return run_interruptible<TopSvd>([x, k]() { return detail::top_svd_dense(*x, k); });
}

inline TopSvd top_svd(const SparseMatrix& a, index_t k, const double* center = nullptr,
                      const double* row_scale = nullptr) {
  auto x = std::make_shared<arma::mat>(a.n, a.d, arma::fill::zeros);
  for (index_t j = 0; j < a.d; ++j) {
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) (*x)(a.i[t], j) = a.x[t];
    if (center != nullptr) x->col(j) -= center[j];
    if (j % 256 == 0) poll_interrupt();
  }
  scale_rows(x->memptr(), a.n, a.d, row_scale);
  return run_interruptible<TopSvd>([x, k]() { return detail::top_svd_dense(*x, k); });
}

// Eigenvalues of a symmetric m x m matrix (column-major), decreasing; LAPACK
// on a helper thread where the caller can be interrupted.
inline std::vector<double> sym_eigenvalues(const double* g, index_t m) {
  auto gm = std::make_shared<const arma::mat>(g, m, m);
  std::vector<double> ev = run_interruptible<std::vector<double>>([gm]() {
    arma::vec ev;
    if (!arma::eig_sym(ev, *gm))
      throw std::runtime_error("the eigendecomposition (LAPACK) did not converge");
    return std::vector<double>(ev.begin(), ev.end());
  });
  std::reverse(ev.begin(), ev.end());  // LAPACK's order is increasing
  return ev;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SVD_HPP
