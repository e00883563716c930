// Helpers shared by the k-means glue files (fit_kmeans.cpp, fit_stats.cpp,
// test_hooks.cpp): R objects to and from the core's types.
#ifndef KMREDUCE_KMEANS_GLUE_H
#define KMREDUCE_KMEANS_GLUE_H

#include "glue.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/cluster/kmeans_options.hpp>
#include <kmreduce/cluster/seeding.hpp>
#include <kmreduce/kernels/packed.hpp>

namespace {

inline Rcpp::NumericMatrix centres_matrix(const std::vector<double>& c, int k, int d) {
  Rcpp::NumericMatrix out(k, d);
  std::copy(c.begin(), c.end(), out.begin());
  return out;
}

inline Rcpp::IntegerVector one_based(const std::vector<int>& label) {
  Rcpp::IntegerVector out(label.size());
  for (std::size_t r = 0; r < label.size(); ++r) out[r] = label[r] + 1;
  return out;
}

inline std::vector<int> zero_based(const Rcpp::IntegerVector& cluster) {
  // (fresh memory advised for huge pages: see memory.hpp)
  std::vector<int> out = kmreduce::rows_array(static_cast<std::size_t>(cluster.size()), 0);
  for (R_xlen_t r = 0; r < cluster.size(); ++r) out[r] = cluster[r] - 1;
  return out;
}


// An optional shift of the rows (dense data far from the origin; see
// with_row_access), length ncol(x).
inline const double* shift_of(const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                       Rcpp::NumericVector& keep, int d) {
  if (shift.isNull()) return nullptr;
  keep = Rcpp::NumericVector(shift.get());
  if (keep.size() != d) throw std::invalid_argument("shift must have ncol(x) values");
  return &keep[0];
}

// The options of k-means and of Lloyd from given centres, from one named R
// list (kmeans_cpp_options() of R/source_steps.R builds it): each name is an option of the
// core's table (kmeans_options.def), checked there (an unknown name, a value
// of the wrong type or out of range is an error naming the option), then
// resolved for the rows at hand (resolve_options()); what the glue itself
// reads (progress messages, the value limit, single precision) comes from
// the same table.
struct KmeansCall {
  kmreduce::KmeansControl control;
  kmreduce::KmeansOptions opt;
  bool verbose = false;
  double limit = 0;
  bool single = false;
};

// An R value as the core's option table reads it.
inline kmreduce::OptionValue option_value(SEXP v) {
  kmreduce::OptionValue out;
  if (v == R_NilValue) return out;
  out.type = kmreduce::OptionValue::Invalid;
  if (Rf_xlength(v) != 1) return out;
  if (TYPEOF(v) == LGLSXP && LOGICAL(v)[0] != NA_LOGICAL) {
    out.type = kmreduce::OptionValue::Flag;
    out.flag = LOGICAL(v)[0] != 0;
  } else if (TYPEOF(v) == INTSXP || TYPEOF(v) == REALSXP) {
    out.type = kmreduce::OptionValue::Number;
    out.number = Rf_asReal(v);
  } else if (TYPEOF(v) == STRSXP && STRING_ELT(v, 0) != NA_STRING) {
    out.type = kmreduce::OptionValue::Text;
    out.text = CHAR(STRING_ELT(v, 0));
  }
  return out;
}

// `options` (a named list) read into a KmeansCall, resolved for `n_rows`
// rows (of all processes).
inline KmeansCall kmeans_options(const Rcpp::List& options, kmreduce::index_t n_rows) {
  KmeansCall call;
  const SEXP names = options.names();
  if (options.size() > 0 && names == R_NilValue)
    throw std::invalid_argument("k-means options must be a named list");
  for (R_xlen_t i = 0; i < options.size(); ++i)
    kmreduce::set_option(call.control, CHAR(STRING_ELT(names, i)), option_value(options[i]));
  call.opt = kmreduce::resolve_options(call.control, n_rows);
  call.verbose = call.control.verbose;
  call.limit = call.control.limit;
  call.single = call.control.precision == "single";
  return call;
}

inline Rcpp::List stats_list(const kmreduce::ClusterStats& s, int k, int d) {
  Rcpp::IntegerVector size(s.size.begin(), s.size.end());
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("centers") = centres_matrix(s.centres, k, d),
      Rcpp::Named("withinss") = Rcpp::wrap(s.withinss),
      Rcpp::Named("size") = size,
      Rcpp::Named("totss") = s.totss,
      Rcpp::Named("sumsq") = s.sumsq);
  if (!s.weight.empty()) out["weight"] = Rcpp::wrap(s.weight);
  return out;
}

inline Rcpp::List lloyd_list(const kmreduce::LloydResult& res, int k, int d) {
  return Rcpp::List::create(
      Rcpp::Named("cluster") = one_based(res.label),
      Rcpp::Named("centers") = centres_matrix(res.centres, k, d),
      Rcpp::Named("objective") = res.objective,
      Rcpp::Named("iter") = res.iter,
      Rcpp::Named("converged") = res.converged,
      Rcpp::Named("means") = res.means);
}

// Calls f(rows, centres, shift) with the rows of x as the row-wise
// algorithms take them and the centres, both minus `shift` (see
// with_row_access()): where predict, distances and Lloyd from given centres
// compare rows with centres as the fit did.
template <class F>
auto with_shifted_rows(SEXP x, const Rcpp::NumericMatrix& centers,
                       const Rcpp::Nullable<Rcpp::NumericVector>& shift, int n_threads, F f) {
  Rcpp::NumericVector keep;
  return glue::with_matrix(x, [&](const auto& a) {
    if (centers.ncol() != a.d) throw std::invalid_argument("centres need ncol(x) columns");
    const double* s = shift_of(shift, keep, static_cast<int>(a.d));
    const std::vector<double> c = kmreduce::shifted_centres(&centers[0], centers.nrow(), a.d, s);
    return kmreduce::with_row_access(a, n_threads, [&](const auto& rows) {
      return f(rows, c, s);
    }, s);
  });
}

}  // namespace

#endif  // KMREDUCE_KMEANS_GLUE_H
