// kmreduce: the statistics stats::kmeans reports, computed on the ORIGINAL
// data for a given partition: centres (means), within-cluster sums of
// squares, sizes, total sum of squares about the grand mean, and ||A||_F^2;
// with observation weights their weighted forms and each cluster's weight.
//
// One entry, cluster_stats(source, input, combine), over any row source
// (row_source.hpp: visit_blocks(), visit_stored()):
//   - rows in memory on one process: the column kernels below, which take
//     each column's moments and then its squared deviations while it is in
//     cache (on AVX-512 with k <= 16: the sums, then the deviations by row
//     blocks; Lloyd's means, when known, stand for the sums);
//   - otherwise the accumulator of label_moments.hpp: the moments of the
//     blocks by label, summed over the blocks and the processes, and ONE
//     finish (detail::finish_moments()): the centres, and either the
//     statistics as differences of the moments (one pass, for sources that
//     are costly to read again, where the differences keep the digits) or
//     the grand mean for a second pass over the squared deviations (two
//     passes; after a one pass that would lose digits, from the start).
// Squared differences are summed directly (no ||x||^2 - ||mu||^2
// cancellation) except in that one pass; for sparse data the zeros of each
// cluster in a column are counted and add their squared centre (no
// cancellation either).
#ifndef KMREDUCE_CLUSTER_STATS_HPP
#define KMREDUCE_CLUSTER_STATS_HPP

#include <algorithm>
#include <cfloat>
#include <limits>
#include <stdexcept>
#include <vector>

#include "../data/row_source.hpp"
#include "../kernels/label_sums.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/products.hpp"
#include "../runtime/memory.hpp"
#include "label_moments.hpp"

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

// What the statistics take besides the rows.
struct StatsInput {
  const int* label = nullptr;      // one per row of the source, in [0, k)
  index_t k = 0;
  const double* weight = nullptr;  // one positive weight per row, or nullptr:
                                   // every row counts 1 (the weights' policy)
  const double* means = nullptr;   // k x d: the cluster means of these labels
                                   // when known (Lloyd's centres when no label
                                   // changed), or nullptr: dense rows in memory
                                   // then skip the sums (AVX-512, k <= 16)
  bool one_pass = false;           // rows costly to read again (a file): one
                                   // pass where its differences keep the digits
  int n_threads = 1;
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

// ---------------------------------------------------------------------------
// Rows in memory on one process: column kernels.

// Per-column parts (k x d and d) summed serially over columns: deterministic.
inline void sum_columns(ClusterStats& s, const std::vector<double>& wpart,
                        const std::vector<double>& tpart, const std::vector<double>& spart,
                        index_t k, index_t d) {
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
inline void row_block_deviations(const DenseMatrix& a, const int* label, index_t k,
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

// Dense, portable: column by column (parallel over columns), each column
// swept twice while it is in cache: cluster sums (four interleaved
// accumulators, as cluster_sums), sum and sum of squares; then the squared
// deviations from the centres and from the column mean.
inline void dense_columns(const DenseMatrix& a, const int* label, index_t k, ClusterStats& s,
                          int n_threads) {
  const index_t n = a.n, d = a.d;
  std::vector<double> wpart(k * d, 0.0), tpart(d, 0.0), spart(d, 0.0);
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
  sum_columns(s, wpart, tpart, spart, k, d);
}

// Dense, unweighted. On AVX-512 with k <= 16 the masked sums (or Lloyd's
// means, given) and the deviations by row blocks; on AVX2 (and AVX-512 with
// k > 16) the two sweeps four columns at a time (label_stats_columns4);
// elsewhere dense_columns().
inline void dense_stats(const DenseMatrix& a, const int* label, index_t k,
                        const double* means, ClusterStats& s, int n_threads) {
  const index_t d = a.d;
  s.centres.assign(k * d, 0.0);
  if (label_kernels(k)) {
    if (means != nullptr) {
      s.centres.assign(means, means + k * d);
    } else {
      label_sums_columns(a.x, a.n, d, label, k, s.centres.data(), n_threads);
      for (index_t j = 0; j < d; ++j)
        for (index_t q = 0; q < k; ++q) {
          double& c = s.centres[q + k * j];
          c = s.size[q] > 0 ? c / static_cast<double>(s.size[q]) : 0.0;
        }
    }
    row_block_deviations(a, label, k, s, n_threads);
    return;
  }
  if (label_kernels4()) {
    std::vector<double> wpart(k * d, 0.0), tpart(d, 0.0), spart(d, 0.0);
    label_stats_columns4(a.x, a.n, d, label, k, s.size.data(), s.centres.data(), wpart.data(),
                         tpart.data(), spart.data(), n_threads);
    sum_columns(s, wpart, tpart, spart, k, d);
    return;
  }
  dense_columns(a, label, k, s, n_threads);
}

inline void sparse_stats(const SparseMatrix& a, const int* label, index_t k, ClusterStats& s,
                         int n_threads) {
  const index_t n = a.n, d = a.d;
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
    sparse_deviations(a, j, label, c, k, mean, s.size.data(), nz, w, tpart[j]);
    spart[j] = ss;
  }, 2.0 * static_cast<double>(a.p[d]) + d * k);
  sum_columns(s, wpart, tpart, spart, k, d);
}

// Weighted: centres are the weighted means, withinss[q] = sum_{r in q} w_r
// ||x_r - c_q||^2, totss = sum_r w_r ||x_r - m||^2 about the weighted grand
// mean m, sumsq = sum_r w_r ||x_r||^2; `size` counts rows and `weight` holds
// each cluster's sum of weights. For whole weights, the statistics of the
// rows repeated. Column by column (parallel over columns), each column in a
// fixed order.
inline void label_weight_sums(const int* label, const double* w, index_t n, index_t k,
                              ClusterStats& s, double& total) {
  s.weight.assign(k, 0.0);
  total = 0.0;
  for (index_t r = 0; r < n; ++r) {
    s.weight[label[r]] += w[r];
    total += w[r];
  }
}

inline void dense_stats_weighted(const DenseMatrix& a, const int* label, index_t k,
                                 const double* w, ClusterStats& s, int n_threads) {
  const index_t n = a.n, d = a.d;
  double wall = 0.0;
  label_weight_sums(label, w, n, k, s, wall);
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
  sum_columns(s, wpart, tpart, spart, k, d);
}

// Sparse: the zeros of column j in cluster q contribute their weight times
// c^2, each term non-negative (sparse_deviations_weighted()).
inline void sparse_stats_weighted(const SparseMatrix& a, const int* label, index_t k,
                                  const double* w, ClusterStats& s, int n_threads) {
  const index_t n = a.n, d = a.d;
  double wall = 0.0;
  label_weight_sums(label, w, n, k, s, wall);
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
    sparse_deviations_weighted(a, j, label, w, c, k, mean, s.weight.data(), wall,
                               s.size.data(), nz, nzw, wp, tot);
    tpart[j] = tot;
    spart[j] = ss;
  }, 4.0 * static_cast<double>(a.p[d]) + d * k);
  sum_columns(s, wpart, tpart, spart, k, d);
}

inline void resident_matrix_stats(const DenseMatrix& a, const StatsInput& in, ClusterStats& s) {
  if (in.weight != nullptr) {
    dense_stats_weighted(a, in.label, in.k, in.weight, s, in.n_threads);
  } else {
    dense_stats(a, in.label, in.k, in.means, s, in.n_threads);
  }
}
inline void resident_matrix_stats(const SparseMatrix& a, const StatsInput& in, ClusterStats& s) {
  if (in.weight != nullptr) {
    sparse_stats_weighted(a, in.label, in.k, in.weight, s, in.n_threads);
  } else {
    sparse_stats(a, in.label, in.k, s, in.n_threads);
  }
}

// The column kernels for rows in memory (s.size: the labels' counts);
// false for other sources.
template <class Source>
bool resident_stats(const Source&, const StatsInput&, ClusterStats&) {
  return false;
}
template <class Matrix>
bool resident_stats(const OneBlock<Matrix>& src, const StatsInput& in, ClusterStats& s) {
  resident_matrix_stats(src.matrix(), in, s);
  return true;
}

// ---------------------------------------------------------------------------
// The finish of the accumulator.

// A sum in long double to a double, as R's sum() gives it (beyond the
// largest double: infinite).
inline double extended_to_double(long double s) {
  if (s > DBL_MAX) return std::numeric_limits<double>::infinity();
  if (s < -DBL_MAX) return -std::numeric_limits<double>::infinity();
  return static_cast<double>(s);
}
inline double extended_sum(const double* v, index_t n) {
  long double s = 0.0L;
  for (index_t t = 0; t < n; ++t) s += v[t];
  return extended_to_double(s);
}

// One pass: withinss[q] = S_q - |sum_q|^2 / weight_q and totss likewise
// about the grand mean (S: the sums of squares), summed in long double as
// R's rowSums(), colSums() and sum() summed them when this step was R code
// (the same numbers), never below zero. True when they keep the digits: the
// difference loses digits when a cluster sits far from the origin against
// its spread, and where it would lose more than 4 of them (S > 10^4
// withinss, or the same for the total) the two passes are taken instead
// (cluster_stats()). Counts and log-counts sit near the origin: one pass.
inline bool one_pass_differences(const LabelMoments& m, ClusterStats& s) {
  const index_t k = m.k(), d = m.d();
  const double* sums = m.sums();
  const double* w = m.weight();
  const double* sq = m.sq();
  std::vector<long double> norm2(static_cast<std::size_t>(k), 0.0L);
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q) norm2[q] += sums[q + k * j] * sums[q + k * j];
  s.withinss.assign(k, 0.0);
  for (index_t q = 0; q < k; ++q) {
    const double between =
        w[q] > 0 ? static_cast<double>(norm2[q]) / std::max(w[q], DBL_MIN) : 0.0;
    s.withinss[q] = std::max(0.0, sq[q] - between);
  }
  long double total2 = 0.0L;
  for (index_t j = 0; j < d; ++j) {
    long double t = 0.0L;
    for (index_t q = 0; q < k; ++q) t += sums[q + k * j];
    const double column = static_cast<double>(t);
    total2 += column * column;
  }
  s.totss = std::max(0.0, s.sumsq - extended_to_double(total2) / extended_sum(w, k));
  constexpr double kMaxLoss = 1e4;  // 4 digits
  for (index_t q = 0; q < k; ++q)
    if (sq[q] > kMaxLoss * s.withinss[q] && sq[q] > 0) return false;
  return !(s.sumsq > kMaxLoss * s.totss);
}

// The one finish of the moments (summed over blocks and processes): sizes,
// weights, the centres (each cluster's sums over its weight; an empty
// cluster's zeros as they are), ||A||_F^2; then with one pass the
// statistics as differences, true when they keep the digits (done), and
// with two the grand mean of each column for the second pass (false).
inline bool finish_moments(const LabelMoments& m, ClusterStats& s, std::vector<double>& mean) {
  const index_t k = m.k(), d = m.d();
  const double* sums = m.sums();
  const double* w = m.weight();
  for (index_t q = 0; q < k; ++q) s.size[q] = static_cast<index_t>(m.rows()[q]);
  if (m.weighted()) s.weight.assign(w, w + k);
  s.centres.assign(k * d, 0.0);
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q)
      s.centres[q + k * j] = w[q] > 0.0 ? sums[q + k * j] / w[q] : sums[q + k * j];
  if (m.one_pass()) {
    s.sumsq = extended_sum(m.sq(), k);
    return one_pass_differences(m, s);
  }
  s.sumsq = m.sumsq();
  double total = 0.0;
  for (index_t q = 0; q < k; ++q) total += w[q];
  mean.assign(d, 0.0);
  for (index_t j = 0; j < d; ++j) {
    for (index_t q = 0; q < k; ++q) mean[j] += sums[q + k * j];
    mean[j] /= total;
  }
  return false;
}

// After the second pass: its sums, never below zero (sparse corrections may
// round there).
inline void finish_deviations(const LabelDeviations& v, index_t k, ClusterStats& s) {
  s.withinss.assign(v.withinss(), v.withinss() + k);
  for (double& x : s.withinss) x = std::max(0.0, x);
  s.totss = std::max(0.0, v.totss());
}

inline const double* weights_from(const StatsInput& in, index_t r0) {
  return in.weight != nullptr ? in.weight + r0 : nullptr;
}

// The first pass over the blocks of `src`, summed over the processes: the
// one pass (the blocks as stored) or the first of two. `size`: the labels'
// counts on this process.
template <class Source, class Combine>
LabelMoments first_pass(const Source& src, const StatsInput& in,
                        const std::vector<index_t>& size, bool one_pass,
                        const Combine& combine) {
  LabelMoments m(in.k, src.d(), in.weight != nullptr, one_pass);
  for (index_t q = 0; q < in.k; ++q) m.rows()[q] = static_cast<double>(size[q]);
  if (one_pass) {
    src.visit_stored([&](const auto& a, index_t r0) {
      m.add_block_moments(a, in.label + r0, weights_from(in, r0), in.n_threads);
    });
  } else {
    src.visit_blocks([&](const auto& a, index_t r0) {
      m.add_rows(a, in.label + r0, weights_from(in, r0), in.n_threads);
    });
  }
  m.combine(combine);
  return m;
}
}  // namespace detail

// The statistics of the partition `in.label` of the rows of `src`, on this
// process or, through `combine`, on all of them (collective: every process
// calls it). Rows in memory on one process: the column kernels. Otherwise
// the moments of the blocks (src.visit_blocks(f), or with one pass
// src.visit_stored(f): a 10x file's cells as stored), summed and finished;
// unless one pass gave the statistics, the two passes from the start (the
// first pass's sums, then the squared deviations of the blocks).
template <class Source, class Combine = LocalCombine>
ClusterStats cluster_stats(const Source& src, const StatsInput& in,
                           const Combine& combine = Combine()) {
  ClusterStats s;
  detail::check_labels(in.label, src.n(), in.k, s.size);
  if (combine.size() == 1 && detail::resident_stats(src, in, s)) return s;
  const std::vector<index_t> local = s.size;  // (the finish sets s.size: all processes')
  std::vector<double> mean;
  if (in.one_pass &&
      detail::finish_moments(detail::first_pass(src, in, local, true, combine), s, mean))
    return s;
  detail::finish_moments(detail::first_pass(src, in, local, false, combine), s, mean);
  LabelDeviations v(in.k);
  src.visit_blocks([&](const auto& a, index_t r0) {
    v.add_rows(a, in.label + r0, detail::weights_from(in, r0), s.centres.data(), mean.data());
  });
  v.combine(combine);
  detail::finish_deviations(v, in.k, s);
  return s;
}

}  // namespace kmreduce

#endif  // KMREDUCE_CLUSTER_STATS_HPP
