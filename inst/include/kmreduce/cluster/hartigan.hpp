// kmreduce: Hartigan's single-point moves (Hartigan 1975, ch. 4; Telgarsky
// & Vattani 2010). Moving row x from cluster a (n_a rows, centre c_a) to
// cluster b changes the k-means objective by exactly
//   n_b / (n_b + 1) ||x - c_b||^2 - n_a / (n_a - 1) ||x - c_a||^2,
// with both centres the means before the move. A row moves when that is
// negative, and the centres follow at once. Every move lowers the objective;
// at a fixed point no single move does, which implies the labels are the
// nearest-centre labels of their means (a Lloyd fixed point), not conversely:
// Hartigan's fixed points are a subset of Lloyd's.
//
// A sweep has two phases: (1) a parallel scan of all rows against the
// current centres (the distances by the same row-blocked products as
// Lloyd's assignment) marks the rows for which some move looks favourable;
// (2) those rows are visited in row order, each move decided again with
// exact (direct) distances to the centres as they are at that moment, and
// applied. A scan that marks no row ends the search at a fixed point. The
// result does not depend on the number of threads (the scan is per row, the
// moves are serial).
//
// With rows on several processes (Combine), the processes take turns in
// rank order for phase (2), and the process that moved sends its cluster
// sums to the others (one sum of k (d + 1) numbers per process and sweep);
// the order of the visits is that of the stacked rows, as on one process.
#ifndef KMREDUCE_HARTIGAN_HPP
#define KMREDUCE_HARTIGAN_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "lloyd.hpp"
#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/progress.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

struct HartiganResult {
  int sweeps = 0;       // scans of all rows
  index_t moves = 0;    // rows moved
  double change = 0.0;  // sum of the exact changes of the moves (<= 0)
  bool converged = false;  // a scan found no favourable move
};

namespace detail {
// Multipliers of the squared distance for leaving a cluster of m rows
// (infinite cost to leave a singleton: it cannot move) and for joining one.
inline double leave_factor(double m) { return m > 1.0 ? m / (m - 1.0) : 0.0; }
inline double join_factor(double m) { return m / (m + 1.0); }
// With observation weights: a row of weight w leaving a cluster of weight m
// (and `rows` rows) or joining one: the change of the objective is
// m w / (m + w) ||x - c_b||^2 - m w / (m - w) ||x - c_a||^2.
inline double weighted_leave_factor(double m, double rows, double w) {
  return rows > 1.0 ? m * w / (m - w) : 0.0;
}
inline double weighted_join_factor(double m, double w) { return m * w / (m + w); }

// Squared distance of row x to centre q of k (column-major), directly.
inline double centre_dist2(const double* x, const double* centres, index_t k, index_t d,
                           index_t q) {
  double s = 0.0;
  for (index_t j = 0; j < d; ++j) {
    const double e = x[j] - centres[q + k * j];
    s += e * e;
  }
  return s;
}

// Means from sums and counts (empty clusters keep their centre).
inline void means_of(const std::vector<double>& sums, const std::vector<double>& count,
                     index_t k, index_t d, std::vector<double>& centres) {
  for (index_t q = 0; q < k; ++q) {
    if (count[q] <= 0.0) continue;
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = sums[q + k * j] / count[q];
  }
}
// Sums (k x d, column-major) and counts of the clusters `label`, global;
// the means in `centres`. With `weight`: weighted sums, and the clusters'
// sums of weights in `count`.
template <class Data, class Combine>
void cluster_means(const Data& a, const int* label, index_t k, std::vector<double>& sums,
                   std::vector<double>& count, std::vector<double>& centres, int n_threads,
                   const Combine& combine, const double* weight = nullptr) {
  const index_t n = a.n, d = a.d;
  sums.assign(k * d, 0.0);
  count.assign(k, 0.0);
  if (weight != nullptr) {
    weighted_cluster_sums(a, label, weight, k, sums.data(), n_threads);
    for (index_t r = 0; r < n; ++r) count[label[r]] += weight[r];
  } else {
    cluster_sums(a, label, k, sums.data(), n_threads);
    for (index_t r = 0; r < n; ++r) count[label[r]] += 1.0;
  }
  combine.sum(sums.data(), k * d);
  combine.sum(count.data(), k);
  centres.assign(k * d, 0.0);
  means_of(sums, count, k, d, centres);
}
}  // namespace detail

namespace detail {
// The clusters as Hartigan's moves see them: sums (k x d), sizes (or sums of
// weights) and, with weights, rows per cluster (a single row cannot leave);
// the factors of the change of moving row r (Hartigan 1975; weighted:
// weighted_leave_factor()).
struct HartiganClusters {
  index_t k = 0, d = 0;
  const double* weight = nullptr;
  std::vector<double> sums, count, nrows;
  double leave(index_t q, index_t r) const {
    return weight == nullptr ? leave_factor(count[q])
                             : weighted_leave_factor(count[q], nrows[q], weight[r]);
  }
  double join(index_t q, index_t r) const {
    return weight == nullptr ? join_factor(count[q]) : weighted_join_factor(count[q], weight[r]);
  }
};

// Bounds kept between scans (plain distances, as Lloyd's of Hamerly 2010):
// upper[r] >= ||x_r - c_label||, lower[r] <= ||x_r - c_q|| for every other
// q, against the centres of the last scan and moved on by the centres'
// shifts since.
struct HartiganBounds {
  std::vector<double> upper, lower;
  std::vector<double> scanned;  // the centres of the last scan
};

// (1) The scan: marks the rows with a move that looks favourable. The
// products carry rounding of order eps (||x||^2 + ||c||^2): a slack keeps
// every row whose move might be favourable (move_marked() decides exactly).
// A half-tile of 8 rows that the bounds show no scan would mark is not
// computed (after the first sweeps, most of them): the marks, hence the
// moves, are those of the full scan (where the product kernel gives a row
// the same bits wherever it sits in a block: the tiled kernels; the
// portable kernel of a plain column-major matrix may differ in the last
// bits, which can only change whether a row within rounding of the slack is
// visited: its move is still decided exactly).
//
// ScanRule: what the scan decides per row against one set of centres:
// whether the bounds rule a row out (safe()), and a row's mark and new
// bounds from its products with the centres (mark()).
struct ScanRule {
  template <class Data>
  ScanRule(const Data& a, const double* norms, const int* labels,
           const std::vector<double>& centres, const HartiganClusters& clusters)
      : row_norms(norms),
        label(labels),
        cl(clusters),
        cnorm(centre_sqnorms(centres.data(), cl.k, cl.d)),
        eps(product_slack(a)),
        cmax(*std::max_element(cnorm.begin(), cnorm.end())),
        smallest(*std::min_element(cl.count.begin(), cl.count.end())),
        jmin_rows(join_factor(smallest)) {}

  const double* row_norms;
  const int* label;
  const HartiganClusters& cl;
  const std::vector<double> cnorm;  // the centres' squared norms
  const double eps;                 // the products' relative rounding
  const double cmax;                // the largest of cnorm
  // the smallest cluster (its join factor is the least; empty: none is safe)
  const double smallest;
  const double jmin_rows;  // (its join factor, without weights)

  // (weighted: the factors scale the distances, and their rounding)
  double slack_of(index_t r, index_t q0) const {
    return eps * (row_norms[r] + cnorm[q0]) *
           (cl.weight != nullptr ? std::max(1.0, cl.leave(q0, r)) : 1.0);
  }

  // Row r is marked when some q != label has join(q) dist(q) < leave
  // dist(label) + slack, dist as computed (within e of the exact squared
  // distance). It cannot be when even the least join factor times the
  // least other distance is not below the most the right side can be.
  bool safe(index_t r, const HartiganBounds& bd) const {
    if (!(bd.upper[r] < std::numeric_limits<double>::infinity()) || !(smallest > 0.0))
      return false;
    const index_t q0 = label[r];
    const double e = eps * (row_norms[r] + cmax);
    const double jmin =
        cl.weight == nullptr ? jmin_rows : weighted_join_factor(smallest, cl.weight[r]);
    const double lo = bd.lower[r] * bd.lower[r] - e;
    const double hi = cl.leave(q0, r) * (bd.upper[r] * bd.upper[r] + e) + slack_of(r, q0);
    return lo > 0.0 && jmin * lo > hi * (1.0 + 1e-12);
  }

  // Rows [r0, r1) from their products `cross` (row i, centre q:
  // cross[i + (r1 - r0) q]): their marks and bounds.
  void mark(index_t r0, index_t r1, const double* cross, std::vector<char>& marked,
            HartiganBounds& bd) const {
    const index_t len = r1 - r0, k = cl.k;
    for (index_t r = r0; r < r1; ++r) {
      const int q0 = label[r];
      const double* cr = cross + (r - r0);
      auto dist = [&](index_t q) {
        return std::max(0.0, row_norms[r] - 2.0 * cr[len * q] + cnorm[q]);
      };
      const double own = dist(q0);
      const double out = cl.leave(q0, r) * own;
      const double slack = slack_of(r, q0);
      char m = 0;
      double other = std::numeric_limits<double>::infinity();
      for (index_t q = 0; q < k; ++q) {
        if (q == q0) continue;
        const double dq = dist(q);
        other = std::min(other, dq);
        if (m || !(out > 0.0)) continue;
        const double in = cl.count[q] > 0.0 ? cl.join(q, r) * dq : 0.0;
        m = in < out + slack;
      }
      marked[r] = m;
      const double e = eps * (row_norms[r] + cmax);
      bd.upper[r] = std::sqrt(own + e) * (1.0 + 1e-12);
      bd.lower[r] = std::sqrt(std::max(0.0, other - e)) * (1.0 - 1e-12);
    }
  }
};

// The scan of all rows, by row blocks on the threads.
template <class Data>
void hartigan_scan(const Data& a, const double* row_norms, const int* label,
                   const std::vector<double>& centres, const HartiganClusters& cl,
                   int n_threads, std::vector<char>& marked, HartiganBounds& bd) {
  const index_t n = a.n, k = cl.k, d = cl.d;
  const ScanRule rule(a, row_norms, label, centres, cl);
  const CentreView cv = prepare_centres(a, centres.data(), k);
  bd.scanned = centres;
  struct Scratch {
    std::vector<double> cross;
  };
  constexpr index_t H = kSkipTile / 2;  // rows per half-tile
  parallel_for_scratch<Scratch>(n_blocks(n, kRowBlock), n_threads, [&](index_t b, Scratch& s) {
    const index_t b0 = b * kRowBlock, b1 = std::min(n, b0 + kRowBlock);
    // Tiles of 16 rows in two halves of 8, as Lloyd's assign_bounded():
    // a half whose rows are all safe is not computed; both halves unsafe
    // are one call (a half costs a whole tile off AVX-512). No tile safe:
    // the whole block at once, as the first scan.
    bool safe_half[kRowBlock / kSkipTile][2];
    index_t tiles = 0, unsafe = 0;
    for (index_t t0 = b0; t0 < b1; t0 += kSkipTile, ++tiles) {
      const index_t t1 = std::min(b1, t0 + kSkipTile), mid = std::min(t1, t0 + H);
      bool s0 = true, s1 = true;
      for (index_t r = t0; r < mid && s0; ++r) s0 = rule.safe(r, bd);
      for (index_t r = mid; r < t1 && s1; ++r) s1 = rule.safe(r, bd);
      safe_half[tiles][0] = s0;
      safe_half[tiles][1] = s1;
      unsafe += !(s0 && s1);
    }
    if (unsafe == tiles) {
      s.cross.resize((b1 - b0) * k);
      cross_block(a, b0, b1, cv, k, s.cross.data());
      rule.mark(b0, b1, s.cross.data(), marked, bd);
      return;
    }
    if (unsafe * 4 >= tiles) pack_ahead(a, b0, b1);
    s.cross.resize(kSkipTile * k);
    index_t i = 0;
    for (index_t t0 = b0; t0 < b1; t0 += kSkipTile, ++i) {
      const index_t t1 = std::min(b1, t0 + kSkipTile), mid = std::min(t1, t0 + H);
      const bool s0 = safe_half[i][0], s1 = safe_half[i][1];
      if (s0) std::fill(marked.begin() + t0, marked.begin() + mid, char(0));
      if (s1) std::fill(marked.begin() + mid, marked.begin() + t1, char(0));
      if (s0 && s1) continue;
      const index_t r0 = s0 ? mid : t0, r1 = s1 ? mid : t1;
      cross_block(a, r0, r1, cv, k, s.cross.data());
      rule.mark(r0, r1, s.cross.data(), marked, bd);
    }
  }, static_cast<double>(n) * k * d);
}

// (2) The marked rows `cand` of this process in order, each move decided
// exactly against the current centres, which follow every move. Returns
// the rows moved; their exact changes are added to `change`.
template <class Data>
double move_marked(const Data& a, const std::vector<index_t>& cand, int* label,
                   std::vector<double>& centres, HartiganClusters& cl,
                   std::vector<index_t>& moved_rows, double& change, std::vector<double>& row) {
  const index_t k = cl.k, d = cl.d;
  const double* weight = cl.weight;
  std::vector<double>& sums = cl.sums;
  std::vector<double>& count = cl.count;
  double moved = 0.0;
  for (index_t r : cand) {
    const index_t q0 = label[r];
    if (weight != nullptr ? cl.nrows[q0] <= 1.0 : count[q0] <= 1.0) continue;
    get_row(a, r, row.data());
    const double out = cl.leave(q0, r) * centre_dist2(row.data(), centres.data(), k, d, q0);
    double best = out;
    index_t to = q0;
    for (index_t q = 0; q < k; ++q) {
      if (q == q0) continue;
      const double in =
          count[q] > 0.0 ? cl.join(q, r) * centre_dist2(row.data(), centres.data(), k, d, q)
                         : 0.0;
      if (in < best) {
        best = in;
        to = q;
      }
    }
    // beyond rounding: a move must lower the objective
    if (to == q0 || !(best < out * (1.0 - 1e-12))) continue;
    if (weight != nullptr) {
      const double w = weight[r];
      for (index_t j = 0; j < d; ++j) {
        sums[q0 + k * j] -= w * row[j];
        sums[to + k * j] += w * row[j];
      }
      count[q0] -= w;
      count[to] += w;
      cl.nrows[q0] -= 1.0;
      cl.nrows[to] += 1.0;
    } else {
      for (index_t j = 0; j < d; ++j) {
        sums[q0 + k * j] -= row[j];
        sums[to + k * j] += row[j];
      }
      count[q0] -= 1.0;
      count[to] += 1.0;
    }
    for (index_t j = 0; j < d; ++j) {
      centres[q0 + k * j] = sums[q0 + k * j] / count[q0];
      centres[to + k * j] = sums[to + k * j] / count[to];
    }
    label[r] = static_cast<int>(to);
    moved_rows.push_back(r);
    change += best - out;
    moved += 1.0;
  }
  return moved;
}

// (3) The bounds follow the centres: each moved by its shift since the
// scan; a row that moved is computed at the next scan.
inline void follow_centres(const std::vector<double>& centres, const int* label, index_t n,
                           index_t k, index_t d, int n_threads,
                           const std::vector<index_t>& moved_rows, HartiganBounds& bd) {
  std::vector<double> shift = centre_shifts(centres, bd.scanned, k, d);
  double top = 0.0, second = 0.0;
  index_t top_q = -1;
  for (index_t q = 0; q < k; ++q) {
    shift[q] *= 1.0 + 1e-12;
    if (shift[q] > top) {
      second = top;
      top = shift[q];
      top_q = q;
    } else if (shift[q] > second) {
      second = shift[q];
    }
  }
  if (top > 0.0) {
    each_row_block(n, n_threads, [&](index_t r0, index_t r1) {
      for (index_t r = r0; r < r1; ++r) {
        const index_t q = label[r];
        bd.upper[r] = (bd.upper[r] + shift[q]) * (1.0 + 1e-12);
        bd.lower[r] = std::max(0.0, (bd.lower[r] - (q == top_q ? second : top)) * (1.0 - 1e-12));
      }
    });
  }
  for (index_t r : moved_rows) bd.upper[r] = std::numeric_limits<double>::infinity();
}
}  // namespace detail

// Hartigan moves from the labels `label` (0-based, this process's rows)
// until a fixed point or `max_sweeps` sweeps. On return `label` holds the
// new partition and `centres` (k x d, column-major) its means. With
// observation weights (`weight`, one per row; one process) the moves are
// those of the weighted objective (weighted_leave_factor()). Each sweep: a
// scan marks the rows whose move looks favourable (hartigan_scan()), the
// processes in turn move their marked rows (move_marked(); the mover's
// sums and counts then sent to all), and the bounds follow the centres
// (follow_centres()).
template <class Data, class Combine = LocalCombine>
HartiganResult hartigan(const Data& a, const double* row_norms, index_t k, int* label,
                        std::vector<double>& centres, int max_sweeps, int n_threads,
                        const InterruptCheck& interrupt = InterruptCheck(),
                        const Combine& combine = Combine(), const double* weight = nullptr) {
  const index_t n = a.n, d = a.d;
  if (k < 1) throw std::invalid_argument("hartigan: k must be positive");
  for (index_t r = 0; r < n; ++r)
    if (label[r] < 0 || label[r] >= k)
      throw std::invalid_argument("hartigan: labels must be in [0, k)");
  HartiganResult res;
  detail::HartiganClusters cl;
  cl.k = k;
  cl.d = d;
  cl.weight = weight;
  detail::cluster_means(a, label, k, cl.sums, cl.count, centres, n_threads, combine, weight);
  if (k == 1) {
    res.converged = true;
    return res;
  }
  if (weight != nullptr && combine.size() > 1)
    throw std::invalid_argument("hartigan: weights are not supported on distributed rows");
  if (weight != nullptr) {
    cl.nrows.assign(k, 0.0);
    for (index_t r = 0; r < n; ++r) cl.nrows[label[r]] += 1.0;
  }
  // (progress reports: the objective from the sums, sum w ||x||^2 -
  // sum_q ||s_q||^2 / W_q, on one process)
  const bool report = progress_active() && combine.size() == 1;
  double norms = 0.0;
  if (report)
    for (index_t r = 0; r < n; ++r) norms += (weight != nullptr ? weight[r] : 1.0) * row_norms[r];
  std::vector<char> marked(n, 0);
  std::vector<index_t> cand, moved_rows;
  std::vector<double> row(d), buf;
  detail::HartiganBounds bd;
  bd.upper = rows_array(n, std::numeric_limits<double>::infinity());
  bd.lower = rows_array(n, 0.0);
  bd.scanned.resize(k * d);
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    detail::hartigan_scan(a, row_norms, label, centres, cl, n_threads, marked, bd);
    cand.clear();
    for (index_t r = 0; r < n; ++r)
      if (marked[r]) cand.push_back(r);
    ++res.sweeps;
    if (combined_sum(combine, static_cast<double>(cand.size())) == 0.0) {
      res.converged = true;
      break;
    }
    double moved = 0.0;
    moved_rows.clear();
    for (int p = 0; p < combine.size(); ++p) {
      if (p == combine.rank())
        moved += detail::move_marked(a, cand, label, centres, cl, moved_rows, res.change, row);
      if (combine.size() > 1) {
        // the process that moved sends its sums and counts (the others add
        // zeros: exact)
        buf.assign(k * (d + 1), 0.0);
        if (p == combine.rank()) {
          std::copy(cl.sums.begin(), cl.sums.end(), buf.begin());
          std::copy(cl.count.begin(), cl.count.end(), buf.begin() + k * d);
        }
        combine.sum(buf.data(), k * (d + 1));
        std::copy(buf.begin(), buf.begin() + k * d, cl.sums.begin());
        std::copy(buf.begin() + k * d, buf.end(), cl.count.begin());
        detail::means_of(cl.sums, cl.count, k, d, centres);
      }
    }
    detail::follow_centres(centres, label, n, k, d, n_threads, moved_rows, bd);
    moved = combined_sum(combine, moved);
    res.moves += static_cast<index_t>(moved);
    if (report) {
      double between = 0.0;
      for (index_t q = 0; q < k; ++q) {
        if (cl.count[q] <= 0.0) continue;
        double ss = 0.0;
        for (index_t j = 0; j < d; ++j) ss += cl.sums[q + k * j] * cl.sums[q + k * j];
        between += ss / cl.count[q];
      }
      report_progress("Hartigan", res.sweeps, std::max(0.0, norms - between), moved);
    }
    check_interrupt(interrupt);
    if (moved == 0.0) {
      res.converged = true;
      break;
    }
  }
  res.change = combined_sum(combine, res.change);
  return res;
}

// Hartigan's moves from a Lloyd result (at most `sweeps` sweeps), then Lloyd
// again from their means, so the result is a fixed point of both and its
// labels are the nearest-centre labels of its centres, as Lloyd returns
// them. `settings`: that Lloyd's call without its centres (LloydCall:
// iter_max, tol, n_threads, interrupt, weight), whose threads, interrupt
// and weights the moves use too; the rows' grid is rows_shift(a). Returns
// the moves made (none: `res` unchanged); `sweeps_done`: the sweeps (scans
// of the rows) it took.
template <class Data, class Combine = LocalCombine>
index_t hartigan_polish(const Data& a, const double* row_norms, LloydResult& res, int sweeps,
                        const LloydCall& settings, const Combine& combine = Combine(),
                        int* sweeps_done = nullptr) {
  const index_t k = detail::centre_count(res.centres, a.d);
  if (sweeps_done != nullptr) *sweeps_done = 0;
  if (sweeps <= 0 || k < 2) return 0;
  std::vector<int> label = res.label;
  std::vector<double> means;
  const HartiganResult h = hartigan(a, row_norms, k, label.data(), means, sweeps,
                                    settings.n_threads, settings.interrupt, combine,
                                    settings.weight);
  if (sweeps_done != nullptr) *sweeps_done = h.sweeps;
  if (h.moves == 0) return 0;
  LloydCall run = settings;
  run.centres = std::move(means);
  run.grid = rows_shift(a);
  LloydResult again = lloyd(ResidentRows<Data>(a), row_norms, std::move(run), combine);
  // Hartigan lowered the objective and Lloyd from its means cannot raise
  // it; only rounding in the objectives' formulas could make it look so.
  if (!(again.objective <= res.objective)) return 0;
  again.iter += res.iter;
  res = std::move(again);
  return h.moves;
}

}  // namespace kmreduce

#endif  // KMREDUCE_HARTIGAN_HPP
