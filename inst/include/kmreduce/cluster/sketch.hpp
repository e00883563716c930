// kmreduce: a weighted sample of rows on which k-means replicates run
// cheaply (kmeans.hpp), and the lift of a solution found there back to all
// the rows.
//
// The sample is a coreset by sensitivity sampling (Feldman and Langberg,
// STOC 2011; in the practical form of Bachem, Lucic and Krause, "Practical
// coreset constructions for machine learning", arXiv:1703.06476, 2017,
// Algorithm 2). A rough solution B comes first: the candidates of k-means||
// (kmeans_parallel.hpp; rounds + 1 passes), about 2 k per round, each row
// with its squared distance D to the nearest candidate b(x). Row x is then
// drawn with probability q(x) proportional to
//   s(x) = w(x) [alpha D(x) / Dbar + 2 alpha C_b / (W_b Dbar) + 4 W / W_b],
// Dbar = sum w D / W the mean distance, C_b and W_b the sum of w D and of w
// over the rows nearest b = b(x), W the sum of the weights and alpha =
// 16 (log k + 2); m rows are drawn independently and weighted w / (m q).
// The last term gives every candidate's rows the same share of the draws,
// whatever their number: a small cluster far from the others (which
// k-means|| finds, its rows being far from the rest) is drawn as often as
// a large one, and weighs less. For every set of k centres the weighted
// objective of the sample is an unbiased estimate of the objective of all
// the rows, within a factor 1 +- eps with high probability for m of order
// d k log k / eps^2. A row drawn several times is kept once with the sum
// of its weights.
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
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kmeans_parallel.hpp"
#include "lloyd.hpp"
#include "seed_assignment.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/packed.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

// The rows of a sketch, copied (m x d, column-major) with their weights.
struct Sketch {
  std::vector<index_t> rows;   // the rows drawn, increasing, each once
  std::vector<double> weight;  // one per row drawn
  AlignedArray<double> x;      // their values, as the clustered rows hold them
  index_t m = 0, d = 0;
};

// The rows of every sketch (each s.rows increasing), as the clustered rows
// hold them (minus the shift of packed rows), into s.x (s.m x d,
// column-major): column by column, every sketch from the same column while
// it is in cache. Drawn rows are spread over the whole column, so each
// sketch alone would read nearly every cache line of it: one pass for all.
inline void gather_rows(const DenseMatrix& a, std::vector<Sketch>& sketches, const double* shift,
                        int n_threads) {
  double work = 0.0;
  for (Sketch& s : sketches) {
    s.d = a.d;
    s.x = aligned_array<double>(static_cast<std::size_t>(s.m * a.d), true);  // (all written)
    work += static_cast<double>(s.m) * a.d;
  }
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    const double* col = a.x + a.n * j;
    const double sj = shift != nullptr ? shift[j] : 0.0;
    for (Sketch& s : sketches) {
      double* o = s.x.get() + s.m * j;
      const index_t* rows = s.rows.data();
      for (index_t i = 0; i < s.m; ++i) o[i] = col[rows[i]] - sj;
    }
  }, work);
}
inline void gather_rows(const DenseMatrix& a, std::vector<Sketch>& sketches, int n_threads) {
  gather_rows(a, sketches, nullptr, n_threads);
}
inline void gather_rows(const PackedRows& a, std::vector<Sketch>& sketches, int n_threads) {
  gather_rows(a.src, sketches, a.shift, n_threads);
}
// (other rows are not sketched: kmeans.hpp's sketch_applies())
template <class Rows>
void gather_rows(const Rows&, std::vector<Sketch>&, int) {
  throw std::logic_error("these rows are not sketched");
}

// m draws from the distribution (cdf, mass, acc) of coreset_sketches() into
// s.rows and s.weight (its values are gathered later); a row drawn c times
// gets c w_r / (m q_r). With rows on several processes, every process draws
// the same m uniforms on [0, acc) (acc: the mass of all the rows) and keeps
// those within [lo, hi), the part its own rows hold (cdf: their cumulative
// mass from 0; the first process keeps everything below hi, the last
// everything from lo): the rows one process would draw from the stacked
// rows. One process: lo = 0, hi = acc.
inline void draw_sketch(index_t n, const double* weights, index_t m,
                        const std::vector<double>& cdf, const std::vector<double>& mass,
                        double acc, double lo, double hi, bool first, bool last, Rng& rng,
                        Sketch& s) {
  std::vector<index_t> drawn;
  drawn.reserve(static_cast<std::size_t>(m));
  for (index_t t = 0; t < m; ++t) {
    double u = rng.uniform() * acc;
    if ((!first && u < lo) || (!last && u >= hi) || n == 0) continue;
    u -= lo;
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    drawn.push_back(std::min<index_t>(n - 1, static_cast<index_t>(it - cdf.begin())));
  }
  std::sort(drawn.begin(), drawn.end());
  const index_t got = static_cast<index_t>(drawn.size());
  for (index_t t = 0; t < got;) {
    const index_t r = drawn[t];
    index_t c = 0;
    while (t < got && drawn[t] == r) {
      ++c;
      ++t;
    }
    const double q = mass[r] / acc;
    const double w = weights != nullptr ? weights[r] : 1.0;
    s.rows.push_back(r);
    s.weight.push_back(static_cast<double>(c) * w / (static_cast<double>(m) * q));
  }
  s.m = static_cast<index_t>(s.rows.size());
}

// With rows on several processes: each process's part of every sketch
// (its rows, weights and values, gathered) made the whole sketch on every
// process, the parts in process order (= global row order), by one sum of
// vectors each process fills at its own place; s.rows become global rows.
template <class Combine>
void share_sketches(std::vector<Sketch>& sketches, index_t d, const Combine& combine) {
  const int np = combine.size(), me = combine.rank();
  const std::size_t count = sketches.size();
  std::vector<double> counts(count * static_cast<std::size_t>(np), 0.0);
  for (std::size_t i = 0; i < count; ++i)
    counts[i + count * static_cast<std::size_t>(me)] = static_cast<double>(sketches[i].m);
  combine.sum(counts.data(), static_cast<index_t>(counts.size()));
  // (per sketch: its rows in all, those of the processes before this one,
  // and where its values, weights and rows start in the buffer)
  std::vector<index_t> all(count, 0), before(count, 0);
  std::vector<std::size_t> at(count, 0);
  std::size_t len = 0;
  for (std::size_t i = 0; i < count; ++i) {
    for (int p = 0; p < np; ++p) {
      const index_t c = static_cast<index_t>(counts[i + count * static_cast<std::size_t>(p)]);
      all[i] += c;
      if (p < me) before[i] += c;
    }
    at[i] = len;
    len += static_cast<std::size_t>(all[i]) * static_cast<std::size_t>(d + 2);
  }
  std::vector<double> buf(len, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    const Sketch& s = sketches[i];
    double* x = buf.data() + at[i];
    double* w = x + all[i] * d;
    double* g = w + all[i];
    for (index_t t = 0; t < s.m; ++t) {
      const index_t o = before[i] + t;
      for (index_t j = 0; j < d; ++j) x[o + all[i] * j] = s.x[t + s.m * j];
      w[o] = s.weight[t];
      g[o] = static_cast<double>(combine.offset() + s.rows[t]);
    }
  }
  combine.sum(buf.data(), static_cast<index_t>(len));
  for (std::size_t i = 0; i < count; ++i) {
    Sketch whole;
    whole.m = all[i];
    whole.d = d;
    const double* x = buf.data() + at[i];
    const double* w = x + all[i] * d;
    const double* g = w + all[i];
    whole.x = aligned_array<double>(static_cast<std::size_t>(whole.m * d), true);
    std::copy(x, x + whole.m * d, whole.x.get());
    whole.weight.assign(w, w + whole.m);
    whole.rows.resize(static_cast<std::size_t>(whole.m));
    for (index_t t = 0; t < whole.m; ++t) whole.rows[t] = static_cast<index_t>(g[t]);
    sketches[i] = std::move(whole);
  }
}

// Draws `count` independent sketches of m (before merging repeated draws)
// rows of `a` (row_norms: its squared row norms; weights: nullptr or one per
// row) for k clusters, from one rough solution; `parallel`: k-means||'s
// options for it. With rows on several processes (Combine), the sketches of
// one process on the stacked rows (up to the rounding of sums taken by
// process), whole on every process.
template <class Data, class Combine = LocalCombine>
std::vector<Sketch> coreset_sketches(const Data& a, const double* row_norms,
                                     const double* weights, index_t m, index_t k, int count,
                                     const KmeansParallelOptions& parallel, Rng& rng,
                                     int n_threads,
                                     const InterruptCheck& interrupt = InterruptCheck(),
                                     const Combine& combine = Combine()) {
  const index_t n = a.n;
  if (m < 1 || combine.total_rows(n) < 1 || k < 1)
    throw std::invalid_argument("a sketch needs rows and k >= 1");
  const ParallelCandidates rough = parallel_candidates(a, row_norms, k, rng, n_threads, parallel,
                                                       interrupt, combine, nullptr, weights);
  const std::vector<double>& dist = rough.dist;
  const std::vector<int>& near = rough.near;
  // Per candidate: the sum of the weights and of w D of its rows; totals
  // (of all processes: one vector summed).
  const std::size_t nc = rough.rows.size();
  std::vector<double> sums(2 * nc + 2, 0.0);
  double* size_b = sums.data();
  double* cost_b = size_b + nc;
  double total = 0.0, cost = 0.0;
  for (index_t r = 0; r < n; ++r) {
    const double w = weights != nullptr ? weights[r] : 1.0;
    size_b[near[r]] += w;
    cost_b[near[r]] += w * dist[r];
    total += w;
    cost += w * dist[r];
  }
  sums[2 * nc] = total;
  sums[2 * nc + 1] = cost;
  combine.sum(sums.data(), static_cast<index_t>(sums.size()));
  total = sums[2 * nc];
  cost = sums[2 * nc + 1];
  const double alpha = 16.0 * (std::log(static_cast<double>(k)) + 2.0);
  const double mean_cost = cost / total;
  // The cumulative distribution of s, in row order.
  std::vector<double> cdf(static_cast<std::size_t>(n)), mass(static_cast<std::size_t>(n));
  double acc = 0.0;
  for (index_t r = 0; r < n; ++r) {
    const double w = weights != nullptr ? weights[r] : 1.0;
    const int b = near[r];
    double s = 4.0 * total / size_b[b];
    if (mean_cost > 0.0) s += alpha * (dist[r] + 2.0 * cost_b[b] / size_b[b]) / mean_cost;
    mass[r] = w * s;
    acc += mass[r];
    cdf[r] = acc;
  }
  // (the processes' masses in process order: this one's part [lo, hi) of
  // the whole, acc_all)
  const int np = combine.size(), me = combine.rank();
  std::vector<double> accs(static_cast<std::size_t>(np), 0.0);
  accs[me] = acc;
  combine.sum(accs.data(), np);
  double lo = 0.0, acc_all = 0.0;
  for (int p = 0; p < np; ++p) {
    if (p == me) lo = acc_all;
    acc_all += accs[p];
  }
  const double hi = lo + acc;
  std::vector<Sketch> out(static_cast<std::size_t>(count));
  for (Sketch& s : out)
    draw_sketch(n, weights, m, cdf, mass, acc_all, lo, hi, me == 0, me == np - 1, rng, s);
  gather_rows(a, out, n_threads);
  if (np > 1) share_sketches(out, a.d, combine);
  return out;
}

// The lift of centres found on a sketch to all the rows: each row's nearest
// and next nearest of these centres (one pass), as Lloyd's start on all the
// rows (lloyd.hpp, `start`): its first step makes each centre the (weighted)
// mean of its rows without a pass of its own, and Hamerly's bounds from these
// distances let its next step skip the rows that cannot move.
template <class Data>
SeedAssignment lift_assignment(const Data& a, const double* row_norms,
                               const std::vector<double>& centres, index_t k, int n_threads) {
  const index_t n = a.n;
  SeedAssignment out;
  out.with_second_label = false;
  out.label = rows_array(static_cast<std::size_t>(n), -1);
  assign_rows(out.nearest, n, std::numeric_limits<double>::infinity());
  assign_rows(out.second, n, 0.0);
  assign_bounded(a, row_norms, centres.data(), k, out.label.data(), out.nearest.data(),
                 out.second.data(), n_threads);
  // (the distances as squares, as k-means++ gives them)
  each_row_block(n, n_threads, [&](index_t r0, index_t r1) {
    for (index_t r = r0; r < r1; ++r) {
      out.nearest[r] *= out.nearest[r];
      out.second[r] *= out.second[r];
    }
  });
  return out;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SKETCH_HPP
