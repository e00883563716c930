// kmreduce: greedy k-means++ seeding (Arthur & Vassilvitskii 2007, with the
// 2 + floor(ln k) local trials per centre used by scikit-learn).
#ifndef KMREDUCE_KMEANSPP_HPP
#define KMREDUCE_KMEANSPP_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "seed_assignment.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/nearest.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "../data/row_source.hpp"

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

// `count` draws as draw_weighted() makes them one after the other (the same
// uniforms, in the same order, give the same rows), in one pass. With
// `mult` (observation weights), row r has weight mult[r] weight[r] (D^2 w
// sampling; total is their sum).
inline void draw_weighted_many(const std::vector<double>& weight, double total, Rng& rng,
                               index_t count, index_t* out, const double* mult = nullptr) {
  const index_t n = static_cast<index_t>(weight.size());
  if (!(total > 0.0)) {
    for (index_t t = 0; t < count; ++t) out[t] = static_cast<index_t>(rng.below(n));
    return;
  }
  std::vector<std::pair<double, index_t>> u(count);
  for (index_t t = 0; t < count; ++t) u[t] = {rng.uniform() * total, t};
  std::sort(u.begin(), u.end());
  double cum = 0.0;
  index_t last_positive = 0, next = 0;
  if (mult != nullptr) {
    for (index_t r = 0; r < n && next < count; ++r) {
      const double v = mult[r] * weight[r];
      if (v > 0.0) {
        cum += v;
        last_positive = r;
        while (next < count && cum > u[next].first) out[u[next++].second] = r;
      }
    }
    for (; next < count; ++next) out[u[next].second] = last_positive;
    return;
  }
  for (index_t r = 0; r < n && next < count; ++r) {
    if (weight[r] > 0.0) {
      cum += weight[r];
      last_positive = r;
      while (next < count && cum > u[next].first) out[u[next++].second] = r;
    }
  }
  for (; next < count; ++next) out[u[next].second] = last_positive;
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

// The first seed: a row drawn uniformly (rng.below(n)), or with observation
// weights w (one per row, positive) with probability w / sum(w). Whole
// weights summing to at most 2^53 are drawn as rng.below(sum(w)) and the
// row whose cumulative weight passes it: the row (original of the copy) that
// the uniform draw on the rows repeated w times would give.
inline index_t draw_first(Rng& rng, index_t n, const double* weight) {
  if (weight == nullptr) return static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n)));
  double total = 0.0;
  bool whole = true;
  for (index_t r = 0; r < n; ++r) {
    total += weight[r];
    whole = whole && weight[r] == std::floor(weight[r]);
  }
  double u = 0.0;
  if (whole && total <= 9007199254740992.0) {
    u = static_cast<double>(rng.below(static_cast<std::uint64_t>(total)));
  } else {
    u = rng.uniform() * total;
  }
  double cum = 0.0;
  for (index_t r = 0; r < n; ++r) {
    cum += weight[r];
    if (cum > u) return r;
  }
  return n - 1;  // rounding: u landed beyond the accumulated sum
}

// Candidates per step of greedy k-means++ (and of the local search):
// 2 + floor(ln k), as scikit-learn.
inline index_t greedy_trials(index_t k) {
  return 2 + static_cast<index_t>(std::log(static_cast<double>(k)));
}

// Squared distances of every row to the m points P (m x d, column-major):
// out (n x m) = ||a||^2 - 2 a.p + ||p||^2 clamped at 0, by row-blocked GEMMs.
template <class Data>
void dist2_to_points(const Data& a, const double* row_norms, const double* p,
                     index_t m, double* out, int n_threads) {
  const std::vector<double> pnorm = centre_sqnorms(p, m, a.d);
  const CentreView cv = prepare_centres(a, p, m);
  const index_t nb = n_blocks(a.n, kRowBlock);
  const double work = static_cast<double>(a.n) * m * a.d;
  parallel_for_scratch<std::vector<double>>(nb, n_threads, [&](index_t b, std::vector<double>& buf) {
    buf.resize(kRowBlock * m);
    const index_t r0 = b * kRowBlock, r1 = std::min(a.n, r0 + kRowBlock);
    const index_t len = r1 - r0;
    cross_block(a, r0, r1, cv, m, buf.data());
    for (index_t t = 0; t < m; ++t)
      for (index_t r = r0; r < r1; ++r)
        out[r + a.n * t] = std::max(
            0.0, row_norms[r] - 2.0 * buf[(r - r0) + len * t] + pnorm[t]);
  }, work);
}

// sum_r min(x[r], y[r]) over m values, in four interleaved partial sums
// (no chain of dependent additions; a fixed order).
inline double sum_of_min(const double* x, const double* y, index_t m) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  index_t r = 0;
  for (; r + 4 <= m; r += 4)
    for (int l = 0; l < 4; ++l) s[l] += std::min(x[r + l], y[r + l]);
  for (; r < m; ++r) s[r % 4] += std::min(x[r], y[r]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

namespace detail {
// sum_r w[r] min(x[r], y[r]) over m values, in four partial sums.
inline double weighted_sum_of_min(const double* w, const double* x, const double* y,
                                  index_t m) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  index_t r = 0;
  for (; r + 4 <= m; r += 4)
    for (int l = 0; l < 4; ++l) s[l] += w[r + l] * std::min(x[r + l], y[r + l]);
  for (; r < m; ++r) s[r % 4] += w[r] * std::min(x[r], y[r]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// A row of a block (offset in it) that candidate `cand` would bring nearer
// than its nearest or second nearest seed, at squared distance `dist`.
struct SeedMove {
  std::int32_t row, cand;
  double dist;
};
}  // namespace detail

// What one step of k-means++ saw (tests): the rows drawn (global), the
// potential with each of them added, and which one was kept.
struct KmeansppStep {
  std::vector<index_t> candidates;
  std::vector<double> potentials;
  index_t chosen = 0;
};

// Writes k centres (k x d, column-major) chosen among the rows of `a`: the
// first uniformly, each next one the best (lowest potential) of `trials`
// candidates drawn with probability proportional to D(x)^2. With `assign`,
// also the assignment of the rows to the seeds.
//
// A step makes two passes over the rows, by blocks on the threads: one
// takes the products of a block with all the candidates and sums the
// block's share of each candidate's potential (nothing of size n x trials
// is stored), the other takes the products with the chosen one and updates
// D(x) (and the assignment) and the block's total. Block sums are added in
// block order, so nothing depends on the thread count.
//
// With rows on several processes (Combine), every process calls this with
// its own rows and the same generator: the draws are those of one process
// on the stacked rows (indices are global), the centres are the same on
// every process, and `assign` is of the local rows.
//
// With observation weights (`weight`, one per row; one process), the first
// seed is drawn with probability w (draw_first()), candidates with
// probability w D(x)^2 and potentials are sum w min(D, d): for whole
// weights, the draws of the rows repeated (the same uniforms over the same
// cumulative sums, up to rounding).
namespace detail {
// The two passes of a greedy k-means++ step over the blocks of rows, and
// what they keep between them: D(x) (`dist`; with an assignment, the
// labels and second distances), each block's share of its total and of
// each candidate's potential, the rows each candidate would bring nearer
// (`block_moves`), or, where most rows would move, the block's distances
// to all candidates (`block_all`, when they are small next to its rows).
struct GreedyPasses {
  index_t n = 0, trials = 0, nb = 0;
  bool keep_dense = false;
  const double* row_norms = nullptr;
  const double* weight = nullptr;
  std::vector<double> dist, block_pot, block_total;
  std::vector<std::vector<SeedMove>> block_moves;
  std::vector<char> dense;
  std::vector<std::vector<double>> block_all;
  int *lab = nullptr, *lab2 = nullptr;
  double* sec = nullptr;
  // A candidate matters to a row when it comes nearer than this.
  const double* reach() const { return sec != nullptr ? sec : dist.data(); }

  struct Scratch {
    std::vector<double> buf;
    std::vector<std::uint8_t> below;
  };

  // sum of D(x) (times the weights) over block b (its rows in four partial sums)
  double block_sum(index_t b) const {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
    if (weight != nullptr) return weighted_sum(weight + r0, dist.data() + r0, r1 - r0);
    return sum_of_min(dist.data() + r0, dist.data() + r0, r1 - r0);
  }
  double total() const {
    double t = 0.0;
    for (index_t b = 0; b < nb; ++b) t += block_total[b];
    return t;
  }

  // Rows [r0, r1) whose products with the candidates are prod (rows x
  // trials): candidate t's column becomes the squared distances (see
  // seed_distances()); returns the block's share of its potential.
  double distances(index_t r0, index_t r1, index_t t, double* prod, index_t* count,
                   std::uint8_t* below, const std::vector<index_t>& own,
                   const std::vector<double>& pnorm) {
    const index_t len = r1 - r0;
    const index_t o = own[t] >= r0 && own[t] < r1 ? own[t] - r0 : index_t(-1);
    const double pot = seed_distances(prod + len * t, len, row_norms + r0, pnorm[t], o,
                                      dist.data() + r0, reach() + r0, count, below);
    if (weight == nullptr) return pot;
    // weighted: sum w min(D, d) over the distances just written
    return weighted_sum_of_min(weight + r0, dist.data() + r0, prod + len * t, len);
  }

  // Pass 1: each block's share of the potential with each candidate, and
  // the (row, candidate, distance) where a candidate would become the row's
  // nearest or second nearest seed: all the update needs.
  template <class Data>
  void evaluate(const Data& a, const CentreView& cv, const std::vector<index_t>& own,
                const std::vector<double>& pnorm, int n_threads, double work) {
    parallel_for_scratch<Scratch>(nb, n_threads, [&](index_t b, Scratch& sc) {
      std::vector<double>& buf = sc.buf;
      buf.resize(kRowBlock * trials);
      sc.below.resize(kRowBlock / 8 * trials);
      const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
      std::vector<SeedMove>& moves = block_moves[b];
      moves.clear();
      cross_block(a, r0, r1, cv, trials, buf.data());
      index_t count = 0;
      for (index_t t = 0; t < trials; ++t)
        block_pot[b * trials + t] = distances(r0, r1, t, buf.data(), &count,
                                              sc.below.data() + kRowBlock / 8 * t, own, pnorm);
      // Early on most rows are near some candidate: then the list would be
      // long. The block keeps its distances when they are small next to its
      // data (wide rows); otherwise the update takes its products again.
      dense[b] = 2 * count > len;
      if (dense[b] && keep_dense) block_all[b].assign(buf.begin(), buf.begin() + len * trials);
      if (dense[b] || count == 0) return;
      for (index_t t = 0; t < trials; ++t) {
        const std::uint8_t* bt = sc.below.data() + kRowBlock / 8 * t;
        for (index_t g = 0; g < (len + 7) / 8; ++g)
          for (unsigned bits = bt[g]; bits != 0; bits &= bits - 1) {
            const index_t i = 8 * g + __builtin_ctz(bits);
            moves.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(t),
                             buf[i + len * t]});
          }
      }
    }, work);
  }

  // Pass 2: D(x) (and the assignment) with the chosen candidate `best`
  // (seed qi; local row c, or < 0): only the rows it comes near change.
  template <class Data>
  void take(const Data& a, const CentreView& cv, const std::vector<index_t>& own,
            const std::vector<double>& pnorm, index_t best, index_t c, int qi, int n_threads,
            double work) {
    parallel_for_scratch<Scratch>(nb, n_threads, [&](index_t b, Scratch& sc) {
      const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
      bool changed = false;
      auto apply = [&](index_t r, double v) {
        if (v < dist[r]) {
          if (lab != nullptr) {
            sec[r] = dist[r];
            if (lab2 != nullptr) lab2[r] = lab[r];
            lab[r] = qi;
          }
          dist[r] = v;
          changed = true;
        } else if (lab != nullptr && v < sec[r]) {
          sec[r] = v;
          if (lab2 != nullptr) lab2[r] = qi;
        }
      };
      if (dense[b] && keep_dense) {
        const double* cb = block_all[b].data() + (r1 - r0) * best;
        for (index_t r = r0; r < r1; ++r) apply(r, cb[r - r0]);
      } else if (dense[b]) {
        // The same products and distances as the first pass gave.
        std::vector<double>& buf = sc.buf;
        buf.resize(kRowBlock * trials);
        const index_t len = r1 - r0;
        cross_block(a, r0, r1, cv, trials, buf.data());
        index_t unused = 0;
        sc.below.resize(kRowBlock / 8);
        distances(r0, r1, best, buf.data(), &unused, sc.below.data(), own, pnorm);
        const double* cb = buf.data() + len * best;
        for (index_t r = r0; r < r1; ++r) apply(r, cb[r - r0]);
      }
      for (const SeedMove& m : block_moves[b])
        if (m.cand == best) apply(r0 + m.row, m.dist);
      if (lab != nullptr && c >= r0 && c < r1 && lab[c] != qi) {
        // The seed itself, already at distance 0 from an equal seed: it
        // goes to its own cluster.
        if (lab2 != nullptr) lab2[c] = lab[c];
        lab[c] = qi;
        sec[c] = 0.0;
      }
      if (changed) block_total[b] = block_sum(b);
    }, work);
  }
};
}  // namespace detail

template <class Data, class Combine = LocalCombine>
void kmeanspp(const Data& a, const double* row_norms, index_t k, Rng& rng,
              double* centres, int n_threads,
              const InterruptCheck& interrupt = InterruptCheck(),
              SeedAssignment* assign = nullptr, const Combine& combine = Combine(),
              std::vector<KmeansppStep>* trace = nullptr, const double* weight = nullptr) {
  const index_t n = a.n, d = a.d;
  const index_t n_all = combine.total_rows(n);
  const bool one = combine.size() == 1;
  const index_t trials = greedy_trials(k);
  std::vector<double> row(d), cand_pts(trials * d);
  std::vector<index_t> cand_row(trials), own(trials);
  detail::GreedyPasses gp;
  gp.n = n;
  gp.trials = trials;
  gp.nb = n_blocks(n, kRowBlock);
  gp.row_norms = row_norms;
  gp.weight = weight;
  gp.dist = rows_array(n, 0.0);
  gp.block_pot.resize(gp.nb * trials);
  gp.block_total.resize(gp.nb);
  gp.block_moves.resize(gp.nb);
  gp.dense.resize(gp.nb);
  // Distances kept for blocks where most rows move: trials values per row,
  // when that is at most 1/16 of the row itself.
  gp.keep_dense = trials * 16 <= d;
  gp.block_all.resize(gp.keep_dense ? gp.nb : 0);
  auto local = [&](index_t g) { return local_row(combine, g, n); };
  auto fetch = [&](index_t g, double* out) {
    if (one) {
      get_row(a, g, out);
    } else {
      combined_row(combine, g, n, d, [&](index_t r, double* o) { get_row(a, r, o); }, out);
    }
  };

  const index_t first = one ? draw_first(rng, n, weight) : static_cast<index_t>(rng.below(n_all));
  fetch(first, row.data());
  for (index_t j = 0; j < d; ++j) centres[k * j] = row[j];
  dist2_to_points(a, row_norms, row.data(), 1, gp.dist.data(), n_threads);
  if (local(first) >= 0) gp.dist[local(first)] = 0.0;
  for (index_t b = 0; b < gp.nb; ++b) gp.block_total[b] = gp.block_sum(b);
  double total = gp.total();
  if (assign != nullptr) {
    assign_rows(assign->label, n, 0);
    assign_rows(assign->second, n, std::numeric_limits<double>::infinity());
    gp.lab = assign->label.data();
    if (assign->with_second_label) {
      assign_rows(assign->second_label, n, 0);
      gp.lab2 = assign->second_label.data();
    }
    gp.sec = assign->second.data();
  }
  const double work = static_cast<double>(n) * trials * d;
  std::vector<double> totals(combine.size()), pots(trials);
  for (index_t q = 1; q < k; ++q) {
    // the candidates, drawn with probability (w) D(x)
    if (one) {
      draw_weighted_many(gp.dist, total, rng, trials, cand_row.data(), weight);
    } else {
      std::fill(totals.begin(), totals.end(), 0.0);
      totals[combine.rank()] = total;
      combine.sum(totals.data(), combine.size());
      for (index_t t = 0; t < trials; ++t)
        cand_row[t] = draw_weighted_combined(gp.dist, totals, rng, combine, n_all);
    }
    for (index_t t = 0; t < trials; ++t) {
      fetch(cand_row[t], row.data());
      for (index_t j = 0; j < d; ++j) cand_pts[t + trials * j] = row[j];
      own[t] = local(cand_row[t]);
    }
    const std::vector<double> pnorm = centre_sqnorms(cand_pts.data(), trials, d);
    const CentreView cv = prepare_centres(a, cand_pts.data(), trials);
    gp.evaluate(a, cv, own, pnorm, n_threads, work);
    for (index_t t = 0; t < trials; ++t) {
      double pot = 0.0;
      for (index_t b = 0; b < gp.nb; ++b) pot += gp.block_pot[b * trials + t];
      pots[t] = pot;
    }
    combine.sum(pots.data(), trials);
    // (lower by more than rounding: candidates whose potentials differ only
    // in their last bits tie, and the first is kept, whatever the data's
    // units; a candidate that changes no distance gives the potential
    // unchanged up to the rounding of the distances it recomputes)
    index_t best = 0;
    for (index_t t = 1; t < trials; ++t)
      if (pots[t] < pots[best] * (1.0 - 1e-12)) best = t;
    if (trace != nullptr) trace->push_back({cand_row, pots, best});
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = cand_pts[best + trials * j];
    gp.take(a, cv, own, pnorm, best, own[best], static_cast<int>(q), n_threads, work);
    total = gp.total();
    check_interrupt(interrupt);
  }
  if (assign != nullptr) assign->nearest = std::move(gp.dist);
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANSPP_HPP
