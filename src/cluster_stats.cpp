// Glue for the original-space statistics, distances and nearest centres,
// for every row source (sources.h).
#include "glue.h"
#include "kmeans_glue.h"
#include "sources.h"

#include <type_traits>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/kernels/packed.hpp>
#include <kmreduce/data/row_source.hpp>

// Squared distances (nrow(x) x k) of the rows to the centres, as the
// assignment computes them (rows minus `shift`: see with_row_access()).
// [[Rcpp::export]]
Rcpp::NumericMatrix centre_distances_cpp(SEXP x, Rcpp::NumericMatrix centers, int n_threads,
                                         Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  return with_shifted_rows(x, centers, shift, n_threads,
                           [&](const auto& rows, const std::vector<double>& c, const double*) {
    Rcpp::NumericMatrix out(static_cast<int>(rows.n), centers.nrow());
    std::vector<double> norms(rows.n);
    kmreduce::row_sqnorms(rows, norms.data(), n_threads);
    kmreduce::dist2_to_points(rows, norms.data(), c.data(), centers.nrow(), &out[0], n_threads);
    return out;
  });
}

// [[Rcpp::export]]
Rcpp::IntegerVector predict_nearest_cpp(SEXP x, Rcpp::NumericMatrix centers,
                                        int n_threads,
                                        Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  return one_based(with_shifted_rows(
      x, centers, shift, n_threads,
      [&](const auto& rows, const std::vector<double>& c, const double*) {
        return kmreduce::predict_nearest(rows, c.data(), centers.nrow(), n_threads);
      }));
}

// The statistics of a partition (centres, withinss, totss, sumsq) of the
// rows of `source` (glue::SourceSpec: in memory or read block by block, on
// one process or this MPI rank; collective on MPI ranks). With `means`
// (k x ncol, the cluster means of these labels, as Lloyd returns them when
// no label changed in its last step), dense rows in memory take one pass
// instead of two. With weights, the weighted statistics (`means` unused).
// [[Rcpp::export]]
Rcpp::List cluster_stats_cpp(SEXP source, Rcpp::IntegerVector cluster, int k, int n_threads,
                             Rcpp::Nullable<Rcpp::NumericMatrix> means = R_NilValue) {
  const glue::SourceSpec spec(source);
  const std::vector<int> label = zero_based(cluster);
  if (static_cast<kmreduce::index_t>(label.size()) != spec.n())
    throw std::invalid_argument("one label per row");
  const int d = static_cast<int>(spec.d());
  const double* w = spec.weights();
  const glue::AnyCombine& combine = spec.combine();
  if (!spec.in_memory()) {
    const glue::RBlockSource src = spec.blocks(n_threads);
    if (w != nullptr)
      return stats_list(kmreduce::cluster_stats_blocks_weighted(src, label.data(), k, w,
                                                                n_threads), k, d);
    return stats_list(kmreduce::cluster_stats_blocks(src, label.data(), k, n_threads, combine),
                      k, d);
  }
  const double* mu = nullptr;
  Rcpp::NumericMatrix mm;
  if (means.isNotNull()) {
    mm = Rcpp::NumericMatrix(means.get());
    mu = &mm[0];
  }
  const kmreduce::ClusterStats s = glue::with_matrix(spec.rows(), [&](const auto& a) {
    if (combine.size() > 1) {
      using Matrix = std::decay_t<decltype(a)>;
      return kmreduce::cluster_stats_blocks(kmreduce::OneBlock<Matrix>(a), label.data(), k,
                                            n_threads, combine);
    }
    if (w != nullptr) return kmreduce::cluster_stats_weighted(a, label.data(), k, w, n_threads);
    return stats_of(a, label.data(), k, mu, n_threads);
  });
  return stats_list(s, k, d);
}

// The one-pass moments of one block of rows by cluster (label_moments() of
// cluster_stats.hpp): list(sums = k x d, size = k, sq = k), to be added to
// the running totals over the blocks.
// [[Rcpp::export]]
Rcpp::List label_moments_cpp(SEXP x, Rcpp::IntegerVector cluster, int k, int n_threads,
                             Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue) {
  const std::vector<int> label = zero_based(cluster);
  Rcpp::NumericVector wkeep;
  const double* w = weights_of(weights, wkeep, static_cast<double>(label.size()));
  Rcpp::NumericVector size(k), sq(k);
  Rcpp::NumericMatrix sums = glue::with_matrix(x, [&](const auto& a) {
    if (static_cast<kmreduce::index_t>(label.size()) != a.n)
      throw std::invalid_argument("one label per row");
    Rcpp::NumericMatrix s(k, static_cast<int>(a.d));
    kmreduce::label_moments(a, label.data(), w, k, &s[0], &size[0], &sq[0], n_threads);
    return s;
  });
  return Rcpp::List::create(Rcpp::Named("sums") = sums, Rcpp::Named("size") = size,
                            Rcpp::Named("sq") = sq);
}
