// kmreduce: a point among the rows, subtracted from them so that their
// distances ||x||^2 + ||c||^2 - 2 x.c keep their digits however far the rows
// sit from the origin (k-means on dense rows with method "none", the
// reduced rows of every reducer).
//
// In each column the lower median of at most 256 rows. A median, not a
// mean: one row far from the others (at 1e12 among rows near 0) moves a
// mean of n rows by 1e12 / n, away from every other row, which would then
// lose the digits the shift is for; a median stays among the bulk of the
// rows. The rows are chosen by their content (the 256 whose values hash
// lowest), not by their position, so the shift, and with it every distance,
// is the same whatever the order of the rows. A value of each column
// itself, so finite; the same for every thread count.
#ifndef KMREDUCE_ROW_SHIFT_HPP
#define KMREDUCE_ROW_SHIFT_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "distinct_rows.hpp"
#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

constexpr index_t kShiftSample = 256;

// A row's hash (that of row_hashes()) and the row.
using RowHash = std::pair<std::uint64_t, index_t>;

// The at most kShiftSample rows of `a` whose values hash lowest (ties: the
// first row), with their hashes, in increasing (hash, row) order. Hashed in
// blocks of rows, each block's columns in turn (the hashes stay in cache),
// the blocks on the threads, each keeping its own lowest; merged in block
// order.
inline std::vector<RowHash> lowest_row_hashes(const DenseMatrix& a, int n_threads) {
  constexpr index_t block = 4096;
  const index_t nb = n_blocks(a.n, block);
  std::vector<std::vector<RowHash>> part(static_cast<std::size_t>(nb));
  parallel_for(nb, n_threads, [&](index_t b, int) {
    const index_t r0 = b * block, r1 = std::min(a.n, r0 + block);
    std::vector<RowHash>& out = part[b];
    out.resize(static_cast<std::size_t>(r1 - r0));
    for (index_t r = r0; r < r1; ++r) out[r - r0] = RowHash(0x2545F4914F6CDD1DULL, r);
    for (index_t j = 0; j < a.d; ++j) {
      const double* col = a.x + a.n * j;
      for (index_t r = r0; r < r1; ++r)
        out[r - r0].first = mix64(out[r - r0].first ^ detail::value_bits(col[r]));
    }
    if (static_cast<index_t>(out.size()) > kShiftSample) {
      std::nth_element(out.begin(), out.begin() + kShiftSample, out.end());
      out.resize(static_cast<std::size_t>(kShiftSample));
    }
  }, static_cast<double>(a.n) * a.d);
  std::vector<RowHash> all;
  for (const std::vector<RowHash>& p : part) all.insert(all.end(), p.begin(), p.end());
  if (static_cast<index_t>(all.size()) > kShiftSample) {
    std::nth_element(all.begin(), all.begin() + kShiftSample, all.end());
    all.resize(static_cast<std::size_t>(kShiftSample));
  }
  std::sort(all.begin(), all.end());
  return all;
}

// The rows the shift is taken from (0-based, increasing): all n rows up to
// kShiftSample, else the kShiftSample rows whose values hash lowest.
inline std::vector<index_t> shift_sample(const DenseMatrix& a, int n_threads) {
  std::vector<index_t> rows;
  if (a.n <= kShiftSample) {
    for (index_t r = 0; r < a.n; ++r) rows.push_back(r);
    return rows;
  }
  for (const RowHash& h : lowest_row_hashes(a, n_threads)) rows.push_back(h.second);
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The shift of the rows of `a` (d values into out): in each column, the
// lower median of the rows of shift_sample(); 0 without rows.
inline void robust_shift(const DenseMatrix& a, double* out, int n_threads) {
  const std::vector<index_t> rows = shift_sample(a, n_threads);
  const std::size_t m = rows.size();
  std::vector<double> v(m);
  for (index_t j = 0; j < a.d; ++j) {
    if (m == 0) {
      out[j] = 0.0;
      continue;
    }
    for (std::size_t t = 0; t < m; ++t) v[t] = a.x[rows[t] + a.n * j];
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>((m - 1) / 2);
    // (NaN after every number: an order, whatever the values; rows not yet
    // checked give a NaN shift at worst, and their check reports them)
    std::nth_element(v.begin(), mid, v.end(),
                     [](double u, double w) { return u < w || (w != w && u == u); });
    out[j] = *mid;
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_ROW_SHIFT_HPP
