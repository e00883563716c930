// kmreduce: split/merge moves on a k-means partition. Lloyd and Hartigan's
// single-point moves (hartigan.hpp) cannot undo a partition that cuts one
// natural cluster in two and joins two others: that needs many rows moved
// at once. A split/merge move merges clusters a and b and cuts a third
// cluster s in two, keeping k:
//   merge cost  M(a, b) = n_a n_b / (n_a + n_b) ||c_a - c_b||^2,
//   split gain  G(s) = n_1 n_2 / (n_1 + n_2) ||m_1 - m_2||^2 for the two
//               halves of s (means m_1, m_2),
// both the exact changes of the objective; score G(s) - M(a, b). Each round
// takes the `evaluated` best-scored moves and computes, in one pass over the
// rows for all of them, each one's objective after one assignment step to
// its centres (the other centres unchanged, the merged mean in slot a, the
// halves' means in slots b and s): the first step of the Lloyd run a try
// would make. The moves whose one-step objective is below (1 + margin) times
// the partition's are tried, lowest first, at most `tries`: Lloyd on all
// rows from each for `screen_iters` iterations; the `keep` lowest go on to
// convergence, and the lowest objective replaces the partition when it is
// lower. A round with no move below the margin costs that one pass and the
// cuts below, and no Lloyd run. Rounds repeat while they improve, at most
// `rounds`, and the Lloyd iterations of all tries stop at `budget`. In the
// spirit of the split-and-merge EM of Ueda, Nakano, Ghahramani & Hinton
// (2000), judged here by the exact k-means objective.
//
// The halves (PDDP, Boley 1998): every cluster is cut through its mean
// perpendicular to its first principal direction, found for all k clusters
// at once by power iterations from a random start (a pass of row-blocked
// products and one of column sums per iteration); a round after an accepted
// move starts from the directions of the round before (the merged cluster
// from the axis of its two parts, the new halves from random directions)
// with `warm_iters` iterations. Column sums run in row order: the same
// result for every thread count.
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
#include <utility>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "hartigan.hpp"
#include "lloyd.hpp"
#include "split_merge_options.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/packed.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

struct SplitMergeTry {
  int round = 0;
  index_t a = 0, b = 0, s = 0;  // merged a and b, split s (0-based)
  double score = 0.0;           // G(s) - M(a, b)
  double one_step = 0.0;        // objective after one assignment to the move's centres
  double objective = 0.0;       // after Lloyd (screened, or to convergence if kept)
};

struct SplitMergeResult {
  int rounds = 0;    // rounds run
  int accepted = 0;  // rounds that improved
  double iterations = 0.0;  // Lloyd iterations of the tries
  double passes = 0.0;      // passes over the rows, all told (the tries'
                            // iterations, the means, the power iterations,
                            // the one-step objectives)
  std::vector<SplitMergeTry> trace;  // the moves tried
};

namespace detail {
// Inserts (id, r) into `list`, which holds at most m results in increasing
// objective (an earlier one first on ties); a result that would come after
// m others is dropped.
template <class Id>
void keep_lowest(std::vector<std::pair<Id, LloydResult>>& list, Id id, LloydResult&& r,
                 std::size_t m) {
  auto at = std::find_if(list.begin(), list.end(), [&](const std::pair<Id, LloydResult>& e) {
    return r.objective < e.second.objective;
  });
  if (at == list.end() && list.size() >= m) return;
  list.insert(at, std::make_pair(id, std::move(r)));
  if (list.size() > m) list.pop_back();
}

// Weighted per-cluster sums of the rows, out[q + k j] += sum over rows r of
// cluster q of w[r] x[r, j]: for k <= 16 on AVX-512 the masked vector sums of
// label_sums.hpp, on AVX2 its sums of four columns at a time; otherwise (the
// portable build) each (q, j) in row order (the same for every
// thread count). Columns go in groups of 8, read together row by row: 8
// independent chains of adds where one column's chain waits on the last add
// to the same cluster (rows of one cluster often come in runs), so several
// times faster than a column at a time (bench/HISTORY.md, "The polish's
// kernels"), with the same additions in the same order.
inline void weighted_sums(const DenseMatrix& a, const int* label, const double* w, index_t k,
                          double* out, int n_threads, const double* shift = nullptr) {
  if (label_kernels(k)) {  // k <= 16 on AVX-512: masked vector sums (label_sums.hpp)
    label_sums_columns(a.x, a.n, a.d, label, k, out, n_threads, w, shift);
    return;
  }
  if (label_kernels4()) {  // AVX2: four columns at a time (label_sums.hpp)
    label_sums_columns4(a.x, a.n, a.d, label, k, out, n_threads, w, shift);
    return;
  }
  constexpr index_t J = 8;
  parallel_for_scratch<std::vector<double>>(n_blocks(a.d, J), n_threads,
                                            [&](index_t b, std::vector<double>& acc) {
    const index_t j0 = b * J, m = std::min(a.d, j0 + J) - j0;
    acc.resize(k * J);  // acc[J q + t]: cluster q, column j0 + t
    const double* col[J];
    double sj[J];
    for (index_t t = 0; t < m; ++t) {
      col[t] = a.x + a.n * (j0 + t);
      sj[t] = shift != nullptr ? shift[j0 + t] : 0.0;
      for (index_t q = 0; q < k; ++q) acc[J * q + t] = out[q + k * (j0 + t)];
    }
    auto add = [&](auto width) {
      const index_t mm = decltype(width)::value > 0 ? decltype(width)::value : m;
      for (index_t r = 0; r < a.n; ++r) {
        double* o = acc.data() + J * label[r];
        const double v = w[r];
        for (index_t t = 0; t < mm; ++t) o[t] += v * (col[t][r] - sj[t]);
      }
    };
    if (m == J) {
      add(std::integral_constant<index_t, J>());
    } else {
      add(std::integral_constant<index_t, 0>());
    }
    for (index_t t = 0; t < m; ++t)
      for (index_t q = 0; q < k; ++q) out[q + k * (j0 + t)] = acc[J * q + t];
  }, 2.0 * static_cast<double>(a.n) * a.d);
}
inline void weighted_sums(const PackedRows& a, const int* label, const double* w, index_t k,
                          double* out, int n_threads) {
  weighted_sums(a.src, label, w, k, out, n_threads, a.shift);
}
inline void weighted_sums(const SparseRows& a, const int* label, const double* w, index_t k,
                          double* out, int n_threads) {
  const SparseMatrix& m = a.csc;
  parallel_for(m.d, n_threads, [&](index_t j, int) {
    double* o = out + k * j;
    for (index_t t = m.p[j]; t < m.p[j + 1]; ++t) o[label[m.i[t]]] += w[m.i[t]] * m.x[t];
  }, 2.0 * static_cast<double>(m.nnz()));
}

// (x_r - c_q) . u_q for every row r, q its cluster (u: k x d, column-major),
// from the products of the rows with the k directions (row-blocked GEMMs).
template <class Data>
void projections(const Data& a, const int* label, index_t k, const std::vector<double>& centres,
                 const std::vector<double>& u, std::vector<double>& proj, int n_threads) {
  const index_t n = a.n, d = a.d;
  std::vector<double> cu(k, 0.0);
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q) cu[q] += centres[q + k * j] * u[q + k * j];
  proj.resize(n);
  const CentreView uv = prepare_centres(a, u.data(), k);
  parallel_for_scratch<std::vector<double>>(n_blocks(n, kRowBlock), n_threads,
                                            [&](index_t b, std::vector<double>& buf) {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
    buf.resize(len * k);
    cross_block(a, r0, r1, uv, k, buf.data());
    for (index_t r = r0; r < r1; ++r) proj[r] = buf[(r - r0) + len * label[r]] - cu[label[r]];
  }, static_cast<double>(n) * k * d);
}

// Two halves of each of the k clusters (PDDP, Boley 1998): the cut through
// the cluster's mean perpendicular to its first principal direction, found
// by power iterations from a random start. `halves` (2k x d, column-major;
// rows 2q and 2q + 1 of cluster q) are the halves' means; `gain[q]` the
// exact decrease of the objective by the cut, n1 n2 / (n1 + n2)
// ||m1 - m2||^2 (-infinity when one side is empty).
// With observation weights (`weight`), of the weighted rows: the weighted
// principal direction, the halves' weighted means and their weights in the
// gain. Returns the passes over the rows it made.
template <class Data, class Combine>
int split_all(const Data& a, const int* label, index_t k, const std::vector<double>& centres,
               Rng& rng, const SplitMergeOptions& opt,
               std::vector<double>& halves, std::vector<double>& gain, int n_threads,
               const InterruptCheck& interrupt, const Combine& combine,
               std::vector<double>* dirs = nullptr, const double* weight = nullptr) {
  const index_t n = a.n, d = a.d, k2 = 2 * k;
  std::vector<double> u(k * d), w(k * d), proj, ps(k);
  // (dirs: the directions of a previous call to start from, with
  // opt.warm_iters iterations; the directions found are left there)
  const bool warm = dirs != nullptr && static_cast<index_t>(dirs->size()) == k * d;
  if (warm) {
    u = *dirs;
  } else {
    for (double& v : u) v = rng.normal();
  }
  // (the norm taken of v scaled by a power of two near 1 / max |v_j|, exact:
  // sum v_j^2 itself overflows or underflows on data far from unit scale,
  // and the direction must not depend on the data's units)
  auto unit = [&](std::vector<double>& v, index_t q) {
    double m = 0.0;
    for (index_t j = 0; j < d; ++j) m = std::max(m, std::abs(v[q + k * j]));
    if (!(m > 0.0) || !std::isfinite(m)) return false;
    int e = 0;
    std::frexp(m, &e);
    double s = 0.0;
    for (index_t j = 0; j < d; ++j) {
      const double t = std::ldexp(v[q + k * j], -e);
      s += t * t;
    }
    for (index_t j = 0; j < d; ++j) v[q + k * j] = std::ldexp(v[q + k * j], -e) / std::sqrt(s);
    return true;
  };
  for (index_t q = 0; q < k; ++q) unit(u, q);
  const int iters = warm ? opt.warm_iters : opt.power_iters;
  for (int it = 0; it < iters; ++it) {
    // w_q = sum_{r in q} p_r (x_r - c_q) = sum p_r x_r - (sum p_r) c_q
    projections(a, label, k, centres, u, proj, n_threads);
    std::fill(w.begin(), w.end(), 0.0);
    std::fill(ps.begin(), ps.end(), 0.0);
    if (weight != nullptr)  // p_r times the row's weight
      for (index_t r = 0; r < n; ++r) proj[r] *= weight[r];
    weighted_sums(a, label, proj.data(), k, w.data(), n_threads);
    for (index_t r = 0; r < n; ++r) ps[label[r]] += proj[r];
    combine.sum(w.data(), k * d);
    combine.sum(ps.data(), k);
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q) w[q + k * j] -= ps[q] * centres[q + k * j];
    for (index_t q = 0; q < k; ++q)  // a cluster of equal rows keeps its start
      if (unit(w, q))
        for (index_t j = 0; j < d; ++j) u[q + k * j] = w[q + k * j];
    check_interrupt(interrupt);
  }
  projections(a, label, k, centres, u, proj, n_threads);
  if (dirs != nullptr) *dirs = u;
  std::vector<int> sub(n);
  for (index_t r = 0; r < n; ++r) sub[r] = static_cast<int>(2 * label[r] + (proj[r] > 0.0 ? 1 : 0));
  std::vector<double> sums, cnt;
  cluster_means(a, sub.data(), k2, sums, cnt, halves, n_threads, combine, weight);
  gain.assign(k, -std::numeric_limits<double>::infinity());
  for (index_t q = 0; q < k; ++q) {
    const double n1 = cnt[2 * q], n2 = cnt[2 * q + 1];
    if (n1 == 0.0 || n2 == 0.0) continue;
    double dd = 0.0;
    for (index_t j = 0; j < d; ++j) {
      const double e = halves[2 * q + k2 * j] - halves[2 * q + 1 + k2 * j];
      dd += e * e;
    }
    gain[q] = n1 * n2 / (n1 + n2) * dd;
  }
  return 2 * iters + 2;  // (each iteration's products and sums; the final
                         // products; the halves' means)
}

// The objective of each candidate move after one assignment step: every row
// assigned to the nearest of the move's centres (the merged mean of a and b
// in slot a, the halves of s in slots b and s, the other centres unchanged),
// summed: the first step of the Lloyd run a try would start, in one pass
// over the rows for all candidates (the products with the k centres and the
// halves of the clusters to split). The distance to the merged mean comes
// from those to c_a and c_b: ||x - (w_a c_a + w_b c_b)||^2 =
// w_a ||x - c_a||^2 + w_b ||x - c_b||^2 - w_a w_b ||c_a - c_b||^2.
// Blocks of rows summed in order: the same for every thread count.
template <class Data, class Combine>
void one_step_objectives(const Data& a, const double* row_norms, index_t k,
                         const std::vector<double>& centres, const std::vector<double>& count,
                         const std::vector<double>& halves, std::vector<SplitMergeTry>& cands,
                         int n_threads, const Combine& combine, const double* weight) {
  const index_t n = a.n, d = a.d, nc = static_cast<index_t>(cands.size());
  if (nc == 0) return;
  // the points: the k centres, then the halves of each cluster to split
  std::vector<index_t> slot(k, -1);
  index_t splits = 0;
  for (const SplitMergeTry& c : cands)
    if (slot[c.s] < 0) slot[c.s] = splits++;
  const index_t m = k + 2 * splits;
  std::vector<double> pts(m * d);
  for (index_t j = 0; j < d; ++j) {
    for (index_t q = 0; q < k; ++q) pts[q + m * j] = centres[q + k * j];
    for (index_t q = 0; q < k; ++q) {
      if (slot[q] < 0) continue;
      pts[k + 2 * slot[q] + m * j] = halves[2 * q + 2 * k * j];
      pts[k + 2 * slot[q] + 1 + m * j] = halves[2 * q + 1 + 2 * k * j];
    }
  }
  const std::vector<double> pnorm = centre_sqnorms(pts.data(), m, d);
  std::vector<double> wa(nc), wb(nc), gap(nc);
  for (index_t i = 0; i < nc; ++i) {
    const SplitMergeTry& c = cands[i];
    const double na = count[c.a], nb = count[c.b];
    double dd = 0.0;
    for (index_t j = 0; j < d; ++j) {
      const double e = centres[c.a + k * j] - centres[c.b + k * j];
      dd += e * e;
    }
    wa[i] = na / (na + nb);
    wb[i] = nb / (na + nb);
    gap[i] = wa[i] * wb[i] * dd;
  }
  const CentreView pv = prepare_centres(a, pts.data(), m);
  const index_t nb = n_blocks(n, kRowBlock);
  std::vector<double> part(nb * nc, 0.0);
  parallel_for_scratch<std::vector<double>>(nb, n_threads, [&](index_t b, std::vector<double>& buf) {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
    buf.resize(len * m);
    cross_block(a, r0, r1, pv, m, buf.data());
    double* out = part.data() + b * nc;
    for (index_t r = r0; r < r1; ++r) {
      const double* p = buf.data() + (r - r0);
      auto dist = [&](index_t q) {
        return std::max(0.0, row_norms[r] - 2.0 * p[len * q] + pnorm[q]);
      };
      // the four nearest centres, nearest first: the nearest not replaced
      // by a move is among them (a move replaces three)
      double v4[4];
      index_t q4[4];
      for (int t = 0; t < 4; ++t) {
        v4[t] = std::numeric_limits<double>::infinity();
        q4[t] = -1;
      }
      for (index_t q = 0; q < k; ++q) {
        const double v = dist(q);
        if (!(v < v4[3])) continue;
        int t = 3;
        for (; t > 0 && v < v4[t - 1]; --t) {
          v4[t] = v4[t - 1];
          q4[t] = q4[t - 1];
        }
        v4[t] = v;
        q4[t] = q;
      }
      const double wr = weight != nullptr ? weight[r] : 1.0;
      for (index_t i = 0; i < nc; ++i) {
        const SplitMergeTry& c = cands[i];
        double best = std::numeric_limits<double>::infinity();
        for (int t = 0; t < 4; ++t) {
          if (q4[t] >= 0 && q4[t] != c.a && q4[t] != c.b && q4[t] != c.s) {
            best = v4[t];
            break;
          }
        }
        const double merged = std::max(0.0, wa[i] * dist(c.a) + wb[i] * dist(c.b) - gap[i]);
        const index_t h = k + 2 * slot[c.s];
        out[i] += wr * std::min(std::min(best, merged), std::min(dist(h), dist(h + 1)));
      }
    }
  }, static_cast<double>(n) * m * d);
  std::vector<double> total(nc, 0.0);
  for (index_t b = 0; b < nb; ++b)
    for (index_t i = 0; i < nc; ++i) total[i] += part[b * nc + i];
  combine.sum(total.data(), nc);
  for (index_t i = 0; i < nc; ++i) cands[i].one_step = total[i];
}

// A round's candidate moves: the (a, b, s) with s not in {a, b}, from the
// 4 tries cheapest merges and the 4 tries largest gains (all of them for
// small k), by score G(s) - M(a, b), best first, at most max(evaluated,
// tries).
inline std::vector<SplitMergeTry> candidate_moves(const std::vector<double>& centres,
                                                  const std::vector<double>& count,
                                                  const std::vector<double>& gain, index_t k,
                                                  index_t d, const SplitMergeOptions& opt,
                                                  int round) {
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
  std::stable_sort(splits.begin(), splits.end(),
                   [&](index_t x, index_t y) { return gain[x] > gain[y]; });
  splits.resize(std::min<index_t>(k, 4 * opt.tries));
  std::vector<SplitMergeTry> cands;
  for (const Pair& pr : pairs)
    for (index_t s : splits) {
      if (s == pr.a || s == pr.b || !std::isfinite(gain[s])) continue;
      cands.push_back({round, pr.a, pr.b, s, gain[s] - pr.cost, 0.0, 0.0});
    }
  std::stable_sort(cands.begin(), cands.end(), [](const SplitMergeTry& x, const SplitMergeTry& y) {
    return x.score > y.score;
  });
  if (static_cast<index_t>(cands.size()) > std::max(opt.evaluated, opt.tries))
    cands.resize(std::max(opt.evaluated, opt.tries));
  return cands;
}

// Keeps the moves whose one-step objective is below (1 + margin) times the
// partition's `objective`, lowest first, at most `tries`.
inline void keep_promising(std::vector<SplitMergeTry>& cands, double objective,
                           const SplitMergeOptions& opt) {
  const double bar = objective * (1.0 + opt.margin);
  cands.erase(std::remove_if(cands.begin(), cands.end(),
                             [&](const SplitMergeTry& c) { return !(c.one_step < bar); }),
              cands.end());
  std::stable_sort(cands.begin(), cands.end(), [](const SplitMergeTry& x, const SplitMergeTry& y) {
    return x.one_step < y.one_step;
  });
  if (static_cast<index_t>(cands.size()) > opt.tries) cands.resize(opt.tries);
}

// A move's start: the merged mean in slot a, the halves of s in slots b
// and s, the other centres as they are.
inline std::vector<double> move_start(const std::vector<double>& centres,
                                      const std::vector<double>& count,
                                      const std::vector<double>& halves, const SplitMergeTry& c,
                                      index_t k, index_t d) {
  std::vector<double> start = centres;
  const double na = count[c.a], nb = count[c.b];
  for (index_t j = 0; j < d; ++j) {
    start[c.a + k * j] = (na * centres[c.a + k * j] + nb * centres[c.b + k * j]) / (na + nb);
    start[c.b + k * j] = halves[2 * c.s + 2 * k * j];
    start[c.s + k * j] = halves[2 * c.s + 1 + 2 * k * j];
  }
  return start;
}

// After an accepted move the next round starts from these directions, but
// for the clusters the move made: the merged one from the axis of its two
// parts, the halves from a random direction.
inline void next_directions(std::vector<double>& dirs, const std::vector<double>& centres,
                            const SplitMergeTry& c, index_t k, index_t d, Rng& rng) {
  for (index_t j = 0; j < d; ++j) {
    dirs[c.a + k * j] = centres[c.a + k * j] - centres[c.b + k * j];
    dirs[c.b + k * j] = rng.normal();
    dirs[c.s + k * j] = rng.normal();
  }
}
}  // namespace detail

// With observation weights (`weight`, one per row), every size above is a
// sum of weights and Lloyd is weighted.
template <class Data, class Combine = LocalCombine>
SplitMergeResult split_merge(const Data& a, const double* row_norms, index_t k, LloydResult& best,
                             Rng& rng, const SplitMergeOptions& opt, int n_threads,
                             const InterruptCheck& interrupt = InterruptCheck(),
                             const Combine& combine = Combine(),
                             const double* weight = nullptr) {
  const index_t d = a.d;
  SplitMergeResult res;
  if (k < 3 || opt.tries < 1) return res;
  std::vector<double> sums, centres, count, halves, gain, dirs;
  // Lloyd from the given centres, counted against the budget.
  auto run = [&](std::vector<double> start, int iters) {
    LloydCall call;
    call.centres = std::move(start);
    call.iter_max = iters;
    call.tol = opt.tol;
    call.n_threads = n_threads;
    call.interrupt = interrupt;
    call.grid = rows_shift(a);
    call.weight = weight;
    LloydResult r = lloyd(ResidentRows<Data>(a), row_norms, std::move(call), combine);
    res.iterations += r.iter;
    res.passes += r.iter;
    return r;
  };
  auto spent = [&]() { return opt.budget >= 0.0 && res.iterations >= opt.budget; };
  for (int round = 1; round <= opt.rounds && !spent(); ++round) {
    ++res.rounds;
    ProgressScope inner(0, 0, true);  // (the Lloyd runs of the moves)
    detail::cluster_means(a, best.label.data(), k, sums, count, centres, n_threads, combine,
                          weight);
    // (passes: the means, the cuts, below the one-step objectives)
    res.passes += 2 + detail::split_all(a, best.label.data(), k, centres, rng, opt, halves,
                                        gain, n_threads, interrupt, combine, &dirs, weight);
    // The best-scored moves get their one-step objective; those below
    // (1 + margin) times the partition's are tried, lowest first.
    std::vector<SplitMergeTry> cands =
        detail::candidate_moves(centres, count, gain, k, d, opt, round);
    detail::one_step_objectives(a, row_norms, k, centres, count, halves, cands, n_threads,
                                combine, weight);
    detail::keep_promising(cands, best.objective, opt);
    check_interrupt(interrupt);
    if (cands.empty()) break;
    // Each move's start: the merged mean in slot a, the halves of s in
    // slots b and s. Screening: Lloyd for `screen_iters` iterations from
    // each; only the `keep` lowest are held (with their labels) and go on
    // to convergence.
    std::vector<std::pair<std::size_t, LloydResult>> kept;
    const bool screen = opt.screen_iters > 0 && opt.screen_iters < opt.iter_max &&
                        static_cast<index_t>(cands.size()) > opt.keep;
    std::size_t tried = 0;
    for (std::size_t i = 0; i < cands.size() && !spent(); ++i, ++tried) {
      LloydResult r = run(detail::move_start(centres, count, halves, cands[i], k, d),
                          screen ? opt.screen_iters : opt.iter_max);
      cands[i].objective = r.objective;
      detail::keep_lowest(kept, i, std::move(r), static_cast<std::size_t>(opt.keep));
      check_interrupt(interrupt);
    }
    cands.resize(tried);
    LloydResult round_best;
    bool improved = false;
    std::size_t winner = 0;
    for (auto& e : kept) {
      const std::size_t i = e.first;
      LloydResult r = std::move(e.second);
      if (!r.converged) {
        if (spent()) continue;  // (a screened run is kept only once run to its end)
        const int done = r.iter;
        r = run(std::move(r.centres), opt.iter_max);
        r.iter += done;
      }
      cands[i].objective = r.objective;
      const double bar = improved ? round_best.objective : best.objective;
      if (r.objective < bar * (1.0 - 1e-10)) {
        round_best = std::move(r);
        improved = true;
        winner = i;
      }
      check_interrupt(interrupt);
    }
    res.trace.insert(res.trace.end(), cands.begin(), cands.end());
    inner.leave();
    if (!improved) {
      report_progress("split/merge", round, best.objective, 0.0);
      break;
    }
    ++res.accepted;
    detail::next_directions(dirs, centres, cands[winner], k, d, rng);
    round_best.iter += best.iter;
    best = std::move(round_best);
    report_progress("split/merge", round, best.objective, 1.0);
  }
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SPLIT_MERGE_HPP
