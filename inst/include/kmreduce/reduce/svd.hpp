// kmreduce: exact top-k right singular vectors. Two ways, the same result
// to rounding:
//  * block Lanczos (lanczos.hpp) when k is small against min(n, d): products
//    with the data (a sparse matrix stays sparse), O(nnz k) or O(n d k) each,
//    accepted only with residuals at the rounding level of LAPACK's;
//  * otherwise, or when Lanczos does not reach that level, LAPACK's divide
//    and conquer SVD (dgesdd: Armadillo's svd_econ in mode "both"; in the
//    modes "left" and "right" Armadillo takes the QR iteration, dgesvd,
//    whatever the method asked, and its rotations of V cost many times
//    more) on a dense copy (a sparse matrix is densified for this step
//    only). It needs the dense copy, a second one inside Armadillo, U, V and
//    about 7 min(n, d)^2 of workspace (check_exact_svd_memory() in R/checks_args.R counts them).
// No Gram matrix: it squares the condition number (the smaller singular
// values lose digits) and its eigendecomposition costs O(min(n, d)^3) too.
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
#include "lanczos.hpp"

namespace kmreduce {

namespace detail {
inline TopSvd top_svd_dense(const arma::mat& x, index_t k) {
  arma::mat u, v;
  arma::vec s;
  if (!arma::svd_econ(u, s, v, x, "both", "dc") &&
      !arma::svd_econ(u, s, v, x, "right", "std"))
    throw std::runtime_error("the SVD (LAPACK) did not converge");
  u.reset();
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

// The direct SVD of a dense matrix this function owns: LAPACK cannot be
// interrupted, so where an interrupt check is installed it runs on a helper
// thread (run_interruptible) and an interrupted caller returns at once.
inline TopSvd top_svd_owned(std::shared_ptr<arma::mat> x, index_t k) {
  if (!interruptible_here()) return top_svd_dense(*x, k);
  return run_interruptible<TopSvd>([x, k]() { return top_svd_dense(*x, k); });
}
}  // namespace detail

// With `center` (length d): the SVD of the centred copy A - 1 center^T;
// with `row_scale` (s = sqrt(w) of observation weights w), of
// diag(s) (A - 1 center^T) (products.hpp). Dense data are centred and scaled
// in a copy (exactly, whatever their offset), as the direct SVD needs;
// n_threads for the products of Lanczos (the result does not depend on it).
inline TopSvd top_svd(const DenseMatrix& a, index_t k, const double* center = nullptr,
                      const double* row_scale = nullptr, int n_threads = 1) {
  const bool lanczos = LanczosPlan(a.n, a.d, k).fits();
  TopSvd out;
  if (center == nullptr && row_scale == nullptr) {
    if (lanczos && block_lanczos_svd(a, k, nullptr, nullptr, n_threads, out)) return out;
    if (!interruptible_here()) {
      const arma::mat x(const_cast<double*>(a.x), a.n, a.d, false, true);
      return detail::top_svd_dense(x, k);
    }
    return detail::top_svd_owned(std::make_shared<arma::mat>(a.x, a.n, a.d), k);
  }
  auto x = std::make_shared<arma::mat>(a.x, a.n, a.d);
  for (index_t j = 0; j < a.d; ++j) {
    if (center != nullptr) x->col(j) -= center[j];
    if (j % 256 == 0) poll_interrupt();
  }
  scale_rows(x->memptr(), a.n, a.d, row_scale);
  if (lanczos &&
      block_lanczos_svd(DenseMatrix(x->memptr(), a.n, a.d), k, nullptr, nullptr, n_threads, out))
    return out;
  return detail::top_svd_owned(x, k);
}

// Sparse data: Lanczos on the products (centred and scaled through them,
// products.hpp: where columns sit far from zero against their spread, the
// centring of the products loses digits, the residuals stay above the
// tolerance and the direct SVD of the densified copy, centred exactly, is
// taken).
inline TopSvd top_svd(const SparseMatrix& a, index_t k, const double* center = nullptr,
                      const double* row_scale = nullptr, int n_threads = 1) {
  TopSvd out;
  if (LanczosPlan(a.n, a.d, k).fits() &&
      block_lanczos_svd(a, k, center, row_scale, n_threads, out))
    return out;
  auto x = std::make_shared<arma::mat>(a.n, a.d, arma::fill::zeros);
  for (index_t j = 0; j < a.d; ++j) {
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) (*x)(a.i[t], j) = a.x[t];
    if (center != nullptr) x->col(j) -= center[j];
    if (j % 256 == 0) poll_interrupt();
  }
  scale_rows(x->memptr(), a.n, a.d, row_scale);
  return detail::top_svd_owned(x, k);
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
