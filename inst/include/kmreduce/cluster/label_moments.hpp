// kmreduce: the accumulator of the statistics of a partition. Per label:
// the rows, the sum of their weights, the sums of the rows and of their
// squared norms (the moments: a first pass), then the squared deviations
// from the centres (a second pass, when the first cannot give them). Blocks
// of rows (read in blocks, or a 10x file's cells as stored) are added in
// row order, and processes combine their sums (Combine, row_source.hpp).
//
// The weights are a policy: every row counts 1 (`w` nullptr) or its own
// positive weight (one per row, in the source's order), each pass taking
// the unweighted or the weighted kernels. It is chosen at run time, so that
// each pass is compiled once per kind of source.
#ifndef KMREDUCE_LABEL_MOMENTS_HPP
#define KMREDUCE_LABEL_MOMENTS_HPP

#include <algorithm>
#include <vector>

#include "../data/cells.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/products.hpp"

namespace kmreduce {

namespace detail {
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

// The rows of each cluster in a block (labels valid: checked once by the
// caller).
inline void count_labels(const int* label, index_t n, index_t k, std::vector<index_t>& size) {
  size.assign(k, 0);
  for (index_t r = 0; r < n; ++r) ++size[label[r]];
}

// The squares of one block of rows, each weighted: every value in storage
// order.
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

// Column j's one-pass terms into s (k) and q (k) (label_moments()).
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

// The one-pass moments of a block by cluster, with optional row weights w
// (or nullptr): sums (k x d, column-major) += sum of w_r x_r, size (k) +=
// sum of w_r, sq (k) += sum of w_r ||x_r||^2. Columns in parallel; the
// squares are summed per column and then over the columns in order (the
// same for every thread count). Dense or sparse (stored values only)
// columns; cells_label_moments() (data/cells.hpp) gives the same numbers
// from a 10x file's cells as stored. Labels in [0, k).
template <class Matrix>
void label_moments(const Matrix& a, const int* label, const double* w, index_t k,
                   double* sums, double* size, double* sq, int n_threads) {
  for (index_t r = 0; r < a.n; ++r) size[label[r]] += w != nullptr ? w[r] : 1.0;
  std::vector<double> qpart(static_cast<std::size_t>(k * a.d), 0.0);
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    detail::label_moments_column(a, j, label, w, sums + k * j, qpart.data() + k * j);
  }, 2.0 * detail::stored_count(a));
  for (index_t j = 0; j < a.d; ++j)
    for (index_t c = 0; c < k; ++c) sq[c] += qpart[c + k * j];
}
template <class Value, class Index, class AsDouble>
void label_moments(const StoredCells<Value, Index, AsDouble>& a, const int* label,
                   const double* w, index_t k, double* sums, double* size, double* sq,
                   int n_threads) {
  cells_label_moments(a, label, w, k, sums, size, sq, n_threads);
}

// The moments of the rows of a source by label, summed over its blocks and
// then over processes: the first pass of the statistics. Two forms:
//   two passes: sums, weights, rows and the sum of all squares, from which
//     the centres and the grand mean come for the second pass (add_rows());
//   one pass: sums, weights, rows and each cluster's sum of squares, from
//     which the statistics come as differences (add_block_moments()).
// Unweighted, the weights are the rows. The values sit in one vector, in the
// order sums, weights (weighted), rows, then sq (one pass) or the sum of
// squares: one Combine sum for all of them.
class LabelMoments {
 public:
  LabelMoments(index_t k, index_t d, bool weighted, bool one_pass)
      : k_(k), d_(d), weighted_(weighted), one_pass_(one_pass),
        at_rows_(k * d + (weighted ? k : 0)), at_sq_(at_rows_ + k),
        v_(static_cast<std::size_t>(at_sq_ + (one_pass ? k : 1)), 0.0) {}
  index_t k() const { return k_; }
  index_t d() const { return d_; }
  bool weighted() const { return weighted_; }
  bool one_pass() const { return one_pass_; }
  double* sums() { return v_.data(); }
  const double* sums() const { return v_.data(); }
  double* weight() { return v_.data() + (weighted_ ? k_ * d_ : at_rows_); }
  const double* weight() const { return v_.data() + (weighted_ ? k_ * d_ : at_rows_); }
  double* rows() { return v_.data() + at_rows_; }
  const double* rows() const { return v_.data() + at_rows_; }
  double* sq() { return v_.data() + at_sq_; }  // one pass: k
  const double* sq() const { return v_.data() + at_sq_; }
  double& sumsq() { return v_[at_sq_]; }       // two passes
  double sumsq() const { return v_[at_sq_]; }

  // Pass 1 of two, one block (rows r0.. of the source; `label` and `w`
  // those of the block, w nullptr when unweighted): the cluster sums, the
  // weights and the sum of squares. Unweighted, the block's sums are taken
  // on their own and then added.
  template <class Matrix>
  void add_rows(const Matrix& a, const int* label, const double* w, int n_threads) {
    if (w == nullptr) {
      scratch_.assign(static_cast<std::size_t>(k_ * d_), 0.0);
      cluster_sums(a, label, k_, scratch_.data(), n_threads);
      for (index_t t = 0; t < k_ * d_; ++t) v_[t] += scratch_[t];
      double s = 0.0;
      for (double v : column_sqnorms(a)) s += v;
      sumsq() += s;
      return;
    }
    weighted_cluster_sums(a, label, w, k_, sums(), n_threads);
    for (index_t r = 0; r < a.n; ++r) weight()[label[r]] += w[r];
    sumsq() += detail::weighted_sumsq(a, w);
  }

  // The one pass, one block (label_moments() of the block, or of a 10x
  // file's cells as stored): its moments taken on their own, then added.
  template <class Block>
  void add_block_moments(const Block& a, const int* label, const double* w, int n_threads) {
    scratch_.assign(static_cast<std::size_t>(k_ * d_ + 2 * k_), 0.0);
    double* s = scratch_.data();
    double* size = s + k_ * d_;
    double* q = size + k_;
    label_moments(a, label, w, k_, s, size, q, n_threads);
    for (index_t t = 0; t < k_ * d_; ++t) v_[t] += s[t];
    if (weighted_)
      for (index_t c = 0; c < k_; ++c) weight()[c] += size[c];
    for (index_t c = 0; c < k_; ++c) sq()[c] += q[c];
  }

  // Sums every value over the processes.
  template <class Combine>
  void combine(const Combine& c) {
    c.sum(v_.data(), static_cast<index_t>(v_.size()));
  }

 private:
  index_t k_, d_;
  bool weighted_, one_pass_;
  index_t at_rows_, at_sq_;
  std::vector<double> v_;
  std::vector<double> scratch_;
};

// The second pass: each cluster's squared deviations from its centre
// (withinss, k) and the squared deviations from the grand mean (totss),
// weighted by the policy, summed over the blocks and then the processes.
class LabelDeviations {
 public:
  explicit LabelDeviations(index_t k) : k_(k), v_(static_cast<std::size_t>(k + 1), 0.0) {}
  const double* withinss() const { return v_.data(); }
  double totss() const { return v_[k_]; }

  // One block: unweighted, its deviations taken on their own, then added;
  // weighted, added as they come.
  template <class Matrix>
  void add_rows(const Matrix& a, const int* label, const double* w, const double* centres,
                const double* mean) {
    if (w == nullptr) {
      block_.assign(static_cast<std::size_t>(k_ + 1), 0.0);
      unweighted(a, label, centres, mean, block_.data(), block_[k_]);
      for (index_t q = 0; q <= k_; ++q) v_[q] += block_[q];
      return;
    }
    weighted(a, label, w, centres, mean, v_.data(), v_[k_]);
  }

  template <class Combine>
  void combine(const Combine& c) {
    c.sum(v_.data(), k_ + 1);
  }

 private:
  void unweighted(const DenseMatrix& a, const int* label, const double* centres,
                  const double* mean, double* within, double& total) const {
    for (index_t j = 0; j < a.d; ++j) {
      const double* col = a.x + a.n * j;
      const double* c = centres + k_ * j;
      double t = 0.0;
      for (index_t r = 0; r < a.n; ++r) {
        const double e = col[r] - c[label[r]], f = col[r] - mean[j];
        within[label[r]] += e * e;
        t += f * f;
      }
      total += t;
    }
  }
  // Sparse: the zeros of a column contribute c^2 to their cluster and
  // mean^2 to the total (detail::sparse_deviations()).
  void unweighted(const SparseMatrix& a, const int* label, const double* centres,
                  const double* mean, double* within, double& total) {
    detail::count_labels(label, a.n, k_, size_);
    dev_.resize(static_cast<std::size_t>(k_));
    for (index_t j = 0; j < a.d; ++j) {
      double t = 0.0;
      detail::sparse_deviations(a, j, label, centres + k_ * j, k_, mean[j], size_.data(), nz_,
                                dev_.data(), t);
      for (index_t q = 0; q < k_; ++q) within[q] += dev_[q];
      total += t;
    }
  }
  void weighted(const DenseMatrix& a, const int* label, const double* w, const double* centres,
                const double* mean, double* within, double& total) const {
    for (index_t j = 0; j < a.d; ++j) {
      const double* col = a.x + a.n * j;
      const double* c = centres + k_ * j;
      double t = 0.0;
      for (index_t r = 0; r < a.n; ++r) {
        const double e = col[r] - c[label[r]], f = col[r] - mean[j];
        within[label[r]] += w[r] * e * e;
        t += w[r] * f * f;
      }
      total += t;
    }
  }
  void weighted(const SparseMatrix& a, const int* label, const double* w, const double* centres,
                const double* mean, double* within, double& total) {
    std::vector<double> wq(k_, 0.0), nzw;
    size_.assign(k_, 0);
    double wall = 0.0;
    for (index_t r = 0; r < a.n; ++r) {
      wq[label[r]] += w[r];
      ++size_[label[r]];
      wall += w[r];
    }
    dev_.resize(static_cast<std::size_t>(k_));
    for (index_t j = 0; j < a.d; ++j) {
      double t = 0.0;
      detail::sparse_deviations_weighted(a, j, label, w, centres + k_ * j, k_, mean[j],
                                         wq.data(), wall, size_.data(), nz_, nzw, dev_.data(),
                                         t);
      for (index_t q = 0; q < k_; ++q) within[q] += dev_[q];
      total += t;
    }
  }

  index_t k_;
  std::vector<double> v_, block_, dev_;
  std::vector<index_t> size_, nz_;
};

}  // namespace kmreduce

#endif  // KMREDUCE_LABEL_MOMENTS_HPP
