// kmreduce: split/merge moves on a k-means partition, then Hartigan's moves
// (hartigan.hpp). Lloyd and single-point moves cannot undo a partition that
// cuts one natural cluster in two and joins two others: that needs k - 1
// centres moved at once. A split/merge move merges clusters a and b and
// splits a third cluster s in two, keeping k:
//   merge cost   M(a, b) = n_a n_b / (n_a + n_b) ||c_a - c_b||^2
//                (the exact increase of the objective by the merge),
//   split gain   G(s) = SSE(s) - SSE(two clusters of s)
//                (the split by 2-means on the rows of s),
// score G(s) - M(a, b): the change before Lloyd moves any row. The `tries`
// best (a, b, s) are each followed by Lloyd on all rows from the k centres
// (the others unchanged, the merged mean, the two halves of s) and by
// Hartigan's moves; the lowest objective replaces the partition if it is
// lower, and this repeats for up to `rounds` rounds while it does. Restarts
// that re-seed only the worst clusters; in the spirit of the split/merge
// moves of Ueda et al. (2000) for mixtures and of Hamerly's "PG-means"
// family; here judged by the exact k-means objective.
//
// The 2-means of all k clusters run at once, one pass per iteration: each
// cluster is first cut through its mean perpendicular to its first principal
// direction (power iterations from a random start: PDDP of Boley 1998), then
// 2-means (Lloyd) within the cluster. Sums are taken in fixed chunks of rows
// and added in chunk order: the same result for every thread count.
//
// Candidates: the (a, b, s) with s not in {a, b}, from the 4 tries cheapest
// merges and the 4 tries largest gains (all of them for small k).
//
// With rows on several processes (Combine), every process runs this on its
// own rows; the sums, decisions and draws are global.
#ifndef KMREDUCE_SPLIT_MERGE_HPP
#define KMREDUCE_SPLIT_MERGE_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "hartigan.hpp"
#include "lloyd.hpp"
#include "matrix.hpp"
#include "parallel.hpp"
#include "rng.hpp"
#include "row_source.hpp"

namespace kmreduce {

struct SplitMergeOptions {
  int tries = 10;           // moves tried per round
  int rounds = 5;           // rounds, each kept only when it improves
  int iter_max = 100;       // Lloyd after each move
  double tol = 0.0;
  int hartigan_sweeps = 100;  // Hartigan's moves after Lloyd (0: none)
  int power_iters = 3;      // for the first cut of each cluster
  int two_means_iters = 20;
};

struct SplitMergeTry {
  int round = 0;
  index_t a = 0, b = 0, s = 0;  // merged a and b, split s (0-based)
  double score = 0.0;           // G(s) - M(a, b)
  double objective = 0.0;       // after Lloyd and Hartigan
};

struct SplitMergeResult {
  int rounds = 0;    // rounds run
  int accepted = 0;  // rounds that improved
  std::vector<SplitMergeTry> trace;
};

namespace detail {
// Per-chunk sums of `width` numbers over the rows, added in chunk order:
// body(r, row, out) adds row r's share (its values in `row`) to out.
// Chunks depend on n only (at most 64 of them), not on the threads.
template <class Data, class Body>
void chunked_row_sums(const Data& a, index_t width, double* total, int n_threads, Body&& body) {
  const index_t n = a.n, d = a.d;
  const index_t len = std::max<index_t>(2048, (n + 63) / 64);
  const index_t nc = n_blocks(n, len);
  std::vector<double> part(static_cast<std::size_t>(nc) * width, 0.0);
  parallel_for_scratch<std::vector<double>>(nc, n_threads, [&](index_t c, std::vector<double>& row) {
    row.resize(d);
    double* out = part.data() + c * width;
    for (index_t r = c * len; r < std::min(n, (c + 1) * len); ++r) {
      get_row(a, r, row.data());
      body(r, row.data(), out);
    }
  }, static_cast<double>(n) * d);
  for (index_t c = 0; c < nc; ++c)
    for (index_t i = 0; i < width; ++i) total[i] += part[c * width + i];
}

// Sums (k x d, column-major), counts and squared distances to the means of
// the clusters `label` (k of them), global. Returns the means in `centres`.
template <class Data, class Combine>
void cluster_moments(const Data& a, const int* label, index_t k, std::vector<double>& centres,
                     std::vector<double>& count, std::vector<double>& sse, int n_threads,
                     const Combine& combine) {
  const index_t n = a.n, d = a.d;
  std::vector<double> sums(k * d, 0.0);
  count.assign(k, 0.0);
  cluster_sums(a, label, k, sums.data(), n_threads);
  for (index_t r = 0; r < n; ++r) count[label[r]] += 1.0;
  combine.sum(sums.data(), k * d);
  combine.sum(count.data(), k);
  centres.assign(k * d, 0.0);
  means_of(sums, count, k, d, centres);
  sse.assign(k, 0.0);
  chunked_row_sums(a, k, sse.data(), n_threads, [&](index_t r, const double* x, double* out) {
    out[label[r]] += centre_dist2(x, centres.data(), k, d, label[r]);
  });
  combine.sum(sse.data(), k);
}

// Two halves of each of the k clusters: `halves` (2k x d, column-major; rows
// 2q and 2q + 1 of cluster q), their SSE summed per cluster in `split_sse`
// (infinite when a cluster cannot be cut: fewer than 2 distinct rows).
template <class Data, class Combine>
void split_all(const Data& a, const int* label, index_t k, const std::vector<double>& centres,
               const std::vector<double>& count, Rng& rng, const SplitMergeOptions& opt,
               std::vector<double>& halves, std::vector<double>& split_sse, int n_threads,
               const InterruptCheck& interrupt, const Combine& combine) {
  const index_t n = a.n, d = a.d, k2 = 2 * k;
  // first principal direction of each cluster (rows of u: k x d, column-major)
  std::vector<double> u(k * d), w(k * d);
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q) u[q + k * j] = rng.normal();
  auto normalise = [&](std::vector<double>& v) {
    for (index_t q = 0; q < k; ++q) {
      double s = 0.0;
      for (index_t j = 0; j < d; ++j) s += v[q + k * j] * v[q + k * j];
      s = s > 0.0 ? 1.0 / std::sqrt(s) : 0.0;
      for (index_t j = 0; j < d; ++j) v[q + k * j] *= s;
    }
  };
  normalise(u);
  for (int it = 0; it < opt.power_iters; ++it) {
    std::fill(w.begin(), w.end(), 0.0);
    chunked_row_sums(a, k * d, w.data(), n_threads, [&](index_t r, const double* x, double* out) {
      const index_t q = label[r];
      double s = 0.0;
      for (index_t j = 0; j < d; ++j) s += (x[j] - centres[q + k * j]) * u[q + k * j];
      for (index_t j = 0; j < d; ++j) out[q + k * j] += s * (x[j] - centres[q + k * j]);
    });
    combine.sum(w.data(), k * d);
    normalise(w);
    for (index_t q = 0; q < k; ++q) {  // a cluster of equal rows keeps its start
      double s = 0.0;
      for (index_t j = 0; j < d; ++j) s += w[q + k * j] * w[q + k * j];
      if (s > 0.0)
        for (index_t j = 0; j < d; ++j) u[q + k * j] = w[q + k * j];
    }
    check_interrupt(interrupt);
  }
  // the cut through the mean, then 2-means within each cluster
  std::vector<int> sub(n);
  double none = 0.0;
  chunked_row_sums(a, 0, &none, n_threads, [&](index_t r, const double* x, double*) {
    const index_t q = label[r];
    double s = 0.0;
    for (index_t j = 0; j < d; ++j) s += (x[j] - centres[q + k * j]) * u[q + k * j];
    sub[r] = static_cast<int>(2 * q + (s > 0.0 ? 1 : 0));
  });
  std::vector<double> sums(k2 * d), cnt(k2);
  halves.assign(k2 * d, 0.0);
  for (int it = 0; it <= opt.two_means_iters; ++it) {
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(cnt.begin(), cnt.end(), 0.0);
    cluster_sums(a, sub.data(), k2, sums.data(), n_threads);
    for (index_t r = 0; r < n; ++r) cnt[sub[r]] += 1.0;
    combine.sum(sums.data(), k2 * d);
    combine.sum(cnt.data(), k2);
    means_of(sums, cnt, k2, d, halves);
    if (it == opt.two_means_iters) break;
    // each row to the nearer half of its cluster (exact distances; the
    // first half on ties; an empty half attracts nothing)
    std::vector<double> changed(1, 0.0);
    chunked_row_sums(a, 1, changed.data(), n_threads, [&](index_t r, const double* x, double* out) {
      const index_t q = label[r];
      const double d0 = cnt[2 * q] > 0.0 ? centre_dist2(x, halves.data(), k2, d, 2 * q)
                                         : std::numeric_limits<double>::infinity();
      const double d1 = cnt[2 * q + 1] > 0.0 ? centre_dist2(x, halves.data(), k2, d, 2 * q + 1)
                                             : std::numeric_limits<double>::infinity();
      const int s = static_cast<int>(2 * q + (d1 < d0 ? 1 : 0));
      if (s != sub[r]) {
        sub[r] = s;
        out[0] += 1.0;
      }
    });
    check_interrupt(interrupt);
    if (combined_sum(combine, changed[0]) == 0.0) break;
  }
  split_sse.assign(k, 0.0);
  chunked_row_sums(a, k, split_sse.data(), n_threads, [&](index_t r, const double* x, double* out) {
    out[label[r]] += centre_dist2(x, halves.data(), k2, d, sub[r]);
  });
  combine.sum(split_sse.data(), k);
  for (index_t q = 0; q < k; ++q)
    if (cnt[2 * q] == 0.0 || cnt[2 * q + 1] == 0.0 || count[q] < 2.0)
      split_sse[q] = std::numeric_limits<double>::infinity();
}
}  // namespace detail

// Hartigan's moves from a Lloyd result, then Lloyd again from their means,
// so the result is a fixed point of both and its labels are the
// nearest-centre labels of its centres, as Lloyd returns them. Returns the
// moves made (none: `res` unchanged).
template <class Data, class Combine = LocalCombine>
index_t hartigan_polish(const Data& a, const double* row_norms, index_t k, LloydResult& res,
                        int iter_max, double tol, int sweeps, int n_threads,
                        const InterruptCheck& interrupt, const Combine& combine) {
  if (sweeps <= 0 || k < 2) return 0;
  std::vector<int> label = res.label;
  std::vector<double> means;
  const HartiganResult h = hartigan(a, row_norms, k, label.data(), means, sweeps, n_threads,
                                    interrupt, combine);
  if (h.moves == 0) return 0;
  LloydResult again = lloyd(ResidentRows<Data>(a), row_norms, std::move(means), k, iter_max,
                            tol, n_threads, interrupt, nullptr, combine);
  // Hartigan lowered the objective and Lloyd from its means cannot raise
  // it; only rounding in the objectives' formulas could make it look so.
  if (!(again.objective <= res.objective)) return 0;
  again.iter += res.iter;
  res = std::move(again);
  return h.moves;
}

// Lloyd from `centres`, then hartigan_polish().
template <class Data, class Combine = LocalCombine>
LloydResult lloyd_hartigan(const Data& a, const double* row_norms, std::vector<double> centres,
                           index_t k, int iter_max, double tol, int hartigan_sweeps,
                           int n_threads, const InterruptCheck& interrupt,
                           const Combine& combine) {
  LloydResult res = lloyd(ResidentRows<Data>(a), row_norms, std::move(centres), k, iter_max,
                          tol, n_threads, interrupt, nullptr, combine);
  hartigan_polish(a, row_norms, k, res, iter_max, tol, hartigan_sweeps, n_threads, interrupt,
                  combine);
  return res;
}

template <class Data, class Combine = LocalCombine>
SplitMergeResult split_merge(const Data& a, const double* row_norms, index_t k, LloydResult& best,
                             Rng& rng, const SplitMergeOptions& opt, int n_threads,
                             const InterruptCheck& interrupt = InterruptCheck(),
                             const Combine& combine = Combine()) {
  const index_t d = a.d;
  SplitMergeResult res;
  if (k < 3 || opt.tries < 1) return res;
  std::vector<double> centres, count, sse, halves, split_sse;
  for (int round = 1; round <= opt.rounds; ++round) {
    ++res.rounds;
    detail::cluster_moments(a, best.label.data(), k, centres, count, sse, n_threads, combine);
    detail::split_all(a, best.label.data(), k, centres, count, rng, opt, halves, split_sse,
                      n_threads, interrupt, combine);
    // candidates: cheapest merges x largest gains
    const index_t want = std::min<index_t>(4 * opt.tries, k * (k - 1) / 2);
    struct Pair {
      double cost;
      index_t a, b;
    };
    std::vector<Pair> pairs;
    pairs.reserve(k * (k - 1) / 2);
    for (index_t p = 0; p < k; ++p)
      for (index_t q = p + 1; q < k; ++q) {
        double dd = 0.0;
        for (index_t j = 0; j < d; ++j) {
          const double e = centres[p + k * j] - centres[q + k * j];
          dd += e * e;
        }
        const double np = count[p], nq = count[q];
        pairs.push_back({np + nq > 0.0 ? np * nq / (np + nq) * dd : 0.0, p, q});
      }
    auto by_cost = [](const Pair& x, const Pair& y) {
      return x.cost < y.cost || (x.cost == y.cost && (x.a < y.a || (x.a == y.a && x.b < y.b)));
    };
    std::partial_sort(pairs.begin(), pairs.begin() + want, pairs.end(), by_cost);
    pairs.resize(want);
    std::vector<index_t> splits(k);
    std::iota(splits.begin(), splits.end(), index_t(0));
    std::vector<double> gain(k);
    for (index_t q = 0; q < k; ++q)
      gain[q] = std::isfinite(split_sse[q]) ? sse[q] - split_sse[q]
                                            : -std::numeric_limits<double>::infinity();
    std::stable_sort(splits.begin(), splits.end(),
                     [&](index_t x, index_t y) { return gain[x] > gain[y]; });
    splits.resize(std::min<index_t>(k, 4 * opt.tries));
    std::vector<SplitMergeTry> cands;
    for (const Pair& pr : pairs)
      for (index_t s : splits) {
        if (s == pr.a || s == pr.b || !std::isfinite(gain[s])) continue;
        cands.push_back({round, pr.a, pr.b, s, gain[s] - pr.cost, 0.0});
      }
    std::stable_sort(cands.begin(), cands.end(), [](const SplitMergeTry& x, const SplitMergeTry& y) {
      return x.score > y.score;
    });
    if (static_cast<index_t>(cands.size()) > opt.tries) cands.resize(opt.tries);
    LloydResult round_best;
    bool improved = false;
    for (SplitMergeTry& c : cands) {
      std::vector<double> start = centres;
      for (index_t j = 0; j < d; ++j) {
        const double na = count[c.a], nb = count[c.b];
        start[c.a + k * j] = (na * centres[c.a + k * j] + nb * centres[c.b + k * j]) / (na + nb);
        start[c.b + k * j] = halves[2 * c.s + 2 * k * j];
        start[c.s + k * j] = halves[2 * c.s + 1 + 2 * k * j];
      }
      LloydResult r = lloyd_hartigan(a, row_norms, std::move(start), k, opt.iter_max, opt.tol,
                                     opt.hartigan_sweeps, n_threads, interrupt, combine);
      c.objective = r.objective;
      res.trace.push_back(c);
      const double bar = improved ? round_best.objective : best.objective;
      if (r.objective < bar * (1.0 - 1e-10)) {
        round_best = std::move(r);
        improved = true;
      }
      check_interrupt(interrupt);
    }
    if (!improved) break;
    ++res.accepted;
    round_best.iter += best.iter;
    best = std::move(round_best);
  }
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SPLIT_MERGE_HPP
