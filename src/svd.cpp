// Glue for the exact SVD (LAPACK through Armadillo).
#include <RcppArmadillo.h>

#include "glue.h"

#include <kmreduce/svd.hpp>

// [[Rcpp::export]]
Rcpp::List top_svd_cpp(SEXP x, int k) {
  kmreduce::index_t d = 0;
  const kmreduce::TopSvd s = glue::with_matrix(x, [&](const auto& a) {
    d = a.d;
    return kmreduce::top_svd(a, k);
  });
  Rcpp::NumericMatrix v(static_cast<int>(d), k);
  std::copy(s.v.begin(), s.v.end(), v.begin());
  return Rcpp::List::create(Rcpp::Named("d") = Rcpp::wrap(s.d),
                            Rcpp::Named("v") = v);
}
