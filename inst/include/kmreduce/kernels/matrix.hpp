// kmreduce: non-owning views of the data and the few kernels every algorithm
// needs, written once for dense (column-major, as R stores it) and once for
// sparse (compressed sparse column, as Matrix's dgCMatrix stores it).
//
// The algorithms (Lloyd, k-means++, projections, statistics) are templates
// over these two types, so each algorithm is written once.
#ifndef KMREDUCE_MATRIX_HPP
#define KMREDUCE_MATRIX_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "label_sums.hpp"
#include "nearest.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// Dense n x d matrix, column-major with leading dimension n.
struct DenseMatrix {
  const double* x;
  index_t n, d;
  DenseMatrix(const double* x_, index_t n_, index_t d_) : x(x_), n(n_), d(d_) {}
  double operator()(index_t i, index_t j) const { return x[i + n * j]; }
};

// Sparse n x d matrix in CSC form (0-based), e.g. a dgCMatrix's slots p, i, x.
// A row-major copy of the index structure (CSR) is built on demand by the
// algorithms that walk rows (see SparseRows below).
struct SparseMatrix {
  const int* p;  // d + 1 column pointers
  const int* i;  // row indices
  const double* x;
  index_t n, d;
  SparseMatrix(const int* p_, const int* i_, const double* x_, index_t n_,
               index_t d_)
      : p(p_), i(i_), x(x_), n(n_), d(d_) {}
  index_t nnz() const { return static_cast<index_t>(p[d]); }
};

// CSR copy of a SparseMatrix (O(nnz) memory), for row-wise kernels.
struct SparseRows {
  const SparseMatrix& csc;
  index_t n, d;
  std::vector<index_t> rp;  // n + 1
  std::vector<int> cj;      // column of each entry
  std::vector<double> v;
  explicit SparseRows(const SparseMatrix& a) : csc(a), n(a.n), d(a.d) {
    const index_t nnz = a.nnz();
    rp.assign(n + 1, 0);
    for (index_t t = 0; t < nnz; ++t) ++rp[a.i[t] + 1];
    for (index_t r = 0; r < n; ++r) rp[r + 1] += rp[r];
    cj.resize(nnz);
    v.resize(nnz);
    std::vector<index_t> pos(rp.begin(), rp.end() - 1);
    for (index_t j = 0; j < d; ++j) {
      for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
        const index_t dst = pos[a.i[t]]++;
        cj[dst] = static_cast<int>(j);
        v[dst] = a.x[t];
      }
    }
  }
};

// Squared norms of the k centres (k x d, column-major).
inline std::vector<double> centre_sqnorms(const double* c, index_t k, index_t d) {
  std::vector<double> out(k, 0.0);
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q) out[q] += c[q + k * j] * c[q + k * j];
  return out;
}

// acc[label[r]] += v(r) for r < n, the rows spread over four copies of acc
// (acc[0..k), acc[k..2k), ...) so that rows of one cluster do not form a
// chain of dependent adds; returns nothing, the caller sums the copies.
template <class Value>
inline void add_by_label4(index_t n, const int* label, index_t k, double* acc,
                          Value v) {
  double* a0 = acc;
  double* a1 = a0 + k;
  double* a2 = a1 + k;
  double* a3 = a2 + k;
  index_t r = 0;
  for (; r + 4 <= n; r += 4) {
    a0[label[r]] += v(r);
    a1[label[r + 1]] += v(r + 1);
    a2[label[r + 2]] += v(r + 2);
    a3[label[r + 3]] += v(r + 3);
  }
  for (; r < n; ++r) a0[label[r]] += v(r);
}

// The form of a matrix that row-wise algorithms (Lloyd, k-means++) take:
// dense data as it is, sparse data as a CSR copy of its structure.
inline const DenseMatrix& row_access(const DenseMatrix& a) { return a; }
inline SparseRows row_access(const SparseMatrix& a) { return SparseRows(a); }

// ---------------------------------------------------------------------------
// Squared Euclidean norm of every row.
inline void row_sqnorms(const DenseMatrix& a, double* out, int n_threads) {
  const index_t nb = n_blocks(a.n, kRowBlock);
  parallel_for(nb, n_threads, [&](index_t b, int) {
    const index_t r0 = b * kRowBlock, r1 = std::min(a.n, r0 + kRowBlock);
    for (index_t r = r0; r < r1; ++r) out[r] = 0.0;
    for (index_t j = 0; j < a.d; ++j) {
      const double* col = a.x + a.n * j;
      for (index_t r = r0; r < r1; ++r) out[r] += col[r] * col[r];
    }
  }, static_cast<double>(a.n) * a.d);
}

inline void row_sqnorms(const SparseRows& a, double* out, int n_threads) {
  const index_t nb = n_blocks(a.n, kRowBlock);
  parallel_for(nb, n_threads, [&](index_t b, int) {
    const index_t r1 = std::min(a.n, (b + 1) * kRowBlock);
    for (index_t r = b * kRowBlock; r < r1; ++r) {
      double s = 0.0;
      for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t) s += a.v[t] * a.v[t];
      out[r] = s;
    }
  }, static_cast<double>(a.rp[a.n]));
}

// out (nb x k, column-major) = rows [r0, r1) of A times C^T, where C is the
// k x d centre matrix stored column-major (R's layout). Single-threaded: the
// callers parallelise over blocks.
// Squared row norms: computed into `store`, or (packed rows, packed.hpp)
// the ones the data already hold, without a copy.
template <class Data>
const double* row_sqnorms_of(const Data& a, std::vector<double>& store, int n_threads) {
  assign_rows(store, static_cast<std::size_t>(a.n), 0.0);
  row_sqnorms(a, store.data(), n_threads);
  return store.data();
}

// The shift the rows are minus (Lloyd rounds its centres to it; packed.hpp):
// none for rows held as they are.
template <class Data>
const double* rows_shift(const Data& /*a*/) {
  return nullptr;
}

// The centres as cross_block() takes them during one pass over the rows:
// prepare_centres() once before the pass, then every block reads them. Rows
// kept in another precision (single.hpp) convert the centres here, once.
struct CentreView {
  const double* c;
  std::vector<float> f;  // (single-precision rows: the centres scaled, in float)
  int exponent = 0;      // (and the power of two they were divided by)
};
template <class Data>
CentreView prepare_centres(const Data& /*a*/, const double* c, index_t /*k*/) {
  return CentreView{c, {}, 0};
}
template <class Data>
void cross_block(const Data& a, index_t r0, index_t r1, const CentreView& cv, index_t k,
                 double* out) {
  cross_block(a, r0, r1, cv.c, k, out);
}
// The nearest centre of rows [r0, r1) (by ||c||^2 - 2 x.c: best), the
// second nearest (unless second is null) and the label, as cross_block()
// then two_nearest() give them, computed without writing the products out
// where the rows' form has such a kernel (packed.hpp); false where not.
template <class Data>
bool nearest_block(const Data& /*a*/, index_t /*r0*/, index_t /*r1*/, const CentreView& /*cv*/,
                   const double* /*cnorm*/, index_t /*k*/, double* /*best*/,
                   double* /*second*/, int* /*which*/) {
  return false;
}
// Rows [r0, r1) are about to be read piecewise: forms that pack rows as
// they are read pack them now in one go (packed.hpp); others need nothing.
template <class Data>
void pack_ahead(const Data& /*a*/, index_t /*r0*/, index_t /*r1*/) {}

// A relative bound on the rounding of the products of cross_block(), for
// tests that must not miss a row by rounding (times ||x||^2 + ||c||^2).
template <class Data>
double product_slack(const Data& /*a*/) {
  return 1e-9;
}

inline void cross_block(const DenseMatrix& a, index_t r0, index_t r1,
                        const double* c, index_t k, double* out) {
  cross_product_block(a.x, a.n, a.d, r0, r1, c, k, out);
}

inline void cross_block(const SparseRows& a, index_t r0, index_t r1,
                        const double* c, index_t k, double* out) {
  const index_t nb = r1 - r0;
  std::fill(out, out + nb * k, 0.0);
  for (index_t r = r0; r < r1; ++r) {
    double* o = out + (r - r0);
    for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t) {
      const double v = a.v[t];
      const double* cc = c + k * static_cast<index_t>(a.cj[t]);
      for (index_t q = 0; q < k; ++q) o[nb * q] += v * cc[q];
    }
  }
}

// sums (k x d, column-major) += per-cluster sums of the rows of A. Parallel
// over columns; within a column, row r adds into accumulator copy r % 4 (no
// long chains of dependent adds to one cluster), and the copies are summed in
// a fixed order: deterministic.
inline void cluster_sums(const DenseMatrix& a, const int* label, index_t k,
                         double* sums, int n_threads) {
  if (label_kernels(k)) {  // k <= 16 on AVX-512: masked vector sums
    label_sums_columns(a.x, a.n, a.d, label, k, sums, n_threads);
    return;
  }
  if (label_kernels4()) {  // AVX2: four columns at a time
    label_sums_columns4(a.x, a.n, a.d, label, k, sums, n_threads);
    return;
  }
  const double work = static_cast<double>(a.n) * a.d;
  parallel_for_scratch<std::vector<double>>(a.d, n_threads, [&](index_t j, std::vector<double>& acc) {
    acc.assign(4 * k, 0.0);
    const double* col = a.x + a.n * j;
    add_by_label4(a.n, label, k, acc.data(), [col](index_t r) { return col[r]; });
    double* s = sums + k * j;
    for (index_t q = 0; q < k; ++q) s[q] += sum4(acc.data(), k, q);
  }, work);
}

inline void cluster_sums(const SparseMatrix& a, const int* label, index_t k,
                         double* sums, int n_threads) {
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    double* s = sums + k * j;
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) s[label[a.i[t]]] += a.x[t];
  }, static_cast<double>(a.p[a.d]));
}
inline void cluster_sums(const SparseRows& a, const int* label, index_t k,
                         double* sums, int n_threads) {
  cluster_sums(a.csc, label, k, sums, n_threads);
}

// For each row r in `rows` (increasing): sums[to[r]] += row r and
// sums[from[r]] -= row r (sums k x d, column-major). Deterministic.
inline void move_rows(const DenseMatrix& a, const std::vector<index_t>& rows,
                      const int* from, const int* to, index_t k, double* sums,
                      int n_threads) {
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    const double* col = a.x + a.n * j;
    double* s = sums + k * j;
    for (index_t r : rows) {
      s[to[r]] += col[r];
      s[from[r]] -= col[r];
    }
  }, 4.0 * static_cast<double>(rows.size()) * a.d);
}

inline void move_rows(const SparseRows& a, const std::vector<index_t>& rows,
                      const int* from, const int* to, index_t k, double* sums,
                      int /*n_threads*/) {
  for (index_t r : rows) {
    for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t) {
      double* s = sums + k * static_cast<index_t>(a.cj[t]);
      s[to[r]] += a.v[t];
      s[from[r]] -= a.v[t];
    }
  }
}

// Column means of A (length d), each column summed in row order (the same
// result for every thread count); parallel over columns.
inline void column_means(const DenseMatrix& a, double* out, int n_threads) {
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    const double* col = a.x + a.n * j;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    index_t r = 0;
    for (; r + 4 <= a.n; r += 4) {
      s0 += col[r];
      s1 += col[r + 1];
      s2 += col[r + 2];
      s3 += col[r + 3];
    }
    for (; r < a.n; ++r) s0 += col[r];
    out[j] = a.n > 0 ? ((s0 + s1) + (s2 + s3)) / static_cast<double>(a.n) : 0.0;
  }, static_cast<double>(a.n) * a.d);
}

// Row r of A, written densely into out (length d).
inline void get_row(const DenseMatrix& a, index_t r, double* out) {
  for (index_t j = 0; j < a.d; ++j) out[j] = a.x[r + a.n * j];
}
inline void get_row(const SparseRows& a, index_t r, double* out) {
  std::fill(out, out + a.d, 0.0);
  for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t) out[a.cj[t]] = a.v[t];
}

// ---------------------------------------------------------------------------
// Observation weights (kmeans_reduced(weights = )): the algorithms take them
// as an optional pointer, one positive weight per row (nullptr: every row
// has weight 1 and the unweighted kernels above run). The weighted kernels
// are plain loops in a fixed order, the same for every thread count.

// sums (k x d, column-major) += per-cluster sums of w[r] (x[r, ] - shift):
// as cluster_sums(), masked vector sums for k <= 16 on AVX-512, otherwise
// parallel over columns, within a column the rows in four accumulator
// copies (r % 4) summed in a fixed order.
inline void weighted_cluster_sums(const DenseMatrix& a, const int* label, const double* w,
                                  index_t k, double* sums, int n_threads,
                                  const double* shift = nullptr) {
  if (label_kernels(k)) {  // k <= 16 on AVX-512: masked vector sums
    label_sums_columns(a.x, a.n, a.d, label, k, sums, n_threads, w, shift);
    return;
  }
  if (label_kernels4()) {  // AVX2: four columns at a time
    label_sums_columns4(a.x, a.n, a.d, label, k, sums, n_threads, w, shift);
    return;
  }
  const double work = 2.0 * static_cast<double>(a.n) * a.d;
  parallel_for_scratch<std::vector<double>>(a.d, n_threads, [&](index_t j, std::vector<double>& acc) {
    acc.assign(4 * k, 0.0);
    const double* col = a.x + a.n * j;
    const double sj = shift != nullptr ? shift[j] : 0.0;
    if (shift != nullptr) {
      add_by_label4(a.n, label, k, acc.data(), [=](index_t r) { return w[r] * (col[r] - sj); });
    } else {
      add_by_label4(a.n, label, k, acc.data(), [=](index_t r) { return w[r] * col[r]; });
    }
    double* s = sums + k * j;
    for (index_t q = 0; q < k; ++q) s[q] += sum4(acc.data(), k, q);
  }, work);
}
inline void weighted_cluster_sums(const SparseMatrix& a, const int* label, const double* w,
                                  index_t k, double* sums, int n_threads) {
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    double* s = sums + k * j;
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) s[label[a.i[t]]] += w[a.i[t]] * a.x[t];
  }, 2.0 * static_cast<double>(a.p[a.d]));
}
inline void weighted_cluster_sums(const SparseRows& a, const int* label, const double* w,
                                  index_t k, double* sums, int n_threads) {
  weighted_cluster_sums(a.csc, label, w, k, sums, n_threads);
}

// out (k) = the sum of the weights of each cluster: runs of rows on the
// threads, the runs' sums added in run order (the same for every thread
// count).
inline void label_weights(const int* label, const double* w, index_t n, index_t k,
                          double* out, int n_threads = 1) {
  constexpr index_t run = 1 << 18;
  const index_t nb = n_blocks(n, run);
  std::vector<double> part(static_cast<std::size_t>(nb * k), 0.0);
  parallel_for(nb, n_threads, [&](index_t b, int) {
    double* c = part.data() + b * k;
    for (index_t r = b * run; r < std::min(n, (b + 1) * run); ++r) c[label[r]] += w[r];
  }, static_cast<double>(n));
  std::fill(out, out + k, 0.0);
  for (index_t b = 0; b < nb; ++b)
    for (index_t q = 0; q < k; ++q) out[q] += part[b * k + q];
}

// The sum of w[r] v[r] over n values, in four partial sums (as
// sum_of_min(): no chain of dependent additions; a fixed order).
inline double weighted_sum(const double* w, const double* v, index_t n) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  index_t r = 0;
  for (; r + 4 <= n; r += 4)
    for (int l = 0; l < 4; ++l) s[l] += w[r + l] * v[r + l];
  for (; r < n; ++r) s[r % 4] += w[r] * v[r];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// Weighted column means of A (length d): sum_r w[r] a[r, j] / sum_r w[r],
// each column in row order (four partial sums); parallel over columns.
inline void weighted_column_means(const DenseMatrix& a, const double* w, double* out,
                                  int n_threads) {
  double total = 0.0;
  for (index_t r = 0; r < a.n; ++r) total += w[r];
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    out[j] = weighted_sum(w, a.x + a.n * j, a.n) / total;
  }, 2.0 * static_cast<double>(a.n) * a.d);
}

}  // namespace kmreduce

#endif  // KMREDUCE_MATRIX_HPP
