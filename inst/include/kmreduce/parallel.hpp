// kmreduce: helpers for deterministic OpenMP parallelism.
//
// Work is cut into blocks whose boundaries depend only on the problem size,
// never on the thread count; each block is computed by one thread, and any
// reduction over blocks is done serially in block order afterwards. Hence
// results are bitwise identical for every n_threads.
#ifndef KMREDUCE_PARALLEL_HPP
#define KMREDUCE_PARALLEL_HPP

#include <cstdint>
#include <functional>
#include <stdexcept>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace kmreduce {

using index_t = std::int64_t;

// Rows per block in row-blocked kernels (fixed: part of the definition of
// every result, so it never depends on the machine).
constexpr index_t kRowBlock = 256;

inline index_t n_blocks(index_t n, index_t block) {
  return (n + block - 1) / block;
}

// A callback the algorithms call on the calling (main) thread between blocks
// or iterations; the R glue uses it to check for a user interrupt and throws
// kmreduce::interrupted when there is one. Pure C++ users pass nothing.
using InterruptCheck = std::function<void()>;

struct interrupted : public std::runtime_error {
  interrupted() : std::runtime_error("interrupted by the user") {}
};

inline void check_interrupt(const InterruptCheck& f) {
  if (f) f();
}

}  // namespace kmreduce

#endif  // KMREDUCE_PARALLEL_HPP
