// kmreduce: Lloyd's algorithm (Lloyd 1982). lloyd() takes its rows (a row
// source and their squared norms), where they live (a Combine) and one
// LloydCall (lloyd_call.hpp: the starting centres, iter_max, tol, threads,
// a start, the rows' shift, weights), and runs the iterations with a step
// policy (lloyd_step.hpp; HamerlyStep by default), as mlpack's KMeans runs
// its LloydStepType: the policy does the assignment, the update and what it
// keeps between iterations; lloyd() orders the stages, decides when to stop
// and makes the labels those of the returned centres.
#ifndef KMREDUCE_LLOYD_HPP
#define KMREDUCE_LLOYD_HPP

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "lloyd_call.hpp"
#include "lloyd_step.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/progress.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

// Centres on rows shifted by `grid` (LloydCall::grid): each c becomes
// (c + s) - s; nothing when grid is nullptr.
struct GridSnap {
  const double* grid;
  index_t k, d;
  void operator()(std::vector<double>& c) const {
    if (grid == nullptr) return;
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q) c[q + k * j] = (c[q + k * j] + grid[j]) - grid[j];
  }
};

namespace detail {
// The number of centres (k x d, column-major) given for rows of d columns.
inline index_t centre_count(const std::vector<double>& centres, index_t d) {
  const index_t size = static_cast<index_t>(centres.size());
  if (d < 1 || size < d || size % d != 0)
    throw std::invalid_argument("centres must be k x d, k >= 1");
  return size / d;
}

// The stopping test on the objective: after an update, it fell by at most
// tol (relative) since the previous update.
struct ObjectiveStop {
  explicit ObjectiveStop(double t) : tol(t) {}
  double tol;
  double prev = std::numeric_limits<double>::infinity();
  bool reached(int it, double objective) {
    if (it > 1 && prev - objective <= tol * prev) return true;
    prev = objective;
    return false;
  }
};

// Lloyd stopped before its labels settled: one exact pass makes them the
// nearest-centre labels of the centres returned (`label`, `centres`), and
// sums the exact distances (the objective, returned). When that pass
// empties a cluster, the cluster is re-seeded (a Lloyd update with the
// farthest row moved to it) and the rows assigned again, at most k times. A
// cluster may stay empty when no row is left to re-seed it with (fewer
// distinct rows than k, where the means' rounding could otherwise make this
// cycle). The settings are those of `call` (n_threads, interrupt, grid,
// weight; not its centres).
template <class Source, class Combine>
double final_assignment(const Source& src, const double* row_norms, const LloydCall& call,
                        const Combine& combine, std::vector<int>& label,
                        std::vector<double>& centres) {
  const index_t n = src.n(), d = src.d(), k = centre_count(centres, d);
  const GridSnap snap{call.grid, k, d};
  std::vector<double> min_dist, sums(static_cast<std::size_t>(k * d)), wsum;
  std::vector<index_t> count(static_cast<std::size_t>(k));
  assign_rows(min_dist, n, 0.0);
  for (index_t round = 0;; ++round) {
    source_assign_nearest(src, row_norms, centres.data(), k, label.data(), min_dist.data(),
                          call.n_threads);
    std::vector<double> c(k, 0.0);
    for (index_t r = 0; r < n; ++r) c[label[r]] += 1.0;
    combine.sum(c.data(), k);
    const auto empty = std::count(c.begin(), c.end(), 0.0);
    if (empty == 0 || round == k) break;
    combined_update_sums(src, combine, k, label.data(), nullptr, true, sums, count,
                         call.n_threads, call.weight, &wsum);
    std::vector<double> kept = centres;
    update_centres(src, k, label.data(), min_dist.data(), centres.data(), sums, count, combine,
                   call.weight, &wsum);
    if (std::count(count.begin(), count.end(), index_t(0)) == empty) {
      centres = std::move(kept);  // every row on its centre: nothing to re-seed with
      break;
    }
    snap(centres);
    check_interrupt(call.interrupt);
  }
  return combined_sum(combine, call.weight != nullptr
                                   ? serial_dot(call.weight, min_dist.data(), n)
                                   : serial_sum(min_dist));
}
}  // namespace detail

// Lloyd iterations from call.centres, each by the step policy `Step`
// (lloyd_step.hpp; by default HamerlyStep, whose bounds skip the tiles of
// rows that cannot change cluster). Stops when no label changes, when the
// objective decreases by less than call.tol (relative; 0 disables) or after
// call.iter_max assignment steps. On return the labels are the
// nearest-centre assignment for the returned centres: when the last step
// changed no label they already are (and the objective comes in closed form
// from the means), otherwise one final exact pass makes them so and sums the
// exact distances. The other settings: see LloydCall.
//
// With rows on several processes (Combine), every process runs this on its
// own rows and gets the global centres, objective and stopping decisions;
// labels are of its own rows.
template <template <class, class> class Step = HamerlyStep, class Source,
          class Combine = LocalCombine>
LloydResult lloyd(const Source& src, const double* row_norms, LloydCall call,
                  const Combine& combine = Combine()) {
  const index_t d = src.d(), k = detail::centre_count(call.centres, d);
  LloydResult res;
  std::vector<double> centres = std::move(call.centres), old;
  const bool from_start = call.start != nullptr;
  Step<Source, Combine> step(src, row_norms, combine, call, k, res.label);
  const GridSnap snap{call.grid, k, d};
  detail::ObjectiveStop stop(call.tol);
  for (int it = 1; it <= call.iter_max; ++it) {
    // 1. the assignment (the first from `start`: no pass)
    const index_t changes = step.assign(centres, res.label);
    res.iter = it;
    if (it > 1 && changes == 0) {  // the labels are nearest to their means
      res.converged = res.means = true;
      if (progress_active()) report_progress("Lloyd", it, step.objective(centres), 0.0);
      break;
    }
    // 2. the update: the centres become the means of their rows (an empty
    // cluster re-seeded), on the rows' grid
    old = centres;
    const std::vector<index_t> reseeded = step.update(centres, res.label);
    snap(centres);
    if (it == 1 && from_start) res.first_means = centres;
    // 3. what the step keeps (bounds) follows the centres
    step.follow(old, centres, res.label, reseeded);
    check_interrupt(call.interrupt);
    // (progress: the objective of these labels with their means)
    if (progress_active())
      report_progress("Lloyd", it, step.objective(centres), static_cast<double>(changes));
    // 4. the stopping test on the objective
    if (call.tol > 0.0 && stop.reached(it, step.objective(centres))) {
      res.converged = true;
      break;
    }
  }
  // 5. the objective: from the means when the labels settled (Hamerly's
  // skips are exact), else from the final assignment
  res.objective = res.means ? step.objective(centres)
                            : detail::final_assignment(src, row_norms, call, combine,
                                                       res.label, centres);
  res.centres = std::move(centres);
  return res;
}

}  // namespace kmreduce

#endif  // KMREDUCE_LLOYD_HPP
