// Thin glue helpers: map R objects onto the core's views without copying.
#ifndef KMREDUCE_GLUE_H
#define KMREDUCE_GLUE_H

#include <RcppEigen.h>

#include <cstdint>
#include <kmreduce/matrix.hpp>
#include <kmreduce/parallel.hpp>

namespace glue {

// Calls f(view) with a DenseMatrix for a double matrix, or a SparseMatrix
// for a dgCMatrix (mapped by RcppEigen, no copy). R checks the class first.
template <class F>
auto with_matrix(SEXP x, F f) -> decltype(f(std::declval<const kmreduce::DenseMatrix&>())) {
  if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
    const kmreduce::DenseMatrix a(REAL(x), Rf_nrows(x), Rf_ncols(x));
    return f(a);
  }
  if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
    const Eigen::Map<Eigen::SparseMatrix<double>> m =
        Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    const kmreduce::SparseMatrix a(m.outerIndexPtr(), m.innerIndexPtr(),
                                   m.valuePtr(), m.rows(), m.cols());
    return f(a);
  }
  throw std::invalid_argument("expected a double matrix or a dgCMatrix");
}

inline kmreduce::InterruptCheck r_interrupt() {
  return []() { Rcpp::checkUserInterrupt(); };
}

// Seeds come from R as doubles holding whole numbers.
inline std::uint64_t as_seed(double seed) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(seed));
}

}  // namespace glue

#endif  // KMREDUCE_GLUE_H
