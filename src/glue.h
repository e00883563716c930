// Thin glue helpers: map R objects onto the core's views without copying.
#ifndef KMREDUCE_GLUE_H
#define KMREDUCE_GLUE_H

#include <Rcpp.h>

#include <cstdint>
#include <stdexcept>
#include <kmreduce/kernels/matrix.hpp>
#include <kmreduce/runtime/parallel.hpp>

namespace glue {

// Calls f(view) with a DenseMatrix for a double matrix, or a SparseMatrix
// for a dgCMatrix (its slots mapped, no copy). R checks the class and the
// slots first.
template <class F>
auto with_matrix(SEXP x, F f) -> decltype(f(std::declval<const kmreduce::DenseMatrix&>())) {
  if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
    const kmreduce::DenseMatrix a(REAL(x), Rf_nrows(x), Rf_ncols(x));
    return f(a);
  }
  if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
    SEXP dim = R_do_slot(x, Rf_install("Dim")), i = R_do_slot(x, Rf_install("i"));
    SEXP p = R_do_slot(x, Rf_install("p")), v = R_do_slot(x, Rf_install("x"));
    if (TYPEOF(dim) != INTSXP || Rf_xlength(dim) != 2 || TYPEOF(i) != INTSXP ||
        TYPEOF(p) != INTSXP || TYPEOF(v) != REALSXP)
      throw std::invalid_argument("malformed dgCMatrix");
    const kmreduce::SparseMatrix a(INTEGER(p), INTEGER(i), REAL(v), INTEGER(dim)[0],
                                   INTEGER(dim)[1]);
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

namespace {
// Optional observation weights (one per row; checked in R: finite, positive).
inline const double* weights_of(const Rcpp::Nullable<Rcpp::NumericVector>& weights,
                                Rcpp::NumericVector& keep, double n) {
  if (weights.isNull()) return nullptr;
  keep = Rcpp::NumericVector(weights.get());
  if (static_cast<double>(keep.size()) != n)
    throw std::invalid_argument("weights must have one value per row");
  return &keep[0];
}
}  // namespace

#endif  // KMREDUCE_GLUE_H
