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

#include "matrix.hpp"
#include "parallel.hpp"
#include "products.hpp"
#include "random_projection.hpp"
#include "rng.hpp"

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
}  // namespace detail

// With `center` (length d), the SVD of the centred A - 1 center^T (its
// principal components), through products with A (a sparse A stays sparse).
template <class Matrix>
Svd randomized_svd(const Matrix& a, index_t k, index_t oversample,
                   int power_iters, std::uint64_t seed, int n_threads,
                   const InterruptCheck& interrupt = InterruptCheck(),
                   const double* center = nullptr) {
  const index_t n = a.n, d = a.d;
  if (k < 1 || k > std::min(n, d))
    throw std::invalid_argument("randomized_svd: k must be in [1, min(n, d)]");
  const index_t l = std::min(k + std::max<index_t>(oversample, 0), std::min(n, d));
  arma::mat y(n, l), z(d, l);
  const GaussianTestMatrix omega(seed, d, l);
  project_by_panels(a, omega, y.memptr(), n_threads);
  if (center != nullptr) {  // minus 1 (center^T Omega)
    std::vector<double> row(l);
    project_by_panels(DenseMatrix(center, 1, d), omega, row.data(), 1);
    subtract_row(y.memptr(), n, row.data(), l);
  }
  arma::mat q = detail::orthonormal_basis(y);
  for (int it = 0; it < power_iters; ++it) {
    check_interrupt(interrupt);
    crossprod(a, q.memptr(), l, z.memptr(), n_threads);
    center_crossprod(z.memptr(), d, center, q.memptr(), n, l);
    const arma::mat qz = detail::orthonormal_basis(z);
    multiply(a, qz.memptr(), l, y.memptr(), n_threads);
    center_product(y.memptr(), n, center, qz.memptr(), d, l);
    q = detail::orthonormal_basis(y);
  }
  check_interrupt(interrupt);
  // B^T = A^T Q (d x l) = W S Ub^T, so A ~ Q B = (Q Ub) S W^T.
  crossprod(a, q.memptr(), l, z.memptr(), n_threads);
  center_crossprod(z.memptr(), d, center, q.memptr(), n, l);
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
  const arma::mat& w = f.w;
  const arma::vec& s = f.s;
  const arma::mat u = q * f.ub;
  Svd out;
  out.k = k;
  out.d.assign(s.begin(), s.begin() + k);
  out.u.assign(u.memptr(), u.memptr() + n * k);
  out.v.assign(w.memptr(), w.memptr() + d * k);
  return out;
}

}  // namespace kmreduce

#endif  // KMREDUCE_RSVD_HPP
