// kmreduce: k-means in single precision (control$precision = "single"): the
// search (seeding, Lloyd, the polish) on the float tiles of
// kernels/packed_single.hpp, then Lloyd in double from the centres found, so
// the result is a fixed point of Lloyd in double like any other.
#ifndef KMREDUCE_SINGLE_HPP
#define KMREDUCE_SINGLE_HPP

#include <vector>

#include "kmeans.hpp"
#include "../kernels/packed_single.hpp"

namespace kmreduce {

// (found by argument-dependent lookup from split_merge.hpp's detail::)
inline void weighted_sums(const PackedRowsF& a, const int* label, const double* w, index_t k,
                          double* out, int n_threads) {
  detail::weighted_sums(a.src, label, w, k, out, n_threads, a.shift);
}

// k-means (kmeans.hpp) on the rows of `a` minus `shift` in single precision,
// then Lloyd in double from the centres found, and the centres put back in
// the original coordinates (unshift_result()). `accept` sees the values of
// the data first (finite? largest |value|?); when it returns false nothing
// is computed and the result is empty. Rows whose typical products vanish in
// float (a few rows far from all the others: PackedRowsF::holds_bulk()) are
// clustered in double throughout, as with precision "double".
template <class Combine, class Accept>
KmeansResult kmeans_single(const DenseMatrix& a, const double* shift, const KmeansOptions& opt,
                           const InterruptCheck& interrupt, const Combine& combine,
                           Accept&& accept) {
  KmeansResult out;
  int iter = 0;
  bool in_float = true;
  {
    const PackedRowsF rows(a, opt.n_threads, shift, keep_single_copy(a.n, a.d));
    if (!accept(rows.values)) return out;
    in_float = rows.holds_bulk();
    if (in_float) {
      out = kmeans(rows, opt, interrupt, combine);
      iter = out.best.iter;
    }
  }  // (the float tiles are freed here)
  const PackedRows rows(a, opt.n_threads, shift, false);
  if (!in_float) {
    out = kmeans(rows, opt, interrupt, combine);
    unshift_result(ResidentRows<PackedRows>(rows), shift, opt.k, out.best, opt.n_threads,
                   combine, opt.weights);
    return out;
  }
  LloydCall run = lloyd_call(opt, std::move(out.best.centres), interrupt);
  run.grid = shift;
  LloydResult fin = lloyd(ResidentRows<PackedRows>(rows), rows.norms.data(), std::move(run),
                          combine);
  fin.iter += iter;
  out.best = std::move(fin);
  unshift_result(ResidentRows<PackedRows>(rows), shift, opt.k, out.best, opt.n_threads, combine,
                 opt.weights);
  return out;
}

}  // namespace kmreduce

#endif  // KMREDUCE_SINGLE_HPP
