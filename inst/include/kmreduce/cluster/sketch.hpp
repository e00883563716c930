// kmreduce: a weighted sample of rows on which k-means replicates run
// cheaply (kmeans.hpp), and the lift of a solution found there back to all
// the rows.
//
// The sample is a lightweight coreset (Bachem, Lucic and Krause, "Scalable
// k-means clustering via lightweight coresets", KDD 2018): m rows drawn
// independently, row r with probability
//   q_r = 1/2 w_r / W + 1/2 w_r D_r / sum_s w_s D_s,
// D_r the squared distance of row r to the (weighted) mean of the rows, and
// weighted w_r / (m q_r). The half of uniform mass keeps every dense region,
// the half by distance the small clusters far from the mean; for every set
// of k centres the weighted objective of the sample is an unbiased estimate
// of the objective of all the rows, within eps W D-bar additively with high
// probability for m of order d k log k / eps^2 (their Theorem 2). A row
// drawn several times is kept once with the sum of its weights.
//
// Replicates then run on the sample (Bradley and Fayyad, "Refining initial
// points for k-means clustering", ICML 1998: the starts are chosen on a
// sample), and only the best is lifted: every row goes to the nearest of its
// centres and the centres become the means of those labels (one pass),
// from which Lloyd and the polish run on all the rows.
//
// The sampling is serial over the rows (the distances are computed in
// parallel, each row on its own): the sample does not depend on the number
// of threads.
#ifndef KMREDUCE_SKETCH_HPP
#define KMREDUCE_SKETCH_HPP

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "lloyd.hpp"
#include "../kernels/matrix.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

// The rows of a sketch, copied (m x d, column-major) with their weights.
struct Sketch {
  std::vector<index_t> rows;   // the rows drawn, increasing, each once
  std::vector<double> weight;  // one per row drawn
  std::vector<double> x;       // their values, as the clustered rows hold them
  index_t m = 0, d = 0;
};

// Draws the sketch of m (before merging repeated draws) rows of `a`
// (row_norms: its squared row norms; weights: nullptr or one per row).
template <class Data>
Sketch coreset_sketch(const Data& a, const double* row_norms, const double* weights,
                      index_t m, Rng& rng, int n_threads) {
  const index_t n = a.n, d = a.d;
  if (m < 1 || n < 1) throw std::invalid_argument("a sketch needs at least one row");
  // The (weighted) mean of the rows, then each row's squared distance to it.
  std::vector<int> zero = rows_array(static_cast<std::size_t>(n), 0);
  std::vector<double> mean(static_cast<std::size_t>(d), 0.0);
  double total = 0.0;
  if (weights != nullptr) {
    weighted_cluster_sums(a, zero.data(), weights, 1, mean.data(), n_threads);
    for (index_t r = 0; r < n; ++r) total += weights[r];
  } else {
    cluster_sums(a, zero.data(), 1, mean.data(), n_threads);
    total = static_cast<double>(n);
  }
  for (double& v : mean) v /= total;
  std::vector<double> dist = rows_array(static_cast<std::size_t>(n), 0.0);
  assign_nearest(a, row_norms, mean.data(), 1, zero.data(), dist.data(), n_threads);
  // The cumulative distribution of q, in row order.
  double spread = 0.0;
  for (index_t r = 0; r < n; ++r) spread += (weights != nullptr ? weights[r] : 1.0) * dist[r];
  std::vector<double> cdf(static_cast<std::size_t>(n));
  double acc = 0.0;
  for (index_t r = 0; r < n; ++r) {
    const double w = weights != nullptr ? weights[r] : 1.0;
    acc += 0.5 * w / total + (spread > 0.0 ? 0.5 * w * dist[r] / spread : 0.5 * w / total);
    cdf[r] = acc;
  }
  // m draws; a row drawn c times gets c w_r / (m q_r).
  std::vector<index_t> drawn(static_cast<std::size_t>(m));
  for (index_t t = 0; t < m; ++t) {
    const double u = rng.uniform() * acc;
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    drawn[t] = std::min<index_t>(n - 1, static_cast<index_t>(it - cdf.begin()));
  }
  std::sort(drawn.begin(), drawn.end());
  Sketch s;
  s.d = d;
  for (index_t t = 0; t < m;) {
    const index_t r = drawn[t];
    index_t c = 0;
    while (t < m && drawn[t] == r) {
      ++c;
      ++t;
    }
    const double q = (cdf[r] - (r > 0 ? cdf[r - 1] : 0.0)) / acc;
    const double w = weights != nullptr ? weights[r] : 1.0;
    s.rows.push_back(r);
    s.weight.push_back(static_cast<double>(c) * w / (static_cast<double>(m) * q));
  }
  s.m = static_cast<index_t>(s.rows.size());
  s.x.assign(static_cast<std::size_t>(s.m * d), 0.0);
  std::vector<double> row(static_cast<std::size_t>(d));
  for (index_t i = 0; i < s.m; ++i) {
    get_row(a, s.rows[i], row.data());
    for (index_t j = 0; j < d; ++j) s.x[i + s.m * j] = row[j];
  }
  return s;
}

// The lift of centres found on a sketch: each row of `a` goes to its nearest
// centre (one pass) and each centre becomes the (weighted) mean of its rows;
// a centre no row is nearest to stays where it was. Returns the lifted
// centres (k x d, column-major).
template <class Data>
std::vector<double> lift_centres(const Data& a, const double* row_norms, const double* weights,
                                 const std::vector<double>& centres, index_t k, int n_threads) {
  const index_t n = a.n, d = a.d;
  std::vector<int> label = rows_array(static_cast<std::size_t>(n), -1);
  assign_nearest(a, row_norms, centres.data(), k, label.data(), nullptr, n_threads);
  std::vector<double> sums(static_cast<std::size_t>(k * d), 0.0), size(k, 0.0);
  if (weights != nullptr) {
    weighted_cluster_sums(a, label.data(), weights, k, sums.data(), n_threads);
    for (index_t r = 0; r < n; ++r) size[label[r]] += weights[r];
  } else {
    cluster_sums(a, label.data(), k, sums.data(), n_threads);
    for (index_t r = 0; r < n; ++r) size[label[r]] += 1.0;
  }
  std::vector<double> out = centres;
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q)
      if (size[q] > 0.0) out[q + k * j] = sums[q + k * j] / size[q];
  return out;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SKETCH_HPP
