// kmreduce: sparse embedding (CountSketch), Algorithm 1 of Liu, Shen & Tsang
// (2017): C = A Q Phi with h: [d] -> [dims] uniform, Phi[i, h(i)] = 1 and Q a
// diagonal of Rademacher signs, i.e. column j of A is added, with sign s_j,
// into column h(j) of C. Cost O(nnz(A)): one pass over the data.
#ifndef KMREDUCE_SPARSE_EMBEDDING_HPP
#define KMREDUCE_SPARSE_EMBEDDING_HPP

#include <stdexcept>
#include <vector>

#include "matrix.hpp"
#include "parallel.hpp"
#include "rng.hpp"

namespace kmreduce {

struct CountSketch {
  index_t d, dims;
  std::vector<index_t> bucket;  // h(j)
  std::vector<double> sign;     // s_j
  std::vector<index_t> start, member;  // columns of each bucket, ascending
  CountSketch(std::uint64_t seed, index_t d_, index_t dims_)
      : d(d_), dims(dims_), bucket(d_), sign(d_), start(dims_ + 1, 0),
        member(d_) {
    if (d < 1 || dims < 1)
      throw std::invalid_argument("sparse embedding dimensions must be positive");
    const std::uint64_t key = stream_key(seed, kStreamSparseEmbedding);
    for (index_t j = 0; j < d; ++j) {
      const std::uint64_t h = counter_hash(key, static_cast<std::uint64_t>(j));
      // 53 high bits give the bucket, the lowest bit the sign.
      bucket[j] = static_cast<index_t>(
          static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0) *
          static_cast<double>(dims));
      if (bucket[j] >= dims) bucket[j] = dims - 1;
      sign[j] = (h & 1ULL) ? -1.0 : 1.0;
      ++start[bucket[j] + 1];
    }
    for (index_t c = 0; c < dims; ++c) start[c + 1] += start[c];
    std::vector<index_t> pos(start.begin(), start.end() - 1);
    for (index_t j = 0; j < d; ++j) member[pos[bucket[j]]++] = j;
  }
};

// out (n x dims) = A Q Phi. Parallel over output columns; each output column
// sums its input columns in increasing order: deterministic.
inline void sparse_embed(const DenseMatrix& a, const CountSketch& s,
                         double* out, int n_threads) {
  const index_t n = a.n;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(n_threads)
#endif
  for (index_t c = 0; c < s.dims; ++c) {
    double* __restrict o = out + n * c;
    for (index_t r = 0; r < n; ++r) o[r] = 0.0;
    index_t t = s.start[c];
    const index_t t1 = s.start[c + 1];
    // Four input columns per sweep (four read streams, one pass over o);
    // the adds keep the order of one column at a time.
    for (; t + 4 <= t1; t += 4) {
      const index_t j0 = s.member[t], j1 = s.member[t + 1];
      const index_t j2 = s.member[t + 2], j3 = s.member[t + 3];
      const double* __restrict c0 = a.x + n * j0;
      const double* __restrict c1 = a.x + n * j1;
      const double* __restrict c2 = a.x + n * j2;
      const double* __restrict c3 = a.x + n * j3;
      const double s0 = s.sign[j0], s1 = s.sign[j1], s2 = s.sign[j2], s3 = s.sign[j3];
      for (index_t r = 0; r < n; ++r)
        o[r] = (((o[r] + s0 * c0[r]) + s1 * c1[r]) + s2 * c2[r]) + s3 * c3[r];
    }
    for (; t < t1; ++t) {
      const index_t j = s.member[t];
      const double* __restrict col = a.x + n * j;
      const double sj = s.sign[j];
      for (index_t r = 0; r < n; ++r) o[r] += sj * col[r];
    }
  }
  (void)n_threads;
}

inline void sparse_embed(const SparseMatrix& a, const CountSketch& s,
                         double* out, int n_threads) {
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(n_threads)
#endif
  for (index_t c = 0; c < s.dims; ++c) {
    double* o = out + a.n * c;
    for (index_t r = 0; r < a.n; ++r) o[r] = 0.0;
    for (index_t t = s.start[c]; t < s.start[c + 1]; ++t) {
      const index_t j = s.member[t];
      const double sj = s.sign[j];
      for (index_t q = a.p[j]; q < a.p[j + 1]; ++q) o[a.i[q]] += sj * a.x[q];
    }
  }
  (void)n_threads;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SPARSE_EMBEDDING_HPP
