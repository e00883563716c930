// kmreduce: subsampled randomized Hadamard transform (SRHT, the fast
// Johnson-Lindenstrauss transform of Ailon & Chazelle 2009 in the form of
// Tropp 2011 / Boutsidis & Gittens 2013):
//   C = sqrt(D / dims) * A S H_D P,  scaled so that E ||x R||^2 = ||x||^2,
// with D = 2^ceil(log2 d) (zero padding), S = diag of random signs, H_D the
// normalised Walsh-Hadamard matrix and P a uniform sample of dims of its D
// columns without replacement. Entry: C[r, t] = (H (s * a_r))[P_t] / sqrt(dims)
// with H unnormalised. Cost O(n D log D) instead of O(n d dims).
#ifndef KMREDUCE_SRHT_HPP
#define KMREDUCE_SRHT_HPP

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "projection_call.hpp"

namespace kmreduce {

inline index_t next_pow2(index_t d) {
  index_t p = 1;
  while (p < d) p <<= 1;
  return p;
}

struct SrhtMap {
  index_t d, padded, dims;
  std::vector<double> sign;      // d
  std::vector<index_t> sample;   // dims coordinates of the transform
  SrhtMap(std::uint64_t seed, index_t d_, index_t dims_)
      : d(d_), padded(next_pow2(d_)), dims(dims_) {
    if (dims < 1 || dims > padded)
      throw std::invalid_argument("srht: dims must be in [1, 2^ceil(log2(d))]");
    const std::uint64_t key = stream_key(seed, kStreamSrht);
    sign.resize(d);
    for (index_t j = 0; j < d; ++j)
      sign[j] = (counter_hash(key, static_cast<std::uint64_t>(j)) >> 63) ? -1.0 : 1.0;
    // Partial Fisher-Yates on 0..padded-1: the first dims entries.
    Rng rng(stream_key(seed, kStreamSrht, 1));
    std::vector<index_t> perm(padded);
    std::iota(perm.begin(), perm.end(), index_t(0));
    for (index_t t = 0; t < dims; ++t) {
      const index_t u = t + static_cast<index_t>(rng.below(padded - t));
      std::swap(perm[t], perm[u]);
    }
    sample.assign(perm.begin(), perm.begin() + dims);
  }
};

namespace detail {
// In-place unnormalised Walsh-Hadamard transform along the first axis of a
// padded x lanes buffer (feature-major: buf[j * lanes + r]).
inline void fwht_lanes(double* buf, index_t padded, index_t lanes) {
  for (index_t h = 1; h < padded; h <<= 1) {
    for (index_t i = 0; i < padded; i += 2 * h) {
      for (index_t j = i; j < i + h; ++j) {
        double* x = buf + j * lanes;
        double* y = buf + (j + h) * lanes;
        for (index_t r = 0; r < lanes; ++r) {
          const double a = x[r], b = y[r];
          x[r] = a + b;
          y[r] = a - b;
        }
      }
    }
  }
}

// Rows r0 .. r0 + lanes - 1 times the random signs m.sign (SrhtMap,
// FjltMap), feature-major, into buf.
template <class Map>
void fill_block(const DenseMatrix& a, const Map& m, index_t r0, index_t lanes, double* buf) {
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j + r0;
    double* b = buf + j * lanes;
    for (index_t r = 0; r < lanes; ++r) b[r] = m.sign[j] * col[r];
  }
}

template <class Map>
void fill_block(const SparseRows& a, const Map& m, index_t r0, index_t lanes, double* buf) {
  std::fill(buf, buf + a.d * lanes, 0.0);
  for (index_t r = 0; r < lanes; ++r)
    for (index_t t = a.rp[r0 + r]; t < a.rp[r0 + r + 1]; ++t)
      buf[static_cast<index_t>(a.cj[t]) * lanes + r] = m.sign[a.cj[t]] * a.v[t];
}
}  // namespace detail

// Rows per block: a padded x lanes buffer of at most ~4 MB per thread. The
// block size depends on d only, and each row's transform is the same sequence
// of operations whatever the block, so results do not depend on threads.
inline index_t srht_lanes(index_t padded) {
  return std::max<index_t>(1, std::min<index_t>(64, (index_t(1) << 19) / padded));
}

// Entry (i, j) of the unnormalised Walsh-Hadamard matrix: (-1)^popcount(i & j).
inline double hadamard_sign(index_t i, index_t j) {
  return (__builtin_popcountll(static_cast<unsigned long long>(i & j)) & 1) ? -1.0 : 1.0;
}

namespace detail {
// Direct evaluation, O(nnz * dims): C[r, t] = sum_j H[P_t, j] s_j A[r, j] / sqrt(dims).
// Cheaper than the transform when few coordinates are kept or A is sparse.
inline void srht_direct(const DenseMatrix& a, const SrhtMap& m, double* out,
                        int n_threads) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(m.dims));
  parallel_for(m.dims, n_threads, [&](index_t t, int) {
    double* o = out + a.n * t;
    std::fill(o, o + a.n, 0.0);
    for (index_t j = 0; j < a.d; ++j) {
      const double w = scale * m.sign[j] * hadamard_sign(m.sample[t], j);
      const double* col = a.x + a.n * j;
      for (index_t r = 0; r < a.n; ++r) o[r] += w * col[r];
    }
  }, static_cast<double>(a.n) * a.d * m.dims);
}

inline void srht_direct(const SparseRows& a, const SrhtMap& m, double* out,
                        int n_threads) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(m.dims));
  const SparseMatrix& c = a.csc;
  parallel_for(m.dims, n_threads, [&](index_t t, int) {
    double* o = out + c.n * t;
    std::fill(o, o + c.n, 0.0);
    for (index_t j = 0; j < c.d; ++j) {
      const double w = scale * m.sign[j] * hadamard_sign(m.sample[t], j);
      for (index_t q = c.p[j]; q < c.p[j + 1]; ++q) o[c.i[q]] += w * c.x[q];
    }
  }, static_cast<double>(a.csc.nnz()) * m.dims);
}

inline double stored_values(const DenseMatrix& a) {
  return static_cast<double>(a.n) * static_cast<double>(a.d);
}
inline double stored_values(const SparseRows& a) {
  return static_cast<double>(a.csc.nnz());
}
}  // namespace detail

template <class Rows>
void srht_project(const Rows& a, const SrhtMap& m, double* out, int n_threads) {
  if (a.d != m.d) throw std::invalid_argument("srht: wrong number of columns");
  // Cost of the direct sum vs the fast transform (n D log2 D butterflies).
  double log2d = 0.0;
  for (index_t p = 1; p < m.padded; p <<= 1) log2d += 1.0;
  const double direct = detail::stored_values(a) * static_cast<double>(m.dims);
  const double fast = static_cast<double>(a.n) * static_cast<double>(m.padded) *
                      std::max(1.0, log2d);
  if (direct <= fast) {
    detail::srht_direct(a, m, out, n_threads);
    return;
  }
  const index_t lanes = srht_lanes(m.padded);
  const index_t nb = n_blocks(a.n, lanes);
  const double scale = 1.0 / std::sqrt(static_cast<double>(m.dims));
  parallel_for_scratch<std::vector<double>>(nb, n_threads, [&](index_t b, std::vector<double>& buf) {
    buf.resize(m.padded * lanes);
    const index_t r0 = b * lanes, len = std::min(lanes, a.n - r0);
    std::fill(buf.begin() + a.d * len, buf.begin() + m.padded * len, 0.0);
    detail::fill_block(a, m, r0, len, buf.data());
    detail::fwht_lanes(buf.data(), m.padded, len);
    for (index_t t = 0; t < m.dims; ++t) {
      const double* src = buf.data() + m.sample[t] * len;
      double* o = out + a.n * t + r0;
      for (index_t r = 0; r < len; ++r) o[r] = scale * src[r];
    }
  }, fast);
}

// The projection policy (reduce/projections.hpp) of the SRHT.
struct SrhtProjection {
  static const char* name() { return "srht"; }
  template <class Matrix>
  static bool project(const Matrix& a, const ProjectionCall& c, double* out) {
    const auto& rows = row_access(a);
    srht_project(rows, SrhtMap(c.seed, a.d, c.dims), out, c.n_threads);
    return false;
  }
};

}  // namespace kmreduce

#endif  // KMREDUCE_SRHT_HPP
