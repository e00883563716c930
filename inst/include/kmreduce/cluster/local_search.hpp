// kmreduce: local search after k-means++ seeding (LocalSearch++ of
// Lattanzi & Sohler 2019): each step draws a row p with probability
// proportional to its squared distance to the nearest centre (D^2), finds the
// centre q whose replacement by p lowers the k-means cost the most, and swaps
// them when the cost decreases. With Z = eps k steps the seeding is an
// O(1 / eps^3)-approximation in expectation (Choo, Grunau, Portmann & Rozhon
// 2020); plain k-means++ is only O(log k). The swaps fix what k-means++ gets
// wrong when its D^2 draws put two seeds in one cluster and none in another.
//
// Every row keeps its nearest centre (a1, d1) and the second nearest (a2,
// d2), which k-means++ found on its way, so the cost of replacing each
// centre by p comes from one pass:
//   cost(q) = sum_r min(d1, dp) + sum_{r: a1 = q} (min(d2, dp) - min(d1, dp)),
// dp = ||x_r - p||^2 (O(n d) per step). After a swap only the rows whose a1
// or a2 was q are compared with all centres again.
//
// With rows on several processes (Combine), every process runs this on its
// own rows with the same generator: draws, sums and decisions are global.
#ifndef KMREDUCE_LOCAL_SEARCH_HPP
#define KMREDUCE_LOCAL_SEARCH_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kmeanspp.hpp"
#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

namespace detail {
// Nearest and second nearest centre of the given rows (squared distances by
// the same expansion as dist2_to_points()): the rows gathered in blocks,
// each block one GEMM against the centres.
template <class Data>
void nearest_two(const Data& a, const std::vector<index_t>& rows, const double* row_norms,
                 const double* centres, index_t k, std::vector<int>& a1,
                 std::vector<double>& d1, std::vector<int>& a2, std::vector<double>& d2,
                 int n_threads) {
  const index_t m = static_cast<index_t>(rows.size()), d = a.d;
  const std::vector<double> cnorm = centre_sqnorms(centres, k, d);
  struct Scratch {
    std::vector<double> block, cross, row;
  };
  parallel_for_scratch<Scratch>(n_blocks(m, kRowBlock), n_threads, [&](index_t b, Scratch& s) {
    const index_t t0 = b * kRowBlock, len = std::min(kRowBlock, m - t0);
    s.block.resize(len * d);
    s.cross.resize(len * k);
    s.row.resize(d);
    for (index_t t = 0; t < len; ++t) {
      get_row(a, rows[t0 + t], s.row.data());
      for (index_t j = 0; j < d; ++j) s.block[t + len * j] = s.row[j];
    }
    cross_block(DenseMatrix(s.block.data(), len, d), 0, len, centres, k, s.cross.data());
    for (index_t t = 0; t < len; ++t) {
      const index_t r = rows[t0 + t];
      nearest_two_of(s.cross.data() + t, len, k, row_norms[r], cnorm.data(), a1[r], d1[r],
                     a2[r], d2[r]);
    }
  }, static_cast<double>(m) * k * d);
}
}  // namespace detail

struct LocalSearchStep {
  std::vector<index_t> candidates;  // global rows drawn
  index_t candidate = 0, centre = 0;  // the best swap: candidate index, centre replaced
  double before = 0.0, after = 0.0;   // cost before, and with the best swap
  bool swapped = false;
};

struct LocalSearchResult {
  int steps = 0;   // steps taken
  int swaps = 0;   // swaps accepted
  double cost = 0.0;
  std::vector<LocalSearchStep> trace;  // with `record` (tests)
};

namespace detail {
// The rows' nearest and second nearest centres (labels and squared
// distances) that a local search keeps up to date.
struct TwoNearest {
  std::vector<int> a1, a2;
  std::vector<double> d1, d2;
};

// A step's `trials` candidates, drawn together with probability (w) D^2:
// their global rows `cand` and their points `p` (trials x d, column-major).
template <class Data, class Combine>
void draw_candidates(const Data& a, const TwoNearest& nn, Rng& rng, index_t trials,
                     const Combine& combine, const double* weight, std::vector<index_t>& cand,
                     std::vector<double>& p) {
  const index_t n = a.n, d = a.d;
  const bool one = combine.size() == 1;
  std::vector<double> row(d), totals(combine.size());
  double total = 0.0;
  if (weight != nullptr) {
    for (index_t r = 0; r < n; ++r) total += weight[r] * nn.d1[r];
  } else {
    for (index_t r = 0; r < n; ++r) total += nn.d1[r];
  }
  if (!one) {
    std::fill(totals.begin(), totals.end(), 0.0);
    totals[combine.rank()] = total;
    combine.sum(totals.data(), combine.size());
  }
  if (one) draw_weighted_many(nn.d1, total, rng, trials, cand.data(), weight);
  for (index_t t = 0; t < trials; ++t) {
    if (!one) cand[t] = draw_weighted_combined(nn.d1, totals, rng, combine, combine.total_rows(n));
    if (one) {
      get_row(a, cand[t], row.data());
    } else {
      combined_row(combine, cand[t], n, d, [&](index_t r, double* o) { get_row(a, r, o); },
                   row.data());
    }
    for (index_t j = 0; j < d; ++j) p[t + trials * j] = row[j];
  }
}

// The costs of the swaps, from each row's distances `dp` (n x trials) to
// the candidates: sums[t (k + 1) + q] the change of replacing centre q by
// candidate t, sums[t (k + 1) + k] the cost with t added; sums[last] the
// current cost. Summed over the processes.
template <class Combine>
void swap_costs(const TwoNearest& nn, const std::vector<double>& dp, index_t n, index_t k,
                index_t trials, const Combine& combine, const double* weight,
                std::vector<double>& sums) {
  std::fill(sums.begin(), sums.end(), 0.0);
  double* cur = &sums[trials * (k + 1)];
  if (weight != nullptr) {
    for (index_t r = 0; r < n; ++r) *cur += weight[r] * nn.d1[r];
    for (index_t t = 0; t < trials; ++t) {
      const double* dt = dp.data() + n * t;
      double* st = sums.data() + t * (k + 1);
      for (index_t r = 0; r < n; ++r) {
        const double with_p = std::min(nn.d1[r], dt[r]);
        st[k] += weight[r] * with_p;
        st[nn.a1[r]] += weight[r] * (std::min(nn.d2[r], dt[r]) - with_p);
      }
    }
  } else {
    for (index_t r = 0; r < n; ++r) *cur += nn.d1[r];
    for (index_t t = 0; t < trials; ++t) {
      const double* dt = dp.data() + n * t;
      double* st = sums.data() + t * (k + 1);
      for (index_t r = 0; r < n; ++r) {
        const double with_p = std::min(nn.d1[r], dt[r]);
        st[k] += with_p;
        st[nn.a1[r]] += std::min(nn.d2[r], dt[r]) - with_p;
      }
    }
  }
  combine.sum(sums.data(), static_cast<index_t>(sums.size()));
}

// Centre qb replaced by the candidate at distances `dpb` (local row `own`,
// or < 0): the rows' two nearest updated, those that had qb among them
// computed again.
template <class Data>
void apply_swap(const Data& a, const double* row_norms, const double* centres, index_t k,
                int qb, const double* dpb, index_t own, int n_threads, TwoNearest& nn,
                std::vector<index_t>& redo) {
  const index_t n = a.n;
  redo.clear();
  for (index_t r = 0; r < n; ++r) {
    if (nn.a1[r] == qb || nn.a2[r] == qb) {
      redo.push_back(r);
    } else if (dpb[r] < nn.d1[r]) {
      nn.d2[r] = nn.d1[r];
      nn.a2[r] = nn.a1[r];
      nn.d1[r] = dpb[r];
      nn.a1[r] = qb;
    } else if (dpb[r] < nn.d2[r]) {
      nn.d2[r] = dpb[r];
      nn.a2[r] = qb;
    }
  }
  nearest_two(a, redo, row_norms, centres, k, nn.a1, nn.d1, nn.a2, nn.d2, n_threads);
  if (own >= 0) {  // the candidate itself is the centre: distance 0
    if (nn.a1[own] != qb) {
      nn.d2[own] = nn.d1[own];
      nn.a2[own] = nn.a1[own];
    }
    nn.d1[own] = 0.0;
    nn.a1[own] = qb;
  }
}
}  // namespace detail

// Runs `steps` LocalSearch++ steps on the centres (k x d, column-major),
// starting from `assign`, the assignment of the rows to them that kmeanspp()
// returns, and leaves there the assignment to the final centres (nearest and
// second nearest), as Lloyd takes it. With observation weights (`weight`,
// one per row; one process) rows are drawn with probability w D^2 and the
// costs are weighted. Each step: candidates drawn (draw_candidates()),
// their distances, the costs of every swap (swap_costs()), the best swap
// made when it lowers the cost (apply_swap()).
template <class Data, class Combine = LocalCombine>
LocalSearchResult local_search(const Data& a, const double* row_norms, index_t k, int steps,
                               Rng& rng, double* centres, SeedAssignment& assign,
                               int n_threads,
                               const InterruptCheck& interrupt = InterruptCheck(),
                               const Combine& combine = Combine(), bool record = false,
                               const double* weight = nullptr) {
  const index_t n = a.n, d = a.d;
  LocalSearchResult res;
  // nearest and second nearest of every row, as k-means++ left them (k = 1:
  // no second)
  detail::TwoNearest nn{std::move(assign.label), std::move(assign.second_label),
                        std::move(assign.nearest), std::move(assign.second)};
  if (static_cast<index_t>(nn.a1.size()) != n || static_cast<index_t>(nn.a2.size()) != n ||
      static_cast<index_t>(nn.d1.size()) != n || static_cast<index_t>(nn.d2.size()) != n)
    throw std::invalid_argument("local_search: the seed assignment must have one entry per row");
  // `trials` candidates per step, drawn together, one pass for all of them
  const index_t trials = greedy_trials(k);
  std::vector<double> p(trials * d), dp(trials * n);
  std::vector<double> sums(trials * (k + 1) + 1);
  std::vector<index_t> cand(trials), redo;
  auto local = [&](index_t g) { return local_row(combine, g, n); };
  for (int step = 0; step < steps && k > 1; ++step) {
    detail::draw_candidates(a, nn, rng, trials, combine, weight, cand, p);
    dist2_to_points(a, row_norms, p.data(), trials, dp.data(), n_threads);
    for (index_t t = 0; t < trials; ++t)
      if (local(cand[t]) >= 0) dp[local(cand[t]) + n * t] = 0.0;
    detail::swap_costs(nn, dp, n, k, trials, combine, weight, sums);
    const double current = sums[trials * (k + 1)];
    index_t bt = 0, bq = 0;
    for (index_t t = 0; t < trials; ++t) {
      const double* st = sums.data() + t * (k + 1);
      for (index_t q = 0; q < k; ++q)
        if (st[k] + st[q] < sums[bt * (k + 1) + k] + sums[bt * (k + 1) + bq]) {
          bt = t;
          bq = q;
        }
    }
    const double cost = sums[bt * (k + 1) + k] + sums[bt * (k + 1) + bq];
    ++res.steps;
    res.cost = current;
    const bool swap = cost < current * (1.0 - 1e-12);  // beyond rounding
    if (record) res.trace.push_back({cand, bt, bq, current, cost, swap});
    check_interrupt(interrupt);
    if (!swap) continue;
    ++res.swaps;
    res.cost = cost;
    for (index_t j = 0; j < d; ++j) centres[bq + k * j] = p[bt + trials * j];
    detail::apply_swap(a, row_norms, centres, k, static_cast<int>(bq), dp.data() + n * bt,
                       local(cand[bt]), n_threads, nn, redo);
  }
  assign.label = std::move(nn.a1);
  assign.nearest = std::move(nn.d1);
  assign.second = std::move(nn.d2);
  assign.second_label = std::move(nn.a2);
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_LOCAL_SEARCH_HPP
