// kmreduce: greedy k-means++ seeding (Arthur & Vassilvitskii 2007, with the
// 2 + floor(ln k) local trials per centre used by scikit-learn).
#ifndef KMREDUCE_KMEANSPP_HPP
#define KMREDUCE_KMEANSPP_HPP

#include <cmath>
#include <vector>

#include "matrix.hpp"
#include "parallel.hpp"
#include "rng.hpp"

namespace kmreduce {

// Index of the row drawn with probability weight[r] / total (D^2 sampling).
// Falls back to a uniform draw when every weight is zero.
inline index_t draw_weighted(const std::vector<double>& weight, double total,
                             Rng& rng) {
  const index_t n = static_cast<index_t>(weight.size());
  if (!(total > 0.0)) return static_cast<index_t>(rng.below(n));
  const double u = rng.uniform() * total;
  double cum = 0.0;
  index_t last_positive = 0;
  for (index_t r = 0; r < n; ++r) {
    if (weight[r] > 0.0) {
      cum += weight[r];
      last_positive = r;
      if (cum > u) return r;
    }
  }
  return last_positive;  // rounding: u landed beyond the accumulated sum
}

// Writes k centres (k x d, column-major) chosen among the rows of `a`.
template <class Data>
void kmeanspp(const Data& a, const double* row_norms, index_t k, Rng& rng,
              double* centres, int n_threads,
              const InterruptCheck& interrupt = InterruptCheck()) {
  const index_t n = a.n, d = a.d;
  const index_t trials = 2 + static_cast<index_t>(std::log(static_cast<double>(k)));
  std::vector<double> point(d), dist(n), cand(trials * n);
  std::vector<index_t> cand_row(trials);

  auto set_centre = [&](index_t q, const double* p) {
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = p[j];
  };

  const index_t first = static_cast<index_t>(rng.below(n));
  get_row(a, first, point.data());
  set_centre(0, point.data());
  dist2_to_point(a, point.data(), row_norms, dist.data(), n_threads);

  for (index_t q = 1; q < k; ++q) {
    double total = 0.0;
    for (index_t r = 0; r < n; ++r) total += dist[r];
    index_t best = 0;
    double best_pot = 0.0;
    for (index_t t = 0; t < trials; ++t) {
      cand_row[t] = draw_weighted(dist, total, rng);
      get_row(a, cand_row[t], point.data());
      double* ct = cand.data() + n * t;
      dist2_to_point(a, point.data(), row_norms, ct, n_threads);
      double pot = 0.0;
      for (index_t r = 0; r < n; ++r) pot += std::min(dist[r], ct[r]);
      if (t == 0 || pot < best_pot) {
        best_pot = pot;
        best = t;
      }
    }
    const double* cb = cand.data() + n * best;
    for (index_t r = 0; r < n; ++r) dist[r] = std::min(dist[r], cb[r]);
    get_row(a, cand_row[best], point.data());
    set_centre(q, point.data());
    check_interrupt(interrupt);
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANSPP_HPP
