// kmreduce: Lloyd's algorithm (Lloyd 1982) with distances computed as
// ||c||^2 - 2 x.c by row blocks (a GEMM per block), threads over blocks,
// and empty clusters re-seeded from the point farthest from its centre.
// Every result is independent of the thread count (see parallel.hpp).
// Lloyd reads its rows from a row source (row_source.hpp): in memory the
// whole matrix at once, out of core block by block; one implementation.
#ifndef KMREDUCE_LLOYD_HPP
#define KMREDUCE_LLOYD_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "seed_assignment.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/nearest.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/progress.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

struct LloydResult {
  std::vector<int> label;       // 0-based cluster of each row
  std::vector<double> centres;  // k x d, column-major: the centres the
                                // labels are nearest to
  double objective = 0.0;       // sum of squared distances to those centres
  int iter = 0;                 // assignment steps taken
  bool converged = false;
  bool means = false;           // centres are the means of the labels (the
                                // last step changed no label)
  std::vector<double> first_means;  // from a `start`: the centres after the
                                    // first update, the means of its labels
};

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
inline void start_bounds(index_t n, int n_threads, SeedAssignment* start, LloydResult& res,
                         std::vector<double>& upper, std::vector<double>& lower) {
  if (start != nullptr) {
    res.label = std::move(start->label);
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
    assign_rows(res.label, n, -1);
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

// Lloyd stopped before its labels settled: one exact pass makes them the
// nearest-centre labels of the centres returned, and sums the exact
// distances (the objective). When that pass empties a cluster, the cluster
// is re-seeded (a Lloyd update with the farthest row moved to it) and the
// rows assigned again, at most k times. A cluster may stay empty when no
// row is left to re-seed it with (fewer distinct rows than k, where the
// means' rounding could otherwise make this cycle).
template <class Source, class Combine, class Snap>
void final_assignment(const Source& src, const double* row_norms, index_t k, int n_threads,
                      const InterruptCheck& interrupt, const Combine& combine,
                      const double* weight, const Snap& snap, LloydResult& res,
                      std::vector<double>& centres, std::vector<double>& sums,
                      std::vector<index_t>& count, std::vector<double>& wsum) {
  const index_t n = src.n();
  std::vector<double> min_dist;
  assign_rows(min_dist, n, 0.0);
  for (index_t round = 0;; ++round) {
    source_assign_nearest(src, row_norms, centres.data(), k, res.label.data(), min_dist.data(),
                          n_threads);
    std::vector<double> c(k, 0.0);
    for (index_t r = 0; r < n; ++r) c[res.label[r]] += 1.0;
    combine.sum(c.data(), k);
    const auto empty = std::count(c.begin(), c.end(), 0.0);
    if (empty == 0 || round == k) break;
    combined_update_sums(src, combine, k, res.label.data(), nullptr, true, sums, count,
                         n_threads, weight, &wsum);
    std::vector<double> kept = centres;
    update_centres(src, k, res.label.data(), min_dist.data(), centres.data(), sums, count,
                   combine, weight, &wsum);
    if (std::count(count.begin(), count.end(), index_t(0)) == empty) {
      centres = std::move(kept);  // every row on its centre: nothing to re-seed with
      break;
    }
    snap(centres);
    check_interrupt(interrupt);
  }
  res.objective = combined_sum(
      combine, weight != nullptr ? serial_dot(weight, min_dist.data(), n) : serial_sum(min_dist));
}
}  // namespace detail

// Lloyd iterations from the given centres, with Hamerly's bounds to skip the
// tiles of rows that cannot change cluster (the partition is the one of plain
// Lloyd up to ties). Stops when no label changes, when the objective
// decreases by less than tol (relative; tol = 0 disables) or after iter_max
// assignment steps. On return the labels are the nearest-centre assignment
// for the returned centres: when the last step changed no label they already
// are (and the objective comes in closed form from the means), otherwise one
// final exact pass makes them so and sums the exact distances.
//
// With `start` (the assignment k-means++ found for these centres), the first
// assignment step takes its labels and distances instead of a pass; `start`
// is emptied (its arrays become Lloyd's).
//
// With rows on several processes (Combine), every process runs this on its
// own rows and gets the global centres, objective and stopping decisions;
// labels are of its own rows.
//
// With `weight` (one positive weight per row, nullptr: all 1), weighted
// Lloyd: centres are weighted means and the objective is
// sum_r w_r ||x_r - c||^2 (for whole weights, that of the rows repeated).
template <class Source, class Combine = LocalCombine>
LloydResult lloyd(const Source& src, const double* row_norms,
                  std::vector<double> centres, index_t k, int iter_max,
                  double tol, int n_threads,
                  const InterruptCheck& interrupt = InterruptCheck(),
                  SeedAssignment* start = nullptr,
                  const Combine& combine = Combine(),
                  const double* grid = nullptr,
                  const double* weight = nullptr) {
  const index_t n = src.n(), d = src.d();
  // the number of rows, or the sum of the weights
  const double n_all = weight == nullptr
                           ? static_cast<double>(combine.total_rows(n))
                           : combined_sum(combine, detail::serial_total(weight, n));
  LloydResult res;
  // Rows shifted by `grid` (the rows' shift): each new centre c becomes
  // (c + s) - s, so that the centres returned in the original coordinates
  // (c + s) come back to these exactly (unshift_result() then needs no pass).
  auto snap = [&](std::vector<double>& c) {
    if (grid == nullptr) return;
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q) c[q + k * j] = (c[q + k * j] + grid[j]) - grid[j];
  };
  std::vector<double> upper, lower;
  const bool from_start = start != nullptr;
  detail::start_bounds(n, n_threads, start, res, upper, lower);
  // (squared distances: only when a cluster must be re-seeded)
  std::vector<double> min_dist, old(k * d);
  std::vector<double> sums(k * d, 0.0);
  std::vector<int> before = rows_array(n, -1);
  std::vector<index_t> count(k, 0);
  std::vector<double> wsum;  // (weights: each cluster's sum of weights)
  detail::MeansObjective closed;
  auto means_objective = [&]() {
    return closed.of(centres, count, wsum, weight != nullptr, k, d, n_all);
  };
  double prev = std::numeric_limits<double>::infinity();
  bool settled = false;  // no label changed: labels nearest to their means
  // Rows read block by block (one process): the sums come with the
  // assignment pass.
  const bool fused = !Source::resident && combine.size() == 1;
  for (int it = 1; it <= iter_max; ++it) {
    // 1. assignment (the first from `start`: no pass)
    index_t changes = n;
    bool have_sums = false;
    if (it == 1 && from_start) {
      // (the assignment k-means++ or the lift found, taken over above)
    } else if (fused) {
      changes = source_assign_bounded(src, row_norms, centres.data(), k, res.label.data(),
                                      upper.data(), lower.data(), n_threads, &sums, &count,
                                      weight);
      if (weight != nullptr) {
        wsum.assign(static_cast<std::size_t>(k), 0.0);
        label_weights(res.label.data(), weight, n, k, wsum.data(), n_threads);
      }
      have_sums = true;
    } else {
      changes = source_assign_bounded(src, row_norms, centres.data(), k, res.label.data(),
                                      upper.data(), lower.data(), n_threads);
      if (combine.size() > 1)
        changes = static_cast<index_t>(combined_sum(combine, static_cast<double>(changes)));
    }
    res.iter = it;
    if (it > 1 && changes == 0) {
      res.converged = true;
      settled = true;
      if (progress_active()) report_progress("Lloyd", it, means_objective(), 0.0);
      break;
    }
    // 2. the centres become the means of their rows (an empty cluster
    // re-seeded with the farthest row)
    old = centres;
    if (!have_sums)
      combined_update_sums(src, combine, k, res.label.data(), before.data(), it == 1, sums,
                           count, n_threads, weight, &wsum);
    if (it == 1) closed.set_total(sums, row_norms, weight, n, k, d, n_all, combine);
    if (std::find(count.begin(), count.end(), index_t(0)) != count.end()) {
      assign_rows(min_dist, n, 0.0);
      for (index_t r = 0; r < n; ++r) min_dist[r] = upper[r] * upper[r];
    }
    const std::vector<index_t> reseeded =
        update_centres(src, k, res.label.data(), min_dist.data(), centres.data(), sums, count,
                       combine, weight, &wsum);
    snap(centres);
    if (it == 1 && from_start) res.first_means = centres;
    before = res.label;
    // 3. the bounds follow the centres
    detail::shift_bounds(centre_shifts(centres, old, k, d), res.label.data(), reseeded, n,
                         n_threads, upper, lower);
    check_interrupt(interrupt);
    // (progress: the objective of these labels with their means)
    if (progress_active())
      report_progress("Lloyd", it, means_objective(), static_cast<double>(changes));
    if (tol > 0.0) {
      const double obj = means_objective();
      if (it > 1 && prev - obj <= tol * prev) {
        res.converged = true;
        break;
      }
      prev = obj;
    }
  }
  res.means = settled;
  if (settled) {
    // The last assignment changed nothing: the labels are the nearest-centre
    // labels of these centres (Hamerly's skips are exact), which are their
    // means. The objective from the means, about the grand mean.
    res.objective = means_objective();
  } else {
    detail::final_assignment(src, row_norms, k, n_threads, interrupt, combine, weight, snap, res,
                             centres, sums, count, wsum);
  }
  res.centres = std::move(centres);
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_LLOYD_HPP
