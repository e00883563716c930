// kmreduce: the data-oblivious projections C = A R, as policies chosen by
// name (runtime/policy_list.hpp). A policy is a class with
//   static const char* name();  // the registry entry's `cpp` (R/registry.R)
//   template <class Matrix>     // DenseMatrix and SparseMatrix
//   static bool project(const Matrix& a, const ProjectionCall& c, double* out);
// that writes A R (a.n x c.dims, column-major) to `out`, R defined by
// (c.seed, a.d, c.dims) alone, the same bits on any number of threads, and
// returns whether it found a value out of range (ProjectionCall::limit).
// A policy lives in its algorithm's header; a new one draws from
// stream_key(seed, stream_purpose("its name")) (runtime/rng.hpp), the
// policies here from their numbered purposes.
//
// A new projection is its header (kernel and policy), one entry in
// `Projections` below (with its include) and, in R, one registry entry and
// its test; project_cpp() (src/reduce.cpp) and the names the tests compare
// with the registry (projection_names()) follow from this list.
#ifndef KMREDUCE_PROJECTIONS_HPP
#define KMREDUCE_PROJECTIONS_HPP

#include <string>
#include <tuple>
#include <vector>

#include "../runtime/policy_list.hpp"
#include "fjlt.hpp"
#include "mailman.hpp"
#include "projection_call.hpp"
#include "random_projection.hpp"
#include "sparse_embedding.hpp"
#include "srht.hpp"

namespace kmreduce {

// Every projection, in the registry's order.
using Projections = std::tuple<SignProjection, GaussianProjection, AchlioptasProjection,
                               SrhtProjection, SparseEmbeddingProjection, FjltProjection>;

// The names of the projections, in the order of `Projections`.
inline std::vector<std::string> projection_names() { return policy_names<Projections>(); }

// out (a.n x c.dims) = A R for the projection called `name` (an unknown name
// throws std::invalid_argument); returns whether a value of A was out of
// range (ProjectionCall::limit).
template <class Matrix>
bool project(const std::string& name, const Matrix& a, const ProjectionCall& c, double* out) {
  bool invalid = false;
  with_policy<Projections>(policy_index<Projections>(name, "projection"),
                           [&](auto policy) { invalid = policy.project(a, c, out); });
  return invalid;
}

}  // namespace kmreduce

#endif  // KMREDUCE_PROJECTIONS_HPP
