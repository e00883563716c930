// Thin glue helpers: map R objects onto the core's views without copying.
#ifndef KMREDUCE_GLUE_H
#define KMREDUCE_GLUE_H

#include <Rcpp.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
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

// The options of an entry point, a named list R builds: each name's setter
// (one table per entry point, the one place its options are read) is
// called with the name and its value; a name not in the table, or a list
// without names, is an error naming it (`what`: "k-means", "cssp", ...).
using OptionSetters = std::map<std::string, std::function<void(const std::string&, SEXP)>>;
inline void read_options(const Rcpp::List& options, const std::string& what,
                         const OptionSetters& set) {
  const SEXP names = Rf_getAttrib(options, R_NamesSymbol);
  if (options.size() > 0 && Rf_isNull(names))
    throw std::invalid_argument(what + " options must be a named list");
  for (R_xlen_t i = 0; i < options.size(); ++i) {
    const std::string name = CHAR(STRING_ELT(names, i));
    const auto it = set.find(name);
    if (it == set.end()) throw std::invalid_argument("unknown " + what + " option `" + name + "`");
    it->second(name, options[i]);
  }
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
