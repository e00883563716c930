// kmreduce: leverage-score feature selection, Algorithm 1 of Boutsidis,
// Zouzias, Mahoney & Drineas (2015) (Boutsidis, Mahoney & Drineas 2009):
// p_i = ||(V_k)_(i)||^2 / k from the top-k right singular vectors, then dims
// i.i.d. draws with replacement, column i_t rescaled by 1/sqrt(dims p_{i_t})
// (Definition 5, RandomizedSampling).
#ifndef KMREDUCE_LEVERAGE_HPP
#define KMREDUCE_LEVERAGE_HPP

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

// Scores from V (d x k, column-major, orthonormal columns): they sum to 1.
inline std::vector<double> leverage_scores(const double* v, index_t d,
                                           index_t k) {
  std::vector<double> p(d, 0.0);
  for (index_t q = 0; q < k; ++q)
    for (index_t i = 0; i < d; ++i) p[i] += v[i + d * q] * v[i + d * q];
  for (double& x : p) x /= static_cast<double>(k);
  return p;
}

struct ColumnSample {
  std::vector<index_t> index;  // 0-based, with repetitions
  std::vector<double> scale;   // 1 / sqrt(dims * p_i)
};

// dims draws with replacement with probabilities p (normalised here).
inline ColumnSample sample_columns(const std::vector<double>& p, index_t dims,
                                   std::uint64_t seed) {
  const index_t d = static_cast<index_t>(p.size());
  std::vector<double> cum(d);
  double total = 0.0;
  for (index_t i = 0; i < d; ++i) {
    if (!(p[i] >= 0.0)) throw std::invalid_argument("probabilities must be >= 0");
    total += p[i];
    cum[i] = total;
  }
  if (!(total > 0.0)) throw std::invalid_argument("all probabilities are zero");
  Rng rng(stream_key(seed, kStreamLeverageSampling));
  ColumnSample s;
  s.index.resize(dims);
  s.scale.resize(dims);
  for (index_t t = 0; t < dims; ++t) {
    const double u = rng.uniform() * total;
    index_t i = static_cast<index_t>(std::upper_bound(cum.begin(), cum.end(), u) -
                                     cum.begin());
    if (i >= d) i = d - 1;
    while (p[i] <= 0.0 && i > 0) --i;  // rounding at the top end
    s.index[t] = i;
    s.scale[t] = 1.0 / std::sqrt(static_cast<double>(dims) * (p[i] / total));
  }
  return s;
}

}  // namespace kmreduce

#endif  // KMREDUCE_LEVERAGE_HPP
