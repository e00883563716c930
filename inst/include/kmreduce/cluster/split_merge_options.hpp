// kmreduce: the options of split/merge moves (split_merge.hpp), apart from
// the algorithm, so that k-means' options (kmeans_options.hpp) take them
// without it.
#ifndef KMREDUCE_SPLIT_MERGE_OPTIONS_HPP
#define KMREDUCE_SPLIT_MERGE_OPTIONS_HPP

#include "../runtime/parallel.hpp"

namespace kmreduce {

struct SplitMergeOptions {
  int tries = 3;            // moves tried per round (R: kmeans_control(tries = 3))
  int rounds = 5;           // rounds, each kept only when it improves
  int iter_max = 100;       // Lloyd after each move
  double tol = 0.0;
  int screen_iters = 10;    // Lloyd iterations of every move before the `keep`
  index_t keep = 2;         // lowest go on (screen_iters 0: all go on)
  int power_iters = 3;      // for the first cut of each cluster
  int warm_iters = 1;       // in later rounds, from the directions of the round before
  int evaluated = 20;       // best-scored moves whose one-step objective is computed
  double margin = 0.02;     // a move is tried only when that objective is below
                            // (1 + margin) times the partition's
  double budget = -1.0;     // Lloyd iterations all tries may take (< 0: no bound)
};

}  // namespace kmreduce

#endif  // KMREDUCE_SPLIT_MERGE_OPTIONS_HPP
