// kmreduce: a block of cells as a single-cell count file stores them (one
// compressed column per cell: its genes' indices and counts, as the 10x
// Genomics HDF5 layout, i.e. a genes x cells CSC matrix) turned into cells
// as rows (the CSC matrix of cells x genes the core reads: a dgCMatrix with
// one row per cell), optionally normalized on the way: x -> log1p(x / s *
// target), s the cell's size factor when given, else the sum of the cell's
// values in stored order (a cell without counts stays zero), target e.g.
// 1e6 (counts per million), 1e4, or the mean library size with s the
// library size (the size factors of scuttle's logNormCounts). The same
// numbers, in the same order, as R's Matrix::t() of the block and
// log1p(x / s * target) computed there, in one
// pass and without the intermediate copies. The gene indices are checked
// (an index outside 0..n_genes-1, or a gene stored twice for one cell,
// throws, naming the cell and the index), and with the normalization the
// counts (NaN, Inf or negative throws).
#ifndef KMREDUCE_CELLS_HPP
#define KMREDUCE_CELLS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <memory>
#include <vector>

#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// The number of stored values of a block (checked: offsets from 0, at most
// 2^31 - 1 values).
inline index_t stored_values(const double* ptr, index_t n_cells, index_t n_genes) {
  if (n_cells < 0 || n_genes < 0) throw std::invalid_argument("negative dimensions");
  const double nnz_d = ptr[n_cells] - ptr[0];
  if (ptr[0] != 0 || nnz_d < 0 || nnz_d > 2147483647.0)
    throw std::invalid_argument("a block of cells has bad value offsets");
  return static_cast<index_t>(nnz_d);
}

// A stored value checked as a count (a finite number >= 0): `v` itself,
// else an error naming what it is and cell c of a block whose first cell is
// `first_cell` in its file (R's messages start from "count").
inline double checked_count(double v, double first_cell, index_t c) {
  if (!(v >= 0) || std::isinf(v))
    throw std::domain_error("count " + std::string(std::isnan(v) ? "NA" : (v > 0 ? "Inf" : "< 0")) +
                            " at cell " +
                            std::to_string(static_cast<long long>(first_cell) +
                                           static_cast<long long>(c)));
  return v;
}

// `ptr`: n_cells + 1 offsets of the cells' values in `value` and `gene`
// (from 0). `as_double(value[t])`: the value as a double (a missing value as
// a NaN). `first_cell`: the number of the block's first cell in its file
// (1-based, for messages). `target`: 0 (no normalization) or the total
// each cell is scaled to; `size_factor`: nullptr (the library sizes) or one
// per cell of the block. Writes the CSC matrix of cells x genes into
// p_out (n_genes + 1), i_out and x_out (one per stored value), which the
// caller allocates: large blocks scatter their values over all the genes'
// columns, so callers give memory advised for huge pages (memory.hpp): with
// 4 KiB pages nearly every store of a large block missed the TLB.
template <class Value, class Index, class AsDouble>
void cells_to_rows(const Value* value, const Index* gene, const double* ptr,
                   index_t n_cells, index_t n_genes, double target,
                   const double* size_factor, double first_cell, AsDouble as_double,
                   int* p_out, int* i_out, double* x_out) {
  const bool normalize = target > 0;
  auto cell_name = [&](index_t c) {
    return std::to_string(static_cast<long long>(first_cell) + static_cast<long long>(c));
  };
  const index_t nnz = stored_values(ptr, n_cells, n_genes);
  // the library sizes and the checks, cell by cell, in stored order
  std::vector<double> scale(n_cells, 1.0);
  std::vector<index_t> count(n_genes + 1, 0);
  // (the last cell that stored each gene: a gene stored twice for a cell
  // would be summed by the scatter, where other readers keep one value)
  std::vector<index_t> last_cell(n_genes, -1);
  for (index_t c = 0; c < n_cells; ++c) {
    const index_t a = static_cast<index_t>(ptr[c]), b = static_cast<index_t>(ptr[c + 1]);
    if (b < a || b > nnz) throw std::invalid_argument("a block of cells has bad value offsets");
    double lib = 0.0;
    for (index_t t = a; t < b; ++t) {
      const index_t g = static_cast<index_t>(gene[t]);
      if (!(gene[t] >= 0) || g >= n_genes)
        throw std::out_of_range("gene index outside 0.." + std::to_string(n_genes - 1) +
                                " at cell " + cell_name(c));
      if (last_cell[g] == c)
        throw std::invalid_argument("gene index " + std::to_string(g) + " stored twice at cell " +
                                    cell_name(c));
      last_cell[g] = c;
      ++count[g + 1];
      if (normalize) lib += checked_count(as_double(value[t]), first_cell, c);
    }
    if (normalize) scale[c] = size_factor != nullptr ? size_factor[c] : (lib == 0.0 ? 1.0 : lib);
  }
  for (index_t g = 0; g < n_genes; ++g) count[g + 1] += count[g];
  for (index_t g = 0; g <= n_genes; ++g) p_out[g] = static_cast<int>(count[g]);
  auto out_value = [&](index_t t, index_t c) {
    const double v = as_double(value[t]);
    return normalize ? std::log1p(v / scale[c] * target) : v;
  };
  // Small blocks: straight into the genes' columns. Large ones in two steps
  // (a radix pass): first into runs of 512 genes each (few places written at
  // a time: each run's next free slot), in cell order, then each run into
  // its genes' columns (within the run's part of the output, which fits in
  // cache). Every gene's values end in cell order either way: the same
  // output.
  constexpr int kShift = 9;
  const index_t runs = (n_genes >> kShift) + 1;
  if (nnz < (index_t(1) << 20) || runs < 4) {
    for (index_t c = 0; c < n_cells; ++c) {
      const index_t a = static_cast<index_t>(ptr[c]), b = static_cast<index_t>(ptr[c + 1]);
      for (index_t t = a; t < b; ++t) {
        const index_t dst = count[static_cast<index_t>(gene[t])]++;
        i_out[dst] = static_cast<int>(c);
        x_out[dst] = out_value(t, c);
      }
    }
    return;
  }
  struct Entry {
    int gene, cell;
    double x;
  };
  // (uninitialized; advised for huge pages before the first touch)
  std::unique_ptr<Entry[]> tmp(new Entry[static_cast<std::size_t>(nnz)]);
  advise_huge_pages(tmp.get(), static_cast<std::size_t>(nnz) * sizeof(Entry));
  std::vector<index_t> next(runs + 1);
  for (index_t r = 0; r <= runs; ++r)
    next[r] = count[std::min(n_genes, r << kShift)];
  const std::vector<index_t> run_start(next);
  for (index_t c = 0; c < n_cells; ++c) {
    const index_t a = static_cast<index_t>(ptr[c]), b = static_cast<index_t>(ptr[c + 1]);
    for (index_t t = a; t < b; ++t) {
      const int g = static_cast<int>(gene[t]);
      tmp[next[g >> kShift]++] = Entry{g, static_cast<int>(c), out_value(t, c)};
    }
  }
  for (index_t r = 0; r < runs; ++r) {
    for (index_t u = run_start[r]; u < run_start[r + 1]; ++u) {
      const Entry& e = tmp[u];
      const index_t dst = count[e.gene]++;
      i_out[dst] = e.cell;
      x_out[dst] = e.x;
    }
  }
}

// The library size of each of n_cells cells (the sum of its values in
// stored order, as cells_to_rows() sums them) into lib, the counts checked
// as cells_to_rows() checks them when it normalizes: a pass over the values
// only, for the mean library size before any block is normalized.
template <class Value, class AsDouble>
void cell_library_sizes(const Value* value, const double* ptr, index_t n_cells,
                        double first_cell, AsDouble as_double, double* lib) {
  const index_t nnz = stored_values(ptr, n_cells, 0);
  for (index_t c = 0; c < n_cells; ++c) {
    const index_t a = static_cast<index_t>(ptr[c]), b = static_cast<index_t>(ptr[c + 1]);
    if (b < a || b > nnz) throw std::invalid_argument("a block of cells has bad value offsets");
    double sum = 0.0;
    for (index_t t = a; t < b; ++t) sum += checked_count(as_double(value[t]), first_cell, c);
    lib[c] = sum;
  }
}

// The stored values and gene indices of some cells of a block (`cells`:
// n_take local cell numbers from 0, increasing), in the same layout:
// value_out and gene_out hold their entries one cell after another, ptr_out
// (n_take + 1) their offsets from 0. The caller sizes the outputs from
// ptr.
template <class Value, class Index>
void take_cells(const Value* value, const Index* gene, const double* ptr, index_t n_cells,
                const int* cells, index_t n_take, Value* value_out, Index* gene_out,
                double* ptr_out) {
  const index_t nnz = stored_values(ptr, n_cells, 0);
  index_t at = 0;
  ptr_out[0] = 0;
  for (index_t u = 0; u < n_take; ++u) {
    const index_t c = cells[u];
    if (c < 0 || c >= n_cells || (u > 0 && c <= cells[u - 1]))
      throw std::invalid_argument("cells to take must be increasing, within the block");
    const index_t a = static_cast<index_t>(ptr[c]), b = static_cast<index_t>(ptr[c + 1]);
    if (b < a || b > nnz) throw std::invalid_argument("a block of cells has bad value offsets");
    for (index_t t = a; t < b; ++t, ++at) {
      value_out[at] = value[t];
      gene_out[at] = gene[t];
    }
    ptr_out[u + 1] = static_cast<double>(at);
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_CELLS_HPP
