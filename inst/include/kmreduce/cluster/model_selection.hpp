// kmreduce: ingredients of choosing k on the reduced rows.
//
// * Silhouette widths (Rousseeuw 1987) of a partition under Euclidean
//   distance: s(i) = (b(i) - a(i)) / max(a(i), b(i)), with a(i) the mean
//   distance from row i to the other rows of its cluster and b(i) the
//   smallest mean distance to the rows of another cluster; s(i) = 0 in a
//   cluster of one row (the convention of R's cluster::silhouette()).
//   O(n^2 d) work, no n x n matrix.
// * Reference sets of the gap statistic (Tibshirani, Walther and Hastie
//   2001): n points uniform in a box, one column per coordinate.
#ifndef KMREDUCE_MODEL_SELECTION_HPP
#define KMREDUCE_MODEL_SELECTION_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

// Silhouette widths of m partitions of the same rows at once (the
// distances, the costly part, are computed once): x is n x d column-major;
// label is n x m column-major, partition p has k[p] clusters and 0-based
// labels in [0, k[p]); width (n x m) receives the widths. Each row's sums
// are taken in a fixed order (rows 0..n-1), so results do not depend on
// n_threads.
inline void silhouette_widths(const DenseMatrix& x, const int* label, index_t m,
                              const int* k, double* width, int n_threads) {
  const index_t n = x.n, d = x.d;
  // Cluster sizes, and where each partition's sums start in a row's buffer.
  std::vector<index_t> offset(m + 1, 0);
  for (index_t p = 0; p < m; ++p) {
    if (k[p] < 1) throw std::invalid_argument("silhouette_widths: k must be >= 1");
    offset[p + 1] = offset[p] + k[p];
  }
  std::vector<index_t> size(offset[m], 0);
  for (index_t p = 0; p < m; ++p) {
    const int* lab = label + static_cast<std::size_t>(n) * p;
    for (index_t i = 0; i < n; ++i) {
      if (lab[i] < 0 || lab[i] >= k[p])
        throw std::invalid_argument("silhouette_widths: label out of range");
      ++size[offset[p] + lab[i]];
    }
  }
  // Row-major copy: one row's coordinates are contiguous.
  std::vector<double> rows(static_cast<std::size_t>(n) * d);
  for (index_t j = 0; j < d; ++j)
    for (index_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i) * d + j] = x(i, j);
  struct Scratch {
    std::vector<double> dist, sum;
  };
  const index_t block = 16;
  parallel_for_scratch<Scratch>(
      n_blocks(n, block), n_threads,
      [&](index_t b, Scratch& w) {
        w.dist.resize(n);
        w.sum.resize(offset[m]);
        const index_t end = std::min(n, (b + 1) * block);
        for (index_t i = b * block; i < end; ++i) {
          const double* xi = rows.data() + static_cast<std::size_t>(i) * d;
          for (index_t r = 0; r < n; ++r) {
            const double* xr = rows.data() + static_cast<std::size_t>(r) * d;
            double s = 0.0;
            for (index_t j = 0; j < d; ++j) {
              const double t = xi[j] - xr[j];
              s += t * t;
            }
            w.dist[r] = std::sqrt(s);
          }
          std::fill(w.sum.begin(), w.sum.end(), 0.0);
          for (index_t p = 0; p < m; ++p) {
            const int* lab = label + static_cast<std::size_t>(n) * p;
            double* sum = w.sum.data() + offset[p];
            for (index_t r = 0; r < n; ++r) sum[lab[r]] += w.dist[r];
            const int own = lab[i];
            const index_t* sz = size.data() + offset[p];
            double& out = width[static_cast<std::size_t>(n) * p + i];
            if (sz[own] <= 1) {
              out = 0.0;
              continue;
            }
            const double a = sum[own] / static_cast<double>(sz[own] - 1);
            double bmin = std::numeric_limits<double>::infinity();
            for (int q = 0; q < k[p]; ++q) {
              if (q == own || sz[q] == 0) continue;
              bmin = std::min(bmin, sum[q] / static_cast<double>(sz[q]));
            }
            if (!std::isfinite(bmin)) {  // a single non-empty cluster
              out = 0.0;
              continue;
            }
            const double mx = std::max(a, bmin);
            out = mx > 0.0 ? (bmin - a) / mx : 0.0;
          }
        }
      },
      static_cast<double>(n) * n * (d + m));
}

// Reference set number `set` of the gap statistic: n points uniform in the
// box [lo_j, hi_j] of each of the d coordinates, written column-major to
// out (n x d). Column j of set s comes from its own random stream, so any
// thread count gives the same values.
inline void uniform_box(index_t n, index_t d, const double* lo, const double* hi,
                        std::uint64_t seed, std::uint64_t set, double* out, int n_threads) {
  parallel_for(d, n_threads, [&](index_t j, int) {
    Rng rng(stream_key(seed, kStreamGapReference,
                       set * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(j)));
    const double width = hi[j] - lo[j];
    double* col = out + static_cast<std::size_t>(n) * j;
    for (index_t i = 0; i < n; ++i) col[i] = lo[j] + width * rng.uniform();
  }, static_cast<double>(n) * d);
}

}  // namespace kmreduce

#endif  // KMREDUCE_MODEL_SELECTION_HPP
