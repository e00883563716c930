// kmreduce: a block of cells as a single-cell count file stores them (one
// compressed column per cell: its genes' indices and counts, as the 10x
// Genomics HDF5 layout, i.e. a genes x cells CSC matrix) turned into cells
// as rows (the CSC matrix of cells x genes the core reads: a dgCMatrix with
// one row per cell), optionally normalized on the way by the one transform
// of the normalizations (normalization.hpp: e.g. x -> log1p(x / s *
// target), s the cell's size factor when given, else the sum of the cell's
// values in stored order; a cell without counts stays zero). The same
// numbers as Matrix::t() of the block normalized as stored
// (normalize_sparse_columns()), in one pass and without the intermediate
// copies. The gene indices are checked
// (an index outside 0..n_genes-1, or a gene stored twice for one cell,
// throws, naming the cell and the index), and with the normalization the
// counts (NaN, Inf or negative throws).
#ifndef KMREDUCE_CELLS_HPP
#define KMREDUCE_CELLS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <utility>
#include <stdexcept>
#include <string>
#include <memory>
#include <vector>

#include "normalization.hpp"
#include "../kernels/products.hpp"
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

namespace detail {
// Cell c's stored entries a..b-1 checked in stored order, as every reader of
// stored cells checks them: a gene index outside 0..n_genes-1, or a gene
// stored twice for the cell (last_cell[g]: the last cell that stored gene g,
// updated here), and, when normalizing, a count (checked_count()); each
// error names the cell. on_entry(t, g) is called for each entry once its
// gene is checked. Returns the sum of the cell's counts when normalizing
// (else 0).
template <class Value, class Index, class AsDouble, class OnEntry>
double checked_cell(const Value* value, const Index* gene, index_t a, index_t b, index_t c,
                    index_t n_genes, bool normalize, double first_cell, AsDouble as_double,
                    index_t* last_cell, OnEntry on_entry) {
  auto cell_name = [&]() {
    return std::to_string(static_cast<long long>(first_cell) + static_cast<long long>(c));
  };
  double lib = 0.0;
  for (index_t t = a; t < b; ++t) {
    const index_t g = static_cast<index_t>(gene[t]);
    if (!(gene[t] >= 0) || g >= n_genes)
      throw std::out_of_range("gene index outside 0.." + std::to_string(n_genes - 1) +
                              " at cell " + cell_name());
    if (last_cell[g] == c)
      throw std::invalid_argument("gene index " + std::to_string(g) + " stored twice at cell " +
                                  cell_name());
    last_cell[g] = c;
    on_entry(t, g);
    if (normalize) lib += checked_count(as_double(value[t]), first_cell, c);
  }
  return lib;
}
}  // namespace detail

// `ptr`: n_cells + 1 offsets of the cells' values in `value` and `gene`
// (from 0). `as_double(value[t])`: the value as a double (a missing value as
// a NaN). `first_cell`: the number of the block's first cell in its file
// (1-based, for messages). `norm`: the normalization (its size factors, if
// any, one per cell of the block). Writes the CSC matrix of cells x genes
// into p_out (n_genes + 1), i_out and x_out (one per stored value), which the
// caller allocates: large blocks scatter their values over all the genes'
// columns, so callers give memory advised for huge pages (memory.hpp): with
// 4 KiB pages nearly every store of a large block missed the TLB.
template <class Value, class Index, class AsDouble>
void cells_to_rows(const Value* value, const Index* gene, const double* ptr,
                   index_t n_cells, index_t n_genes, const CellNormalization& norm,
                   double first_cell, AsDouble as_double, int* p_out, int* i_out,
                   double* x_out) {
  const bool normalize = norm.normalizes();
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
    const double lib =
        detail::checked_cell(value, gene, a, b, c, n_genes, normalize, first_cell, as_double,
                             last_cell.data(), [&](index_t, index_t g) { ++count[g + 1]; });
    if (normalize) scale[c] = norm.scale(c, lib);
  }
  for (index_t g = 0; g < n_genes; ++g) count[g + 1] += count[g];
  for (index_t g = 0; g <= n_genes; ++g) p_out[g] = static_cast<int>(count[g]);
  // (both loops below visit the cells in order)
  CellValues values(norm);
  index_t at_cell = -1;
  auto out_value = [&](index_t t, index_t c) {
    const double v = as_double(value[t]);
    if (!normalize) return v;
    if (c != at_cell) {
      at_cell = c;
      values.next_cell(scale[c]);
    }
    return values(v);
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

// The cells of a block as the file stores them, read cell by cell for the
// kernels that use them without cells_to_rows(): each cell's row of the
// cells x genes matrix is its stored entries. cell() checks a cell's
// entries as cells_to_rows() checks them (the same errors, in the same
// order within the cell) and gives them normalized as cells_to_rows()
// normalizes them, in increasing gene order (the order of the converted
// block's columns; a cell stored out of order is sorted). Arguments as
// cells_to_rows().
template <class Value, class Index, class AsDouble>
class StoredCells {
 public:
  // One worker's memory: the last cell that stored each gene (for the
  // check of a gene stored twice) and one cell's entries.
  struct Scratch {
    explicit Scratch(const CellNormalization& norm = CellNormalization()) : values(norm) {}
    CellValues values;
    std::vector<index_t> last_cell;
    std::vector<int> gene;
    std::vector<double> value;
    std::vector<std::pair<int, double>> sorted;
  };

  StoredCells(const Value* value, const Index* gene, const double* ptr, index_t n_cells,
              index_t n_genes, const CellNormalization& norm, double first_cell,
              AsDouble as_double)
      : value_(value), gene_(gene), ptr_(ptr), n_cells_(n_cells), n_genes_(n_genes),
        norm_(norm), first_cell_(first_cell), as_double_(as_double),
        nnz_(stored_values(ptr, n_cells, n_genes)) {}

  index_t n_cells() const { return n_cells_; }
  index_t n_genes() const { return n_genes_; }
  index_t nnz() const { return nnz_; }

  Scratch scratch() const {
    Scratch s(norm_);
    s.last_cell.assign(static_cast<std::size_t>(n_genes_), -1);
    return s;
  }

  // Cell c's genes and values into s.gene and s.value (their count
  // returned), in increasing gene order.
  index_t cell(index_t c, Scratch& s) const {
    const bool normalize = norm_.normalizes();
    const index_t a = static_cast<index_t>(ptr_[c]), b = static_cast<index_t>(ptr_[c + 1]);
    if (b < a || b > nnz_) throw std::invalid_argument("a block of cells has bad value offsets");
    const index_t len = b - a;
    if (static_cast<index_t>(s.gene.size()) < len) {
      s.gene.resize(static_cast<std::size_t>(len));
      s.value.resize(static_cast<std::size_t>(len));
    }
    bool increasing = true;
    const double lib = detail::checked_cell(
        value_, gene_, a, b, c, n_genes_, normalize, first_cell_, as_double_, s.last_cell.data(),
        [&](index_t t, index_t g) {
          if (t > a && g <= s.gene[t - a - 1]) increasing = false;
          s.gene[t - a] = static_cast<int>(g);
        });
    if (normalize) {
      s.values.next_cell(norm_.scale(c, lib));
      for (index_t t = a; t < b; ++t) s.value[t - a] = s.values(as_double_(value_[t]));
    } else {
      for (index_t t = a; t < b; ++t) s.value[t - a] = as_double_(value_[t]);
    }
    if (!increasing) {
      s.sorted.resize(static_cast<std::size_t>(len));
      for (index_t u = 0; u < len; ++u) s.sorted[u] = {s.gene[u], s.value[u]};
      std::sort(s.sorted.begin(), s.sorted.end(),
                [](const std::pair<int, double>& x, const std::pair<int, double>& y) {
                  return x.first < y.first;
                });
      for (index_t u = 0; u < len; ++u) {
        s.gene[u] = s.sorted[u].first;
        s.value[u] = s.sorted[u].second;
      }
    }
    return len;
  }

 private:
  const Value* value_;
  const Index* gene_;
  const double* ptr_;
  index_t n_cells_, n_genes_;
  CellNormalization norm_;
  double first_cell_;
  AsDouble as_double_;
  index_t nnz_;
};

namespace detail {
// The first error of the cells of a parallel loop: each task keeps the
// error of its first failing cell, and rethrow() throws the one of the
// lowest cell, the error a loop over the cells in order meets first,
// whatever the thread count.
class FirstCellError {
 public:
  explicit FirstCellError(index_t n_tasks) : cell_(n_tasks, -1), error_(n_tasks) {}
  void keep(index_t task, index_t cell) {
    if (cell_[task] < 0) {
      cell_[task] = cell;
      error_[task] = std::current_exception();
    }
  }
  void rethrow() const {
    index_t best = -1;
    for (std::size_t t = 0; t < cell_.size(); ++t)
      if (cell_[t] >= 0 && (best < 0 || cell_[t] < cell_[best])) best = static_cast<index_t>(t);
    if (best >= 0) std::rethrow_exception(error_[best]);
  }

 private:
  std::vector<index_t> cell_;
  std::vector<std::exception_ptr> error_;
};
}  // namespace detail

// out (n_cells x m, column-major, leading dimension ldo) = N B for the
// block's normalized cells N (StoredCells) and B (n_genes x m), given as
// its rows padded with zeros
// (cells_multiply_rows(): n_genes rows of mp doubles), with the numbers
// multiply() (products.hpp) gives for the converted block: each entry is
// summed over the cell's genes in increasing order, one product then one
// sum per term. Cells in fixed tasks of kCellsPerTask, in parallel; each
// task sorts its cells' entries by gene (in cache) and adds each gene's row
// of B to the rows of the cells that store it, so that B is read once per
// task rather than once per stored value.
constexpr index_t kCellsLanes = 8;
inline index_t cells_multiply_width(index_t m) {
  return (m + kCellsLanes - 1) / kCellsLanes * kCellsLanes;
}
// B (d x m, column-major) as cells_multiply() reads it: d rows of
// cells_multiply_width(m) doubles, B's row and then zeros. (Made once for
// all the blocks of a pass.)
inline std::vector<double> cells_multiply_rows(const double* b, index_t d, index_t m) {
  const index_t mp = cells_multiply_width(m);
  std::vector<double> bt(static_cast<std::size_t>(d * mp), 0.0);
  for (index_t c = 0; c < m; ++c)
    for (index_t j = 0; j < d; ++j) bt[mp * j + c] = b[j + d * c];
  return bt;
}

template <class Cells>
void cells_multiply(const Cells& cells, const double* bt, index_t m, double* out, index_t ldo,
                    int n_threads) {
  constexpr index_t kCellsPerTask = 256;
  const index_t n = cells.n_cells(), d = cells.n_genes();
  const index_t mp = cells_multiply_width(m);
  const AddScaledRow add_row = add_scaled_row_kernel();
  const index_t tasks = n_blocks(n, kCellsPerTask);
  const double work = static_cast<double>(cells.nnz()) * static_cast<double>(mp);
  const int team = team_size(tasks, n_threads, work);
  struct Worker {
    typename Cells::Scratch cell;
    std::vector<double> acc;          // the task's rows of the product (mp each)
    std::vector<index_t> start;       // each gene's entries: start[g]..start[g + 1]
    std::vector<int> gene, row;       // the task's entries in cell order
    std::vector<double> value;
    std::vector<int> sorted_row;      // ... and by gene
    std::vector<double> sorted_value;
  };
  std::vector<Worker> workers(static_cast<std::size_t>(team));
  for (auto& w : workers) {
    w.cell = cells.scratch();
    w.acc.resize(static_cast<std::size_t>(kCellsPerTask * mp));
    w.start.resize(static_cast<std::size_t>(d + 1));
  }
  detail::FirstCellError error(tasks);
  parallel_for(tasks, team, [&](index_t task, int worker) {
    Worker& w = workers[worker];
    const index_t c0 = task * kCellsPerTask, c1 = std::min(n, c0 + kCellsPerTask);
    w.gene.clear();
    w.row.clear();
    w.value.clear();
    for (index_t c = c0; c < c1; ++c) {
      index_t len;
      try {
        len = cells.cell(c, w.cell);
      } catch (...) {
        error.keep(task, c);
        return;
      }
      w.gene.insert(w.gene.end(), w.cell.gene.begin(), w.cell.gene.begin() + len);
      w.value.insert(w.value.end(), w.cell.value.begin(), w.cell.value.begin() + len);
      w.row.insert(w.row.end(), static_cast<std::size_t>(len), static_cast<int>(c - c0));
    }
    // the entries by gene, each gene's in cell order
    const index_t count = static_cast<index_t>(w.gene.size());
    std::fill(w.start.begin(), w.start.end(), index_t(0));
    for (index_t u = 0; u < count; ++u) ++w.start[w.gene[u] + 1];
    for (index_t g = 0; g < d; ++g) w.start[g + 1] += w.start[g];
    w.sorted_row.resize(static_cast<std::size_t>(count));
    w.sorted_value.resize(static_cast<std::size_t>(count));
    for (index_t u = 0; u < count; ++u) {
      const index_t at = w.start[w.gene[u]]++;
      w.sorted_row[at] = w.row[u];
      w.sorted_value[at] = w.value[u];
    }
    // (start[g] is now where gene g's entries end)
    double* acc = w.acc.data();
    std::fill(acc, acc + (c1 - c0) * mp, 0.0);
    index_t from = 0;
    for (index_t g = 0; g < d; ++g) {
      const index_t to = w.start[g];
      if (to > from)
        add_row(w.sorted_row.data() + from, w.sorted_value.data() + from, to - from,
                bt + mp * g, acc, mp);
      from = to;
    }
    for (index_t j = 0; j < m; ++j)
      for (index_t c = c0; c < c1; ++c) out[c + ldo * j] = acc[mp * (c - c0) + j];
  }, work);
  error.rethrow();
}

// The one-pass moments of the block's normalized cells N (StoredCells) by
// cluster, with optional weights w (one per cell, or nullptr), as
// label_moments() (cluster/label_moments.hpp) computes them for the converted
// block, with the same numbers: sums (k x n_genes, column-major) += the sum
// of w_c N_c over each cluster's cells, size (k) += the sum of w_c, and
// sq (k) += the sum of w_c |N_c|^2, summed per gene and then over the
// genes in order. `label`: one cluster per cell, in 0..k-1. The clusters
// in parallel: each cluster's cells, in order, by one thread.
template <class Cells>
void cells_label_moments(const Cells& cells, const int* label, const double* w, index_t k,
                         double* sums, double* size, double* sq, int n_threads) {
  const index_t n = cells.n_cells(), d = cells.n_genes();
  // each cluster's cells, in order: member[start[c]..start[c + 1])
  std::vector<index_t> start(static_cast<std::size_t>(k + 1), 0);
  for (index_t r = 0; r < n; ++r) {
    if (label[r] < 0 || label[r] >= k)
      throw std::invalid_argument("cluster labels must be in [0, k)");
    ++start[label[r] + 1];
  }
  for (index_t r = 0; r < n; ++r) size[label[r]] += w != nullptr ? w[r] : 1.0;
  for (index_t c = 0; c < k; ++c) start[c + 1] += start[c];
  std::vector<index_t> member(static_cast<std::size_t>(n));
  {
    std::vector<index_t> next(start.begin(), start.end() - 1);
    for (index_t r = 0; r < n; ++r) member[next[label[r]]++] = r;
  }
  const double work = 2.0 * static_cast<double>(cells.nnz());
  const int team = team_size(k, n_threads, work);
  std::vector<typename Cells::Scratch> scratch(static_cast<std::size_t>(team));
  for (auto& s : scratch) s = cells.scratch();
  std::vector<std::vector<double>> part(static_cast<std::size_t>(team),
                                        std::vector<double>(static_cast<std::size_t>(2 * d)));
  detail::FirstCellError error(k);
  parallel_for(k, team, [&](index_t c, int worker) {
    auto& s = scratch[worker];
    double* sc = part[worker].data();
    double* qc = sc + d;
    std::fill(sc, sc + 2 * d, 0.0);
    for (index_t u = start[c]; u < start[c + 1]; ++u) {
      const index_t r = member[u];
      index_t len;
      try {
        len = cells.cell(r, s);
      } catch (...) {
        error.keep(c, r);
        return;
      }
      const double wr = w != nullptr ? w[r] : 1.0;
      for (index_t e = 0; e < len; ++e) {
        const double x = s.value[e], wx = w != nullptr ? wr * x : x;
        const index_t g = s.gene[e];
        sc[g] += wx;
        qc[g] += wx * x;
      }
    }
    for (index_t g = 0; g < d; ++g) sums[c + k * g] += sc[g];
    double q = sq[c];
    for (index_t g = 0; g < d; ++g) q += qc[g];
    sq[c] = q;
  }, work);
  error.rethrow();
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
