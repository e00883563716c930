// kmreduce: greedy k-means++ seeding (Arthur & Vassilvitskii 2007, with the
// 2 + floor(ln k) local trials per centre used by scikit-learn).
#ifndef KMREDUCE_KMEANSPP_HPP
#define KMREDUCE_KMEANSPP_HPP

#include <cmath>
#include <limits>
#include <vector>

#include "matrix.hpp"
#include "parallel.hpp"
#include "rng.hpp"
#include "row_source.hpp"

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

// draw_weighted() over the rows of all processes (global row index): the
// process whose share of the total holds u draws from its rows, as one
// process would from the stacked weights. `totals` holds every process's
// total, in rank order.
template <class Combine>
index_t draw_weighted_combined(const std::vector<double>& weight,
                               const std::vector<double>& totals, Rng& rng,
                               const Combine& combine, index_t n_all) {
  double total = 0.0;
  for (double t : totals) total += t;
  if (!(total > 0.0)) return static_cast<index_t>(rng.below(n_all));
  const double u = rng.uniform() * total;
  double cum = 0.0;
  for (int p = 0; p < combine.rank(); ++p) cum += totals[p];
  const index_t n = static_cast<index_t>(weight.size());
  index_t hit = -1, last_positive = -1;
  for (index_t r = 0; r < n; ++r) {
    if (weight[r] > 0.0) {
      cum += weight[r];
      last_positive = r;
      if (cum > u) {
        hit = r;
        break;
      }
    }
  }
  // The first hit of all (global order), else the last positive weight.
  const int np = combine.size();
  std::vector<double> found(2 * np, 0.0);
  if (hit >= 0) found[combine.rank()] = static_cast<double>(combine.offset() + hit + 1);
  if (last_positive >= 0)
    found[np + combine.rank()] = static_cast<double>(combine.offset() + last_positive + 1);
  combine.sum(found.data(), 2 * np);
  for (int p = 0; p < np; ++p)
    if (found[p] > 0.0) return static_cast<index_t>(found[p]) - 1;
  for (int p = np - 1; p >= 0; --p)
    if (found[np + p] > 0.0) return static_cast<index_t>(found[np + p]) - 1;
  return 0;
}

// Squared distances of every row to the m points P (m x d, column-major):
// out (n x m) = ||a||^2 - 2 a.p + ||p||^2 clamped at 0, by row-blocked GEMMs.
template <class Data>
void dist2_to_points(const Data& a, const double* row_norms, const double* p,
                     index_t m, double* out, int n_threads) {
  const std::vector<double> pnorm = centre_sqnorms(p, m, a.d);
  const index_t nb = n_blocks(a.n, kRowBlock);
  const double work = static_cast<double>(a.n) * m * a.d;
  parallel_for_scratch<std::vector<double>>(nb, n_threads, [&](index_t b, std::vector<double>& buf) {
    buf.resize(kRowBlock * m);
    const index_t r0 = b * kRowBlock, r1 = std::min(a.n, r0 + kRowBlock);
    const index_t len = r1 - r0;
    cross_block(a, r0, r1, p, m, buf.data());
    for (index_t t = 0; t < m; ++t)
      for (index_t r = r0; r < r1; ++r)
        out[r + a.n * t] = std::max(
            0.0, row_norms[r] - 2.0 * buf[(r - r0) + len * t] + pnorm[t]);
  }, work);
}

// The nearest-centre assignment of the rows to the seeds, which k-means++
// finds on its way: Lloyd starts from it instead of a first pass.
struct SeedAssignment {
  std::vector<int> label;       // nearest seed (first one on ties)
  std::vector<double> nearest;  // squared distance to it
  std::vector<double> second;   // squared distance to the next nearest
  std::vector<int> second_label;  // which seed that is (0 while there is none)
};

// Writes k centres (k x d, column-major) chosen among the rows of `a`: the
// first uniformly, each next one the best (lowest potential) of `trials`
// candidates drawn with probability proportional to D(x)^2. With `assign`,
// also the assignment of the rows to the seeds.
//
// With rows on several processes (Combine), every process calls this with
// its own rows and the same generator: the draws are those of one process
// on the stacked rows (indices are global), the centres are the same on
// every process, and `assign` is of the local rows.
template <class Data, class Combine = LocalCombine>
void kmeanspp(const Data& a, const double* row_norms, index_t k, Rng& rng,
              double* centres, int n_threads,
              const InterruptCheck& interrupt = InterruptCheck(),
              SeedAssignment* assign = nullptr, const Combine& combine = Combine()) {
  const index_t n = a.n, d = a.d;
  const index_t n_all = combine.total_rows(n);
  const bool one = combine.size() == 1;
  const index_t trials = 2 + static_cast<index_t>(std::log(static_cast<double>(k)));
  std::vector<double> row(d), dist(n), cand(trials * n), cand_pts(trials * d);
  std::vector<index_t> cand_row(trials);
  // Local index of global row g, or -1 when another process holds it.
  auto local = [&](index_t g) {
    const index_t l = g - combine.offset();
    return l >= 0 && l < n ? l : index_t(-1);
  };
  auto fetch = [&](index_t g, double* out) {
    if (one) {
      get_row(a, g, out);
    } else {
      combined_row(combine, g, n, d, [&](index_t r, double* o) { get_row(a, r, o); }, out);
    }
  };

  auto set_centre = [&](index_t q, index_t g) {
    fetch(g, row.data());
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = row[j];
  };

  const index_t first = static_cast<index_t>(rng.below(n_all));
  set_centre(0, first);
  dist2_to_points(a, row_norms, row.data(), 1, dist.data(), n_threads);
  if (local(first) >= 0) dist[local(first)] = 0.0;
  if (assign != nullptr) {
    assign->label.assign(n, 0);
    assign->second.assign(n, std::numeric_limits<double>::infinity());
    assign->second_label.assign(n, 0);
  }

  std::vector<double> totals(combine.size()), pots(trials);
  for (index_t q = 1; q < k; ++q) {
    double total = 0.0;
    for (index_t r = 0; r < n; ++r) total += dist[r];
    if (!one) {
      std::fill(totals.begin(), totals.end(), 0.0);
      totals[combine.rank()] = total;
      combine.sum(totals.data(), combine.size());
    }
    for (index_t t = 0; t < trials; ++t) {
      cand_row[t] = one ? draw_weighted(dist, total, rng)
                        : draw_weighted_combined(dist, totals, rng, combine, n_all);
      fetch(cand_row[t], row.data());
      for (index_t j = 0; j < d; ++j) cand_pts[t + trials * j] = row[j];
    }
    dist2_to_points(a, row_norms, cand_pts.data(), trials, cand.data(),
                    n_threads);
    for (index_t t = 0; t < trials; ++t) {
      const double* ct = cand.data() + n * t;
      const index_t own = local(cand_row[t]);
      double pot = 0.0;
      for (index_t r = 0; r < n; ++r)
        pot += (r == own) ? 0.0 : std::min(dist[r], ct[r]);
      pots[t] = pot;
    }
    combine.sum(pots.data(), trials);
    index_t best = 0;
    double best_pot = 0.0;
    for (index_t t = 0; t < trials; ++t) {
      const double pot = pots[t];
      if (t == 0 || pot < best_pot) {
        best_pot = pot;
        best = t;
      }
    }
    const double* cb = cand.data() + n * best;
    if (assign != nullptr) {
      int* lab = assign->label.data();
      int* lab2 = assign->second_label.data();
      double* sec = assign->second.data();
      for (index_t r = 0; r < n; ++r) {
        if (cb[r] < dist[r]) {
          sec[r] = dist[r];
          lab2[r] = lab[r];
          lab[r] = static_cast<int>(q);
        } else if (cb[r] < sec[r]) {
          sec[r] = cb[r];
          lab2[r] = static_cast<int>(q);
        }
      }
      const index_t c = local(cand_row[best]);
      if (c >= 0 && lab[c] != static_cast<int>(q)) {  // the seed itself, at distance 0
        sec[c] = dist[c];
        lab2[c] = lab[c];
        lab[c] = static_cast<int>(q);
      }
    }
    for (index_t r = 0; r < n; ++r) dist[r] = std::min(dist[r], cb[r]);
    if (local(cand_row[best]) >= 0) dist[local(cand_row[best])] = 0.0;
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = cand_pts[best + trials * j];
    check_interrupt(interrupt);
  }
  if (assign != nullptr) assign->nearest = std::move(dist);
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANSPP_HPP
