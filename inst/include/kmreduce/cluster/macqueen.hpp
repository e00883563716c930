// kmreduce: MacQueen's online k-means (MacQueen 1967), as
// stats::kmeans(algorithm = "MacQueen") runs it: every row is assigned to its
// nearest centre and the centres become the means of their rows; then sweeps
// visit the rows in order, each row goes to its nearest centre (squared
// distances computed directly, the first centre on ties) and, when it moves,
// both centres are updated at once as running means,
//   c_a += w (c_a - x) / W_a,  c_b += w (x - c_b) / W_b
// (W the clusters' weights after the move; w = 1 without observation
// weights), until a sweep moves no row or after iter_max sweeps. Unlike
// stats' C code, a row that is alone in its cluster does not leave it (its
// centre would be 0 / 0) and an empty cluster keeps its centre.
//
// A sweep is serial (each move changes the centres the next row sees), so
// the result does not depend on the thread count. The rows are read in
// blocks of kRowBlock, transposed so that each row is contiguous.
//
// Lloyd then runs from the centres found: a MacQueen fixed point is a Lloyd
// fixed point, so this normally moves nothing, and it makes the centres the
// exact (weighted) means of their rows and the labels the nearest-centre
// labels that predict() gives, as after Lloyd.
#ifndef KMREDUCE_MACQUEEN_HPP
#define KMREDUCE_MACQUEEN_HPP

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "lloyd.hpp"
#include "seed_assignment.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/packed.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/progress.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

namespace detail {
// Rows [r0, r1) written row by row into out ((r1 - r0) x d, row-major).
inline void rows_row_major(const DenseMatrix& a, index_t r0, index_t r1, double* out,
                           const double* shift = nullptr) {
  const index_t m = r1 - r0;
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    const double s = shift != nullptr ? shift[j] : 0.0;
    for (index_t r = r0; r < r1; ++r) out[(r - r0) * a.d + j] = col[r] - s;
  }
  (void)m;
}
inline void rows_row_major(const PackedRows& a, index_t r0, index_t r1, double* out) {
  rows_row_major(a.src, r0, r1, out, a.shift);
}
template <class Rows>
void rows_row_major(const Rows& a, index_t r0, index_t r1, double* out) {
  for (index_t r = r0; r < r1; ++r) get_row(a, r, out + (r - r0) * a.d);
}
}  // namespace detail

struct MacQueenResult {
  int sweeps = 0;         // sweeps over the rows (the last moved none when converged)
  index_t moves = 0;      // rows moved in all
  bool converged = false;
};

// MacQueen's sweeps from the labels `label` (0-based) on the rows of `a`:
// `centres` (k x d, column-major) become their running means. On return
// `label` and `centres` hold the partition and its centres.
template <class Data>
MacQueenResult macqueen_sweeps(const Data& a, const double* row_norms, index_t k, int* label,
                               std::vector<double>& centres, int max_sweeps, int n_threads,
                               const InterruptCheck& interrupt = InterruptCheck(),
                               const double* weight = nullptr) {
  const index_t n = a.n, d = a.d;
  MacQueenResult res;
  // The means of the first assignment (empty clusters keep their centre).
  std::vector<double> sums(k * d, 0.0), wsum(k, 0.0), nrows(k, 0.0);
  if (weight != nullptr) {
    weighted_cluster_sums(a, label, weight, k, sums.data(), n_threads);
    for (index_t r = 0; r < n; ++r) wsum[label[r]] += weight[r];
  } else {
    cluster_sums(a, label, k, sums.data(), n_threads);
  }
  for (index_t r = 0; r < n; ++r) nrows[label[r]] += 1.0;
  if (weight == nullptr) wsum = nrows;
  // the centres row by row (k x d, row-major) while the sweeps update them
  std::vector<double> c(k * d);
  for (index_t q = 0; q < k; ++q)
    for (index_t j = 0; j < d; ++j)
      c[q * d + j] = wsum[q] > 0.0 ? sums[q + k * j] / wsum[q] : centres[q + k * j];
  // (the objective of the running means, for progress reports only)
  const bool report = progress_active();
  double norms = 0.0;
  if (report)
    for (index_t r = 0; r < n; ++r) norms += (weight != nullptr ? weight[r] : 1.0) * row_norms[r];
  std::vector<double> buf(static_cast<std::size_t>(kRowBlock * d));
  for (int sweep = 1; sweep <= max_sweeps; ++sweep) {
    index_t moved = 0;
    for (index_t r0 = 0; r0 < n; r0 += kRowBlock) {
      const index_t r1 = std::min(n, r0 + kRowBlock);
      detail::rows_row_major(a, r0, r1, buf.data());
      for (index_t r = r0; r < r1; ++r) {
        const double* x = buf.data() + (r - r0) * d;
        double best = std::numeric_limits<double>::infinity();
        index_t to = 0;
        for (index_t q = 0; q < k; ++q) {
          const double* cq = c.data() + q * d;
          double dd = 0.0;
          for (index_t j = 0; j < d; ++j) {
            const double e = x[j] - cq[j];
            dd += e * e;
          }
          if (dd < best) {
            best = dd;
            to = q;
          }
        }
        const index_t from = label[r];
        if (to == from || nrows[from] <= 1.0) continue;
        const double w = weight != nullptr ? weight[r] : 1.0;
        wsum[from] -= w;
        wsum[to] += w;
        nrows[from] -= 1.0;
        nrows[to] += 1.0;
        double* cf = c.data() + from * d;
        double* ct = c.data() + to * d;
        if (weight != nullptr) {
          for (index_t j = 0; j < d; ++j) {
            cf[j] += w * (cf[j] - x[j]) / wsum[from];
            ct[j] += w * (x[j] - ct[j]) / wsum[to];
          }
        } else {  // (as stats' C code)
          for (index_t j = 0; j < d; ++j) {
            cf[j] += (cf[j] - x[j]) / wsum[from];
            ct[j] += (x[j] - ct[j]) / wsum[to];
          }
        }
        label[r] = static_cast<int>(to);
        ++moved;
      }
      poll_interrupt();
    }
    res.sweeps = sweep;
    res.moves += moved;
    if (report) {
      // sum w ||x - c||^2 = sum w ||x||^2 - sum_q W_q ||c_q||^2 for means c
      double between = 0.0;
      for (index_t q = 0; q < k; ++q)
        for (index_t j = 0; j < d; ++j) between += wsum[q] * c[q * d + j] * c[q * d + j];
      report_progress("MacQueen", sweep, std::max(0.0, norms - between),
                      static_cast<double>(moved));
    }
    check_interrupt(interrupt);
    if (moved == 0) {
      res.converged = true;
      break;
    }
  }
  centres.assign(k * d, 0.0);
  for (index_t q = 0; q < k; ++q)
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = c[q * d + j];
  return res;
}

// k-means by MacQueen's updates from call.centres (k x d, column-major):
// the nearest-centre assignment (taken from call.start, the seeds'
// assignment, when given), the sweeps, then Lloyd from their centres (see
// above) with the same call (LloydCall: iter_max, tol, grid, weight, ...).
// The iterations reported are the sweeps plus Lloyd's; converged when the
// sweeps and Lloyd converged.
template <class Data>
LloydResult macqueen(const Data& a, const double* row_norms, LloydCall call) {
  const index_t n = a.n, k = detail::centre_count(call.centres, a.d);
  std::vector<int> label;
  if (call.start != nullptr && static_cast<index_t>(call.start->label.size()) == n) {
    label = std::move(call.start->label);
    *call.start = SeedAssignment();
  } else {
    label.assign(n, -1);
    std::vector<double> dist(n);
    assign_nearest(a, row_norms, call.centres.data(), k, label.data(), dist.data(),
                   call.n_threads);
  }
  const MacQueenResult m = macqueen_sweeps(a, row_norms, k, label.data(), call.centres,
                                           call.iter_max, call.n_threads, call.interrupt,
                                           call.weight);
  call.start = nullptr;  // (Lloyd starts from the sweeps' centres)
  LloydResult res = lloyd(ResidentRows<Data>(a), row_norms, std::move(call));
  res.iter += m.sweeps;
  res.converged = res.converged && m.converged;
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_MACQUEEN_HPP
