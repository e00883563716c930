// kmreduce: what a data-oblivious projection C = A R reads (the options of
// one call), for the projection policies (reduce/projections.hpp).
#ifndef KMREDUCE_PROJECTION_CALL_HPP
#define KMREDUCE_PROJECTION_CALL_HPP

#include <cstdint>
#include <string>

#include "../kernels/matrix.hpp"

namespace kmreduce {

struct ProjectionCall {
  index_t dims = 0;                // output columns
  std::uint64_t seed = 0;          // R is defined by (seed, ncol(A), dims)
  int n_threads = 1;
  double limit = 0;                // > 0: a policy that reads the values of dense A
                                   // on its way reports one not finite or above
                                   // limit in magnitude (project() returns true)
  double density = 1;              // "fjlt": the density q of its sparse Gaussian P
  std::string algorithm = "gemm";  // "sign": "mailman" or "gemm"
};

}  // namespace kmreduce

#endif  // KMREDUCE_PROJECTION_CALL_HPP
