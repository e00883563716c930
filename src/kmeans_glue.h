// Helpers shared by the k-means glue files (kmeans.cpp, cluster_stats.cpp,
// test_hooks.cpp): R objects to and from the core's types.
#ifndef KMREDUCE_KMEANS_GLUE_H
#define KMREDUCE_KMEANS_GLUE_H

#include "glue.h"

#include <vector>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/cluster/kmeans.hpp>
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

// The number of rows of a double matrix or a dgCMatrix.
inline double rows_of(SEXP x) {
  if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix"))
    return INTEGER(R_do_slot(x, Rf_install("Dim")))[0];
  return Rf_nrows(x);
}

// Optional observation weights (one per row; checked in R: finite, positive).
inline const double* weights_of(const Rcpp::Nullable<Rcpp::NumericVector>& weights,
                                Rcpp::NumericVector& keep, double n) {
  if (weights.isNull()) return nullptr;
  keep = Rcpp::NumericVector(weights.get());
  if (static_cast<double>(keep.size()) != n)
    throw std::invalid_argument("weights must have one value per row");
  return &keep[0];
}

inline kmreduce::ClusterStats stats_of(const kmreduce::DenseMatrix& a, const int* label,
                                int k, const double* means, int n_threads) {
  if (means != nullptr)
    return kmreduce::cluster_stats_from_means(a, label, k, means, n_threads);
  return kmreduce::cluster_stats(a, label, k, n_threads);
}
inline kmreduce::ClusterStats stats_of(const kmreduce::SparseMatrix& a, const int* label,
                                int k, const double*, int n_threads) {
  return kmreduce::cluster_stats(a, label, k, n_threads);
}

// The options of k-means (n_init replicates from k-means++) or of Lloyd from
// given centres (n_init 1, no seed).
inline kmreduce::KmeansOptions options(int k, int n_init, int iter_max, double tol, double seed,
                                int n_threads) {
  kmreduce::KmeansOptions opt;
  opt.k = k;
  opt.n_init = n_init;
  opt.iter_max = iter_max;
  opt.tol = tol;
  opt.seed = glue::as_seed(seed);
  opt.n_threads = n_threads;
  return opt;
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
