// kmreduce: the statistics stats::kmeans reports, computed on the ORIGINAL
// data for a given partition: centres (means), within-cluster sums of squares,
// sizes, total sum of squares about the grand mean, and ||A||_F^2.
// Squared differences are summed directly (no ||x||^2 - ||mu||^2 cancellation);
// for sparse data the zeros of each cluster in a column are counted and add
// their squared centre (no cancellation either).
#ifndef KMREDUCE_CLUSTER_STATS_HPP
#define KMREDUCE_CLUSTER_STATS_HPP

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/memory.hpp"
#include "../kernels/products.hpp"
#include "../data/row_source.hpp"

namespace kmreduce {

struct ClusterStats {
  std::vector<double> centres;   // k x d, column-major
  std::vector<double> withinss;  // k
  std::vector<index_t> size;     // k
  double totss = 0.0;
  double sumsq = 0.0;            // ||A||_F^2
  std::vector<double> weight;    // k: each cluster's sum of the observation
                                 // weights (weighted statistics only)
};

namespace detail {
inline void check_labels(const int* label, index_t n, index_t k,
                         std::vector<index_t>& size) {
  size.assign(k, 0);
  for (index_t r = 0; r < n; ++r) {
    if (label[r] < 0 || label[r] >= k)
      throw std::invalid_argument("cluster labels must be in [0, k)");
    ++size[label[r]];
  }
}

// Per-column parts (k x d and d) summed serially over columns: deterministic.
inline void finish(ClusterStats& s, const std::vector<double>& wpart,
                   const std::vector<double>& tpart,
                   const std::vector<double>& spart, index_t k, index_t d) {
  s.withinss.assign(k, 0.0);
  for (index_t j = 0; j < d; ++j) {
    for (index_t q = 0; q < k; ++q) s.withinss[q] += wpart[q + k * j];
    s.totss += tpart[j];
    s.sumsq += spart[j];
  }
  // Sparse sums are corrections that may round slightly below zero.
  for (double& w : s.withinss) w = std::max(0.0, w);
  s.totss = std::max(0.0, s.totss);
}
// For s.centres the cluster means (k <= 16 on AVX-512): each row's squared
// distance to its centre and to the column means in one pass by row blocks
// (row_deviations); withinss are the rows' distances summed in row order, as
// stats::kmeans does; also totss and ||A||_F^2.
inline void deviations(const DenseMatrix& a, const int* label, index_t k,
                       ClusterStats& s, int n_threads) {
  const index_t n = a.n, d = a.d;
  std::vector<double> mean(d, 0.0), dist = rows_array(n, 0.0);
  for (index_t j = 0; j < d; ++j) {
    for (index_t q = 0; q < k; ++q)
      mean[j] += static_cast<double>(s.size[q]) * s.centres[q + k * j];
    mean[j] /= static_cast<double>(n);
  }
  s.totss = row_deviations(a.x, n, d, label, s.centres.data(), k, mean.data(),
                           dist.data(), n_threads, &s.sumsq);
  s.withinss.assign(k, 0.0);
  for (index_t r = 0; r < n; ++r) s.withinss[label[r]] += dist[r];
}

// Squared deviations of column j of sparse `a` from the centres `c` (one per
// cluster) into w (k) and from `mean` into tot: the nonzeros summed
// directly, the zeros of cluster q (size[q] minus its nonzeros in the
// column) adding zeros * c_q^2. Every term is non-negative: no cancellation
// (the form n c^2 + sum((v - c)^2 - c^2) loses every digit when the column
// sits far from zero). `nz`: scratch for k counts.
inline void sparse_deviations(const SparseMatrix& a, index_t j, const int* label,
                              const double* c, index_t k, double mean, const index_t* size,
                              std::vector<index_t>& nz, double* w, double& tot) {
  nz.assign(k, 0);
  std::fill(w, w + k, 0.0);
  double t = 0.0;
  for (index_t p = a.p[j]; p < a.p[j + 1]; ++p) {
    const int q = label[a.i[p]];
    const double e = a.x[p] - c[q], f = a.x[p] - mean;
    w[q] += e * e;
    t += f * f;
    ++nz[q];
  }
  for (index_t q = 0; q < k; ++q) w[q] += static_cast<double>(size[q] - nz[q]) * c[q] * c[q];
  tot = t + static_cast<double>(a.n - (a.p[j + 1] - a.p[j])) * mean * mean;
}

// sparse_deviations() with observation weights w (one per row): the
// nonzeros summed directly, the zeros of cluster q (weight wq[q] less its
// nonzeros' weights; none when all its rows are nonzeros in the column)
// adding their weight times c_q^2. Every term is non-negative.
inline void sparse_deviations_weighted(const SparseMatrix& a, index_t j, const int* label,
                                       const double* wrow, const double* c, index_t k,
                                       double mean, const double* wq, double wall,
                                       const index_t* size, std::vector<index_t>& nz,
                                       std::vector<double>& nzw, double* w, double& tot) {
  nz.assign(k, 0);
  nzw.assign(k, 0.0);
  std::fill(w, w + k, 0.0);
  double t = 0.0, tw = 0.0;
  for (index_t p = a.p[j]; p < a.p[j + 1]; ++p) {
    const int q = label[a.i[p]];
    const double wr = wrow[a.i[p]];
    const double e = a.x[p] - c[q], f = a.x[p] - mean;
    w[q] += wr * e * e;
    t += wr * f * f;
    ++nz[q];
    nzw[q] += wr;
    tw += wr;
  }
  for (index_t q = 0; q < k; ++q) {
    if (nz[q] < size[q]) w[q] += std::max(0.0, wq[q] - nzw[q]) * c[q] * c[q];
  }
  if (a.p[j + 1] - a.p[j] < a.n) t += std::max(0.0, wall - tw) * mean * mean;
  tot = t;
}
}  // namespace detail

// Dense: column by column (parallel over columns), each column swept twice
// while it is in cache: cluster sums (four interleaved accumulators, as
// cluster_sums), sum and sum of squares; then the squared deviations from the
// centres and from the column mean. On AVX-512 with k <= 16 the masked sums
// and the deviations by row blocks; on AVX2 (and AVX-512 with k > 16) the
// same two sweeps four columns at a time (label_stats_columns4).
inline ClusterStats cluster_stats(const DenseMatrix& a, const int* label,
                                  index_t k, int n_threads) {
  ClusterStats s;
  const index_t n = a.n, d = a.d;
  detail::check_labels(label, n, k, s.size);
  s.centres.assign(k * d, 0.0);
  std::vector<double> wpart(k * d, 0.0), tpart(d, 0.0), spart(d, 0.0);
  if (label_kernels(k)) {
    // k <= 16 on AVX-512: the cluster sums column by column (masked vector
    // adds), then the deviations by row blocks (detail::deviations).
    label_sums_columns(a.x, n, d, label, k, s.centres.data(), n_threads);
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q) {
        double& c = s.centres[q + k * j];
        c = s.size[q] > 0 ? c / static_cast<double>(s.size[q]) : 0.0;
      }
    detail::deviations(a, label, k, s, n_threads);
    return s;
  }
  if (label_kernels4()) {
    // AVX2 (and k > 16 on AVX-512): four columns at a time, the rows
    // transposed in registers (label_stats_columns4).
    label_stats_columns4(a.x, n, d, label, k, s.size.data(), s.centres.data(), wpart.data(),
                         tpart.data(), spart.data(), n_threads);
    detail::finish(s, wpart, tpart, spart, k, d);
    return s;
  }
  const double work = 2.0 * static_cast<double>(n) * d;
  parallel_for_scratch<std::vector<double>>(d, n_threads, [&](index_t j, std::vector<double>& acc) {
    acc.resize(4 * k);
    const double* col = a.x + n * j;
    std::fill(acc.begin(), acc.end(), 0.0);
    double* a0 = acc.data();
    double* a1 = a0 + k;
    double* a2 = a1 + k;
    double* a3 = a2 + k;
    // Sweep 1: cluster sums (copy r % 4, as add_by_label4), sum and sum of
    // squares (four partial sums: no chain of dependent adds).
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    double q0 = 0.0, q1 = 0.0, q2 = 0.0, q3 = 0.0;
    index_t r = 0;
    for (; r + 4 <= n; r += 4) {
      const double v0 = col[r], v1 = col[r + 1], v2 = col[r + 2], v3 = col[r + 3];
      a0[label[r]] += v0;
      a1[label[r + 1]] += v1;
      a2[label[r + 2]] += v2;
      a3[label[r + 3]] += v3;
      s0 += v0; s1 += v1; s2 += v2; s3 += v3;
      q0 += v0 * v0; q1 += v1 * v1; q2 += v2 * v2; q3 += v3 * v3;
    }
    for (; r < n; ++r) {
      a0[label[r]] += col[r];
      s0 += col[r];
      q0 += col[r] * col[r];
    }
    const double sum = ((s0 + s1) + s2) + s3;
    const double ss = ((q0 + q1) + q2) + q3;
    double* c = s.centres.data() + k * j;
    for (index_t q = 0; q < k; ++q)
      c[q] = s.size[q] > 0 ? sum4(acc.data(), k, q) / static_cast<double>(s.size[q]) : 0.0;
    const double mean = sum / static_cast<double>(n);
    // Sweep 2 (the column is in cache): squared deviations from the
    // centres, by cluster, and from the column mean.
    std::fill(acc.begin(), acc.end(), 0.0);
    double t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0;
    for (r = 0; r + 4 <= n; r += 4) {
      const double v0 = col[r], v1 = col[r + 1], v2 = col[r + 2], v3 = col[r + 3];
      const double e0 = v0 - c[label[r]], e1 = v1 - c[label[r + 1]];
      const double e2 = v2 - c[label[r + 2]], e3 = v3 - c[label[r + 3]];
      a0[label[r]] += e0 * e0;
      a1[label[r + 1]] += e1 * e1;
      a2[label[r + 2]] += e2 * e2;
      a3[label[r + 3]] += e3 * e3;
      const double f0 = v0 - mean, f1 = v1 - mean, f2 = v2 - mean, f3 = v3 - mean;
      t0 += f0 * f0; t1 += f1 * f1; t2 += f2 * f2; t3 += f3 * f3;
    }
    for (; r < n; ++r) {
      const double e = col[r] - c[label[r]], f = col[r] - mean;
      a0[label[r]] += e * e;
      t0 += f * f;
    }
    const double tot = ((t0 + t1) + t2) + t3;
    double* w = wpart.data() + k * j;
    for (index_t q = 0; q < k; ++q) w[q] = sum4(acc.data(), k, q);
    tpart[j] = tot;
    spart[j] = ss;
  }, work);
  detail::finish(s, wpart, tpart, spart, k, d);
  return s;
}

// The statistics when the centres are known to be the cluster means of these
// labels (Lloyd's centres when it stopped because no label changed): one
// pass over the data instead of two. Elsewhere (k > 16, no AVX-512) the
// general two sweeps, which recompute the means.
inline ClusterStats cluster_stats_from_means(const DenseMatrix& a,
                                            const int* label, index_t k,
                                            const double* centres,
                                            int n_threads) {
  if (!label_kernels(k)) return cluster_stats(a, label, k, n_threads);
  ClusterStats s;
  detail::check_labels(label, a.n, k, s.size);
  s.centres.assign(centres, centres + k * a.d);
  detail::deviations(a, label, k, s, n_threads);
  return s;
}

inline ClusterStats cluster_stats(const SparseMatrix& a, const int* label,
                                  index_t k, int n_threads) {
  ClusterStats s;
  const index_t n = a.n, d = a.d;
  detail::check_labels(label, n, k, s.size);
  s.centres.assign(k * d, 0.0);
  cluster_sums(a, label, k, s.centres.data(), n_threads);
  std::vector<double> wpart(k * d, 0.0), tpart(d, 0.0), spart(d, 0.0);
  parallel_for_scratch<std::vector<index_t>>(d, n_threads, [&](index_t j,
                                                               std::vector<index_t>& nz) {
    double* c = s.centres.data() + k * j;
    double* w = wpart.data() + k * j;
    for (index_t q = 0; q < k; ++q)
      c[q] = s.size[q] > 0 ? c[q] / static_cast<double>(s.size[q]) : 0.0;
    double mean = 0.0, ss = 0.0;
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
      mean += a.x[t];
      ss += a.x[t] * a.x[t];
    }
    mean /= static_cast<double>(n);
    detail::sparse_deviations(a, j, label, c, k, mean, s.size.data(), nz, w, tpart[j]);
    spart[j] = ss;
  }, 2.0 * static_cast<double>(a.p[d]) + d * k);
  detail::finish(s, wpart, tpart, spart, k, d);
  return s;
}

// Streaming (row blocks of a larger matrix): the two passes of
// cluster_stats over one block each. block_moments adds the block's cluster
// sums (k x d), sizes and sum of squares; block_deviations adds the squared
// deviations from given centres (by cluster) and from the column means.
struct BlockMoments {
  std::vector<double> sums;    // k x d, column-major
  std::vector<index_t> size;   // k
  double sumsq = 0.0;
};

template <class Matrix>
BlockMoments block_moments(const Matrix& a, const int* label, index_t k,
                           int n_threads, bool with_sumsq = true) {
  BlockMoments m;
  detail::check_labels(label, a.n, k, m.size);
  m.sums.assign(k * a.d, 0.0);
  cluster_sums(a, label, k, m.sums.data(), n_threads);
  if (with_sumsq)
    for (double v : column_sqnorms(a)) m.sumsq += v;
  return m;
}

// One-pass moments of a block by cluster, with optional row weights w (or
// nullptr): sums (k x d, column-major) += sum of w_r x_r, size (k) += sum
// of w_r, sq (k) += sum of w_r ||x_r||^2. Columns in parallel; the squares
// are summed per column and then over the columns in order (the same for
// every thread count). Dense or sparse (stored values only) columns.
namespace detail {
// Column j's terms into s (k) and q (k).
inline void label_moments_column(const DenseMatrix& a, index_t j, const int* label,
                                 const double* w, double* s, double* q) {
  const double* col = a.x + a.n * j;
  for (index_t r = 0; r < a.n; ++r) {
    const int c = label[r];
    const double x = col[r], wx = w != nullptr ? w[r] * x : x;
    s[c] += wx;
    q[c] += wx * x;
  }
}
inline void label_moments_column(const SparseMatrix& a, index_t j, const int* label,
                                 const double* w, double* s, double* q) {
  for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
    const index_t r = a.i[t];
    const int c = label[r];
    const double x = a.x[t], wx = w != nullptr ? w[r] * x : x;
    s[c] += wx;
    q[c] += wx * x;
  }
}
inline double stored_count(const DenseMatrix& a) {
  return static_cast<double>(a.n) * static_cast<double>(a.d);
}
inline double stored_count(const SparseMatrix& a) { return static_cast<double>(a.nnz()); }
}  // namespace detail

template <class Matrix>
void label_moments(const Matrix& a, const int* label, const double* w, index_t k,
                   double* sums, double* size, double* sq, int n_threads) {
  std::vector<index_t> counts;
  detail::check_labels(label, a.n, k, counts);
  for (index_t r = 0; r < a.n; ++r) size[label[r]] += w != nullptr ? w[r] : 1.0;
  std::vector<double> qpart(static_cast<std::size_t>(k * a.d), 0.0);
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    detail::label_moments_column(a, j, label, w, sums + k * j, qpart.data() + k * j);
  }, 2.0 * detail::stored_count(a));
  for (index_t j = 0; j < a.d; ++j)
    for (index_t c = 0; c < k; ++c) sq[c] += qpart[c + k * j];
}

struct BlockDeviations {
  std::vector<double> withinss;  // k
  double totss = 0.0;
};

inline BlockDeviations block_deviations(const DenseMatrix& a, const int* label,
                                        const double* centres, index_t k,
                                        const double* mean) {
  BlockDeviations out;
  std::vector<index_t> size;
  detail::check_labels(label, a.n, k, size);
  out.withinss.assign(k, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    const double* c = centres + k * j;
    double t = 0.0;
    for (index_t r = 0; r < a.n; ++r) {
      const double e = col[r] - c[label[r]], f = col[r] - mean[j];
      out.withinss[label[r]] += e * e;
      t += f * f;
    }
    out.totss += t;
  }
  return out;
}

// Sparse: the zeros of a column contribute c^2 to their cluster and mean^2
// to the total, counted as in cluster_stats.
inline BlockDeviations block_deviations(const SparseMatrix& a, const int* label,
                                        const double* centres, index_t k,
                                        const double* mean) {
  BlockDeviations out;
  std::vector<index_t> size, nz;
  detail::check_labels(label, a.n, k, size);
  out.withinss.assign(k, 0.0);
  std::vector<double> w(k);
  for (index_t j = 0; j < a.d; ++j) {
    double t = 0.0;
    detail::sparse_deviations(a, j, label, centres + k * j, k, mean[j], size.data(), nz,
                              w.data(), t);
    for (index_t q = 0; q < k; ++q) out.withinss[q] += w[q];
    out.totss += t;
  }
  return out;
}

// The statistics of a partition of rows read block by block (an
// out-of-core matrix) or spread over processes (Combine, row_source.hpp):
// the two passes of cluster_stats with block_moments and block_deviations
// on each block (src.visit_blocks(f): f(matrix block, first row)), the
// per-block parts summed, then across processes.
template <class Source, class Combine = LocalCombine>
ClusterStats cluster_stats_blocks(const Source& src, const int* label, index_t k,
                                  int n_threads, const Combine& combine = Combine()) {
  const index_t d = src.d();
  std::vector<double> acc(k * d + k + 1, 0.0);  // sums, sizes, sum of squares
  src.visit_blocks([&](const auto& a, index_t r0) {
    const BlockMoments m = block_moments(a, label + r0, k, n_threads, true);
    for (index_t t = 0; t < k * d; ++t) acc[t] += m.sums[t];
    for (index_t q = 0; q < k; ++q) acc[k * d + q] += static_cast<double>(m.size[q]);
    acc[k * d + k] += m.sumsq;
  });
  combine.sum(acc.data(), static_cast<index_t>(acc.size()));
  ClusterStats s;
  s.size.assign(k, 0);
  s.centres.assign(k * d, 0.0);
  std::vector<double> mean(d, 0.0);
  const double n_all = static_cast<double>(combine.total_rows(src.n()));
  for (index_t q = 0; q < k; ++q) s.size[q] = static_cast<index_t>(acc[k * d + q]);
  for (index_t j = 0; j < d; ++j) {
    for (index_t q = 0; q < k; ++q) {
      const double sum = acc[q + k * j];
      mean[j] += sum;
      s.centres[q + k * j] = s.size[q] > 0 ? sum / static_cast<double>(s.size[q]) : sum;
    }
    mean[j] /= n_all;
  }
  s.sumsq = acc[k * d + k];
  std::vector<double> dev(k + 1, 0.0);  // withinss, totss
  src.visit_blocks([&](const auto& a, index_t r0) {
    const BlockDeviations v = block_deviations(a, label + r0, s.centres.data(), k, mean.data());
    for (index_t q = 0; q < k; ++q) dev[q] += v.withinss[q];
    dev[k] += v.totss;
  });
  combine.sum(dev.data(), k + 1);
  s.withinss.assign(dev.begin(), dev.begin() + k);
  s.totss = dev[k];
  return s;
}

// ---------------------------------------------------------------------------
// Weighted statistics (observation weights w, one positive weight per row):
// centres are the weighted means, withinss[q] = sum_{r in q} w_r ||x_r - c_q||^2,
// totss = sum_r w_r ||x_r - m||^2 about the weighted grand mean m, sumsq =
// sum_r w_r ||x_r||^2; `size` counts rows and `weight` holds each cluster's
// sum of weights. For whole weights, the statistics of the rows repeated.
// Column by column (parallel over columns), each column in a fixed order.
namespace detail {
inline void label_weight_sums(const int* label, const double* w, index_t n, index_t k,
                              ClusterStats& s, double& total) {
  s.weight.assign(k, 0.0);
  total = 0.0;
  for (index_t r = 0; r < n; ++r) {
    s.weight[label[r]] += w[r];
    total += w[r];
  }
}
}  // namespace detail

inline ClusterStats cluster_stats_weighted(const DenseMatrix& a, const int* label, index_t k,
                                           const double* w, int n_threads) {
  ClusterStats s;
  const index_t n = a.n, d = a.d;
  detail::check_labels(label, n, k, s.size);
  double wall = 0.0;
  detail::label_weight_sums(label, w, n, k, s, wall);
  s.centres.assign(k * d, 0.0);
  std::vector<double> wpart(k * d, 0.0), tpart(d, 0.0), spart(d, 0.0);
  parallel_for_scratch<std::vector<double>>(d, n_threads, [&](index_t j, std::vector<double>& acc) {
    acc.assign(4 * k, 0.0);
    const double* col = a.x + n * j;
    // Sweep 1: weighted cluster sums, weighted sum and sum of squares.
    add_by_label4(n, label, k, acc.data(), [=](index_t r) { return w[r] * col[r]; });
    double sum = 0.0, ss = 0.0;
    for (index_t r = 0; r < n; ++r) {
      sum += w[r] * col[r];
      ss += w[r] * col[r] * col[r];
    }
    double* c = s.centres.data() + k * j;
    for (index_t q = 0; q < k; ++q)
      c[q] = s.weight[q] > 0.0 ? sum4(acc.data(), k, q) / s.weight[q] : 0.0;
    const double mean = sum / wall;
    // Sweep 2: weighted squared deviations from the centres and the mean.
    std::fill(acc.begin(), acc.end(), 0.0);
    add_by_label4(n, label, k, acc.data(), [=](index_t r) {
      const double e = col[r] - c[label[r]];
      return w[r] * e * e;
    });
    double tot = 0.0;
    for (index_t r = 0; r < n; ++r) tot += w[r] * (col[r] - mean) * (col[r] - mean);
    double* wp = wpart.data() + k * j;
    for (index_t q = 0; q < k; ++q) wp[q] = sum4(acc.data(), k, q);
    tpart[j] = tot;
    spart[j] = ss;
  }, 4.0 * static_cast<double>(n) * d);
  detail::finish(s, wpart, tpart, spart, k, d);
  return s;
}

// Sparse: the zeros of column j in cluster q contribute their weight times
// c^2, each term non-negative (detail::sparse_deviations_weighted()).
inline ClusterStats cluster_stats_weighted(const SparseMatrix& a, const int* label, index_t k,
                                           const double* w, int n_threads) {
  ClusterStats s;
  const index_t n = a.n, d = a.d;
  detail::check_labels(label, n, k, s.size);
  double wall = 0.0;
  detail::label_weight_sums(label, w, n, k, s, wall);
  s.centres.assign(k * d, 0.0);
  weighted_cluster_sums(a, label, w, k, s.centres.data(), n_threads);
  std::vector<double> wpart(k * d, 0.0), tpart(d, 0.0), spart(d, 0.0);
  parallel_for(d, n_threads, [&](index_t j, int) {
    double* c = s.centres.data() + k * j;
    double* wp = wpart.data() + k * j;
    for (index_t q = 0; q < k; ++q) {
      c[q] = s.weight[q] > 0.0 ? c[q] / s.weight[q] : 0.0;
    }
    double mean = 0.0, ss = 0.0;
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
      const double wr = w[a.i[t]];
      mean += wr * a.x[t];
      ss += wr * a.x[t] * a.x[t];
    }
    mean /= wall;
    double tot = 0.0;
    std::vector<index_t> nz;
    std::vector<double> nzw;
    detail::sparse_deviations_weighted(a, j, label, w, c, k, mean, s.weight.data(), wall,
                                       s.size.data(), nz, nzw, wp, tot);
    tpart[j] = tot;
    spart[j] = ss;
  }, 4.0 * static_cast<double>(a.p[d]) + d * k);
  detail::finish(s, wpart, tpart, spart, k, d);
  return s;
}

// cluster_stats_blocks() with weights (one per row of the source, global
// row order): the weighted statistics of rows read block by block.
namespace detail {
inline void weighted_deviations(const DenseMatrix& a, const int* label, const double* w,
                                const double* centres, index_t k, const double* mean,
                                double* withinss, double& totss) {
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    const double* c = centres + k * j;
    double t = 0.0;
    for (index_t r = 0; r < a.n; ++r) {
      const double e = col[r] - c[label[r]], f = col[r] - mean[j];
      withinss[label[r]] += w[r] * e * e;
      t += w[r] * f * f;
    }
    totss += t;
  }
}
inline void weighted_deviations(const SparseMatrix& a, const int* label, const double* w,
                                const double* centres, index_t k, const double* mean,
                                double* withinss, double& totss) {
  std::vector<double> wq(k, 0.0), nzw, dev(k);
  std::vector<index_t> size(k, 0), nz;
  double wall = 0.0;
  for (index_t r = 0; r < a.n; ++r) {
    wq[label[r]] += w[r];
    ++size[label[r]];
    wall += w[r];
  }
  for (index_t j = 0; j < a.d; ++j) {
    double t = 0.0;
    detail::sparse_deviations_weighted(a, j, label, w, centres + k * j, k, mean[j], wq.data(),
                                       wall, size.data(), nz, nzw, dev.data(), t);
    for (index_t q = 0; q < k; ++q) withinss[q] += dev[q];
    totss += t;
  }
}
inline double weighted_sumsq(const DenseMatrix& a, const double* w) {
  double s = 0.0;
  for (index_t j = 0; j < a.d; ++j)
    for (index_t r = 0; r < a.n; ++r) s += w[r] * a.x[r + a.n * j] * a.x[r + a.n * j];
  return s;
}
inline double weighted_sumsq(const SparseMatrix& a, const double* w) {
  double s = 0.0;
  for (index_t t = 0; t < a.nnz(); ++t) s += w[a.i[t]] * a.x[t] * a.x[t];
  return s;
}
}  // namespace detail

template <class Source, class Combine = LocalCombine>
ClusterStats cluster_stats_blocks_weighted(const Source& src, const int* label, index_t k,
                                           const double* weight, int n_threads,
                                           const Combine& combine = Combine()) {
  const index_t d = src.d();
  // weighted sums, weights, sizes, weighted sum of squares
  std::vector<double> acc(k * d + 2 * k + 1, 0.0);
  src.visit_blocks([&](const auto& a, index_t r0) {
    std::vector<index_t> size;
    detail::check_labels(label + r0, a.n, k, size);
    weighted_cluster_sums(a, label + r0, weight + r0, k, acc.data(), n_threads);
    for (index_t r = 0; r < a.n; ++r) acc[k * d + label[r0 + r]] += weight[r0 + r];
    for (index_t q = 0; q < k; ++q) acc[k * d + k + q] += static_cast<double>(size[q]);
    acc[k * d + 2 * k] += detail::weighted_sumsq(a, weight + r0);
  });
  combine.sum(acc.data(), static_cast<index_t>(acc.size()));
  ClusterStats s;
  s.size.assign(k, 0);
  s.weight.assign(acc.begin() + k * d, acc.begin() + k * d + k);
  s.centres.assign(k * d, 0.0);
  double wall = 0.0;
  for (index_t q = 0; q < k; ++q) {
    s.size[q] = static_cast<index_t>(acc[k * d + k + q]);
    wall += s.weight[q];
  }
  std::vector<double> mean(d, 0.0);
  for (index_t j = 0; j < d; ++j) {
    for (index_t q = 0; q < k; ++q) {
      const double sum = acc[q + k * j];
      mean[j] += sum;
      s.centres[q + k * j] = s.weight[q] > 0.0 ? sum / s.weight[q] : sum;
    }
    mean[j] /= wall;
  }
  s.sumsq = acc[k * d + 2 * k];
  std::vector<double> dev(k + 1, 0.0);  // withinss, totss
  src.visit_blocks([&](const auto& a, index_t r0) {
    detail::weighted_deviations(a, label + r0, weight + r0, s.centres.data(), k, mean.data(),
                                dev.data(), dev[k]);
  });
  combine.sum(dev.data(), k + 1);
  s.withinss.assign(dev.begin(), dev.begin() + k);
  for (double& v : s.withinss) v = std::max(0.0, v);
  s.totss = std::max(0.0, dev[k]);
  return s;
}

}  // namespace kmreduce

#endif  // KMREDUCE_CLUSTER_STATS_HPP
