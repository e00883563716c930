// kmreduce: the stages of one Lloyd iteration (lloyd.hpp), and the step
// policy lloyd() runs by default, HamerlyStep.
//
// The stages: the assignment step (each row to its nearest centre:
// assign_nearest(), or assign_bounded() with Hamerly's bounds, by row blocks
// with distances ||c||^2 - 2 x.c from a GEMM per block, threads over
// blocks), the cluster sums (fresh, or in memory updated from the rows that
// moved; summed over the processes), the update step (update_centres(): the
// means, an empty cluster re-seeded from the row farthest from its centre),
// the bounds' shift (centre_shifts(), detail::shift_bounds()) and the
// objective of a partition from its means in closed form
// (detail::MeansObjective). Every result is independent of the thread count
// (see parallel.hpp). The rows come from a row source (row_source.hpp): in
// memory the whole matrix at once, out of core block by block; one
// implementation.
//
// A step policy (as mlpack's LloydStepType) is the class lloyd() runs each
// iteration with: a class template over <Source, Combine>, made once per
// run, that keeps whatever it carries between iterations (bounds, sums):
//   Step(src, row_norms, combine, call, k, label)
//       takes over call.start (its labels into `label`) or starts `label`
//       with no cluster (-1)
//   index_t assign(centres, label)
//       the assignment step: returns how many labels changed (over all
//       processes); after a start, the first call is the start's assignment
//       (no pass)
//   std::vector<index_t> update(centres, label)
//       the update step: centres the means of their labels, an empty
//       cluster re-seeded (label changes there); returns the rows moved
//   void follow(old_centres, centres, label, reseeded)
//       what it keeps follows the centres' move
//   double objective(centres) const
//       the objective of the labels with `centres` their means, in closed
//       form (what the stopping test, the progress and a settled result read)
// Another step (Elkan's bounds, say) is one such class, passed as lloyd()'s
// first template argument.
#ifndef KMREDUCE_LLOYD_STEP_HPP
#define KMREDUCE_LLOYD_STEP_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "lloyd_call.hpp"
#include "seed_assignment.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/nearest.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

namespace detail {
// Per-worker space of the assignment loops, and the labels each changed
// (summed after the loop: integers, so the order does not matter).
struct AssignScratch {
  std::vector<double> buf, best, second;
  std::vector<int> which;
  index_t changes = 0;
  void reserve(index_t rows, index_t k) {
    if (!buf.empty()) return;
    buf.resize(rows * k);
    best.resize(rows);
    second.resize(rows);
    which.resize(rows);
  }
};

inline index_t total_changes(const std::vector<AssignScratch>& ws) {
  index_t changes = 0;
  for (const AssignScratch& s : ws) changes += s.changes;
  return changes;
}
}  // namespace detail

// Assigns each row to its nearest centre (first one on ties). Writes the
// squared distance to it in min_dist (unless null) and returns how many
// labels changed. With block_sum (one per block of kRowBlock rows), also
// the sum of those distances over each block, in row order.
template <class Data>
index_t assign_nearest(const Data& a, const double* row_norms,
                       const double* centres, index_t k, int* label,
                       double* min_dist, int n_threads, double* block_sum = nullptr) {
  const std::vector<double> cnorm = centre_sqnorms(centres, k, a.d);
  const CentreView cv = prepare_centres(a, centres, k);
  const index_t nb = n_blocks(a.n, kRowBlock);
  const double work = static_cast<double>(a.n) * k * a.d;
  const std::vector<detail::AssignScratch> ws = parallel_for_scratch<detail::AssignScratch>(
      nb, n_threads, [&](index_t b, detail::AssignScratch& s) {
    s.reserve(kRowBlock, k);
    const index_t r0 = b * kRowBlock, r1 = std::min(a.n, r0 + kRowBlock);
    const index_t m = r1 - r0;
    if (!nearest_block(a, r0, r1, cv, cnorm.data(), k, s.best.data(), nullptr,
                       s.which.data())) {
      cross_block(a, r0, r1, cv, k, s.buf.data());
      two_nearest(s.buf.data(), m, k, cnorm.data(), s.best.data(), nullptr, s.which.data());
    }
    double sum = 0.0;
    for (index_t r = r0; r < r1; ++r) {
      const int bq = s.which[r - r0];
      const double dist = std::max(0.0, row_norms[r] + s.best[r - r0]);
      if (min_dist != nullptr) min_dist[r] = dist;
      sum += dist;
      if (label[r] != bq) {
        ++s.changes;
        label[r] = bq;
      }
    }
    if (block_sum != nullptr) block_sum[b] = sum;
  }, work);
  return detail::total_changes(ws);
}

// Bounds of Hamerly (2010) kept per row: upper[r] >= distance to its
// centre, lower[r] <= distance to every other centre (plain distances).
// Rows are visited in tiles of 16, each in two halves of 8; a half whose
// rows all have upper <= lower cannot change label and is skipped, the others
// get all their distances from the blocked kernel (so pruning keeps the GEMM
// speed).
constexpr index_t kSkipTile = 16;

template <class Data>
index_t assign_bounded(const Data& a, const double* row_norms,
                       const double* centres, index_t k, int* label,
                       double* upper, double* lower, int n_threads) {
  const std::vector<double> cnorm = centre_sqnorms(centres, k, a.d);
  const CentreView cv = prepare_centres(a, centres, k);
  const index_t nb = n_blocks(a.n, kRowBlock);
  const double work = static_cast<double>(a.n) * k * a.d;
  const std::vector<detail::AssignScratch> ws = parallel_for_scratch<detail::AssignScratch>(
      nb, n_threads, [&](index_t b, detail::AssignScratch& s) {
    s.reserve(kSkipTile, k);
    const index_t b1 = std::min(a.n, (b + 1) * kRowBlock);
    // Halves of 8 rows: a half whose rows are all safe is not computed (in
    // packed tiles its cache lines are not even read). Rows not all safe in
    // a quarter of the tiles or more: packed at once.
    bool safe[kRowBlock / kSkipTile][2];
    index_t tiles = 0, unsafe = 0;
    for (index_t t0 = b * kRowBlock; t0 < b1; t0 += kSkipTile, ++tiles) {
      const index_t t1 = std::min(b1, t0 + kSkipTile);
      const index_t mid = std::min(t1, t0 + kSkipTile / 2);
      bool safe0 = true, safe1 = true;
      for (index_t r = t0; r < mid && safe0; ++r) safe0 = upper[r] <= lower[r];
      for (index_t r = mid; r < t1 && safe1; ++r) safe1 = upper[r] <= lower[r];
      safe[tiles][0] = safe0;
      safe[tiles][1] = safe1;
      unsafe += !(safe0 && safe1);
    }
    if (unsafe * 4 >= tiles) pack_ahead(a, b * kRowBlock, b1);
    index_t i = 0;
    for (index_t t0 = b * kRowBlock; t0 < b1; t0 += kSkipTile, ++i) {
      const bool safe0 = safe[i][0], safe1 = safe[i][1];
      if (safe0 && safe1) continue;
      const index_t t1 = std::min(b1, t0 + kSkipTile);
      const index_t mid = std::min(t1, t0 + kSkipTile / 2);
      const index_t r0 = safe0 ? mid : t0, r1 = safe1 ? mid : t1;
      const index_t m = r1 - r0;
      if (!nearest_block(a, r0, r1, cv, cnorm.data(), k, s.best.data(), s.second.data(),
                         s.which.data())) {
        cross_block(a, r0, r1, cv, k, s.buf.data());
        two_nearest(s.buf.data(), m, k, cnorm.data(), s.best.data(), s.second.data(),
                    s.which.data());
      }
      for (index_t r = r0; r < r1; ++r) {
        const int bq = s.which[r - r0];
        upper[r] = std::sqrt(std::max(0.0, row_norms[r] + s.best[r - r0]));
        lower[r] = std::sqrt(std::max(0.0, row_norms[r] + s.second[r - r0]));
        if (label[r] != bq) {
          ++s.changes;
          label[r] = bq;
        }
      }
    }
  }, work);
  return detail::total_changes(ws);
}

// Rows per label, counted by runs of rows on the threads (whole numbers: the
// same counts in any order).
inline void count_labels(const int* label, index_t n, std::vector<index_t>& count,
                         int n_threads = 1) {
  const index_t k = static_cast<index_t>(count.size());
  constexpr index_t run = 1 << 18;
  const index_t nb = n_blocks(n, run);
  std::vector<index_t> part(static_cast<std::size_t>(nb * k), 0);
  parallel_for(nb, n_threads, [&](index_t b, int) {
    index_t* c = part.data() + b * k;
    for (index_t r = b * run; r < std::min(n, (b + 1) * run); ++r) ++c[label[r]];
  }, static_cast<double>(n));
  std::fill(count.begin(), count.end(), 0);
  for (index_t b = 0; b < nb; ++b)
    for (index_t q = 0; q < k; ++q) count[q] += part[b * k + q];
}

// Per-cluster sums and counts of all the rows of a source, in one pass.
// With `weight` (one per row of the source), the sums are weighted
// (weighted_cluster_sums(), matrix.hpp); the counts stay counts of rows.
template <class Source>
void fresh_sums(const Source& src, index_t k, const int* label, std::vector<double>& sums,
                std::vector<index_t>& count, int n_threads, const double* weight = nullptr) {
  std::fill(sums.begin(), sums.end(), 0.0);
  src.visit([&](const auto& rows, index_t r0) {
    if (weight != nullptr) {
      weighted_cluster_sums(rows, label + r0, weight + r0, k, sums.data(), n_threads);
    } else {
      cluster_sums(rows, label + r0, k, sums.data(), n_threads);
    }
  });
  count_labels(label, src.n(), count, n_threads);
}

namespace detail {
// move_rows() with weights: each moved row, read by get_row(), times its
// weight (moved rows are few: a loop over them in row order).
template <class Data>
void move_rows_weighted(const Data& a, const std::vector<index_t>& rows, const int* from,
                        const int* to, const double* weight, index_t k, double* sums) {
  std::vector<double> x(static_cast<std::size_t>(a.d));
  for (index_t r : rows) {
    get_row(a, r, x.data());
    for (index_t j = 0; j < a.d; ++j) {
      sums[to[r] + k * j] += weight[r] * x[j];
      sums[from[r] + k * j] -= weight[r] * x[j];
    }
  }
}
}  // namespace detail

// Per-cluster sums and counts of the rows for the current labels. Fresh (one
// pass over the data), or updated from the labels `before` by adding and
// subtracting only the rows that moved, when few did (after the first Lloyd
// iterations almost none do). Both are deterministic: the updates run over
// the moved rows in row order, per column.
template <class Data>
void update_sums(const Data& a, index_t k, const int* label, const int* before,
                 bool fresh, std::vector<double>& sums,
                 std::vector<index_t>& count, int n_threads,
                 const double* weight = nullptr) {
  const index_t n = a.n;
  std::vector<index_t> moved;
  if (!fresh) {
    for (index_t r = 0; r < n; ++r)
      if (label[r] != before[r]) moved.push_back(r);
    // Each moved row costs about d cache misses; a full pass n * d / 8.
    fresh = static_cast<index_t>(moved.size()) * 16 > n;
  }
  if (fresh) {
    fresh_sums(ResidentRows<Data>(a), k, label, sums, count, n_threads, weight);
    return;
  }
  if (moved.empty()) return;
  if (weight != nullptr) {
    detail::move_rows_weighted(a, moved, before, label, weight, k, sums.data());
  } else {
    move_rows(a, moved, before, label, k, sums.data(), n_threads);
  }
  for (index_t r : moved) {
    --count[before[r]];
    ++count[label[r]];
  }
}

// update_sums() for a row source: in memory as above; a source read block
// by block has no rows to move between passes, so the sums are fresh.
template <class Rows>
void source_update_sums(const ResidentRows<Rows>& src, index_t k, const int* label,
                        const int* before, bool fresh, std::vector<double>& sums,
                        std::vector<index_t>& count, int n_threads,
                        const double* weight = nullptr) {
  update_sums(src.rows(), k, label, before, fresh, sums, count, n_threads, weight);
}
template <class Source>
void source_update_sums(const Source& src, index_t k, const int* label,
                        const int* /*before*/, bool /*fresh*/, std::vector<double>& sums,
                        std::vector<index_t>& count, int n_threads,
                        const double* weight = nullptr) {
  fresh_sums(src, k, label, sums, count, n_threads, weight);
}

// Global sums and counts: on one process as above (incremental in memory);
// on several, each process's fresh sums and counts, summed. With `weight`,
// weighted sums and, in `wsum`, each cluster's sum of weights (fresh: a sum
// in row order, not an update that would drift).
template <class Source, class Combine>
void combined_update_sums(const Source& src, const Combine& combine, index_t k,
                          const int* label, const int* before, bool fresh,
                          std::vector<double>& sums, std::vector<index_t>& count,
                          int n_threads, const double* weight = nullptr,
                          std::vector<double>* wsum = nullptr) {
  if (weight != nullptr) {
    wsum->assign(static_cast<std::size_t>(k), 0.0);
    label_weights(label, weight, src.n(), k, wsum->data(), n_threads);
    if (combine.size() > 1) combine.sum(wsum->data(), k);
  }
  if (combine.size() == 1) {
    source_update_sums(src, k, label, before, fresh, sums, count, n_threads, weight);
    return;
  }
  fresh_sums(src, k, label, sums, count, n_threads, weight);
  std::vector<double> c(count.begin(), count.end());
  combine.sum(sums.data(), static_cast<index_t>(sums.size()));
  combine.sum(c.data(), k);
  for (index_t q = 0; q < k; ++q) count[q] = static_cast<index_t>(c[q]);
}

// Assignment passes over every chunk of a source (the same labels and
// distances as one pass over all the rows: a row's result does not depend
// on its chunk). Return how many labels changed. With `sums` (a source read
// block by block), the bounded pass also takes the cluster sums and counts
// of the new labels while each block is at hand: what the centre update
// needs next, without a second pass.
template <class Source>
index_t source_assign_nearest(const Source& src, const double* row_norms,
                              const double* centres, index_t k, int* label,
                              double* min_dist, int n_threads) {
  index_t changes = 0;
  src.visit([&](const auto& rows, index_t r0) {
    changes += assign_nearest(rows, row_norms + r0, centres, k, label + r0, min_dist + r0,
                              n_threads);
  });
  return changes;
}
template <class Source>
index_t source_assign_bounded(const Source& src, const double* row_norms,
                              const double* centres, index_t k, int* label,
                              double* upper, double* lower, int n_threads,
                              std::vector<double>* sums = nullptr,
                              std::vector<index_t>* count = nullptr,
                              const double* weight = nullptr) {
  index_t changes = 0;
  if (sums != nullptr) std::fill(sums->begin(), sums->end(), 0.0);
  src.visit([&](const auto& rows, index_t r0) {
    changes += assign_bounded(rows, row_norms + r0, centres, k, label + r0, upper + r0,
                              lower + r0, n_threads);
    if (sums != nullptr && weight != nullptr) {
      weighted_cluster_sums(rows, label + r0, weight + r0, k, sums->data(), n_threads);
    } else if (sums != nullptr) {
      cluster_sums(rows, label + r0, k, sums->data(), n_threads);
    }
  });
  if (count != nullptr) count_labels(label, src.n(), *count, n_threads);
  return changes;
}

namespace detail {
// The squared distance of each row to its centre summed term by term,
// sum_j (x_j - c_j)^2, into dist (rows of clusters with more than one row;
// the others 0): what re-seeding reads when ||x||^2 + ||c||^2 - 2 x.c,
// clamped at 0, left no row at a positive distance although some are (a
// few rows so far from the others that the distances between these lose
// every digit). One pass, in row order; only then.
template <class Source>
void exact_distances(const Source& src, const double* centres, index_t k, const int* label,
                     const std::vector<index_t>& count, double* dist) {
  const index_t d = src.d();
  std::vector<double> x(static_cast<std::size_t>(d));
  src.visit([&](const auto& rows, index_t r0) {
    for (index_t r = 0; r < rows.n; ++r) {
      const int q = label[r0 + r];
      double s = 0.0;
      if (count[q] > 1) {
        get_row(rows, r, x.data());
        for (index_t j = 0; j < d; ++j) {
          const double e = x[j] - centres[q + k * j];
          s += e * e;
        }
      }
      dist[r0 + r] = s;
    }
  });
}

// The row farthest from its centre (min_dist) among clusters with more than
// one row, at a positive distance; -1 when none (its distance in *far_d).
inline index_t farthest_row(index_t n, const int* label, const double* min_dist,
                            const std::vector<index_t>& count, double* far_d) {
  index_t far = -1;
  *far_d = 0.0;
  for (index_t r = 0; r < n; ++r) {
    if (count[label[r]] > 1 && min_dist[r] > *far_d) {
      *far_d = min_dist[r];
      far = r;
    }
  }
  return far;
}
}  // namespace detail

// Centres = means of their rows (sums and count as update_sums leaves them).
// An empty cluster takes the row farthest from its centre among clusters
// with more than one row; sums and count follow. Only a row at a positive
// distance qualifies: when every row sits on its centre (the data have fewer
// distinct rows than k) the cluster stays empty, keeping its centre, rather
// than taking a duplicate row that the next assignment hands back (Lloyd
// would cycle). Where no row is at a positive distance in min_dist (the
// rows' distances computed from their norms), the distances are summed
// term by term first (detail::exact_distances()), so a cluster stays empty
// only when every row truly sits on its centre. Returns the rows moved to
// re-seed a cluster.
// With rows on several processes (Combine), sums and count are global; the
// farthest row is the farthest of all (the first in global row order on
// ties, as on one process), and every process applies the same move.
// With `weight`, sums are weighted and the means divide by `wsum`, the
// clusters' sums of weights (which follow a re-seeding move too).
template <class Source, class Combine = LocalCombine>
std::vector<index_t> update_centres(const Source& src, index_t k, int* label,
                                    double* min_dist, double* centres,
                                    std::vector<double>& sums,
                                    std::vector<index_t>& count,
                                    const Combine& combine = Combine(),
                                    const double* weight = nullptr,
                                    std::vector<double>* wsum = nullptr) {
  const index_t d = src.d();
  std::vector<double> row(d);
  std::vector<index_t> reseeded;
  bool exact = false;
  for (index_t q = 0; q < k; ++q) {
    if (count[q] > 0) continue;
    double far_d = 0.0;
    index_t far = detail::farthest_row(src.n(), label, min_dist, count, &far_d);
    if (far < 0 && !exact) {
      detail::exact_distances(src, centres, k, label, count, min_dist);
      exact = true;
      far = detail::farthest_row(src.n(), label, min_dist, count, &far_d);
    }
    int old = -1;
    if (combine.size() == 1) {
      if (far < 0) break;  // every row on its centre
      src.row(far, row.data());
      old = label[far];
    } else {
      // (distance, global row) of every process's candidate
      const int p = combine.size();
      std::vector<double> cand(2 * p, 0.0);
      cand[2 * combine.rank()] = far < 0 ? -1.0 : far_d;
      cand[2 * combine.rank() + 1] = far < 0 ? 0.0 : static_cast<double>(combine.offset() + far);
      combine.sum(cand.data(), 2 * p);
      int best = -1;
      for (int t = 0; t < p; ++t)
        if (cand[2 * t] > 0.0 && (best < 0 || cand[2 * t] > cand[2 * best])) best = t;
      if (best < 0) break;  // every row on its centre
      const index_t g = static_cast<index_t>(cand[2 * best + 1]);
      far = best == combine.rank() ? g - combine.offset() : -1;
      combined_row(combine, g, src.n(), d,
                   [&](index_t r, double* out) { src.row(r, out); }, row.data());
      old = static_cast<int>(combined_sum(combine, far >= 0 ? label[far] : 0.0));
    }
    if (weight != nullptr) {
      const double w = combine.size() == 1
                           ? weight[far]
                           : combined_sum(combine, far >= 0 ? weight[far] : 0.0);
      for (index_t j = 0; j < d; ++j) {
        sums[old + k * j] -= w * row[j];
        sums[q + k * j] = w * row[j];
      }
      (*wsum)[old] -= w;
      (*wsum)[q] = w;
    } else {
      for (index_t j = 0; j < d; ++j) {
        sums[old + k * j] -= row[j];
        sums[q + k * j] = row[j];
      }
    }
    --count[old];
    count[q] = 1;
    if (far >= 0) {  // this process holds the row
      label[far] = static_cast<int>(q);
      min_dist[far] = 0.0;
      reseeded.push_back(far);
    }
  }
  if (weight != nullptr) {
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q)
        if (count[q] > 0) centres[q + k * j] = sums[q + k * j] / (*wsum)[q];
    return reseeded;
  }
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q)
      if (count[q] > 0) centres[q + k * j] = sums[q + k * j] / count[q];
  return reseeded;
}

// How far each of the k centres (k x d, column-major) moved from `before`:
// what moves the distance bounds of Lloyd (Hamerly) and of Hartigan's scans.
inline std::vector<double> centre_shifts(const std::vector<double>& now,
                                         const std::vector<double>& before, index_t k,
                                         index_t d) {
  std::vector<double> shift(k, 0.0);
  for (index_t q = 0; q < k; ++q) {
    double s2 = 0.0;
    for (index_t j = 0; j < d; ++j) {
      const double e = now[q + k * j] - before[q + k * j];
      s2 += e * e;
    }
    shift[q] = std::sqrt(s2);
  }
  return shift;
}

inline double serial_sum(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s;
}

namespace detail {
// sum_r w[r] and sum_r w[r] v[r], r < n, in row order.
inline double serial_total(const double* w, index_t n) {
  double s = 0.0;
  for (index_t r = 0; r < n; ++r) s += w[r];
  return s;
}
inline double serial_dot(const double* w, const double* v, index_t n) {
  double s = 0.0;
  for (index_t r = 0; r < n; ++r) s += w[r] * v[r];
  return s;
}
}  // namespace detail

namespace detail {
// Lloyd's labels and Hamerly bounds (distances, not squared) at the start:
// taken over from `start` (its memory reused, so the peak is not both; the
// distances there are squared), or fresh (no label, bounds that rule
// nothing out).
inline void start_bounds(index_t n, int n_threads, SeedAssignment* start,
                         std::vector<int>& label, std::vector<double>& upper,
                         std::vector<double>& lower) {
  if (start != nullptr) {
    label = std::move(start->label);
    upper = std::move(start->nearest);
    lower = std::move(start->second);
    *start = SeedAssignment();
    each_row_block(n, n_threads, [&](index_t r0, index_t r1) {
      for (index_t r = r0; r < r1; ++r) {
        upper[r] = std::sqrt(upper[r]);
        lower[r] = std::sqrt(lower[r]);
      }
    });
  } else {
    assign_rows(label, n, -1);
    assign_rows(upper, n, std::numeric_limits<double>::infinity());
    assign_rows(lower, n, 0.0);
  }
}

// Centre shifts move the bounds (triangle inequality), slightly loosened
// against rounding in the distances; a row moved to re-seed an empty
// cluster has bounds that rule nothing out.
inline void shift_bounds(const std::vector<double>& shift, const int* label,
                         const std::vector<index_t>& reseeded, index_t n, int n_threads,
                         std::vector<double>& upper, std::vector<double>& lower) {
  const double max_shift = *std::max_element(shift.begin(), shift.end());
  each_row_block(n, n_threads, [&](index_t r0, index_t r1) {
    for (index_t r = r0; r < r1; ++r) {
      upper[r] = (upper[r] + shift[label[r]]) * (1.0 + 1e-12);
      lower[r] = std::max(0.0, (lower[r] - max_shift) * (1.0 - 1e-12));
    }
  });
  for (index_t r : reseeded) {
    upper[r] = std::numeric_limits<double>::infinity();
    lower[r] = 0.0;
  }
}

// The objective of a partition from its means, about the grand mean (closed
// form; Lloyd's tol criterion and its settled result): `total`, the sum of
// squares about the grand mean, is set once from the first cluster sums.
struct MeansObjective {
  double total = -1.0;
  template <class Combine>
  void set_total(const std::vector<double>& sums, const double* row_norms, const double* weight,
                 index_t n, index_t k, index_t d, double n_all, const Combine& combine) {
    double mm = 0.0, norms = 0.0;
    for (index_t j = 0; j < d; ++j) {
      double g = 0.0;
      for (index_t q = 0; q < k; ++q) g += sums[q + k * j];
      mm += g * g;
    }
    if (weight != nullptr) {
      for (index_t r = 0; r < n; ++r) norms += weight[r] * row_norms[r];
    } else {
      for (index_t r = 0; r < n; ++r) norms += row_norms[r];
    }
    norms = combined_sum(combine, norms);
    total = norms - mm / n_all;
  }
  // of the centres (k x d) with their cluster sizes: counts, or the sums
  // of the weights (`wsum`) when weighted
  double of(const std::vector<double>& centres, const std::vector<index_t>& count,
            const std::vector<double>& wsum, bool weighted, index_t k, index_t d,
            double n_all) const {
    double between = 0.0, grand = 0.0;
    std::vector<double> gm(d, 0.0);
    auto size = [&](index_t q) {
      return weighted ? wsum[q] : static_cast<double>(count[q]);
    };
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q) gm[j] += size(q) * centres[q + k * j];
    for (index_t j = 0; j < d; ++j) grand += gm[j] * gm[j];
    for (index_t q = 0; q < k; ++q) {
      double cc = 0.0;
      for (index_t j = 0; j < d; ++j) cc += centres[q + k * j] * centres[q + k * j];
      between += size(q) * cc;
    }
    return std::max(0.0, total - (between - grand / n_all));
  }
};
}  // namespace detail

// The step lloyd() runs by default (the interface: see the top of this
// file). The assignment is Hamerly's (2010): bounds kept per row let the
// tiles of rows that cannot change cluster be skipped (the partition is the
// one of plain Lloyd up to ties). The cluster sums: in memory on one
// process kept from one update to the next by the rows that moved; rows read
// block by block on one process: taken with the assignment pass, while each
// block is at hand (no second pass); on several processes fresh each
// update, summed over them. With weights, weighted sums and each cluster's
// sum of weights.
template <class Source, class Combine>
class HamerlyStep {
 public:
  HamerlyStep(const Source& src, const double* row_norms, const Combine& combine,
              const LloydCall& call, index_t k, std::vector<int>& label)
      : src_(src),
        row_norms_(row_norms),
        combine_(combine),
        n_(src.n()),
        d_(src.d()),
        k_(k),
        n_threads_(call.n_threads),
        weight_(call.weight),
        n_all_(call.weight == nullptr
                   ? static_cast<double>(combine.total_rows(n_))
                   : combined_sum(combine, detail::serial_total(call.weight, n_))),
        fused_(!Source::resident && combine.size() == 1),
        pending_start_(call.start != nullptr) {
    detail::start_bounds(n_, n_threads_, call.start, label, upper_, lower_);
    sums_.assign(static_cast<std::size_t>(k_ * d_), 0.0);
    count_.assign(static_cast<std::size_t>(k_), 0);
    // (the labels of the last update: only the sums updated in memory read them)
    if (Source::resident && combine.size() == 1) before_ = rows_array(n_, -1);
  }

  index_t assign(const std::vector<double>& centres, std::vector<int>& label) {
    if (pending_start_) {  // (the assignment k-means++ or the lift found)
      pending_start_ = false;
      return n_;
    }
    if (fused_) {
      const index_t changes =
          source_assign_bounded(src_, row_norms_, centres.data(), k_, label.data(),
                                upper_.data(), lower_.data(), n_threads_, &sums_, &count_,
                                weight_);
      if (weight_ != nullptr) {
        wsum_.assign(static_cast<std::size_t>(k_), 0.0);
        label_weights(label.data(), weight_, n_, k_, wsum_.data(), n_threads_);
      }
      have_sums_ = true;
      return changes;
    }
    const index_t changes = source_assign_bounded(src_, row_norms_, centres.data(), k_,
                                                  label.data(), upper_.data(), lower_.data(),
                                                  n_threads_);
    if (combine_.size() == 1) return changes;
    return static_cast<index_t>(combined_sum(combine_, static_cast<double>(changes)));
  }

  std::vector<index_t> update(std::vector<double>& centres, std::vector<int>& label) {
    if (!have_sums_)
      combined_update_sums(src_, combine_, k_, label.data(), before_.data(), first_, sums_,
                           count_, n_threads_, weight_, &wsum_);
    have_sums_ = false;
    if (first_) closed_.set_total(sums_, row_norms_, weight_, n_, k_, d_, n_all_, combine_);
    first_ = false;
    // (squared distances: only when a cluster must be re-seeded)
    if (std::find(count_.begin(), count_.end(), index_t(0)) != count_.end()) {
      assign_rows(min_dist_, n_, 0.0);
      for (index_t r = 0; r < n_; ++r) min_dist_[r] = upper_[r] * upper_[r];
    }
    std::vector<index_t> reseeded =
        update_centres(src_, k_, label.data(), min_dist_.data(), centres.data(), sums_, count_,
                       combine_, weight_, &wsum_);
    if (!before_.empty()) before_ = label;
    return reseeded;
  }

  void follow(const std::vector<double>& old, const std::vector<double>& centres,
              const std::vector<int>& label, const std::vector<index_t>& reseeded) {
    detail::shift_bounds(centre_shifts(centres, old, k_, d_), label.data(), reseeded, n_,
                         n_threads_, upper_, lower_);
  }

  double objective(const std::vector<double>& centres) const {
    return closed_.of(centres, count_, wsum_, weight_ != nullptr, k_, d_, n_all_);
  }

 private:
  const Source& src_;
  const double* row_norms_;
  const Combine& combine_;
  const index_t n_, d_, k_;
  const int n_threads_;
  const double* weight_;
  const double n_all_;  // the number of rows (all processes), or the sum of the weights
  const bool fused_;    // rows read block by block, one process: sums with the assignment
  bool pending_start_;  // the start's assignment is the first step's
  bool first_ = true;   // no update yet: fresh sums, and the total of the objective
  bool have_sums_ = false;  // the sums of the current labels came with the assignment
  std::vector<double> upper_, lower_;  // Hamerly's bounds (distances, not squared)
  std::vector<double> min_dist_;       // (re-seeding: squared distances to the centres)
  std::vector<double> sums_;           // k x d, column-major
  std::vector<index_t> count_;         // rows per cluster
  std::vector<double> wsum_;           // (weights: each cluster's sum of weights)
  std::vector<int> before_;
  detail::MeansObjective closed_;
};

}  // namespace kmreduce

#endif  // KMREDUCE_LLOYD_STEP_HPP
