// Glue for choosing k (k_path()): silhouette widths of a partition of the
// reduced rows and the gap statistic's uniform reference sets.
#include "glue.h"

#include <kmreduce/cluster/model_selection.hpp>

// Silhouette widths of several partitions of the rows of x: cluster is an
// n x m integer matrix of 1-based labels (R), k the numbers of clusters;
// returns the n x m widths.
// [[Rcpp::export]]
Rcpp::NumericMatrix silhouette_cpp(Rcpp::NumericMatrix x, Rcpp::IntegerMatrix cluster,
                                   Rcpp::IntegerVector k, int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  std::vector<int> label(cluster.begin(), cluster.end());
  for (int& v : label) v -= 1;
  Rcpp::NumericMatrix width(x.nrow(), cluster.ncol());
  kmreduce::silhouette_widths(a, label.data(), cluster.ncol(), &k[0], &width[0], n_threads);
  return width;
}

// Reference set `set` (0-based) of the gap statistic: n rows uniform in the
// box [lo, hi] of each column.
// [[Rcpp::export]]
Rcpp::NumericMatrix uniform_box_cpp(double n, Rcpp::NumericVector lo, Rcpp::NumericVector hi,
                                    double seed, double set, int n_threads) {
  const int d = lo.size();
  Rcpp::NumericMatrix out(static_cast<int>(n), d);
  kmreduce::uniform_box(static_cast<kmreduce::index_t>(n), d, &lo[0], &hi[0],
                        glue::as_seed(seed), static_cast<std::uint64_t>(set), &out[0],
                        n_threads);
  return out;
}
