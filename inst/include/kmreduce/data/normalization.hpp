// kmreduce: the normalizations of counts, applied to a block of cells by
// one transform that every reader uses (cells in memory, blocks of a
// DelayedMatrix, of a 10x file, an MPI rank's rows, new cells for
// predict()). R lists the normalizations (R/normalize_counts.R), each naming
// its transform in the list below; this header only transforms.
//
// Each count x of a cell becomes f(x, s, t): s the cell's scale (its size
// factor when given, else its library size, the sum of its counts; 1 for a
// cell without counts), t the normalization's target. The transforms:
//   identity      x as it is, unchecked (normalize = "none")
//   log1p_scaled  log1p(x / s * t), in that order (counts per million,
//                 per 10,000, scuttle's size factors with the natural log)
// When normalizing, every value must be a count (a finite number >= 0):
// checked_count() throws, naming the cell.
//
// Three layouts of a block: cells as rows of a dense matrix or of a CSC
// matrix (a dgCMatrix), and cells as the columns of a CSC matrix (a 10x
// file's block as stored; cells.hpp converts it to rows with the same
// transform). Their library sizes are summed as R sums them (rowSums(),
// Matrix's rowSums() and colSums()), so the numbers are those R gave; sums
// of whole counts are exact in any order, so every layout gives the same
// numbers for counts.
#ifndef KMREDUCE_NORMALIZATION_HPP
#define KMREDUCE_NORMALIZATION_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../runtime/parallel.hpp"

namespace kmreduce {

// The transforms, in the order of cell_transform_names().
enum class CellTransform : int { identity = 0, log1p_scaled = 1 };

inline const std::vector<std::string>& cell_transform_names() {
  static const std::vector<std::string> names = {"identity", "log1p_scaled"};
  return names;
}

// The transform named `name` (an unknown name throws, naming the known
// ones).
inline CellTransform cell_transform(const std::string& name) {
  const std::vector<std::string>& names = cell_transform_names();
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<CellTransform>(k);
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "\"" : ", \"") + n + "\"";
  throw std::invalid_argument("the transform of a normalization must be one of " + known +
                              ", not \"" + name + "\"");
}

// A normalization as a block applies it: the transform, its target t and
// the block's size factors (one per cell of the block, or nullptr: each
// cell's library size).
struct CellNormalization {
  CellTransform transform = CellTransform::identity;
  double target = 0.0;
  const double* size_factor = nullptr;

  CellNormalization() = default;
  // (checked: a finite target > 0 for a transform other than identity)
  CellNormalization(CellTransform f, double t, const double* sf)
      : transform(f), target(t), size_factor(sf) {
    if (f != CellTransform::identity && !(t > 0 && std::isfinite(t)))
      throw std::invalid_argument("the normalization's target must be a finite number > 0");
  }

  bool normalizes() const { return transform != CellTransform::identity; }

  // The scale of cell c (from 0) of library size `lib`: its size factor when
  // given, else `lib` (1 for a cell without counts, which stays zero).
  double scale(index_t c, double lib) const {
    return size_factor != nullptr ? size_factor[c] : (lib == 0.0 ? 1.0 : lib);
  }

  // The normalized value of a count v of a cell of scale s: each
  // transform's one expression.
  double operator()(double v, double s) const {
    switch (transform) {
      case CellTransform::log1p_scaled:
        return std::log1p(v / s * target);
      case CellTransform::identity:
        break;
    }
    return v;
  }
};

// A value checked as a count (a finite number >= 0): `v` itself, else an
// error naming what it is and cell c of a block whose first cell is
// `first_cell` in its file or object (R's messages start from "count").
inline double checked_count(double v, double first_cell, index_t c) {
  if (!(v >= 0) || std::isinf(v))
    throw std::domain_error("count " + std::string(std::isnan(v) ? "NA" : (v > 0 ? "Inf" : "< 0")) +
                            " at cell " +
                            std::to_string(static_cast<long long>(first_cell) +
                                           static_cast<long long>(c)));
  return v;
}

// The position (from 0) of the first of n values that is not a count (NA,
// NaN, negative or infinite), or -1: what R's messages about counts name.
inline index_t first_non_count(const double* v, index_t n) {
  for (index_t t = 0; t < n; ++t)
    if (!(v[t] >= 0) || std::isinf(v[t])) return t;
  return -1;
}

// The normalized values of one cell after another (the order a file stores
// them): the small whole counts (1..63, most of a single-cell file's
// values) computed once per cell and looked up after that. The same
// expression for the same numbers, so the same results as computing every
// value, at a few transforms per cell instead of one per value.
class CellValues {
 public:
  explicit CellValues(const CellNormalization& norm = CellNormalization()) : norm_(norm) {
    std::fill(stamp_, stamp_ + kSmall, std::uint64_t(0));
  }
  // Values of the cell `scale` belongs to from now on.
  void next_cell(double scale) {
    scale_ = scale;
    ++cell_;
  }
  double operator()(double v) {
    if (v >= 1.0 && v < static_cast<double>(kSmall)) {
      const int w = static_cast<int>(v);
      if (static_cast<double>(w) == v) {
        if (stamp_[w] != cell_) {
          table_[w] = norm_(v, scale_);
          stamp_[w] = cell_;
        }
        return table_[w];
      }
    }
    return norm_(v, scale_);
  }

 private:
  static constexpr int kSmall = 64;
  CellNormalization norm_;
  double scale_ = 1.0;
  std::uint64_t cell_ = 0;
  std::uint64_t stamp_[kSmall];
  double table_[kSmall];
};

// Cells as the rows of a dense n_cells x n_genes matrix x (column-major):
// the normalized values into out (the same layout; out may be x). The
// library sizes summed as R's rowSums() sums them (in long double, column
// after column). `first_cell`: the number of the block's first cell (for
// messages).
inline void normalize_dense_rows(const double* x, index_t n_cells, index_t n_genes,
                                 const CellNormalization& norm, double first_cell, double* out) {
  const index_t len = n_cells * n_genes;
  if (!norm.normalizes()) {
    if (out != x) std::copy(x, x + len, out);
    return;
  }
  std::vector<long double> lib(static_cast<std::size_t>(n_cells), 0.0L);
  for (index_t j = 0; j < n_genes; ++j)
    for (index_t c = 0; c < n_cells; ++c)
      lib[c] += checked_count(x[c + n_cells * j], first_cell, c);
  std::vector<double> scale(static_cast<std::size_t>(n_cells));
  for (index_t c = 0; c < n_cells; ++c) scale[c] = norm.scale(c, static_cast<double>(lib[c]));
  for (index_t j = 0; j < n_genes; ++j)
    for (index_t c = 0; c < n_cells; ++c) out[c + n_cells * j] = norm(x[c + n_cells * j], scale[c]);
}

// Cells as the rows of a CSC matrix (a dgCMatrix of cells x genes: p, n_genes
// + 1 offsets, i the cell of each value): the normalized values into out
// (one per stored value; out may be x). The library sizes summed as
// Matrix's rowSums() sums them (in stored order).
inline void normalize_sparse_rows(const int* p, const int* i, const double* x, index_t n_cells,
                                  index_t n_genes, const CellNormalization& norm,
                                  double first_cell, double* out) {
  const index_t nnz = p[n_genes];
  if (!norm.normalizes()) {
    if (out != x) std::copy(x, x + nnz, out);
    return;
  }
  std::vector<double> lib(static_cast<std::size_t>(n_cells), 0.0);
  for (index_t t = 0; t < nnz; ++t) {
    if (i[t] < 0 || i[t] >= n_cells) throw std::invalid_argument("a row index outside the cells");
    lib[i[t]] += checked_count(x[t], first_cell, i[t]);
  }
  std::vector<double> scale(static_cast<std::size_t>(n_cells));
  for (index_t c = 0; c < n_cells; ++c) scale[c] = norm.scale(c, lib[c]);
  for (index_t t = 0; t < nnz; ++t) out[t] = norm(x[t], scale[i[t]]);
}

// Cells as the columns of a CSC matrix (genes x cells, as a 10x file stores
// them: p, n_cells + 1 offsets): the normalized values into out (one per
// stored value; out may be x). Each cell's library size summed in stored
// order, as Matrix's colSums() and cells_to_rows() (cells.hpp) sum it.
inline void normalize_sparse_columns(const int* p, const double* x, index_t n_cells,
                                     const CellNormalization& norm, double first_cell,
                                     double* out) {
  const index_t nnz = p[n_cells];
  if (!norm.normalizes()) {
    if (out != x) std::copy(x, x + nnz, out);
    return;
  }
  CellValues values(norm);
  for (index_t c = 0; c < n_cells; ++c) {
    const index_t a = p[c], b = p[c + 1];
    if (a < 0 || b < a || b > nnz)
      throw std::invalid_argument("a block of cells has bad value offsets");
    double lib = 0.0;
    for (index_t t = a; t < b; ++t) lib += checked_count(x[t], first_cell, c);
    values.next_cell(norm.scale(c, lib));
    for (index_t t = a; t < b; ++t) out[t] = values(x[t]);
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_NORMALIZATION_HPP
