// Glue row sources and combines (see inst/include/kmreduce/data/row_source.hpp):
// rows the core reads through R, block by block (a bigmemory::big.matrix),
// and the sums of MPI ranks through pbdMPI's allreduce. The core stays free
// of R and MPI.
#ifndef KMREDUCE_SOURCES_H
#define KMREDUCE_SOURCES_H

#include "glue.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include <kmreduce/kernels/packed.hpp>
#include <kmreduce/data/row_source.hpp>

namespace glue {

// A row source (row_source.hpp) for rows kept out of memory: the R function
// read(first, last) returns rows first..last (1-based) as a double matrix or
// a dgCMatrix; blocks of block_rows rows are read in turn, on the calling
// thread, and seen minus `shift` (see with_row_access()).
class RBlockSource {
 public:
  static constexpr bool resident = false;
  RBlockSource(Rcpp::Function read, kmreduce::index_t n, kmreduce::index_t d,
               kmreduce::index_t block_rows, int n_threads, const double* shift)
      : read_(read), n_(n), d_(d), block_(std::max<kmreduce::index_t>(1, block_rows)),
        n_threads_(n_threads), shift_(shift) {}
  kmreduce::index_t n() const { return n_; }
  kmreduce::index_t d() const { return d_; }
  kmreduce::index_t block_rows() const { return block_; }
  template <class F>
  void visit(F&& f) const {
    for (kmreduce::index_t r0 = 0; r0 < n_; r0 += block_) {
      const kmreduce::index_t r1 = std::min(n_, r0 + block_);
      with_block(r0, r1, [&](const auto& rows) { f(rows, r0); });
    }
  }
  void row(kmreduce::index_t r, double* out) const {
    with_block(r, r + 1, [&](const auto& rows) { kmreduce::get_row(rows, 0, out); });
  }
  // Rows [r0, r1) as read: f(b, a), `b` the R object read (what R's
  // callbacks take) and `a` its view, DenseMatrix or SparseMatrix
  // (kmreduce/data/block_passes.hpp reads its blocks through this).
  template <class F>
  void read_rows(kmreduce::index_t r0, kmreduce::index_t r1, F&& f) const {
    const Rcpp::RObject b = read_(static_cast<double>(r0 + 1), static_cast<double>(r1));
    glue::with_matrix(b, [&](const auto& a) {
      if (a.n != r1 - r0 || a.d != d_) {
        throw std::invalid_argument(
            "the block of rows " + std::to_string(r0 + 1) + ".." + std::to_string(r1) +
            " read is " + std::to_string(a.n) + " x " + std::to_string(a.d) + ", not " +
            std::to_string(r1 - r0) + " x " + std::to_string(d_));
      }
      f(SEXP(b), a);
      return 0;
    });
  }
  // The blocks themselves (DenseMatrix or SparseMatrix), unshifted.
  template <class F>
  void visit_blocks(F&& f) const {
    for (kmreduce::index_t r0 = 0; r0 < n_; r0 += block_) {
      const kmreduce::index_t r1 = std::min(n_, r0 + block_);
      const Rcpp::RObject b = read_(static_cast<double>(r0 + 1), static_cast<double>(r1));
      glue::with_matrix(b, [&](const auto& a) {
        if (a.n != r1 - r0 || a.d != d_)
          throw std::invalid_argument("a block of rows has the wrong shape");
        f(a, r0);
        return 0;
      });
    }
  }

 private:
  template <class F>
  void with_block(kmreduce::index_t r0, kmreduce::index_t r1, F&& f) const {
    const Rcpp::RObject b = read_(static_cast<double>(r0 + 1), static_cast<double>(r1));
    glue::with_matrix(b, [&](const auto& a) {
      if (a.n != r1 - r0 || a.d != d_)
        throw std::invalid_argument("a block of rows has the wrong shape");
      kmreduce::with_row_access(a, n_threads_, [&](const auto& rows) {
        f(rows);
        return 0;
      }, shift_);
      return 0;
    });
  }
  Rcpp::Function read_;
  kmreduce::index_t n_, d_, block_;
  int n_threads_;
  const double* shift_;
};


// The Combine of rows split over MPI ranks (row_source.hpp): sum() calls the
// R function allreduce(v) (pbdMPI's allreduce with op = "sum"); the core
// stays free of MPI.
class RCombine {
 public:
  RCombine(Rcpp::Function allreduce, int rank, int size, double offset, double total)
      : allreduce_(allreduce), rank_(rank), size_(size),
        offset_(static_cast<kmreduce::index_t>(offset)),
        total_(static_cast<kmreduce::index_t>(total)) {}
  int rank() const { return rank_; }
  int size() const { return size_; }
  kmreduce::index_t offset() const { return offset_; }
  kmreduce::index_t total_rows(kmreduce::index_t) const { return total_; }
  void sum(double* v, kmreduce::index_t m) const {
    const Rcpp::NumericVector in(v, v + m);
    const Rcpp::NumericVector out = allreduce_(in);
    if (out.size() != m) throw std::runtime_error("allreduce returned the wrong length");
    std::copy(out.begin(), out.end(), v);
  }

 private:
  Rcpp::Function allreduce_;
  int rank_, size_;
  kmreduce::index_t offset_, total_;
};

inline RCombine mpi_combine(const Rcpp::List& mpi) {
  return RCombine(Rcpp::as<Rcpp::Function>(mpi["allreduce"]), Rcpp::as<int>(mpi["rank"]),
                  Rcpp::as<int>(mpi["size"]), Rcpp::as<double>(mpi["offset"]),
                  Rcpp::as<double>(mpi["n"]));
}

// Either Combine behind one type: the k-means glue instantiates the
// algorithms once for one process and for MPI ranks (half the compile
// time). With one process it adds nothing (sum() does nothing, as
// LocalCombine's); sum() is called a few times per pass, so the test costs
// nothing measurable.
class AnyCombine {
 public:
  explicit AnyCombine(const kmreduce::LocalCombine&) {}
  explicit AnyCombine(const RCombine& c) : mpi_(std::make_shared<const RCombine>(c)) {}
  int rank() const { return mpi_ ? mpi_->rank() : 0; }
  int size() const { return mpi_ ? mpi_->size() : 1; }
  kmreduce::index_t offset() const { return mpi_ ? mpi_->offset() : 0; }
  kmreduce::index_t total_rows(kmreduce::index_t local_rows) const {
    return mpi_ ? mpi_->total_rows(local_rows) : local_rows;
  }
  void sum(double* v, kmreduce::index_t m) const {
    if (mpi_) mpi_->sum(v, m);
  }

 private:
  std::shared_ptr<const RCombine> mpi_;
};

// The one description of a row source that crosses from R
// (R/row_source.R, to_cpp_source()): a named list with
//   rows        the rows in memory (a double matrix or a dgCMatrix), or NULL
//   read, n, d, block_rows   the rows read block by block by read(first,
//               last) (when rows is NULL)
//   mpi         NULL (one process) or list(allreduce, rank, size, offset, n):
//               the rows of this MPI rank, the sums of all ranks
//   weights     NULL or one positive weight per row (one process only)
//   one_pass    TRUE for rows costly to read again (a file): the statistics
//               in one pass where it keeps the digits (cluster_stats.hpp)
//   cells       NULL, or list(read, fail) for a 10x file: read(first, last)
//               gives its cells first..last as stored (stored_cells.h), for
//               the statistics' one pass; fail(cells, message) raises the
//               R error of a bad block
// parsed here once; every step's entry point takes it.
class SourceSpec {
 public:
  // `source`: that list, or the rows themselves (in memory, one process).
  explicit SourceSpec(SEXP source) : combine_(kmreduce::LocalCombine()) {
    Rcpp::List s;  // (empty when `source` is the rows themselves)
    if (TYPEOF(source) == VECSXP && !Rf_isS4(source)) {
      s = Rcpp::List(source);
      rows_ = s["rows"];
      read_ = s["read"];
    } else {
      rows_ = source;
    }
    if (rows_ != R_NilValue) {
      glue::with_matrix(rows_, [&](const auto& a) {
        n_ = a.n;
        d_ = a.d;
        return 0;
      });
    } else {
      if (TYPEOF(read_) != CLOSXP) throw std::invalid_argument("a source needs rows or read");
      n_ = static_cast<kmreduce::index_t>(Rcpp::as<double>(s["n"]));
      d_ = Rcpp::as<int>(s["d"]);
      block_ = static_cast<kmreduce::index_t>(Rcpp::as<double>(s["block_rows"]));
    }
    if (s.size() == 0) return;
    const SEXP mpi = s["mpi"];
    if (mpi != R_NilValue) combine_ = AnyCombine(mpi_combine(Rcpp::List(mpi)));
    w_ = weights_of(Rcpp::Nullable<Rcpp::NumericVector>(SEXP(s["weights"])), weights_,
                    static_cast<double>(n_));
    if (w_ != nullptr && combine_.size() > 1)
      throw std::invalid_argument("weights on one process only");
    if (s.containsElementNamed("one_pass") && !Rf_isNull(s["one_pass"]))
      one_pass_ = Rcpp::as<bool>(s["one_pass"]);
    if (s.containsElementNamed("cells")) cells_ = s["cells"];
  }
  bool in_memory() const { return rows_ != R_NilValue; }
  SEXP rows() const { return rows_; }
  kmreduce::index_t n() const { return n_; }
  kmreduce::index_t d() const { return d_; }
  const AnyCombine& combine() const { return combine_; }
  bool distributed() const { return combine_.size() > 1; }
  const double* weights() const { return w_; }
  bool one_pass() const { return one_pass_; }
  SEXP cells() const { return cells_; }
  // The rows read in blocks, seen minus `shift` (nullptr: none).
  RBlockSource blocks(int n_threads, const double* shift = nullptr) const {
    return RBlockSource(Rcpp::Function(read_), n_, d_, block_, n_threads, shift);
  }

 private:
  SEXP rows_ = R_NilValue;
  SEXP read_ = R_NilValue;
  kmreduce::index_t n_ = 0, d_ = 0, block_ = 1;
  AnyCombine combine_;
  Rcpp::NumericVector weights_;  // (kept alive for w_)
  const double* w_ = nullptr;
  bool one_pass_ = false;
  SEXP cells_ = R_NilValue;
};

// The rows of a description (SourceSpec) as the passes of
// kmreduce/data/block_passes.hpp read them: read(r0, r1, g) calls g(a) with
// rows [r0, r1), read in blocks through R (RBlockSource::read_rows()), or
// the rows in memory as one block; current() is the R object of the block
// being read (what the R callbacks of a pass take; valid inside g only).
class SpecBlocks {
 public:
  explicit SpecBlocks(const SourceSpec& spec) : spec_(spec) {
    if (!spec.in_memory()) blocks_.reset(new RBlockSource(spec.blocks(1)));
  }
  kmreduce::index_t block_rows() const {
    return blocks_ ? blocks_->block_rows() : std::max<kmreduce::index_t>(1, spec_.n());
  }
  SEXP current() const { return current_; }
  template <class G>
  void operator()(kmreduce::index_t r0, kmreduce::index_t r1, G&& g) {
    if (blocks_) {
      blocks_->read_rows(r0, r1, [&](SEXP b, const auto& a) {
        current_ = b;
        g(a);
      });
      return;
    }
    current_ = spec_.rows();
    glue::with_matrix(spec_.rows(), [&](const auto& a) {
      g(a);
      return 0;
    });
  }

 private:
  const SourceSpec& spec_;
  std::unique_ptr<RBlockSource> blocks_;  // (none for rows in memory)
  SEXP current_ = R_NilValue;
};

}  // namespace glue

#endif  // KMREDUCE_SOURCES_H
