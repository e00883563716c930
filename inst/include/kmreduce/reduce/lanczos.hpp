// kmreduce: the top k singular triplets of M = S (A - 1 center^T) by block
// Lanczos (a block Krylov subspace of M^T M with full reorthogonalisation,
// then Rayleigh-Ritz: Golub and Kahan 1965, Golub and Underwood 1977), with
// every product through products.hpp, so a sparse A stays sparse. It stops
// when the residuals of the k triplets, ||M v - s u|| and ||M^T u - s v||
// taken with explicit products, are at the rounding level of a direct SVD
// (a few eps sqrt(max(n, d)) s_1): the triplets are then those of LAPACK to
// rounding (the angle between subspaces is at most the residual over the
// gap to the next singular value, as for LAPACK's backward error). Otherwise
// (no convergence within its basis, or a residual floor above that level)
// it reports failure and the caller takes the direct SVD (svd.hpp).
//
// The Krylov space is started from a Gaussian block of a fixed stream (so
// results do not depend on the user's seed and are reproducible) with
// k + 2 columns: a singular value of multiplicity up to k + 2 is found.
#ifndef KMREDUCE_LANCZOS_HPP
#define KMREDUCE_LANCZOS_HPP

#include <armadillo>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../kernels/products.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "random_projection.hpp"

namespace kmreduce {

struct TopSvd {
  std::vector<double> d;  // k singular values, decreasing
  std::vector<double> v;  // n_features x k, column-major
};

namespace detail {

// M = S (A - 1 center^T) (center, row_scale: nullptr for none) by its
// products: M B (n x m) and M^T Y (d x m), products.hpp.
template <class Matrix>
struct CentredOperator {
  const Matrix& a;
  const double* center;
  const double* row_scale;
  int n_threads;
  void times(const double* b, index_t m, double* out) const {
    multiply(a, b, m, out, n_threads);
    center_product(out, a.n, center, b, a.d, m);
    scale_rows(out, a.n, m, row_scale);
  }
  void times_t(const double* y, index_t m, double* out) const {
    std::vector<double> keep;
    const double* sy = scaled_rows(y, a.n, m, row_scale, keep);
    crossprod(a, sy, m, out, n_threads);
    center_crossprod(out, a.d, center, sy, a.n, m);
  }
};

// x (rows x b) = basis c + q r with q orthonormal and orthogonal to the s
// orthonormal columns of `basis` (x is overwritten by q; c, s x b, and r,
// b x b, are returned for the bookkeeping of the projected matrix). Block
// classical Gram-Schmidt twice, a QR, then passes over the normalised block
// until it is orthogonal to the basis to rounding: a block (nearly) in the
// span of the basis, or of rank below b, leaves columns that the QR
// normalises from rounding; they are made orthogonal again (new directions
// of the space, with coefficients of rounding size in r).
inline void orthonormalize_block(arma::mat& x, const double* basis, index_t s, arma::mat& c,
                                 arma::mat& r) {
  const index_t rows = x.n_rows, b = x.n_cols;
  c.zeros(s, b);
  Eigen::Map<const Eigen::MatrixXd> bm(basis, rows, s);
  auto project_out = [&](arma::mat& y, arma::mat& coef) {
    Eigen::Map<Eigen::MatrixXd> ym(y.memptr(), rows, b);
    Eigen::Map<Eigen::MatrixXd> cm(coef.memptr(), s, b);
    cm.noalias() = bm.transpose() * ym;
    ym.noalias() -= bm * cm;
  };
  arma::mat e(s, b);
  if (s > 0) {
    for (int pass = 0; pass < 2; ++pass) {
      project_out(x, e);
      c += e;
    }
  }
  arma::mat q;
  if (!arma::qr_econ(q, r, x)) throw std::runtime_error("QR (LAPACK) failed");
  if (s > 0) {
    for (int pass = 0; pass < 3; ++pass) {
      Eigen::Map<Eigen::MatrixXd> qm(q.memptr(), rows, b);
      Eigen::Map<Eigen::MatrixXd> em(e.memptr(), s, b);
      em.noalias() = bm.transpose() * qm;
      if (arma::abs(e).max() <= 8 * std::numeric_limits<double>::epsilon()) break;
      qm.noalias() -= bm * em;
      // x = basis (c + e r) + (q - basis e) r, and q - basis e = q2 r2
      c += e * r;
      arma::mat q2, r2;
      if (!arma::qr_econ(q2, r2, q)) throw std::runtime_error("QR (LAPACK) failed");
      q = std::move(q2);
      r = r2 * r;
    }
  }
  x = std::move(q);
}

// The start block: d x b standard normal numbers of a fixed stream.
inline arma::mat lanczos_start(index_t d, index_t b) {
  constexpr std::uint64_t kSeed = 20240611;  // fixed: the exact SVD takes no seed
  const std::uint64_t key = stream_key(kSeed, kStreamExactSvd);
  arma::mat w(d, b);
  for (index_t c = 0; c < b; ++c)
    for (index_t i = 0; i < d; ++i)
      w(i, c) = counter_normal(key, static_cast<std::uint64_t>(i * b + c));
  return w;
}
}  // namespace detail

// Block size, largest basis and residual tolerance of block_lanczos_svd()
// for k triplets of an n x d matrix. The basis holds at most half of
// min(n, d) vectors (beyond that the direct SVD costs little more) and 40
// blocks (on word counts and images the residuals reach rounding within
// 10 to 25).
struct LanczosPlan {
  index_t block = 0, max_basis = 0;
  double tol = 0;
  LanczosPlan(index_t n, index_t d, index_t k) {
    block = k + 2;
    max_basis = std::min(std::min(n, d) / 2, 40 * block) / block * block;
    tol = 16 * std::numeric_limits<double>::epsilon() *
          std::sqrt(static_cast<double>(std::max(n, d)));
  }
  // Worth trying: a basis of at least four blocks.
  bool fits() const { return max_basis >= 4 * block; }
};

// The top k singular values and right vectors of M = S (A - 1 center^T)
// (center: length d, row_scale: length n, either nullptr) into `out`; false
// when they did not reach the tolerance of LanczosPlan (then `out` is left
// as it was). Products on n_threads threads (the results do not depend on
// it); checks for interrupts between products (parallel_for and
// poll_interrupt(), parallel.hpp).
template <class Matrix>
bool block_lanczos_svd(const Matrix& a, index_t k, const double* center,
                       const double* row_scale, int n_threads, TopSvd& out) {
  const index_t n = a.n, d = a.d;
  const LanczosPlan plan(n, d, k);
  if (k < 1 || !plan.fits()) return false;
  const index_t b = plan.block, s_max = plan.max_basis;
  const detail::CentredOperator<Matrix> op{a, center, row_scale, n_threads};
  // Q: orthonormal basis of the Krylov space of M^T M (right side); P: of
  // M Q (left side), with M Q = P B, B upper triangular (s x s).
  arma::mat q(d, s_max + b), p(n, s_max), bm(s_max, s_max, arma::fill::zeros);
  arma::mat w = detail::lanczos_start(d, b), z(n, b), c, r;
  detail::orthonormalize_block(w, nullptr, 0, c, r);
  q.cols(0, b - 1) = w;
  arma::mat last;  // the coefficients of the next block of Q (the residual)
  index_t s = 0, next_check = 0;
  while (s + b <= s_max) {
    poll_interrupt();
    // P side: M Q_j = P (its coefficients) + P_j R_j
    op.times(q.colptr(s), b, z.memptr());
    detail::orthonormalize_block(z, p.memptr(), s, c, r);
    p.cols(s, s + b - 1) = z;
    if (s > 0) bm.submat(0, s, s - 1, s + b - 1) = c;
    bm.submat(s, s, s + b - 1, s + b - 1) = r;
    s += b;
    // Q side: M^T P_j = Q (its coefficients) + Q_{j+1} L: the residual of
    // the Ritz triplets is L times the last block of their left vectors
    // of B (Golub-Kahan), so only small matrices are needed to test them.
    w.set_size(d, b);
    op.times_t(p.colptr(s - b), b, w.memptr());
    detail::orthonormalize_block(w, q.memptr(), s, c, last);
    q.cols(s, s + b - 1) = w;
    if (s < next_check && s + b <= s_max) continue;
    // (the SVD of B costs s^3: tested every block, then every eighth of s)
    next_check = s + std::max(b, s / 8);
    arma::mat ub, vb;
    arma::vec sv;
    const arma::mat bs = bm.submat(0, 0, s - 1, s - 1);
    if (!arma::svd(ub, sv, vb, bs, "dc") && !arma::svd(ub, sv, vb, bs, "std"))
      throw std::runtime_error("the SVD (LAPACK) did not converge");
    const double top = sv[0];
    if (!(top > 0)) return false;  // M = 0: the direct SVD says what it says
    const arma::mat est = last * ub.submat(s - b, 0, s - 1, k - 1);
    bool small = true;
    for (index_t i = 0; i < k && small; ++i)
      small = arma::norm(est.col(i)) <= plan.tol * top;
    if (!small) continue;
    // Explicit residuals (2 products with k vectors): the certificate.
    const arma::mat uk = p.cols(0, s - 1) * ub.cols(0, k - 1);
    const arma::mat vk = q.cols(0, s - 1) * vb.cols(0, k - 1);
    arma::mat mv(n, k), mtu(d, k);
    op.times(vk.memptr(), k, mv.memptr());
    op.times_t(uk.memptr(), k, mtu.memptr());
    for (index_t i = 0; i < k; ++i) {
      const double e1 = arma::norm(mv.col(i) - sv[i] * uk.col(i));
      const double e2 = arma::norm(mtu.col(i) - sv[i] * vk.col(i));
      if (!(std::max(e1, e2) <= plan.tol * top)) return false;  // a floor above tol
    }
    out.d.assign(sv.begin(), sv.begin() + k);
    out.v.assign(vk.begin(), vk.end());
    return true;
  }
  return false;
}

}  // namespace kmreduce

#endif  // KMREDUCE_LANCZOS_HPP
