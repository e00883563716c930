// kmreduce: the options of k-means|| seeding (kmeans_parallel.hpp), apart
// from the algorithm, so that k-means' options (kmeans_options.hpp) take
// them without it.
#ifndef KMREDUCE_KMEANS_PARALLEL_OPTIONS_HPP
#define KMREDUCE_KMEANS_PARALLEL_OPTIONS_HPP

namespace kmreduce {

struct KmeansParallelOptions {
  double oversampling = 2.0;  // l / k
  int rounds = 5;
};

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANS_PARALLEL_OPTIONS_HPP
