// kmreduce: the passes over a source of blocks that keep or map its rows
// (the reduced rows, a sample of the rows, the library sizes). A pass reads
// the blocks of `block` rows of 0..n in turn through read(r0, r1, g), which
// calls g(a) with rows [r0, r1) as a DenseMatrix or a SparseMatrix (the glue
// reads them through R: src/sources.h::RBlockSource), and holds one block at
// a time plus what it returns. The arithmetic on a block is that of the
// same rows in memory (the kernels work row by row), so the numbers are
// those of the rows in memory, whatever the blocks.
#ifndef KMREDUCE_BLOCK_PASSES_HPP
#define KMREDUCE_BLOCK_PASSES_HPP

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// Calls f(a, r0, first, last) for each block read, [first, last) the
// positions in `index` (increasing rows, 0-based) of the rows the block
// holds; `every` false: a block holding none of them is not read. The
// interrupt check runs between blocks (on the calling thread).
template <class Read, class F>
void block_pass(index_t n, index_t block, const std::vector<index_t>& index, bool every,
                Read&& read, F&& f, const InterruptCheck& check = InterruptCheck()) {
  if (block < 1) throw std::invalid_argument("blocks of at least one row");
  std::size_t at = 0;
  for (index_t r0 = 0; r0 < n; r0 += block) {
    const index_t r1 = std::min(n, r0 + block);
    std::size_t end = at;
    while (end < index.size() && index[end] < r1) ++end;
    if (every || end > at) {
      read(r0, r1, [&](const auto& a) {
        if (a.n != r1 - r0) throw std::invalid_argument("a block of rows has the wrong shape");
        f(a, r0, at, end);
      });
      check_interrupt(check);
    }
    at = end;
  }
}

// `index` checked: increasing rows of 0..n-1.
inline void check_row_index(const std::vector<index_t>& index, index_t n) {
  for (std::size_t t = 0; t < index.size(); ++t) {
    if (index[t] < 0 || index[t] >= n || (t > 0 && index[t] <= index[t - 1]))
      throw std::invalid_argument("the rows must be increasing, each in 1..n");
  }
}

// Rows r0.. of `out` (n x m, column-major) set to `part` (rows x m).
inline void put_block_rows(const double* part, index_t rows, index_t m, double* out, index_t n,
                           index_t r0) {
  for (index_t j = 0; j < m; ++j)
    std::copy(part + rows * j, part + rows * (j + 1), out + n * j + r0);
}

// The rows of a source mapped block by block: map(a, part) writes the
// a.n x m mapped rows of the block `a` to `part` (zeros on entry, as a new
// matrix of R), and they go to their rows of `out` (n x m, column-major).
template <class Read, class Map>
void map_block_rows(index_t n, index_t block, index_t m, Read&& read, Map&& map, double* out,
                    const InterruptCheck& check = InterruptCheck()) {
  std::vector<double> part;
  block_pass(n, block, {}, true, read, [&](const auto& a, index_t r0, std::size_t, std::size_t) {
    part.assign(static_cast<std::size_t>(a.n) * m, 0.0);
    map(a, part.data());
    put_block_rows(part.data(), a.n, m, out, n, r0);
  }, check);
}

// The sum of each row of a block, added column by column, as R's rowSums()
// (long double for dense rows) and Matrix's (double for sparse rows) add
// them; out[a.n].
inline void block_row_sums(const DenseMatrix& a, double* out) {
  std::vector<long double> s(a.n, 0.0L);
  for (index_t j = 0; j < a.d; ++j)
    for (index_t i = 0; i < a.n; ++i) s[i] += a.x[i + a.n * j];
  for (index_t i = 0; i < a.n; ++i) out[i] = static_cast<double>(s[i]);
}
inline void block_row_sums(const SparseMatrix& a, double* out) {
  std::fill(out, out + a.n, 0.0);
  for (index_t j = 0; j < a.d; ++j)
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) out[a.i[t]] += a.x[t];
}

// Rows taken from the blocks of a pass (a sample), bound in order as rbind()
// binds them: dense rows into an m x d matrix; sparse rows as the entries
// each stores (explicit zeros kept), made a column-compressed matrix by
// sparse() at the end. A pass gives blocks of one kind.
class TakenRows {
 public:
  TakenRows(index_t m, index_t d) : m_(m), d_(d) {}
  // The rows `local` (positions in the block `a`) as rows to, to + 1, ...
  void take(const DenseMatrix& a, const index_t* local, index_t count, index_t to) {
    kind(false);
    if (dense_.empty()) dense_.assign(static_cast<std::size_t>(m_) * d_, 0.0);
    for (index_t j = 0; j < d_; ++j)
      for (index_t t = 0; t < count; ++t) dense_[(to + t) + m_ * j] = a(local[t], j);
  }
  void take(const SparseMatrix& a, const index_t* local, index_t count, index_t to) {
    kind(true);
    // (the block's rows -> their place among the taken rows, or -1)
    std::vector<index_t> place(a.n, -1);
    for (index_t t = 0; t < count; ++t) place[local[t]] = to + t;
    for (index_t j = 0; j < a.d; ++j) {
      for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
        if (place[a.i[t]] < 0) continue;
        col_.push_back(j);
        row_.push_back(place[a.i[t]]);
        val_.push_back(a.x[t]);
      }
    }
  }
  bool sparse() const { return sparse_ == 1; }
  const std::vector<double>& dense() const { return dense_; }
  // The sparse rows column-compressed: p (d + 1), i and x, each column's
  // rows increasing (the blocks come in row order; a stable sort by column).
  void compressed(std::vector<int>& p, std::vector<int>& i, std::vector<double>& x) const {
    p.assign(d_ + 1, 0);
    for (index_t c : col_) ++p[c + 1];
    for (index_t j = 0; j < d_; ++j) p[j + 1] += p[j];
    std::vector<int> next(p.begin(), p.end() - 1);
    i.resize(col_.size());
    x.resize(col_.size());
    for (std::size_t t = 0; t < col_.size(); ++t) {
      const int at = next[col_[t]]++;
      i[at] = static_cast<int>(row_[t]);
      x[at] = val_[t];
    }
  }

 private:
  void kind(bool sparse) {
    if (sparse_ >= 0 && sparse_ != static_cast<int>(sparse))
      throw std::invalid_argument("the blocks of rows must be all dense or all sparse");
    sparse_ = sparse;
  }
  index_t m_, d_;
  int sparse_ = -1;  // (unknown until the first block)
  std::vector<double> dense_;
  std::vector<index_t> col_, row_;
  std::vector<double> val_;
};

}  // namespace kmreduce

#endif  // KMREDUCE_BLOCK_PASSES_HPP
