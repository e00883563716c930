// kmreduce: the fast Johnson-Lindenstrauss transform of Ailon & Chazelle
// (2009), as section 2.5.1 of Li & Fan (2020) states it: Phi = P H D, with
// D a d x d diagonal of random signs, H the normalised Walsh-Hadamard matrix
// and P a dims x d SPARSE Gaussian matrix,
//   P_tu ~ N(0, 1/q) with probability q, 0 otherwise,
// q = min(Theta(log^2 n / d), 1). Here d is padded to D = 2^ceil(log2 d)
// with zero columns (H needs a power of two), and the map is scaled so that
// E ||x R||^2 = ||x||^2:
//   C = A R,  R = D_s H_D[1:d, ] P^T / sqrt(dims)  (d x dims),
// that is C[r, t] = sum_u P_tu (H s a_r)_u / sqrt(D dims) with H unnormalised.
//
// Two ways to compute C, chosen by their cost (both deterministic, each
// entry summed in a fixed order whatever the threads):
//   transform: each row through the Hadamard transform (D log2 D) and the
//              sparse P (q D dims), O(n (D log D + q D dims));
//   explicit:  R built column by column (one transform of each row of P),
//              then C = A R by the GEMM kernel (products.hpp), O(n d dims)
//              for dense A, O(nnz(A) dims) for sparse A.
// P's row t comes from its own stream (seed, t), so R does not depend on how
// it is computed or split into panels, nor on the threads that build it.
#ifndef KMREDUCE_FJLT_HPP
#define KMREDUCE_FJLT_HPP

#include <algorithm>
#include <cmath>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../kernels/products.hpp"
#include "../runtime/rng.hpp"
#include "projection_call.hpp"
#include "srht.hpp"

namespace kmreduce {

class FjltMap {
 public:
  index_t d, padded, dims;
  double q;
  int n_threads = 1;            // for building P and the panels of R
  std::vector<double> sign;     // d random signs (the diagonal D)
  std::vector<index_t> start;   // dims + 1: row t of P is [start[t], start[t + 1])
  std::vector<index_t> coord;   // its non-zero coordinates in 0..padded-1, increasing
                                // (empty when P is dense, q = 1: coordinate e - start[t])
  std::vector<double> value;    // P_tu / sqrt(padded * dims)

  // P is built on the threads, a row per task (row t from its own stream,
  // so the same P for any thread count), polling for a user interrupt
  // between rows; a dense P (q = 1) stores no coordinates. Running out of
  // memory is reported with the size of P.
  FjltMap(std::uint64_t seed, index_t d_, index_t dims_, double q_, int n_threads_ = 1)
      : d(d_), padded(next_pow2(d_)), dims(dims_), q(q_), n_threads(n_threads_) {
    if (d < 1 || dims < 1) throw std::invalid_argument("fjlt: dimensions must be positive");
    if (!(q > 0.0 && q <= 1.0)) throw std::invalid_argument("fjlt: density must be in (0, 1]");
    try {
      build(seed);
    } catch (const std::bad_alloc&) {
      const double gb = static_cast<double>(dims) * static_cast<double>(padded) * q *
                        (q < 1.0 ? 32.0 : 8.0) / 1073741824.0;
      throw std::runtime_error("fjlt: not enough memory for its " + std::to_string(dims) +
                               " x " + std::to_string(padded) +
                               " Gaussian matrix P (about " + std::to_string(gb).substr(0, 5) +
                               " GB); use fewer dims or a smaller control$fjlt_density");
    }
  }

  index_t coordinate(index_t t, index_t e) const {
    return coord.empty() ? e - start[t] : coord[e];
  }

  // Generator interface of project_by_panels(): columns [c0, c1) of R, one
  // column per task on the threads.
  index_t cols() const { return dims; }
  void panel(index_t c0, index_t c1, double* out) const {
    parallel_for_scratch<std::vector<double>>(c1 - c0, n_threads,
                                              [&](index_t i, std::vector<double>& buf) {
      const index_t t = c0 + i;
      buf.assign(padded, 0.0);
      for (index_t e = start[t]; e < start[t + 1]; ++e) buf[coordinate(t, e)] = value[e];
      detail::fwht_lanes(buf.data(), padded, 1);  // H symmetric: (P_t H)^T = H P_t^T
      double* o = out + d * i;
      for (index_t j = 0; j < d; ++j) o[j] = sign[j] * buf[j];
    }, static_cast<double>(c1 - c0) * static_cast<double>(padded) * 20.0);
  }
  double nonzeros() const { return static_cast<double>(value.size()); }

 private:
  void build(std::uint64_t seed) {
    const std::uint64_t key = stream_key(seed, kStreamFjlt);
    sign.resize(d);
    for (index_t j = 0; j < d; ++j)
      sign[j] = (counter_hash(key, static_cast<std::uint64_t>(j)) >> 63) ? -1.0 : 1.0;
    const double scale = 1.0 / std::sqrt(q * static_cast<double>(padded) * dims);
    const double work = static_cast<double>(padded) * dims * q * 20.0;
    start.assign(dims + 1, 0);
    if (q >= 1.0) {
      // Dense: row t is padded values drawn in order from its stream.
      for (index_t t = 0; t <= dims; ++t) start[t] = t * padded;
      value.resize(static_cast<std::size_t>(dims * padded));
      parallel_for(dims, n_threads, [&](index_t t, int) {
        Rng rng(stream_key(seed, kStreamFjlt, static_cast<std::uint64_t>(t) + 1));
        double* v = value.data() + t * padded;
        for (index_t u = 0; u < padded; ++u) v[u] = scale * rng.normal();
      }, work);
      return;
    }
    // Sparse: the gaps between a row's non-zeros are geometric, so only the
    // non-zeros are drawn; each row into its own arrays, then put together.
    const double log1mq = std::log1p(-q);
    std::vector<std::vector<index_t>> row_coord(static_cast<std::size_t>(dims));
    std::vector<std::vector<double>> row_value(static_cast<std::size_t>(dims));
    parallel_for(dims, n_threads, [&](index_t t, int) {
      Rng rng(stream_key(seed, kStreamFjlt, static_cast<std::uint64_t>(t) + 1));
      std::vector<index_t>& c = row_coord[t];
      std::vector<double>& v = row_value[t];
      const double mean = q * static_cast<double>(padded);  // (its expected size)
      c.reserve(static_cast<std::size_t>(mean + 4.0 * std::sqrt(mean) + 8.0));
      v.reserve(c.capacity());
      index_t u = -1;
      for (;;) {
        const double gap = std::floor(std::log1p(-rng.uniform()) / log1mq);
        if (gap >= static_cast<double>(padded - 1 - u)) break;
        u += 1 + static_cast<index_t>(gap);
        c.push_back(u);
        v.push_back(scale * rng.normal());
      }
    }, work);
    for (index_t t = 0; t < dims; ++t)
      start[t + 1] = start[t] + static_cast<index_t>(row_coord[t].size());
    coord.resize(static_cast<std::size_t>(start[dims]));
    value.resize(static_cast<std::size_t>(start[dims]));
    parallel_for(dims, n_threads, [&](index_t t, int) {
      std::copy(row_coord[t].begin(), row_coord[t].end(), coord.begin() + start[t]);
      std::copy(row_value[t].begin(), row_value[t].end(), value.begin() + start[t]);
      std::vector<index_t>().swap(row_coord[t]);
      std::vector<double>().swap(row_value[t]);
    }, static_cast<double>(start[dims]));
  }
};

namespace detail {
inline double values_of(const DenseMatrix& a) {
  return static_cast<double>(a.n) * static_cast<double>(a.d);
}
inline double values_of(const SparseMatrix& a) { return static_cast<double>(a.p[a.d]); }

template <class Rows>
void fjlt_transform(const Rows& a, const FjltMap& m, double* out, int n_threads) {
  const index_t lanes = srht_lanes(m.padded);
  const index_t nb = n_blocks(a.n, lanes);
  parallel_for_scratch<std::vector<double>>(nb, n_threads, [&](index_t b, std::vector<double>& buf) {
    buf.resize(m.padded * lanes);
    const index_t r0 = b * lanes, len = std::min(lanes, a.n - r0);
    std::fill(buf.begin() + a.d * len, buf.begin() + m.padded * len, 0.0);
    fill_block(a, m, r0, len, buf.data());
    fwht_lanes(buf.data(), m.padded, len);
    for (index_t t = 0; t < m.dims; ++t) {
      double* o = out + a.n * t + r0;
      std::fill(o, o + len, 0.0);
      for (index_t e = m.start[t]; e < m.start[t + 1]; ++e) {
        const double w = m.value[e];
        const double* src = buf.data() + m.coordinate(t, e) * len;
        for (index_t r = 0; r < len; ++r) o[r] += w * src[r];
      }
    }
  }, 10.0 * static_cast<double>(a.n) * (m.padded + m.nonzeros()));
}
}  // namespace detail

// Work of the two ways, in multiply-adds; a multiply-add of the transform
// is weighted 10x one of the GEMM kernel, about what it costs against the
// blocked, vectorised product (bench/RESULTS.md, "Kernels: the FJLT's
// transform against its explicit matrix"). Building
// R (dims D log2 D) is left out, so that for dense rows the choice does not
// depend on n: blocks of rows (out of core) take the same way as all rows.
inline bool fjlt_use_transform(double stored_values, index_t n, const FjltMap& m) {
  double log2d = 0.0;
  for (index_t p = 1; p < m.padded; p <<= 1) log2d += 1.0;
  const double explicit_cost = stored_values * static_cast<double>(m.dims);
  const double transform_cost =
      10.0 * static_cast<double>(n) *
      (static_cast<double>(m.padded) * std::max(1.0, log2d) + m.nonzeros());
  return transform_cost < explicit_cost;
}

// out (n x dims, column-major) = A R for dense or sparse (CSC) A.
template <class Matrix>
void fjlt_project(const Matrix& a, const FjltMap& m, double* out, int n_threads) {
  if (a.d != m.d) throw std::invalid_argument("fjlt: wrong number of columns");
  if (fjlt_use_transform(detail::values_of(a), a.n, m)) {
    const auto& rows = row_access(a);
    detail::fjlt_transform(rows, m, out, n_threads);
  } else {
    project_by_panels(a, m, out, n_threads);
  }
}

// The projection policy (reduce/projections.hpp) of the FJLT, at the
// call's `density`.
struct FjltProjection {
  static const char* name() { return "fjlt"; }
  template <class Matrix>
  static bool project(const Matrix& a, const ProjectionCall& c, double* out) {
    fjlt_project(a, FjltMap(c.seed, a.d, c.dims, c.density, c.n_threads), out, c.n_threads);
    return false;
  }
};

}  // namespace kmreduce

#endif  // KMREDUCE_FJLT_HPP
