// kmreduce: mini-batch k-means (Sculley 2010), the variant scikit-learn's
// MiniBatchKMeans runs (and mbkmeans / ClusterR after it).
//
// Seeding: `n_init` seedings (the policy of KmeansOptions::seeding,
// seeding.hpp; replicate t from the stream (seed, kStreamKmeansInit, t)) on
// one sample of min(n, max(3 batch_size, 3 k)) distinct rows, the one with
// the lowest objective on that sample kept (scikit-learn draws a new sample
// per seeding and scores on another one; one sample here). Given centres
// (minibatch() with k x d centres) are the start instead.
//
// Batches: `batch_size` distinct rows (at most n), drawn uniformly, without
// replacement within a batch (scikit-learn draws with replacement), from
// the stream (seed, kStreamMinibatchBatch); each batch's rows are sorted.
// Each row of the batch is assigned to its nearest centre (the centres
// before the batch), then every centre q that got rows moves to
//   c_q <- (c_q v_q + sum of its rows) / (v_q + their number),  v_q += that number
// (with observation weights: weighted sums and weights), the batch form of
// Sculley's per-row updates with learning rate 1 / v_q: the same centre.
// v_q starts at 0 (the first batch puts a centre at the mean of its rows).
//
// Reassignment (scikit-learn's rule for when and which): every time 10 k
// rows have been drawn since the last reassignment (or while some v_q is
// 0), the centres with v_q < reassignment_ratio * max v are reassigned,
// each to one of distinct random rows of the current batch (at most half
// the batch: the centres with the smallest v first), drawn from the stream
// (seed, kStreamMinibatchReassign); their v_q become the smallest v of the
// other centres. Where it goes differs: scikit-learn puts the centre on the
// row itself, which in many dimensions is far from every other row (the
// squared distances between rows are twice those to their mean), so the
// centre keeps that row alone and ends as a cluster of one row (clusters of
// 1 to 5 cells on single-cell data, 20 clusters of 5 types on 150
// principal components). Here it goes 1 % of the way from the row's
// nearest centre toward the row (kSplitStep): it takes about half that
// centre's rows, on the row's side, in any dimension (a split of its
// cluster), and the two move apart with the next batches. A row whose
// nearest centre is itself being reassigned gives the row, as before.
//
// Stopping (scikit-learn's criteria): after iter_max passes over the rows
// (iter_max n / batch_size batches), or earlier when the exponentially
// weighted average of the batch objective per row (weight 2 batch_size /
// (n + 1); the first batch not counted) has not reached a new low for
// `max_no_improvement` batches, or, with tol > 0, when the squared moves of
// the centres in one batch sum to at most tol times the mean variance of
// the columns.
//
// The labels: every row to its nearest final centre (one parallel pass; a
// centre left without rows re-seeded as by Lloyd's final pass); the
// objective is their sum of (weighted) squared distances.
//
// The batch assignment is parallel over fixed blocks of rows and the
// updates run in a fixed order, so the result does not depend on the
// thread count.
#ifndef KMREDUCE_MINIBATCH_HPP
#define KMREDUCE_MINIBATCH_HPP

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "kmeans_options.hpp"
#include "lloyd.hpp"
#include "seeding.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/packed.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/progress.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

// Draws sets of m distinct rows of n: a partial Fisher-Yates shuffle of a
// permutation kept between draws (each draw is uniform whatever the
// permutation), the rows returned sorted.
class RowSampler {
 public:
  RowSampler(index_t n, std::uint64_t key) : rng_(key), perm_(static_cast<std::size_t>(n)) {
    std::iota(perm_.begin(), perm_.end(), index_t(0));
  }
  void draw(index_t m, std::vector<index_t>& out) {
    const index_t n = static_cast<index_t>(perm_.size());
    m = std::min(m, n);
    for (index_t i = 0; i < m; ++i) {
      const index_t j = i + static_cast<index_t>(rng_.below(static_cast<std::uint64_t>(n - i)));
      std::swap(perm_[i], perm_[j]);
    }
    out.assign(perm_.begin(), perm_.begin() + m);
    std::sort(out.begin(), out.end());
  }

 private:
  Rng rng_;
  std::vector<index_t> perm_;
};

// The rows per batch for n rows.
inline index_t minibatch_rows(index_t batch_size, index_t n) {
  return std::max<index_t>(1, std::min(batch_size, n));
}

// The stream of the batches (minibatch_batches() of the tests draws them
// from it as minibatch() does).
inline RowSampler minibatch_sampler(index_t n, std::uint64_t seed) {
  return RowSampler(n, stream_key(seed, kStreamMinibatchBatch));
}

namespace detail {

// The rows `idx` of the data, copied: dense rows (minus the shift of packed
// rows) as an m x d column-major matrix, sparse rows as a small CSC matrix
// and its CSR copy. f(rows) is called with them.
struct BatchStore {
  std::vector<double> x, row;
  std::vector<int> p, i;
};

template <class F>
auto with_batch(const DenseMatrix& a, const std::vector<index_t>& idx, BatchStore& s,
                F&& f, const double* shift = nullptr) {
  const index_t m = static_cast<index_t>(idx.size()), d = a.d;
  s.x.resize(static_cast<std::size_t>(m * d));
  for (index_t j = 0; j < d; ++j) {
    const double* col = a.x + a.n * j;
    double* dst = s.x.data() + m * j;
    const double sj = shift != nullptr ? shift[j] : 0.0;
    if (shift != nullptr) {
      for (index_t t = 0; t < m; ++t) dst[t] = col[idx[t]] - sj;
    } else {
      for (index_t t = 0; t < m; ++t) dst[t] = col[idx[t]];
    }
  }
  const DenseMatrix g(s.x.data(), m, d);
  return f(g);
}
template <class F>
auto with_batch(const PackedRows& a, const std::vector<index_t>& idx, BatchStore& s, F&& f) {
  return with_batch(a.src, idx, s, f, a.shift);
}
template <class F>
auto with_batch(const SparseRows& a, const std::vector<index_t>& idx, BatchStore& s, F&& f) {
  const index_t m = static_cast<index_t>(idx.size()), d = a.d;
  s.p.assign(static_cast<std::size_t>(d + 1), 0);
  for (index_t r : idx)
    for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t) ++s.p[a.cj[t] + 1];
  for (index_t j = 0; j < d; ++j) s.p[j + 1] += s.p[j];
  const index_t nnz = s.p[d];
  s.i.resize(static_cast<std::size_t>(nnz));
  s.x.resize(static_cast<std::size_t>(nnz));
  std::vector<int> pos(s.p.begin(), s.p.end() - 1);
  for (index_t u = 0; u < m; ++u) {
    const index_t r = idx[u];
    for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t) {
      const int dst = pos[a.cj[t]]++;
      s.i[dst] = static_cast<int>(u);
      s.x[dst] = a.v[t];
    }
  }
  const SparseMatrix g(s.p.data(), s.i.data(), s.x.data(), m, d);
  const SparseRows rows(g);
  return f(rows);
}
// (any other row form: row by row)
template <class Rows, class F>
auto with_batch(const Rows& a, const std::vector<index_t>& idx, BatchStore& s, F&& f) {
  const index_t m = static_cast<index_t>(idx.size()), d = a.d;
  s.x.resize(static_cast<std::size_t>(m * d));
  s.row.resize(static_cast<std::size_t>(d));
  for (index_t t = 0; t < m; ++t) {
    get_row(a, idx[t], s.row.data());
    for (index_t j = 0; j < d; ++j) s.x[t + m * j] = s.row[j];
  }
  const DenseMatrix g(s.x.data(), m, d);
  return f(g);
}

// sum_r w_r dist_r (w null: 1) in row order.
inline double weighted_total(const double* w, const std::vector<double>& dist) {
  double s = 0.0;
  if (w == nullptr) {
    for (double v : dist) s += v;
  } else {
    for (std::size_t r = 0; r < dist.size(); ++r) s += w[r] * dist[r];
  }
  return s;
}

// The mean variance of the columns (weighted), for the tol criterion.
template <class Data>
double mean_column_variance(const Data& a, const double* row_norms, const double* w,
                            int n_threads) {
  const index_t n = a.n, d = a.d;
  std::vector<int> zero(static_cast<std::size_t>(n), 0);
  std::vector<double> sums(static_cast<std::size_t>(d), 0.0);
  if (w != nullptr) {
    weighted_cluster_sums(a, zero.data(), w, 1, sums.data(), n_threads);
  } else {
    cluster_sums(a, zero.data(), 1, sums.data(), n_threads);
  }
  double total = 0.0, wsum = 0.0, mm = 0.0;
  for (index_t r = 0; r < n; ++r) {
    const double wr = w != nullptr ? w[r] : 1.0;
    total += wr * row_norms[r];
    wsum += wr;
  }
  for (double v : sums) mm += v * v;
  return std::max(0.0, total - mm / wsum) / (wsum * static_cast<double>(d));
}

}  // namespace detail

struct MinibatchResult {
  LloydResult fit;      // labels, centres, objective; iter = batches run,
                        // converged = stopped by a criterion before iter_max
  int seeding = 0;      // the seeding kept (0-based; 0 from given centres)
  std::vector<double> seeding_objectives;  // of each seeding, on the sample
  index_t reassigned = 0;                  // centres reassigned in all
};

namespace detail {
// How far a reassigned centre goes from the nearest centre of its row
// toward the row (see the reassignment above): the new boundary passes at
// half of this, so about half that centre's rows change side.
constexpr double kSplitStep = 0.01;

// The batch's weights (null without weights), copied into `wb`.
inline const double* batch_weights(const double* w, const std::vector<index_t>& idx,
                                   std::vector<double>& wb) {
  if (w == nullptr) return nullptr;
  wb.resize(idx.size());
  for (std::size_t t = 0; t < idx.size(); ++t) wb[t] = w[idx[t]];
  return wb.data();
}

// The n_init seedings on one sample of max(3 batch_size, 3 k) rows, the
// lowest objective there kept: its centres (k x d); each seeding's
// objective and the one kept go to `out`.
template <class Data, class Combine>
std::vector<double> seed_on_sample(const Data& a, const KmeansOptions& opt, BatchStore& store,
                                   const InterruptCheck& interrupt, const Combine& combine,
                                   std::vector<double>& seeding_objectives, int& kept) {
  const index_t n = a.n, d = a.d, k = opt.k;
  const int n_threads = opt.n_threads;
  const index_t m = std::min(n, std::max(3 * opt.batches.batch_size, 3 * k));
  std::vector<index_t> idx;
  RowSampler(n, stream_key(opt.seed, kStreamMinibatchSample)).draw(m, idx);
  const std::size_t policy_index = seeding_index(opt.seeding);
  std::vector<double> wb, norms, dist, centres;
  const double* ws = batch_weights(opt.weights, idx, wb);
  std::vector<int> label;
  with_batch(a, idx, store, [&](const auto& g) {
    norms.assign(static_cast<std::size_t>(m), 0.0);
    row_sqnorms(g, norms.data(), n_threads);
    KmeansOptions so = opt;
    so.weights = ws;
    const SeedingCall<std::decay_t<decltype(g)>, Combine> call{g, norms.data(), so, interrupt,
                                                               combine};
    std::vector<double> c(static_cast<std::size_t>(k * d));
    label.assign(static_cast<std::size_t>(m), -1);
    dist.assign(static_cast<std::size_t>(m), 0.0);
    for (int t = 0; t < opt.n_init; ++t) {
      Rng rng(stream_key(opt.seed, kStreamKmeansInit, static_cast<std::uint64_t>(t)));
      with_seeding(policy_index, [&](auto policy) {
        decltype(policy)::seed(call, rng, c.data(), nullptr);
      });
      assign_nearest(g, norms.data(), c.data(), k, label.data(), dist.data(), n_threads);
      const double obj = weighted_total(ws, dist);
      seeding_objectives.push_back(obj);
      if (t == 0 || obj < seeding_objectives[kept]) {
        kept = t;
        centres = c;
      }
      check_interrupt(interrupt);
    }
  });
  return centres;
}

// Sculley's update from one batch (rows `g`, labels to their nearest
// centres, weights `wb` or null): each centre that got rows moves to
// (c v + s) / (v + m), v its count so far (or weight), s and m the sum and
// count (weight) of its new rows.
template <class Batch>
void batch_update(const Batch& g, const std::vector<int>& label, const double* wb, index_t k,
                  int n_threads, std::vector<double>& sums, std::vector<double>& bw,
                  std::vector<double>& count, std::vector<double>& centres) {
  const index_t b = g.n, d = g.d;
  std::fill(sums.begin(), sums.end(), 0.0);
  if (wb != nullptr) {
    weighted_cluster_sums(g, label.data(), wb, k, sums.data(), n_threads);
  } else {
    cluster_sums(g, label.data(), k, sums.data(), n_threads);
  }
  std::fill(bw.begin(), bw.end(), 0.0);
  for (index_t t = 0; t < b; ++t) bw[label[t]] += wb != nullptr ? wb[t] : 1.0;
  for (index_t q = 0; q < k; ++q) {
    if (!(bw[q] > 0.0)) continue;
    const double v = count[q], v1 = count[q] + bw[q];
    for (index_t j = 0; j < d; ++j) {
      double& c = centres[q + k * j];
      c = (c * v + sums[q + k * j]) / v1;
    }
    count[q] = v1;
  }
}

// The reassignment: the centres whose count is below `ratio` times the
// largest (at most half the batch, those with the smallest counts) move
// toward distinct random rows of the batch, in draw order, kSplitStep of
// the way from the row's nearest centre (`label`, the batch's labels), and
// their counts become the smallest of the others. Returns how many moved.
template <class Batch>
index_t reassign_centres(const Batch& g, const std::vector<int>& label, double ratio, index_t k,
                         Rng& rng, std::vector<double>& count, std::vector<double>& centres) {
  const index_t b = g.n, d = g.d;
  const double top = *std::max_element(count.begin(), count.end());
  std::vector<char> to(static_cast<std::size_t>(k), 0);
  index_t n_to = 0;
  for (index_t q = 0; q < k; ++q)
    if (count[q] < ratio * top) {
      to[q] = 1;
      ++n_to;
    }
  const index_t most = b / 2;
  if (n_to > most) {
    // only the `most` centres with the smallest counts
    std::vector<index_t> order(static_cast<std::size_t>(k));
    std::iota(order.begin(), order.end(), index_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](index_t u, index_t v) { return count[u] < count[v]; });
    for (index_t i = most; i < k; ++i) to[order[i]] = 0;
    n_to = most;
  }
  if (n_to == 0) return 0;
  std::vector<index_t> pick(static_cast<std::size_t>(b));
  std::iota(pick.begin(), pick.end(), index_t(0));
  for (index_t i = 0; i < n_to; ++i) {
    const index_t j =
        i + static_cast<index_t>(rng.below(static_cast<std::uint64_t>(b - i)));
    std::swap(pick[i], pick[j]);
  }
  std::vector<double> row(static_cast<std::size_t>(d));
  double low = std::numeric_limits<double>::infinity();
  for (index_t q = 0; q < k; ++q)
    if (!to[q]) low = std::min(low, count[q]);
  index_t i = 0;
  for (index_t q = 0; q < k; ++q) {
    if (!to[q]) continue;
    const index_t r = pick[i++];
    get_row(g, r, row.data());
    const int p = label[r];
    if (p == static_cast<int>(q) || to[p]) {
      for (index_t j = 0; j < d; ++j) centres[q + k * j] = row[j];
    } else {
      for (index_t j = 0; j < d; ++j) {
        const double c = centres[p + k * j];
        centres[q + k * j] = c + kSplitStep * (row[j] - c);
      }
    }
    count[q] = low;
  }
  return n_to;
}

// scikit-learn's stopping rule: the exponentially weighted average of the
// batch objective per row (the first batch, the seeding's, not counted)
// has not reached a new low for max_no_improvement batches, or the centres
// moved by at most tol (squared, summed) in one batch.
struct EarlyStop {
  double alpha, tol;
  int patience;
  double ewa = 0.0, ewa_min = 0.0;
  bool have_ewa = false, have_min = false;
  int no_improvement = 0;
  bool after(index_t step, double per_row, double moved) {
    if (step == 1) return false;
    ewa = have_ewa ? ewa * (1.0 - alpha) + per_row * alpha : per_row;
    have_ewa = true;
    if (tol > 0.0 && moved <= tol) return true;
    if (!have_min || ewa < ewa_min) {
      no_improvement = 0;
      ewa_min = ewa;
      have_min = true;
    } else {
      ++no_improvement;
    }
    return no_improvement >= patience;
  }
};

// The options minibatch() checks itself (the R glue checks them first).
inline void check_minibatch(const KmeansOptions& opt, index_t n) {
  const MinibatchOptions& mb = opt.batches;
  if (opt.k < 1 || opt.k > n) throw std::invalid_argument("k must be in [1, number of rows]");
  if (mb.batch_size < 1) throw std::invalid_argument("batch_size must be at least 1");
  if (!(mb.reassignment_ratio >= 0.0 && mb.reassignment_ratio <= 1.0))
    throw std::invalid_argument("reassignment_ratio must be in [0, 1]");
  if (opt.n_init < 1 || opt.iter_max < 1)
    throw std::invalid_argument("n_init and iter_max must be positive");
}
}  // namespace detail

// Mini-batch k-means on the rows of `a` (their squared norms `row_norms`),
// with the options of `opt` (k, n_init, iter_max, tol, seed, seeding,
// n_threads, weights, batches). From `centres` (k x d, column-major) when
// not empty, else seeded on a sample (see above). One process: `combine` (of
// this process alone) only chooses the instances of the seedings and of the
// final assignment, so that they are those of kmeans().
template <class Data, class Combine = LocalCombine>
MinibatchResult minibatch(const Data& a, const double* row_norms, std::vector<double> centres,
                          const KmeansOptions& opt,
                          const InterruptCheck& interrupt = InterruptCheck(),
                          const Combine& combine = Combine()) {
  const index_t n = a.n, d = a.d, k = opt.k;
  const double* w = opt.weights;
  const MinibatchOptions& mb = opt.batches;
  detail::check_minibatch(opt, n);
  const int n_threads = opt.n_threads;
  const index_t b = minibatch_rows(mb.batch_size, n);
  MinibatchResult out;
  detail::BatchStore store;
  // 1. the seeding, on a sample (unless centres are given)
  if (centres.empty())
    centres = detail::seed_on_sample(a, opt, store, interrupt, combine, out.seeding_objectives,
                                     out.seeding);
  if (static_cast<index_t>(centres.size()) != k * d)
    throw std::invalid_argument("centres must be k x d");
  // 2. the batches: assignment, Sculley's update, reassignment, until a
  // stopping rule or iter_max passes over the rows
  const double tol = opt.tol > 0.0
                         ? opt.tol * detail::mean_column_variance(a, row_norms, w, n_threads)
                         : 0.0;
  const double steps_d =
      std::floor(static_cast<double>(opt.iter_max) * static_cast<double>(n) / b);
  const index_t n_steps = static_cast<index_t>(
      std::max(1.0, std::min(steps_d, static_cast<double>(std::numeric_limits<int>::max()))));
  const index_t per_pass = std::max<index_t>(1, n / b);
  RowSampler sampler = minibatch_sampler(n, opt.seed);
  Rng reassign_rng(stream_key(opt.seed, kStreamMinibatchReassign));
  std::vector<double> count(static_cast<std::size_t>(k), 0.0), bw(static_cast<std::size_t>(k));
  std::vector<double> old, wb, dist, norms, sums(static_cast<std::size_t>(k * d));
  std::vector<int> label;
  std::vector<index_t> idx;
  index_t since_reassign = 0;
  detail::EarlyStop stop{
      std::min(1.0, 2.0 * static_cast<double>(b) / (static_cast<double>(n) + 1.0)), tol,
      mb.max_no_improvement};
  index_t step = 0;
  bool stopped = false;
  while (step < n_steps && !stopped) {
    ++step;
    sampler.draw(b, idx);
    const double* wbat = detail::batch_weights(w, idx, wb);
    double batch_obj = 0.0, moved = 0.0;
    detail::with_batch(a, idx, store, [&](const auto& g) {
      norms.assign(static_cast<std::size_t>(b), 0.0);
      row_sqnorms(g, norms.data(), n_threads);
      label.assign(static_cast<std::size_t>(b), -1);
      dist.assign(static_cast<std::size_t>(b), 0.0);
      assign_nearest(g, norms.data(), centres.data(), k, label.data(), dist.data(), n_threads);
      batch_obj = detail::weighted_total(wbat, dist);
      if (tol > 0.0) old = centres;
      detail::batch_update(g, label, wbat, k, n_threads, sums, bw, count, centres);
      // (after every 10 k rows, or while a centre has had no rows)
      since_reassign += b;
      const bool any_empty = std::find(count.begin(), count.end(), 0.0) != count.end();
      if (mb.reassignment_ratio > 0.0 && (any_empty || since_reassign >= 10 * k)) {
        since_reassign = 0;
        out.reassigned += detail::reassign_centres(g, label, mb.reassignment_ratio, k,
                                                   reassign_rng, count, centres);
      }
      if (tol > 0.0)
        for (std::size_t t = 0; t < centres.size(); ++t)
          moved += (centres[t] - old[t]) * (centres[t] - old[t]);
    });
    const double per_row = batch_obj / static_cast<double>(b);
    // (progress, once per pass over the rows: the smoothed batch objective
    // per row times n, an estimate of the objective)
    if (progress_active() && (step % per_pass == 0 || step == n_steps))
      report_progress("mini-batch", static_cast<int>(step),
                      (stop.have_ewa ? stop.ewa : per_row) * n,
                      static_cast<double>(out.reassigned));
    check_interrupt(interrupt);
    stopped = stop.after(step, per_row, moved);
  }
  // 3. the centres as Lloyd returns them on shifted rows (lloyd()'s `grid`),
  // then every row to its nearest centre; a centre left without rows is
  // re-seeded as Lloyd's final pass does (the farthest row moved to it, the
  // others the means of their rows, and the rows assigned again), so no
  // cluster comes back empty
  LloydCall finish;
  finish.n_threads = n_threads;
  finish.interrupt = interrupt;
  finish.grid = rows_shift(a);
  finish.weight = w;
  GridSnap{finish.grid, k, d}(centres);
  LloydResult& res = out.fit;
  res.label.assign(static_cast<std::size_t>(n), -1);
  res.objective = detail::final_assignment(ResidentRows<Data>(a), row_norms, finish, combine,
                                           res.label, centres);
  res.centres = std::move(centres);
  res.iter = static_cast<int>(step);
  res.converged = stopped;
  res.means = false;
  return out;
}

// The batches minibatch() draws for n rows (tests): `batches` sets of
// row indices (0-based, sorted).
inline std::vector<std::vector<index_t>> minibatch_batches(index_t n, index_t batch_size,
                                                           int batches, std::uint64_t seed) {
  RowSampler sampler = minibatch_sampler(n, seed);
  const index_t b = minibatch_rows(batch_size, n);
  std::vector<std::vector<index_t>> out(static_cast<std::size_t>(batches));
  for (auto& v : out) sampler.draw(b, v);
  return out;
}

}  // namespace kmreduce

#endif  // KMREDUCE_MINIBATCH_HPP
