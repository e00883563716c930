// kmreduce: strong rank-revealing QR (Gu & Eisenstat 1996, Algorithm 4),
// the column selection with guarantees that the deterministic phase of the
// two-stage CSSP algorithm (Boutsidis, Mahoney & Drineas 2008) assumes.
//
// For M (m x n) and a rank k, M Pi = Q [A B; 0 C] with A k x k upper
// triangular. Starting from LAPACK's greedy pivoted QR, columns i <= k and
// k + j are swapped while some
//   rho_ij = sqrt((A^{-1} B)_ij^2 + (gamma_j(C) / omega_i(A))^2) > f,
// gamma_j(C) = ||C e_j||, 1 / omega_i(A) = ||e_i^T A^{-1}||; each swap
// multiplies |det A| by rho_ij > f > 1, so it ends (f must exceed 1: with
// f = 1 the swaps can cycle on rounding). Then (their Theorem 3.2)
//   sigma_i(A) >= sigma_i(M) / sqrt(1 + f^2 k (n - k)),         i <= k,
//   sigma_j(C) <= sigma_{k+j}(M) sqrt(1 + f^2 k (n - k)),
//   |(A^{-1} B)_ij| <= f.
// Each step recomputes the QR of M Pi (the matrices here are small: k x c
// in CSSP) instead of Gu & Eisenstat's rank-one updates.
#ifndef KMREDUCE_RRQR_HPP
#define KMREDUCE_RRQR_HPP

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kmreduce {

struct RrqrResult {
  arma::uvec perm;  // 0-based column order: the first k are selected
  int swaps = 0;
};

// Greedy pivoted QR (dgeqp3): its column order.
inline arma::uvec pivoted_qr_order(const arma::mat& m) {
  arma::mat q, r;
  arma::uvec p;
  if (!arma::qr(q, r, p, m, "vector")) throw std::runtime_error("pivoted QR (LAPACK) failed");
  return p;
}

inline RrqrResult strong_rrqr(const arma::mat& m, arma::uword k, double f = 2.0,
                              int max_swaps = 100000) {
  const arma::uword rows = m.n_rows, n = m.n_cols;
  if (k < 1 || k > std::min(rows, n))
    throw std::invalid_argument("strong_rrqr: k must be in [1, min(nrow, ncol)]");
  // f > 1: each swap multiplies |det A| by more than f, so the swaps end;
  // with f = 1 rounding can make a swap and its reverse both look favourable
  if (!(f > 1.0)) throw std::invalid_argument("strong_rrqr: f must be > 1");
  RrqrResult res;
  res.perm = pivoted_qr_order(m);
  if (k == n) return res;
  const double f2 = f * f;
  for (;;) {
    arma::mat q, r;
    if (!arma::qr(q, r, m.cols(res.perm))) throw std::runtime_error("QR (LAPACK) failed");
    const arma::mat a = r.submat(0, 0, k - 1, k - 1);
    // M has numerical rank < k: no A^{-1}; keep the greedy order.
    const double tiny = std::abs(r(0, 0)) * 1e-14 * static_cast<double>(std::max(rows, n));
    bool singular = false;
    for (arma::uword i = 0; i < k; ++i) singular = singular || !(std::abs(a(i, i)) > tiny);
    if (singular) break;
    const arma::mat ainv = arma::solve(arma::trimatu(a), arma::eye(k, k));
    const arma::mat w = ainv * r.submat(0, k, k - 1, n - 1);  // A^{-1} B
    arma::vec inv_omega(k);
    for (arma::uword i = 0; i < k; ++i) inv_omega[i] = arma::norm(ainv.row(i), 2);
    arma::vec gamma(n - k, arma::fill::zeros);
    if (rows > k)
      for (arma::uword j = 0; j < n - k; ++j)
        gamma[j] = arma::norm(r.submat(k, k + j, rows - 1, k + j), 2);
    double best = f2;
    arma::uword bi = 0, bj = 0;
    bool found = false;
    for (arma::uword j = 0; j < n - k; ++j) {
      for (arma::uword i = 0; i < k; ++i) {
        const double g = gamma[j] * inv_omega[i];
        const double rho2 = w(i, j) * w(i, j) + g * g;
        if (rho2 > best) {
          best = rho2;
          bi = i;
          bj = j;
          found = true;
        }
      }
    }
    if (!found) break;
    if (res.swaps >= max_swaps) throw std::runtime_error("strong_rrqr: too many swaps");
    std::swap(res.perm[bi], res.perm[k + bj]);
    ++res.swaps;
  }
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_RRQR_HPP
