// Glue for the reducers: sign projection, products, leverage sampling, SVD.
#include "glue.h"

#include <kmreduce/leverage.hpp>
#include <kmreduce/products.hpp>
#include <kmreduce/sign_projection.hpp>

// [[Rcpp::export]]
Rcpp::NumericMatrix sign_matrix_cpp(double d, double dims, double seed) {
  const kmreduce::SignMatrix r(glue::as_seed(seed),
                               static_cast<kmreduce::index_t>(d),
                               static_cast<kmreduce::index_t>(dims));
  Rcpp::NumericMatrix out(static_cast<int>(d), static_cast<int>(dims));
  r.panel(0, r.cols(), &out[0]);
  return out;
}

// [[Rcpp::export]]
Rcpp::NumericMatrix sign_project_cpp(SEXP x, double dims, double seed,
                                     int n_threads) {
  const kmreduce::index_t m = static_cast<kmreduce::index_t>(dims);
  Rcpp::NumericMatrix out;
  glue::with_matrix(x, [&](const auto& a) {
    out = Rcpp::NumericMatrix(static_cast<int>(a.n), static_cast<int>(m));
    kmreduce::sign_project_gemm(a, m, glue::as_seed(seed), &out[0], n_threads);
    return 0;
  });
  return out;
}

// [[Rcpp::export]]
Rcpp::NumericMatrix multiply_cpp(SEXP x, Rcpp::NumericMatrix b,
                                 int n_threads) {
  Rcpp::NumericMatrix out;
  glue::with_matrix(x, [&](const auto& a) {
    if (a.d != b.nrow()) throw std::invalid_argument("non-conformable product");
    out = Rcpp::NumericMatrix(static_cast<int>(a.n), b.ncol());
    kmreduce::multiply(a, &b[0], b.ncol(), &out[0], n_threads);
    return 0;
  });
  return out;
}

// [[Rcpp::export]]
Rcpp::NumericMatrix gather_columns_cpp(SEXP x, Rcpp::IntegerVector index,
                                       Rcpp::NumericVector scale,
                                       int n_threads) {
  std::vector<kmreduce::index_t> idx(index.size());
  for (R_xlen_t t = 0; t < index.size(); ++t) idx[t] = index[t] - 1;
  const std::vector<double> sc(scale.begin(), scale.end());
  Rcpp::NumericMatrix out;
  glue::with_matrix(x, [&](const auto& a) {
    for (kmreduce::index_t j : idx)
      if (j < 0 || j >= a.d) throw std::invalid_argument("column index out of range");
    out = Rcpp::NumericMatrix(static_cast<int>(a.n), index.size());
    kmreduce::gather_columns(a, idx, sc, &out[0], n_threads);
    return 0;
  });
  return out;
}

// [[Rcpp::export]]
Rcpp::IntegerVector leverage_sample_cpp(Rcpp::NumericVector scores,
                                        double dims, double seed) {
  const std::vector<double> p(scores.begin(), scores.end());
  const kmreduce::ColumnSample s = kmreduce::sample_columns(
      p, static_cast<kmreduce::index_t>(dims), glue::as_seed(seed));
  Rcpp::IntegerVector out(s.index.size());
  for (std::size_t t = 0; t < s.index.size(); ++t)
    out[t] = static_cast<int>(s.index[t]) + 1;
  return out;
}
