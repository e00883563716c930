// kmreduce: k-means|| seeding (Bahmani, Moseley, Vattani, Kumar &
// Vassilvitskii 2012, "Scalable k-means++"), for tall data, where greedy
// k-means++'s two passes over the rows per centre cost more than its
// arithmetic.
//
// The first candidate is a row drawn uniformly. Each of `rounds` rounds then
// samples every row independently with probability min(1, l D(x) / phi)
// (D(x) the squared distance to the nearest candidate, phi their sum,
// l = oversampling * k) and takes the distances of all rows to the rows
// sampled: one pass per round. Every row's nearest candidate is kept on the
// way, so the weights (how many rows each candidate is nearest to) need no
// pass of their own. The weighted candidates (about l * rounds) are then
// clustered into k in memory: greedy weighted k-means++ (the best of
// 2 + floor(ln k) candidates per centre, drawn with probability w D^2),
// then weighted Lloyd, up to 10 times while that costs at most about a
// tenth of the rounds (the lowest weighted cost kept). Passes over the
// rows: rounds + 1, and one more for the assignment of the rows to the k
// seeds that Lloyd (and the local search) start from; greedy k-means++
// makes up to 2 per centre.
//
// Guarantee (Bahmani et al. 2012, Theorems 1 and 2): with l = Theta(k) and
// O(log psi) rounds (psi the cost after the first candidate) the candidates
// cost O(1) times the optimum in expectation, and an alpha-approximate
// weighted reclustering makes the seeding an O(alpha)-approximation
// (k-means++: alpha = O(log k)). The defaults l = 2k and 5 rounds are those
// of the paper's experiments; with fewer than log psi rounds the bound is
// not proven (Rozhon 2020 shows O(log psi / log log psi) rounds suffice).
//
// Draws: row g (global index) is sampled in round i iff a uniform from
// counter_hash(key_i, g) is below its probability, key_i drawn from the
// replicate's generator; candidates are ordered by round, then by row. So
// the seeds are the same for any number of threads and, with rows on several
// processes (Combine), those of one process on the stacked rows.
#ifndef KMREDUCE_KMEANS_PARALLEL_HPP
#define KMREDUCE_KMEANS_PARALLEL_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kmeanspp.hpp"
#include "lloyd.hpp"
#include "matrix.hpp"
#include "memory.hpp"
#include "parallel.hpp"
#include "rng.hpp"
#include "row_source.hpp"
#include "simd.hpp"

namespace kmreduce {

struct KmeansParallelOptions {
  double oversampling = 2.0;  // l / k
  int rounds = 5;
};

// What the seeding did (tests): the candidates (global rows, in order),
// their weights, the cost phi before each round and after the last, and
// whether it fell back to greedy k-means++ (fewer than k candidates with
// rows nearest to them).
struct KmeansParallelTrace {
  std::vector<index_t> candidates;
  std::vector<double> weights;
  std::vector<double> phi;
  bool fallback = false;
};

namespace detail {

// Weighted k-means on the m points of c (squared norms `norms`) with weights
// w: greedy weighted k-means++ then weighted Lloyd (at most iter_max
// iterations, until no label changes). Writes the k centres (k x d,
// column-major). Needs at least k points of positive weight.
inline void weighted_kmeans(const DenseMatrix& c, const double* norms,
                            const std::vector<double>& w, index_t k, Rng& rng, double* centres,
                            int iter_max, int n_threads, const InterruptCheck& interrupt) {
  const index_t m = c.n, d = c.d;
  const double* pts = c.x;
  const index_t trials = greedy_trials(k);
  std::vector<double> dist(m), wd(m), cand(trials * d), dc(m * trials), row(d);
  std::vector<index_t> pick(trials);
  auto take = [&](index_t i, index_t q) {
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = pts[i + m * j];
  };
  // First centre: drawn with probability w.
  double wsum = 0.0;
  for (index_t i = 0; i < m; ++i) wsum += w[i];
  draw_weighted_many(w, wsum, rng, 1, pick.data());
  take(pick[0], 0);
  get_row(c, pick[0], row.data());
  dist2_to_points(c, norms, row.data(), 1, dist.data(), n_threads);
  dist[pick[0]] = 0.0;
  for (index_t q = 1; q < k; ++q) {
    double total = 0.0;
    for (index_t i = 0; i < m; ++i) total += (wd[i] = w[i] * dist[i]);
    draw_weighted_many(wd, total, rng, trials, pick.data());
    for (index_t t = 0; t < trials; ++t)
      for (index_t j = 0; j < d; ++j) cand[t + trials * j] = pts[pick[t] + m * j];
    dist2_to_points(c, norms, cand.data(), trials, dc.data(), n_threads);
    index_t best = 0;
    double best_pot = std::numeric_limits<double>::infinity();
    for (index_t t = 0; t < trials; ++t) {
      dc[pick[t] + m * t] = 0.0;
      double pot = 0.0;
      for (index_t i = 0; i < m; ++i) pot += w[i] * std::min(dist[i], dc[i + m * t]);
      if (pot < best_pot) {
        best_pot = pot;
        best = t;
      }
    }
    take(pick[best], q);
    for (index_t i = 0; i < m; ++i) dist[i] = std::min(dist[i], dc[i + m * best]);
    check_interrupt(interrupt);
  }
  // Weighted Lloyd; a cluster left empty keeps its centre.
  std::vector<int> label(m, -1);
  std::vector<double> sums(k * d), wq(k);
  for (int it = 0; it < iter_max; ++it) {
    if (assign_nearest(c, norms, centres, k, label.data(), dist.data(), n_threads) == 0 &&
        it > 0)
      break;
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(wq.begin(), wq.end(), 0.0);
    for (index_t i = 0; i < m; ++i) {
      const index_t q = label[i];
      wq[q] += w[i];
      for (index_t j = 0; j < d; ++j) sums[q + k * j] += w[i] * pts[i + m * j];
    }
    for (index_t q = 0; q < k; ++q)
      if (wq[q] > 0.0)
        for (index_t j = 0; j < d; ++j) centres[q + k * j] = sums[q + k * j] / wq[q];
    check_interrupt(interrupt);
  }
}

// The best (lowest weighted cost; the first on ties) of `runs`
// weighted_kmeans() runs on the candidates, into centres.
inline void recluster(const std::vector<double>& pts, index_t m, index_t d,
                      const std::vector<double>& w, index_t k, Rng& rng, double* centres,
                      int runs, int n_threads, const InterruptCheck& interrupt) {
  const DenseMatrix c(pts.data(), m, d);
  std::vector<double> norms(m), dist(m), run(k * d);
  std::vector<int> label(m, -1);
  row_sqnorms(c, norms.data(), n_threads);
  double best = std::numeric_limits<double>::infinity();
  for (int t = 0; t < runs; ++t) {
    weighted_kmeans(c, norms.data(), w, k, rng, run.data(), 100, n_threads, interrupt);
    assign_nearest(c, norms.data(), run.data(), k, label.data(), dist.data(), n_threads);
    double cost = 0.0;
    for (index_t i = 0; i < m; ++i) cost += w[i] * dist[i];
    if (cost < best) {
      best = cost;
      std::copy(run.begin(), run.end(), centres);
    }
  }
}

}  // namespace detail

// The nearest and second nearest of the k centres (k x d, column-major) for
// every row, by row blocks: the assignment kmeanspp() returns, for seeds
// found otherwise.
template <class Data>
void seed_assignment(const Data& a, const double* row_norms, const double* centres, index_t k,
                     SeedAssignment& assign, int n_threads) {
  const index_t n = a.n;
  assign_rows(assign.label, n, 0);
  if (assign.with_second_label) assign_rows(assign.second_label, n, 0);
  assign_rows(assign.nearest, n, 0.0);
  assign_rows(assign.second, n, std::numeric_limits<double>::infinity());
  const std::vector<double> cnorm = centre_sqnorms(centres, k, a.d);
  const CentreView cv = prepare_centres(a, centres, k);
  parallel_for_scratch<std::vector<double>>(n_blocks(n, kRowBlock), n_threads,
                                            [&](index_t b, std::vector<double>& buf) {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
    buf.resize(kRowBlock * k);
    cross_block(a, r0, r1, cv, k, buf.data());
    nearest_two_rows(buf.data(), len, k, row_norms + r0, cnorm.data(), assign.label.data() + r0,
                     assign.nearest.data() + r0,
                     assign.with_second_label ? assign.second_label.data() + r0 : nullptr,
                     assign.second.data() + r0);
  }, static_cast<double>(n) * k * a.d);
}

// Writes k centres (k x d, column-major) by k-means|| on the rows of `a`,
// and with `assign` the assignment of the rows to them (as kmeanspp()).
// When fewer than k candidates have rows nearest to them (data with fewer
// distinct rows than the sampling needs), greedy k-means++ seeds instead.
template <class Data, class Combine = LocalCombine>
void kmeans_parallel(const Data& a, const double* row_norms, index_t k, Rng& rng,
                     double* centres, int n_threads, const KmeansParallelOptions& opt,
                     const InterruptCheck& interrupt = InterruptCheck(),
                     SeedAssignment* assign = nullptr, const Combine& combine = Combine(),
                     KmeansParallelTrace* trace = nullptr) {
  if (!(opt.oversampling > 0.0) || opt.rounds < 1)
    throw std::invalid_argument("k-means||: oversampling and rounds must be positive");
  const index_t n = a.n, d = a.d;
  const index_t n_all = combine.total_rows(n);
  const int np = combine.size(), me = combine.rank();
  const index_t nb = n_blocks(n, kRowBlock);
  const double ell = opt.oversampling * static_cast<double>(k);
  std::vector<double> dist = rows_array(n, 0.0), block_total(nb);
  std::vector<int> near = rows_array(n, 0);
  // the candidates: rows (global index) and their values, m x d row-major
  std::vector<index_t> cand_rows;
  std::vector<double> cand_vals;
  auto potential = [&]() {
    parallel_for(nb, n_threads, [&](index_t b, int) {
      const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
      block_total[b] = sum_of_min(dist.data() + r0, dist.data() + r0, r1 - r0);
    }, static_cast<double>(n));
    double phi = 0.0;
    for (index_t b = 0; b < nb; ++b) phi += block_total[b];
    return combined_sum(combine, phi);
  };

  const index_t first = static_cast<index_t>(rng.below(n_all));
  std::vector<double> row(d);
  combined_row(combine, first, n, d, [&](index_t r, double* o) { get_row(a, r, o); },
               row.data());
  cand_rows.push_back(first);
  cand_vals.insert(cand_vals.end(), row.begin(), row.end());
  dist2_to_points(a, row_norms, row.data(), 1, dist.data(), n_threads);
  const index_t first_here = local_row(combine, first, n);
  if (first_here >= 0) dist[first_here] = 0.0;
  double phi = potential();
  if (trace != nullptr) trace->phi.push_back(phi);

  std::vector<std::vector<index_t>> block_pick(nb);
  std::vector<double> counts(np);
  for (int round = 0; round < opt.rounds && phi > 0.0; ++round) {
    const std::uint64_t key = rng.next();
    // This process's rows sampled in the round, in row order.
    parallel_for(nb, n_threads, [&](index_t b, int) {
      std::vector<index_t>& pick = block_pick[b];
      pick.clear();
      const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
      for (index_t r = r0; r < r1; ++r)
        if (dist[r] > 0.0 &&
            uniform_of(counter_hash(key, static_cast<std::uint64_t>(combine.offset() + r))) <
                ell * dist[r] / phi)
          pick.push_back(r);
    }, static_cast<double>(n));
    std::vector<index_t> mine;
    for (index_t b = 0; b < nb; ++b)
      mine.insert(mine.end(), block_pick[b].begin(), block_pick[b].end());
    // Every process gets every sampled row: a sum of vectors each fills at
    // its own place (rank order = global row order).
    std::fill(counts.begin(), counts.end(), 0.0);
    counts[me] = static_cast<double>(mine.size());
    combine.sum(counts.data(), np);
    index_t m = 0, before = 0;
    for (int p = 0; p < np; ++p) {
      if (p < me) before += static_cast<index_t>(counts[p]);
      m += static_cast<index_t>(counts[p]);
    }
    if (m == 0) {
      if (trace != nullptr) trace->phi.push_back(phi);
      continue;
    }
    std::vector<double> pts((d + 1) * m, 0.0);  // m x d column-major, then the rows
    for (index_t t = 0; t < static_cast<index_t>(mine.size()); ++t) {
      get_row(a, mine[t], row.data());
      for (index_t j = 0; j < d; ++j) pts[before + t + m * j] = row[j];
      pts[d * m + before + t] = static_cast<double>(combine.offset() + mine[t]);
    }
    combine.sum(pts.data(), (d + 1) * m);
    const int base = static_cast<int>(cand_rows.size());
    for (index_t t = 0; t < m; ++t) {
      cand_rows.push_back(static_cast<index_t>(pts[d * m + t]));
      for (index_t j = 0; j < d; ++j) cand_vals.push_back(pts[t + m * j]);
    }
    // The distances of all rows to the new candidates.
    const std::vector<double> cnorm = centre_sqnorms(pts.data(), m, d);
    const CentreView cv = prepare_centres(a, pts.data(), m);
    struct Scratch {
      std::vector<double> buf, best;
      std::vector<int> which;
    };
    parallel_for_scratch<Scratch>(nb, n_threads, [&](index_t b, Scratch& s) {
      const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
      s.buf.resize(kRowBlock * m);
      s.best.resize(kRowBlock);
      s.which.resize(kRowBlock);
      if (!nearest_block(a, r0, r1, cv, cnorm.data(), m, s.best.data(), nullptr,
                         s.which.data())) {
        cross_block(a, r0, r1, cv, m, s.buf.data());
        two_nearest(s.buf.data(), len, m, cnorm.data(), s.best.data(), nullptr, s.which.data());
      }
      for (index_t r = r0; r < r1; ++r) {
        const double v = std::max(0.0, row_norms[r] + s.best[r - r0]);
        if (v < dist[r]) {
          dist[r] = v;
          near[r] = base + s.which[r - r0];
        }
      }
    }, static_cast<double>(n) * m * d);
    // The sampled rows themselves: exactly 0, nearest to themselves unless an
    // earlier candidate equals them.
    for (index_t t = 0; t < static_cast<index_t>(mine.size()); ++t) {
      const index_t r = mine[t];
      if (dist[r] > 0.0) near[r] = base + static_cast<int>(before + t);
      dist[r] = 0.0;
    }
    phi = potential();
    if (trace != nullptr) trace->phi.push_back(phi);
    check_interrupt(interrupt);
  }

  const index_t mc = static_cast<index_t>(cand_rows.size());
  std::vector<double> w(mc, 0.0);
  for (index_t r = 0; r < n; ++r) w[near[r]] += 1.0;
  combine.sum(w.data(), mc);
  index_t positive = 0;
  for (double v : w) positive += v > 0.0;
  if (trace != nullptr) {
    trace->candidates = cand_rows;
    trace->weights = w;
  }
  if (positive < k) {
    std::vector<int>().swap(near);
    std::vector<double>().swap(dist);
    // Too few distinct candidates for k seeds: greedy k-means++ on the rows.
    if (trace != nullptr) trace->fallback = true;
    kmeanspp(a, row_norms, k, rng, centres, n_threads, interrupt, assign, combine);
    return;
  }
  std::vector<double> pts(mc * d);
  for (index_t t = 0; t < mc; ++t)
    for (index_t j = 0; j < d; ++j) pts[t + mc * j] = cand_vals[t * d + j];
  // Reclustering runs (the best kept) while they cost at most about a tenth
  // of the rounds: m k (2 + ln k) d each against n l d per round.
  const int runs = static_cast<int>(std::max(
      1.0, std::min(10.0, std::floor(static_cast<double>(n_all) /
                                     (static_cast<double>(mc) * greedy_trials(k))))));
  detail::recluster(pts, mc, d, w, k, rng, centres, runs, n_threads, interrupt);
  if (assign != nullptr) {
    // (the rows' arrays reused: fresh memory costs its first touch)
    assign->nearest = std::move(dist);
    assign->label = std::move(near);
    seed_assignment(a, row_norms, centres, k, *assign, n_threads);
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANS_PARALLEL_HPP
