// kmreduce: the seedings of k-means as policies (the idea of mlpack's
// InitialPartitionPolicy). A policy is a class with
//   static const char* name();  // its name across the R boundary
//                               // (KmeansOptions::seeding, control$seeding)
//   static double passes(const KmeansOptions& opt);  // over the rows, for
//                               // the fit's passes by stage
//   template <class Data, class Combine>
//   static void seed(const SeedingCall<Data, Combine>& call, Rng& rng,
//                    double* centres, SeedAssignment* seeds);
// whose seed() writes k seeds (k x d, column-major) to `centres`, drawing from `rng`
// only (the replicate's stream), and, when `seeds` is given, the rows'
// assignment to them (nearest and second nearest; Lloyd takes it over, the
// local search reads it; seed_assignment() of kmeans_parallel.hpp computes
// it for seeds found otherwise). With rows on several processes (Combine) every
// process calls it with its own rows and all get the same seeds; with
// observation weights (call.opt.weights) it draws by w D^2.
//
// kmeans.hpp (the replicates) and minibatch.hpp (the seedings on a sample)
// call the policy named by KmeansOptions::seeding through with_seeding(),
// resolved once per fit (seeding_index()); the names the glue and R accept
// are those of the list `Seedings` (seeding_names()). A new seeding is its
// policy (here, or in its own header included here) and one entry in
// `Seedings`.
#ifndef KMREDUCE_SEEDING_HPP
#define KMREDUCE_SEEDING_HPP

#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "kmeans_options.hpp"
#include "kmeans_parallel.hpp"
#include "kmeanspp.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/policy_list.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

// What a seeding reads: the rows, their squared norms, the options (k,
// threads, weights and the seeding's own options) and the interrupt check.
template <class Data, class Combine>
struct SeedingCall {
  const Data& a;
  const double* row_norms;
  const KmeansOptions& opt;
  const InterruptCheck& interrupt;
  const Combine& combine;
};

// Greedy k-means++ (kmeanspp.hpp).
struct KmeansppSeeding {
  static const char* name() { return "k-means++"; }
  static double passes(const KmeansOptions& opt) { return static_cast<double>(opt.k); }
  template <class Data, class Combine>
  static void seed(const SeedingCall<Data, Combine>& c, Rng& rng, double* centres,
                   SeedAssignment* seeds) {
    kmeanspp(c.a, c.row_norms, c.opt.k, rng, centres, c.opt.n_threads, c.interrupt, seeds,
             c.combine, nullptr, c.opt.weights);
  }
};

// k-means|| (kmeans_parallel.hpp) with the oversampling and rounds of
// KmeansOptions::parallel.
struct KmeansParallelSeeding {
  static const char* name() { return "k-means||"; }
  static double passes(const KmeansOptions& opt) { return opt.parallel.rounds + 2.0; }
  template <class Data, class Combine>
  static void seed(const SeedingCall<Data, Combine>& c, Rng& rng, double* centres,
                   SeedAssignment* seeds) {
    kmeans_parallel(c.a, c.row_norms, c.opt.k, rng, centres, c.opt.n_threads, c.opt.parallel,
                    c.interrupt, seeds, c.combine, nullptr, c.opt.weights);
  }
};

// Every seeding, in a fixed order (the first is KmeansOptions' default).
using Seedings = std::tuple<KmeansppSeeding, KmeansParallelSeeding>;

// The names of the seedings, in the order of `Seedings`.
inline std::vector<std::string> seeding_names() { return policy_names<Seedings>(); }

// The position of the seeding called `name` in `Seedings`; an unknown name
// throws std::invalid_argument listing the known ones.
inline std::size_t seeding_index(const std::string& name) {
  return policy_index<Seedings>(name, "seeding");
}

// Calls f(policy) with a value of the seeding policy at `index`.
template <class F>
void with_seeding(std::size_t index, F&& f) {
  with_policy<Seedings>(index, f);
}

}  // namespace kmreduce

#endif  // KMREDUCE_SEEDING_HPP
