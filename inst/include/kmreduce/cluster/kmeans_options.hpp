// kmreduce: the options of k-means (kmeans.hpp), one struct for every
// caller: the R glue fills it from one named list (src/kmeans_glue.h,
// kmeans_options()), the standalone tests set its fields.
#ifndef KMREDUCE_KMEANS_OPTIONS_HPP
#define KMREDUCE_KMEANS_OPTIONS_HPP

#include <cstdint>
#include <functional>
#include <string>

#include "kmeans_parallel_options.hpp"
#include "split_merge_options.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// Called on the calling thread after each replicate with (replicate, 1-based;
// Lloyd iterations; objective on the clustered data). Empty: no call, no cost.
using ReplicateHook = std::function<void(int, int, double)>;

// After the replicates, on each of the `polish_starts` best distinct ones
// (the lowest result kept): nothing, Hartigan's moves (hartigan.hpp), or
// split/merge moves (split_merge.hpp) then Hartigan's moves.
enum class Polish { None, Hartigan, SplitMerge };

// polish_starts = kPolishStartsAuto: the two lowest distinct replicates are
// polished, then the next ones in increasing objective while the lowest
// polished result has been reached from one start only (a second start
// ending at the same objective confirms it), up to all distinct replicates.
// When two replicates reached the lowest objective before any polish, it is
// confirmed already: no split/merge, only Hartigan's moves from it and from
// the distinct replicates near it (where a polish has nothing to gain, the
// replicates agree; where it gains, the lowest replicate is reached once).
constexpr int kPolishStartsAuto = 0;

// Mini-batch k-means (minibatch.hpp): rows per batch, the reassignment
// ratio of scikit-learn's MiniBatchKMeans (0: no reassignment), and the
// batches without improvement of the smoothed batch objective that stop it.
struct MinibatchOptions {
  index_t batch_size = 1024;
  double reassignment_ratio = 0.01;
  int max_no_improvement = 10;
};

struct KmeansOptions {
  index_t k = 2;
  int n_init = 10;
  int iter_max = 100;
  double tol = 0.0;
  int local_search = 0;  // LocalSearch++ steps after the seeding of replicates 2, 4, ...
  // The seeding of every replicate, by its name: one of the policies of
  // seeding.hpp ("k-means++", "k-means||"; seeding_names()).
  std::string seeding = "k-means++";
  KmeansParallelOptions parallel;  // k-means|| (seeding "k-means||")
  Polish polish = Polish::None;
  int polish_starts = 2;  // the lowest distinct replicates polished;
                          // kPolishStartsAuto: until the lowest is confirmed
  int hartigan_sweeps = 100;  // at most, per polished replicate
  // (auto) Hartigan's moves from replicates not otherwise polished only when
  // their objective is within this fraction of the lowest.
  double hartigan_gap = 1e-2;
  // The Lloyd iterations of the split/merge tries, all starts together, at
  // most this many times those of the replicates (< 0: no bound).
  double polish_budget = 2.0;
  // (auto) A start after the first is polished, and replicates not polished
  // get Hartigan's moves, only while the polish's passes over the rows so
  // far (split/merge's and Hartigan's sweeps) are below this many times the
  // replicates' Lloyd iterations (< 0: no bound).
  double polish_work = 2.0;
  // (auto) Two polished starts whose split/merge results (before Hartigan's
  // moves) lie within this fraction of the lowest of them confirm it: no
  // further start is polished.
  double split_confirm = 1e-6;
  SplitMergeOptions split;  // its iter_max and tol are those above
  std::uint64_t seed = 0;
  int n_threads = 1;
  ReplicateHook on_replicate;
  // MacQueen's online updates (macqueen.hpp) instead of Lloyd after each
  // seeding (stats::kmeans(algorithm = "MacQueen")); one process only.
  bool online = false;
  // Mini-batch k-means (minibatch.hpp) instead of the replicates and Lloyd:
  // n_init seedings on a sample, the best one kept, then mini-batch updates
  // for at most iter_max passes over the rows; one process only.
  bool minibatch = false;
  MinibatchOptions batches;
  // The replicates (and their polish) on a coreset sketch of about this many
  // rows (sketch.hpp), the best then lifted to all rows for Lloyd and the
  // polish (kmeans.hpp); 0, or at least the number of rows: on all rows.
  index_t sketch_rows = 0;
  // Observation weights, one positive weight per row (nullptr: all 1): every
  // step weighted (seeding by w D^2, weighted means and objective, the
  // polish's moves), so that whole weights give the fit of the rows repeated.
  const double* weights = nullptr;
};

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANS_OPTIONS_HPP
