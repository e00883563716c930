// kmreduce: sparse embedding (CountSketch), Algorithm 1 of Liu, Shen & Tsang
// (2017): C = A Q Phi with h: [d] -> [dims] uniform, Phi[i, h(i)] = 1 and Q a
// diagonal of Rademacher signs, i.e. column j of A is added, with sign s_j,
// into column h(j) of C. Cost O(nnz(A)): one pass over the data.
#ifndef KMREDUCE_SPARSE_EMBEDDING_HPP
#define KMREDUCE_SPARSE_EMBEDDING_HPP

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "../runtime/scan.hpp"
#include "../runtime/simd.hpp"
#include "projection_call.hpp"

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
          uniform_of(h) * static_cast<double>(dims));
      if (bucket[j] >= dims) bucket[j] = dims - 1;
      sign[j] = (h & 1ULL) ? -1.0 : 1.0;
      ++start[bucket[j] + 1];
    }
    for (index_t c = 0; c < dims; ++c) start[c + 1] += start[c];
    std::vector<index_t> pos(start.begin(), start.end() - 1);
    for (index_t j = 0; j < d; ++j) member[pos[bucket[j]]++] = j;
  }
};

namespace detail {
#ifdef KMREDUCE_X86_SIMD
// Rows [r, n) of the kernels below, by the plain loop (the rows after the
// last whole vector), each value noted in `part`.
inline void add_columns_rows(index_t r, index_t n, int count, const double* const* c,
                             const index_t* cols, const double* sign, double* o,
                             ValueSummary& part) {
  for (; r < n; ++r) {
    double v = o[r];
    for (int l = 0; l < count; ++l) {
      v = v + sign[cols[l]] * c[l][r];
      part.add(c[l][r]);
    }
    o[r] = v;
  }
}

// o[r] += sign[j] * A[r, j] for the L columns j = cols[0..L) in turn (signs
// are +-1, so each FMA is exactly the add of the plain loop): up to eight
// input columns per pass over o. Also gathers whether the values read are
// finite and their largest magnitude (the input check, at no extra pass).
template <int L>
__attribute__((target("avx512f"))) void add_columns_avx512(
    const double* x, index_t n, const index_t* cols, const double* sign,
    double* o, ValueSummary& vs) {
  const double* c[L];
  __m512d sg[L];
  for (int l = 0; l < L; ++l) {
    c[l] = x + n * cols[l];
    sg[l] = _mm512_set1_pd(sign[cols[l]]);
  }
  __m512d mx = _mm512_setzero_pd();
  __mmask8 bad = 0;
  index_t r = 0;
  for (; r + 8 <= n; r += 8) {
    __m512d v = _mm512_loadu_pd(o + r);
    KMREDUCE_UNROLL
    for (int l = 0; l < L; ++l) {
      const __m512d xv = _mm512_loadu_pd(c[l] + r);
      v = _mm512_fmadd_pd(sg[l], xv, v);
      note_values(xv, mx, bad);
    }
    _mm512_storeu_pd(o + r, v);
  }
  ValueSummary part;
  part.finite = bad == 0;
  part.maxabs = _mm512_reduce_max_pd(mx);  // meaningful only when finite
  add_columns_rows(r, n, L, c, cols, sign, o, part);
  vs.merge(part);
}

// The same on AVX2 (four rows per vector; FMA with a sign of +-1 is the
// plain add, so the same bits), with the check of note_values_avx2().
template <int L>
__attribute__((target("avx2,fma"))) void add_columns_avx2(
    const double* x, index_t n, const index_t* cols, const double* sign,
    double* o, ValueSummary& vs) {
  const double* c[L];
  __m256d sg[L];
  for (int l = 0; l < L; ++l) {
    c[l] = x + n * cols[l];
    sg[l] = _mm256_set1_pd(sign[cols[l]]);
  }
  __m256d mx = _mm256_setzero_pd(), bad = _mm256_setzero_pd();
  index_t r = 0;
  for (; r + 4 <= n; r += 4) {
    __m256d v = _mm256_loadu_pd(o + r);
    KMREDUCE_UNROLL
    for (int l = 0; l < L; ++l) {
      const __m256d xv = _mm256_loadu_pd(c[l] + r);
      v = _mm256_fmadd_pd(sg[l], xv, v);
      note_values_avx2(xv, mx, bad);
    }
    _mm256_storeu_pd(o + r, v);
  }
  ValueSummary part;
  part.finite = _mm256_movemask_pd(bad) == 0;
  part.maxabs = max_lane_avx2(mx);  // meaningful only when finite
  add_columns_rows(r, n, L, c, cols, sign, o, part);
  vs.merge(part);
}

// L input columns at the CPU's level: AVX-512 or AVX2.
template <int L>
void add_columns_at(bool avx512, const double* x, index_t n, const index_t* cols,
                    const double* sign, double* o, ValueSummary& vs) {
  if (avx512) {
    add_columns_avx512<L>(x, n, cols, sign, o, vs);
  } else {
    add_columns_avx2<L>(x, n, cols, sign, o, vs);
  }
}

// count (1 to 8) input columns added to o at the CPU's level (not Portable).
inline void add_columns(int count, const double* x, index_t n,
                        const index_t* cols, const double* sign, double* o,
                        ValueSummary& vs) {
  const bool avx512 = simd_level() == SimdLevel::Avx512;
  switch (count) {
    case 1: add_columns_at<1>(avx512, x, n, cols, sign, o, vs); break;
    case 2: add_columns_at<2>(avx512, x, n, cols, sign, o, vs); break;
    case 3: add_columns_at<3>(avx512, x, n, cols, sign, o, vs); break;
    case 4: add_columns_at<4>(avx512, x, n, cols, sign, o, vs); break;
    case 5: add_columns_at<5>(avx512, x, n, cols, sign, o, vs); break;
    case 6: add_columns_at<6>(avx512, x, n, cols, sign, o, vs); break;
    case 7: add_columns_at<7>(avx512, x, n, cols, sign, o, vs); break;
    default: add_columns_at<8>(avx512, x, n, cols, sign, o, vs); break;
  }
}
#endif
}  // namespace detail

// out (n x dims) = A Q Phi. Parallel over output columns; each output column
// sums its input columns in increasing order: deterministic. With `values`,
// also reports whether A is finite and its largest magnitude (read on the
// way on AVX-512 and AVX2, by a scan otherwise).
inline void sparse_embed(const DenseMatrix& a, const CountSketch& s,
                         double* out, int n_threads,
                         ValueSummary* values = nullptr) {
  const index_t n = a.n;
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() != SimdLevel::Portable) {
    std::vector<ValueSummary> part(static_cast<std::size_t>(s.dims));
    parallel_for(s.dims, n_threads, [&](index_t c, int) {
      double* o = out + n * c;
      std::fill(o, o + n, 0.0);
      for (index_t t = s.start[c]; t < s.start[c + 1]; t += 8) {
        const int count = static_cast<int>(std::min<index_t>(8, s.start[c + 1] - t));
        detail::add_columns(count, a.x, n, s.member.data() + t, s.sign.data(), o, part[c]);
      }
    }, static_cast<double>(n) * a.d);
    if (values != nullptr) {
      *values = ValueSummary();
      for (const ValueSummary& p : part) values->merge(p);  // every column is in a bucket
    }
    return;
  }
#endif
  if (values != nullptr) *values = summarize_values(a.x, a.n * a.d);
  parallel_for(s.dims, n_threads, [&](index_t c, int) {
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
  }, static_cast<double>(n) * a.d);
}

inline void sparse_embed(const SparseMatrix& a, const CountSketch& s,
                         double* out, int n_threads) {
  parallel_for(s.dims, n_threads, [&](index_t c, int) {
    double* o = out + a.n * c;
    for (index_t r = 0; r < a.n; ++r) o[r] = 0.0;
    for (index_t t = s.start[c]; t < s.start[c + 1]; ++t) {
      const index_t j = s.member[t];
      const double sj = s.sign[j];
      for (index_t q = a.p[j]; q < a.p[j + 1]; ++q) o[a.i[q]] += sj * a.x[q];
    }
  }, static_cast<double>(a.p[a.d]));
}

// The projection policy (reduce/projections.hpp) of the sparse embedding.
// With c.limit > 0 it reads the values of dense A on its way and returns
// true when one is not finite or exceeds the limit in magnitude (sparse A is
// checked before it comes here).
struct SparseEmbeddingProjection {
  static const char* name() { return "sparse_embedding"; }
  static bool project(const DenseMatrix& a, const ProjectionCall& c, double* out) {
    ValueSummary v;
    sparse_embed(a, CountSketch(c.seed, a.d, c.dims), out, c.n_threads,
                 c.limit > 0 ? &v : nullptr);
    return c.limit > 0 && values_out_of_range(v, c.limit);
  }
  static bool project(const SparseMatrix& a, const ProjectionCall& c, double* out) {
    sparse_embed(a, CountSketch(c.seed, a.d, c.dims), out, c.n_threads);
    return false;
  }
};

}  // namespace kmreduce

#endif  // KMREDUCE_SPARSE_EMBEDDING_HPP
