// kmreduce: the two-stage column subset selection algorithm of Boutsidis,
// Mahoney & Drineas (2008), Algorithm 1, with its rank parameter equal to the
// number of columns wanted (dims):
//   p_j = ||(V_k)_(j)||^2 / (2k)
//       + (||A^(j)||^2 - ||(A V_k V_k^T)^(j)||^2) / (2 (||A||_F^2 - ||A V_k V_k^T||_F^2))   (eqn 5)
//   randomized phase: keep column j with probability min(1, c p_j), scaled by
//     1 / sqrt(min(1, c p_j));
//   deterministic phase: the first k pivots of a column-pivoted QR (LAPACK
//     dgeqp3) of V_k^T S1 D1 (the paper's experiments also use pivoted QR),
//     or, with `strong_f` > 0 (it must then exceed 1), of a strong
//     rank-revealing QR (Gu & Eisenstat 1996; rrqr.hpp) with that f, the
//     RRQR the paper's bound assumes;
//   repeated `repeats` times, keeping the columns with the smallest residual
//     ||A - P_C A||_F, or ||A - P_C A||_2 (the paper's experiments) with
//     `spectral`.
// V (d x k, orthonormal columns) is given: exact or randomized; a zero
// column stands for a direction of singular value 0 (the data have rank
// below k), beyond which the columns of largest norm are taken. With
// `center`, every quantity is of the centred A - 1 center^T (never formed);
// with `row_scale` (s = sqrt(w) of observation weights w), of
// diag(s) (A - 1 center^T) (products.hpp).
#ifndef KMREDUCE_CSSP_HPP
#define KMREDUCE_CSSP_HPP

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../kernels/products.hpp"
#include "../runtime/rng.hpp"
#include "rrqr.hpp"

namespace kmreduce {

struct CsspResult {
  std::vector<index_t> index;  // 0-based, in pivot order
  std::vector<double> prob;    // p_j of eqn (5)
  double residual = 0.0;       // ||A - P_C A||^2 (Frobenius or spectral)
  double frob2 = 0.0;          // ||A||_F^2
  int best_repeat = 0;
};

namespace detail {
// G = A^T A (d x d, of the centred A with `center`), column panel by column
// panel: for the spectral residual.
template <class Matrix>
arma::mat column_gram(const Matrix& a, int n_threads, const double* center,
                      const double* row_scale = nullptr) {
  const index_t d = a.d, width = 64;
  arma::mat g(d, d);
  std::vector<double> panel, z;
  for (index_t j0 = 0; j0 < d; j0 += width) {
    const index_t p = std::min(width, d - j0);
    std::vector<index_t> idx(p);
    std::iota(idx.begin(), idx.end(), j0);
    panel.assign(static_cast<std::size_t>(a.n) * p, 0.0);
    gather_columns(a, idx, std::vector<double>(p, 1.0), panel.data(), n_threads);
    if (center != nullptr)
      for (index_t t = 0; t < p; ++t)
        for (index_t r = 0; r < a.n; ++r) panel[r + a.n * t] -= center[j0 + t];
    // (weighted: M^T M_p = A_c^T S (S A_c)_p, the panel scaled twice)
    scale_rows(panel.data(), a.n, p, row_scale);
    scale_rows(panel.data(), a.n, p, row_scale);
    z.assign(static_cast<std::size_t>(d) * p, 0.0);
    crossprod(a, panel.data(), p, z.data(), n_threads);
    center_crossprod(z.data(), d, center, panel.data(), a.n, p);
    for (index_t t = 0; t < p; ++t)
      std::copy(z.begin() + d * t, z.begin() + d * (t + 1), g.colptr(j0 + t));
  }
  return 0.5 * (g + g.t());
}

// ||A - P_C A||^2 for C = the given columns of A: Frobenius, or spectral
// when `gram` (A^T A) is given: the largest eigenvalue of
// A^T (I - U U^T) A = G - (A^T U)(A^T U)^T.
template <class Matrix>
double column_residual(const Matrix& a, const std::vector<index_t>& idx,
                       double frob2, int n_threads, const double* center,
                       const arma::mat* gram = nullptr, const double* row_scale = nullptr) {
  const index_t m = static_cast<index_t>(idx.size());
  auto c = std::make_shared<arma::mat>(a.n, m);
  gather_columns(a, idx, std::vector<double>(m, 1.0), c->memptr(), n_threads);
  if (center != nullptr)
    for (index_t t = 0; t < m; ++t) c->col(t) -= center[idx[t]];
  scale_rows(c->memptr(), a.n, m, row_scale);
  struct Left {
    arma::mat u;
    arma::vec s;
  };
  // LAPACK on a helper thread where the caller can be interrupted.
  const Left left = run_interruptible<Left>([c]() {
    Left out;
    arma::mat v;
    if (!arma::svd_econ(out.u, out.s, v, *c, "left", "dc") &&
        !arma::svd_econ(out.u, out.s, v, *c, "left", "std"))
      throw std::runtime_error("the SVD (LAPACK) did not converge");
    return out;
  });
  const arma::mat& u = left.u;
  const arma::vec& s = left.s;
  const double tol = (s.n_elem > 0 ? s[0] : 0.0) *
                     static_cast<double>(std::max(a.n, m)) *
                     std::numeric_limits<double>::epsilon();
  index_t r = 0;
  while (r < static_cast<index_t>(s.n_elem) && s[r] > tol) ++r;
  std::vector<double> z(a.d * std::max<index_t>(r, 1)), keep;
  if (r > 0) {  // M^T U = A_c^T (S U)
    const double* su = scaled_rows(u.memptr(), a.n, r, row_scale, keep);
    crossprod(a, su, r, z.data(), n_threads);
    center_crossprod(z.data(), a.d, center, su, a.n, r);
  }
  if (gram != nullptr) {
    auto rest = std::make_shared<arma::mat>(*gram);
    if (r > 0) {
      const arma::mat zm(z.data(), a.d, r, false, true);
      *rest -= zm * zm.t();
    }
    const arma::vec ev = run_interruptible<arma::vec>([rest]() {
      arma::vec e;
      if (!arma::eig_sym(e, 0.5 * (*rest + rest->t())))
        throw std::runtime_error("the symmetric eigensolver (LAPACK) failed");
      return e;
    });
    return std::max(0.0, ev.max());
  }
  if (r == 0) return frob2;
  double proj = 0.0;
  for (double x : z) proj += x * x;
  return std::max(0.0, frob2 - proj);
}

// The sampling probabilities of the columns (Boutsidis et al.):
// p_j = ||v_j||^2 / (2 k) + ||(A - A V V^T)^(j)||^2 / (2 ||A - A V V^T||_F^2),
// with ||(A V V^T)^(j)||^2 = v_j^T G v_j, G = (A V)^T (A V); `cn` the
// columns' squared norms, `frob2` their sum.
template <class Matrix>
std::vector<double> sampling_probabilities(const Matrix& a, const double* v, index_t k,
                                           const std::vector<double>& cn, double frob2,
                                           int n_threads, const double* center,
                                           const double* row_scale) {
  const index_t d = a.d;
  std::vector<double> y(a.n * k);
  multiply(a, v, k, y.data(), n_threads);
  center_product(y.data(), a.n, center, v, d, k);
  scale_rows(y.data(), a.n, k, row_scale);
  arma::mat ym(y.data(), a.n, k, false, true);
  const arma::mat g = ym.t() * ym;
  const double proj_total = arma::trace(g);
  const double resid_total = frob2 - proj_total;
  std::vector<double> prob(d, 0.0);
  for (index_t j = 0; j < d; ++j) {
    double lev = 0.0, quad = 0.0;
    for (index_t q = 0; q < k; ++q) {
      const double vq = v[j + d * q];
      lev += vq * vq;
      for (index_t r = 0; r < k; ++r) quad += vq * g(q, r) * v[j + d * r];
    }
    const double part = resid_total > 1e-12 * frob2
                            ? std::max(0.0, cn[j] - quad) / (2.0 * resid_total)
                            : lev / (2.0 * static_cast<double>(k));
    prob[j] = lev / (2.0 * static_cast<double>(k)) + part;
  }
  return prob;
}

// The randomized phase: column j kept with probability min(1, c p_j) and
// scaled by 1 / sqrt of it; fewer than k kept: topped up by the most
// probable others (`by_prob`).
inline void randomized_phase(const std::vector<double>& prob, const std::vector<index_t>& by_prob,
                             double c, index_t k, Rng& rng, std::vector<index_t>& kept,
                             std::vector<double>& scale) {
  const index_t d = static_cast<index_t>(prob.size());
  std::vector<char> in(d, 0);
  for (index_t j = 0; j < d; ++j) {
    const double keep = std::min(1.0, c * prob[j]);
    if (rng.uniform() < keep) {
      kept.push_back(j);
      scale.push_back(1.0 / std::sqrt(keep));
      in[j] = 1;
    }
  }
  for (index_t t = 0; static_cast<index_t>(kept.size()) < k && t < d; ++t) {
    const index_t j = by_prob[t];
    if (in[j]) continue;
    const double keep = std::max(std::min(1.0, c * prob[j]), 1e-300);
    kept.push_back(j);
    scale.push_back(1.0 / std::sqrt(keep));
    in[j] = 1;
  }
}

// The deterministic phase: k of the kept columns of the scaled V^T, by a
// pivoted (or strong rank-revealing, strong_f > 0) QR. Beyond the rank r of
// V (zero columns: directions of singular value 0, arbitrary), the QR's
// pivots are rounding: the first r pivots, then the kept columns of
// largest (centred) norm `cn`, ties to the lowest index.
inline std::vector<index_t> deterministic_phase(const double* v, index_t d, index_t k,
                                                index_t rank, const std::vector<index_t>& kept,
                                                const std::vector<double>& scale,
                                                const std::vector<double>& cn, double strong_f) {
  const index_t ct = static_cast<index_t>(kept.size());
  auto m = std::make_shared<arma::mat>(k, ct);
  for (index_t t = 0; t < ct; ++t)
    for (index_t q = 0; q < k; ++q) (*m)(q, t) = v[kept[t] + d * q] * scale[t];
  const arma::uvec piv = run_interruptible<arma::uvec>([m, k, strong_f]() {
    return strong_f > 0.0 ? strong_rrqr(*m, static_cast<arma::uword>(k), strong_f).perm
                           : pivoted_qr_order(*m);
  });
  std::vector<index_t> chosen(std::min(k, rank));
  for (index_t q = 0; q < std::min(k, rank); ++q) chosen[q] = kept[piv[q]];
  if (rank < k) {
    std::vector<index_t> rest;
    for (index_t j : kept)
      if (std::find(chosen.begin(), chosen.end(), j) == chosen.end()) rest.push_back(j);
    std::stable_sort(rest.begin(), rest.end(), [&](index_t x, index_t z) {
      return cn[x] > cn[z] || (cn[x] == cn[z] && x < z);
    });
    chosen.insert(chosen.end(), rest.begin(), rest.begin() + (k - rank));
  }
  return chosen;
}
}  // namespace detail

template <class Matrix>
CsspResult cssp(const Matrix& a, const double* v, index_t k, double c,
                int repeats, std::uint64_t seed, int n_threads,
                const InterruptCheck& interrupt = InterruptCheck(),
                const double* center = nullptr, bool spectral = false,
                double strong_f = 0.0, const double* row_scale = nullptr) {
  const index_t d = a.d;
  if (k < 1 || k > std::min(a.n, d))
    throw std::invalid_argument("cssp: k must be in [1, min(n, d)]");
  const std::vector<double> cn = column_sqnorms(a, center, row_scale);
  // The rank of V: its nonzero columns (those of singular value 0 are zero).
  index_t rank = 0;
  for (index_t q = 0; q < k; ++q) {
    bool nonzero = false;
    for (index_t j = 0; j < d && !nonzero; ++j) nonzero = v[j + d * q] != 0.0;
    rank += nonzero;
  }
  rank = std::max<index_t>(rank, 1);
  CsspResult res;
  res.frob2 = std::accumulate(cn.begin(), cn.end(), 0.0);
  res.prob = detail::sampling_probabilities(a, v, k, cn, res.frob2, n_threads, center, row_scale);
  // Columns ranked by p (for topping up a randomized phase that kept < k).
  std::vector<index_t> by_prob(d);
  std::iota(by_prob.begin(), by_prob.end(), index_t(0));
  std::stable_sort(by_prob.begin(), by_prob.end(),
                   [&](index_t x, index_t z) { return res.prob[x] > res.prob[z]; });

  // When every column is kept with probability 0 or 1 the randomized phase
  // is deterministic and all repeats would be the same: do one.
  bool random_phase = false;
  for (index_t j = 0; j < d && !random_phase; ++j) {
    const double keep = std::min(1.0, c * res.prob[j]);
    random_phase = keep > 0.0 && keep < 1.0;
  }
  if (!random_phase) repeats = std::min(repeats, 1);

  arma::mat gram;
  if (spectral) gram = detail::column_gram(a, n_threads, center, row_scale);
  std::vector<std::vector<index_t>> seen;
  std::vector<double> seen_resid;
  res.residual = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < repeats; ++rep) {
    check_interrupt(interrupt);
    Rng rng(stream_key(seed, kStreamCssp, static_cast<std::uint64_t>(rep)));
    std::vector<index_t> kept;
    std::vector<double> scale;
    detail::randomized_phase(res.prob, by_prob, c, k, rng, kept, scale);
    const std::vector<index_t> chosen =
        detail::deterministic_phase(v, d, k, rank, kept, scale, cn, strong_f);
    std::vector<index_t> key = chosen;
    std::sort(key.begin(), key.end());
    double resid;
    const auto it = std::find(seen.begin(), seen.end(), key);
    if (it != seen.end()) {
      resid = seen_resid[it - seen.begin()];
    } else {
      resid = detail::column_residual(a, chosen, res.frob2, n_threads, center,
                                      spectral ? &gram : nullptr, row_scale);
      seen.push_back(key);
      seen_resid.push_back(resid);
    }
    if (resid < res.residual) {
      res.residual = resid;
      res.index = chosen;
      res.best_repeat = rep;
    }
  }
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_CSSP_HPP
