// Glue for the original-space statistics, distances and nearest centres,
// for every row source (sources.h).
#include "glue.h"
#include "kmeans_glue.h"
#include "sources.h"
#include "stored_cells.h"

#include <algorithm>
#include <stdexcept>
#include <string>
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

namespace {

// The rows of a source read in blocks as the statistics take them
// (cluster_stats.hpp): its blocks, and for the one pass over a 10x file its
// cells as the file stores them (the description's `cells`: read(first,
// last) and fail(cells, message)), through the stored-layout kernel
// (cells_label_moments(), data/cells.hpp); the error of a bad block is the
// source's own R error (fail()).
class StatsBlocks {
 public:
  StatsBlocks(const glue::RBlockSource& rows, SEXP cells) : rows_(rows), cells_(cells) {}
  kmreduce::index_t n() const { return rows_.n(); }
  kmreduce::index_t d() const { return rows_.d(); }
  template <class F>
  void visit_blocks(F&& f) const {
    rows_.visit_blocks(f);
  }
  template <class F>
  void visit_stored(F&& f) const {
    if (cells_ == R_NilValue) return rows_.visit_blocks(f);
    const Rcpp::List cells(cells_);
    const Rcpp::Function read = cells["read"], fail = cells["fail"];
    const kmreduce::index_t n = rows_.n(), block = rows_.block_rows();
    for (kmreduce::index_t r0 = 0; r0 < n; r0 += block) {
      const kmreduce::index_t r1 = std::min(n, r0 + block);
      const Rcpp::List stored = read(static_cast<double>(r0 + 1), static_cast<double>(r1));
      std::string error;
      try {
        with_stored_cells(stored, [&](const auto& c) {
          if (c.n_cells() != r1 - r0 || c.n_genes() != rows_.d())
            throw std::invalid_argument("a block of cells has the wrong shape");
          f(c, r0);
        });
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (!error.empty()) {
        fail(stored, error);
        throw std::runtime_error(error);
      }
    }
  }

 private:
  glue::RBlockSource rows_;
  SEXP cells_;
};

}  // namespace

// The statistics of a partition (centres, withinss, totss, sumsq, size;
// weight with weights) of the rows of `source` (glue::SourceSpec: in memory
// or read block by block, on one process or this MPI rank: collective on
// MPI ranks; with `one_pass`, in one pass where it keeps the digits). With
// `means` (k x ncol, the cluster means of these labels, as Lloyd returns
// them when no label changed in its last step), dense unweighted rows in
// memory skip the sums (cluster_stats.hpp).
// [[Rcpp::export]]
Rcpp::List cluster_stats_cpp(SEXP source, Rcpp::IntegerVector cluster, int k, int n_threads,
                             Rcpp::Nullable<Rcpp::NumericMatrix> means = R_NilValue) {
  const glue::SourceSpec spec(source);
  const std::vector<int> label = zero_based(cluster);
  if (static_cast<kmreduce::index_t>(label.size()) != spec.n())
    throw std::invalid_argument("one label per row");
  const int d = static_cast<int>(spec.d());
  kmreduce::StatsInput in;
  in.label = label.data();
  in.k = k;
  in.weight = spec.weights();
  in.one_pass = spec.one_pass();
  in.n_threads = n_threads;
  Rcpp::NumericMatrix mm;
  if (means.isNotNull()) {
    mm = Rcpp::NumericMatrix(means.get());
    if (mm.nrow() != k || mm.ncol() != d) throw std::invalid_argument("means must be k x ncol");
    in.means = &mm[0];
  }
  const glue::AnyCombine& combine = spec.combine();
  if (!spec.in_memory()) {
    const StatsBlocks src(spec.blocks(n_threads), spec.cells());
    return stats_list(kmreduce::cluster_stats(src, in, combine), k, d);
  }
  return glue::with_matrix(spec.rows(), [&](const auto& a) {
    using Matrix = std::decay_t<decltype(a)>;
    return stats_list(kmreduce::cluster_stats(kmreduce::OneBlock<Matrix>(a), in, combine), k, d);
  });
}
