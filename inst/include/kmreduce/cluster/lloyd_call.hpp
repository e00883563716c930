// kmreduce: what lloyd() (lloyd.hpp) takes and returns. A LloydCall holds
// everything a run is given besides its rows: fields with defaults, so a
// call site names only what it sets, and an option of Lloyd is one field
// here, where lloyd() or its step uses it, and the callers that set it. The
// rows themselves (a row source and their squared norms) and where they live
// (a Combine, row_source.hpp) are lloyd()'s arguments, as in every algorithm
// of the core.
#ifndef KMREDUCE_LLOYD_CALL_HPP
#define KMREDUCE_LLOYD_CALL_HPP

#include <vector>

#include "seed_assignment.hpp"
#include "../runtime/parallel.hpp"

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

// One run of Lloyd. The defaults of iter_max and tol are KmeansOptions'
// (kmeans_options.hpp; the core's tests check they agree); a run from
// k-means' options is lloyd_call() (kmeans.hpp).
struct LloydCall {
  // the starting centres, k x d, column-major (k: their number; lloyd()
  // takes them over)
  std::vector<double> centres;
  int iter_max = 100;  // at most this many assignment steps
  // stop when the objective decreases by less than tol (relative) in an
  // iteration; 0: no such test (only no label changing, or iter_max, stops)
  double tol = 0.0;
  int n_threads = 1;
  InterruptCheck interrupt;  // called between iterations (empty: never)
  // The assignment k-means++ (or a sketch's lift) found for these centres:
  // the first assignment step takes its labels and distances instead of a
  // pass, and its arrays become Lloyd's (it is left empty). nullptr: none.
  SeedAssignment* start = nullptr;
  // The rows' shift (rows_shift(), packed.hpp) when they are shifted: each
  // new centre c becomes (c + s) - s, so that the centres returned in the
  // original coordinates (c + s) come back to these exactly
  // (unshift_result() then needs no pass). nullptr: rows not shifted.
  const double* grid = nullptr;
  // One positive weight per row (nullptr: all 1): weighted Lloyd, centres
  // the weighted means and the objective sum_r w_r ||x_r - c||^2 (for whole
  // weights, that of the rows repeated).
  const double* weight = nullptr;
};

}  // namespace kmreduce

#endif  // KMREDUCE_LLOYD_CALL_HPP
