// kmreduce: where the row-wise algorithms (Lloyd) read their rows. A row
// source visits its rows chunk by chunk, in order: visit(f) calls
// f(rows, r0) for each chunk, `rows` a row-access view (packed tiles, dense
// or sparse rows: anything cross_block(), cluster_sums() and row_sqnorms()
// take) and r0 the index of its first row; row(r, out) writes one row.
//
// In memory the source is one resident chunk (ResidentRows): the algorithms
// may keep using the rows between passes (Lloyd updates its cluster sums by
// the rows that moved). An out-of-core source (a bigmemory::big.matrix, read
// by the glue block by block between calls) is not resident: every pass
// reads the blocks again, and the results are those of the resident source
// on the same rows up to the summation order of the cluster sums.
//
// A source has: n(), d(), `static constexpr bool resident`, visit(f),
// row(r, out).
#ifndef KMREDUCE_ROW_SOURCE_HPP
#define KMREDUCE_ROW_SOURCE_HPP

#include <algorithm>
#include <type_traits>
#include <vector>

#include "../kernels/matrix.hpp"

namespace kmreduce {

template <class Rows>
class ResidentRows {
 public:
  explicit ResidentRows(const Rows& rows) : rows_(rows) {}
  static constexpr bool resident = true;
  index_t n() const { return rows_.n; }
  index_t d() const { return rows_.d; }
  template <class F>
  void visit(F&& f) const {
    f(rows_, index_t(0));
  }
  void row(index_t r, double* out) const { get_row(rows_, r, out); }
  const Rows& rows() const { return rows_; }

 private:
  const Rows& rows_;
};

template <class Rows>
constexpr bool ResidentRows<Rows>::resident;

// How the processes holding the rows combine what each computed on its own
// rows. One process: nothing to combine (LocalCombine). Rows split over MPI
// ranks: the glue provides sum() as an allreduce, the rank, the number of
// ranks, the global index of the first local row and the total number of
// rows. The algorithms use sum() only (a gather is a sum of vectors each
// rank fills at its own place); with one process they take exactly the
// steps they take without a Combine.
struct LocalCombine {
  int rank() const { return 0; }
  int size() const { return 1; }
  index_t offset() const { return 0; }
  index_t total_rows(index_t local_rows) const { return local_rows; }
  void sum(double* /*v*/, index_t /*m*/) const {}
};

// A Combine of this process alone (a sketch every process holds whole, see
// kmeans_sketched()), of the type of `Combine` when that type can be built
// from a LocalCombine (the glue's, which then holds no process), so that the
// algorithms are instantiated once for both; a LocalCombine otherwise. Both
// take exactly the steps of one process.
template <class Combine,
          std::enable_if_t<std::is_constructible<Combine, LocalCombine>::value, int> = 0>
Combine local_combine(const Combine&) {
  return Combine(LocalCombine());
}
template <class Combine,
          std::enable_if_t<!std::is_constructible<Combine, LocalCombine>::value, int> = 0>
LocalCombine local_combine(const Combine&) {
  return LocalCombine();
}

// The local index of global row g on this process (which holds n_local
// rows), or -1 when another process holds it.
template <class Combine>
index_t local_row(const Combine& combine, index_t g, index_t n_local) {
  const index_t l = g - combine.offset();
  return l >= 0 && l < n_local ? l : index_t(-1);
}

// The sum over all processes of one number.
template <class Combine>
double combined_sum(const Combine& combine, double x) {
  combine.sum(&x, 1);
  return x;
}

// Global row g, written on every process by the one holding it (the others
// add zeros: exact). get(local_row, out) writes a local row.
template <class Combine, class Get>
void combined_row(const Combine& combine, index_t g, index_t n_local, index_t d,
                  Get get, double* out) {
  const index_t local = g - combine.offset();
  if (local >= 0 && local < n_local) {
    get(local, out);
  } else {
    std::fill(out, out + d, 0.0);
  }
  combine.sum(out, d);
}

// The matrix kernels (statistics, products) take the blocks themselves:
// visit_blocks(f) calls f(block, r0) with each block as a DenseMatrix or
// SparseMatrix; visit_stored(f) gives the blocks as the source stores them
// (a 10x file's cells, data/cells.hpp), for the kernels that read that
// layout (the statistics' one pass), or as visit_blocks(). In memory (or
// this process's rows) one block.
template <class Matrix>
class OneBlock {
 public:
  explicit OneBlock(const Matrix& a) : a_(a) {}
  index_t n() const { return a_.n; }
  index_t d() const { return a_.d; }
  const Matrix& matrix() const { return a_; }
  template <class F>
  void visit_blocks(F&& f) const {
    f(a_, index_t(0));
  }
  template <class F>
  void visit_stored(F&& f) const {
    f(a_, index_t(0));
  }

 private:
  const Matrix& a_;
};

// Squared norms of all the rows of a source (n values).
template <class Source>
void source_row_sqnorms(const Source& src, double* out, int n_threads) {
  src.visit([&](const auto& rows, index_t r0) { row_sqnorms(rows, out + r0, n_threads); });
}

}  // namespace kmreduce

#endif  // KMREDUCE_ROW_SOURCE_HPP
