// kmreduce: the assignment of the rows to the seeds that k-means++
// (kmeanspp.hpp) finds on its way and Lloyd (lloyd.hpp) starts from, apart
// from both algorithms.
#ifndef KMREDUCE_SEED_ASSIGNMENT_HPP
#define KMREDUCE_SEED_ASSIGNMENT_HPP

#include <vector>

namespace kmreduce {

// The nearest-centre assignment of the rows to the seeds, which k-means++
// finds on its way: Lloyd starts from it instead of a first pass.
struct SeedAssignment {
  std::vector<int> label;       // nearest seed (first one on ties)
  std::vector<double> nearest;  // squared distance to it
  std::vector<double> second;   // squared distance to the next nearest
  std::vector<int> second_label;  // which seed that is (0 while there is none)
  // Whether second_label is wanted (the local search needs it, Lloyd does
  // not): without it, it stays empty (one array of n less to write).
  bool with_second_label = true;
};

}  // namespace kmreduce

#endif  // KMREDUCE_SEED_ASSIGNMENT_HPP
