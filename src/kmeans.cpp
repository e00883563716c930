// Glue for k-means and the original-space statistics.
#include "glue.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <kmreduce/cluster_stats.hpp>
#include <kmreduce/distinct_rows.hpp>
#include <kmreduce/kmeans.hpp>
#include <kmreduce/packed.hpp>
#include <kmreduce/row_source.hpp>
#include <kmreduce/scan.hpp>

namespace {

Rcpp::NumericMatrix centres_matrix(const std::vector<double>& c, int k, int d) {
  Rcpp::NumericMatrix out(k, d);
  std::copy(c.begin(), c.end(), out.begin());
  return out;
}

Rcpp::IntegerVector one_based(const std::vector<int>& label) {
  Rcpp::IntegerVector out(label.size());
  for (std::size_t r = 0; r < label.size(); ++r) out[r] = label[r] + 1;
  return out;
}

std::vector<int> zero_based(const Rcpp::IntegerVector& cluster) {
  std::vector<int> out(cluster.size());
  for (R_xlen_t r = 0; r < cluster.size(); ++r) out[r] = cluster[r] - 1;
  return out;
}

// The values of the data `a`: gathered while its rows were packed, or by a
// scan of `a` itself (the rows may be a shifted copy).
kmreduce::ValueSummary value_summary(const kmreduce::PackedRows& rows,
                                     const kmreduce::DenseMatrix&) {
  return rows.values;
}
template <class Rows>
kmreduce::ValueSummary value_summary(const Rows&, const kmreduce::DenseMatrix& a) {
  return kmreduce::summarize_values(a.x, a.n * a.d);
}
template <class Rows>
kmreduce::ValueSummary value_summary(const Rows&, const kmreduce::SparseMatrix& a) {
  return kmreduce::summarize_values(a.x, a.nnz());
}

// An optional shift of the rows (dense data far from the origin; see
// with_row_access), length ncol(x).
const double* shift_of(const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                       Rcpp::NumericVector& keep, int d) {
  if (shift.isNull()) return nullptr;
  keep = Rcpp::NumericVector(shift.get());
  if (keep.size() != d) throw std::invalid_argument("shift must have ncol(x) values");
  return &keep[0];
}

kmreduce::ClusterStats stats_of(const kmreduce::DenseMatrix& a, const int* label,
                                int k, const double* means, int n_threads) {
  if (means != nullptr)
    return kmreduce::cluster_stats_from_means(a, label, k, means, n_threads);
  return kmreduce::cluster_stats(a, label, k, n_threads);
}
kmreduce::ClusterStats stats_of(const kmreduce::SparseMatrix& a, const int* label,
                                int k, const double*, int n_threads) {
  return kmreduce::cluster_stats(a, label, k, n_threads);
}

Rcpp::List lloyd_list(const kmreduce::LloydResult& res, int k, int d) {
  return Rcpp::List::create(
      Rcpp::Named("cluster") = one_based(res.label),
      Rcpp::Named("centers") = centres_matrix(res.centres, k, d),
      Rcpp::Named("objective") = res.objective,
      Rcpp::Named("iter") = res.iter,
      Rcpp::Named("converged") = res.converged,
      Rcpp::Named("means") = res.means);
}

// A row source (row_source.hpp) for rows kept out of memory: the R function
// read(first, last) returns rows first..last (1-based) as a double matrix or
// a dgCMatrix; blocks of block_rows rows are read in turn, on the calling
// thread, and seen minus `shift` (see with_row_access()).
class RBlockSource {
 public:
  static constexpr bool resident = false;
  RBlockSource(Rcpp::Function read, kmreduce::index_t n, kmreduce::index_t d,
               kmreduce::index_t block_rows, int n_threads, const double* shift)
      : read_(read), n_(n), d_(d), block_(std::max<kmreduce::index_t>(1, block_rows)),
        n_threads_(n_threads), shift_(shift) {}
  kmreduce::index_t n() const { return n_; }
  kmreduce::index_t d() const { return d_; }
  template <class F>
  void visit(F&& f) const {
    for (kmreduce::index_t r0 = 0; r0 < n_; r0 += block_) {
      const kmreduce::index_t r1 = std::min(n_, r0 + block_);
      with_block(r0, r1, [&](const auto& rows) { f(rows, r0); });
    }
  }
  void row(kmreduce::index_t r, double* out) const {
    with_block(r, r + 1, [&](const auto& rows) { kmreduce::get_row(rows, 0, out); });
  }

 private:
  template <class F>
  void with_block(kmreduce::index_t r0, kmreduce::index_t r1, F&& f) const {
    const Rcpp::RObject b = read_(static_cast<double>(r0 + 1), static_cast<double>(r1));
    glue::with_matrix(b, [&](const auto& a) {
      if (a.n != r1 - r0 || a.d != d_)
        throw std::invalid_argument("a block of rows has the wrong shape");
      kmreduce::with_row_access(a, n_threads_, [&](const auto& rows) {
        f(rows);
        return 0;
      }, shift_);
      return 0;
    });
  }
  Rcpp::Function read_;
  kmreduce::index_t n_, d_, block_;
  int n_threads_;
  const double* shift_;
};
constexpr bool RBlockSource::resident;

}  // namespace

// With limit > 0, the values of dense x are checked while they are packed
// (no pass of their own): if one is not finite or exceeds limit in
// magnitude, nothing is clustered and list(invalid = TRUE) is returned (R
// then finds and reports the offending value). With `shift` (dense x), Lloyd
// runs on the rows minus the shift and the centres are returned unshifted.
// [[Rcpp::export]]
Rcpp::List kmeans_cpp(SEXP x, int k, int n_init, int iter_max, double tol,
                      double seed, int n_threads, bool verbose = false,
                      double limit = 0,
                      Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  kmreduce::KmeansOptions opt;
  if (verbose) {
    opt.on_replicate = [n_init](int t, int iter, double objective) {
      Rcpp::Function message("message");
      char buf[160];
      std::snprintf(buf, sizeof(buf),
                    "kmreduce:   replicate %d/%d: %d Lloyd iterations, objective %.7g",
                    t, n_init, iter, objective);
      message(std::string(buf));
    };
  }
  opt.k = k;
  opt.n_init = n_init;
  opt.iter_max = iter_max;
  opt.tol = tol;
  opt.seed = glue::as_seed(seed);
  opt.n_threads = n_threads;
  int d = 0;
  bool invalid = false;
  Rcpp::NumericVector keep;
  const kmreduce::KmeansResult res = glue::with_matrix(x, [&](const auto& a) {
    d = static_cast<int>(a.d);
    const double* s = shift_of(shift, keep, d);
    return kmreduce::with_row_access(a, n_threads, [&](const auto& rows) {
      if (limit > 0) {
        const kmreduce::ValueSummary v = value_summary(rows, a);
        if (!v.finite || v.maxabs > limit) {
          invalid = true;
          return kmreduce::KmeansResult();
        }
      }
      kmreduce::KmeansResult r = kmreduce::kmeans(rows, opt, glue::r_interrupt());
      kmreduce::unshift_result(rows, s, opt.k, r.best, n_threads);
      return r;
    }, s);
  });
  if (invalid) return Rcpp::List::create(Rcpp::Named("invalid") = true);
  Rcpp::List out = lloyd_list(res.best, k, d);
  out["best_replicate"] = res.best_replicate + 1;
  out["objectives"] = Rcpp::wrap(res.objectives);
  return out;
}

// [[Rcpp::export]]
Rcpp::List lloyd_from_cpp(SEXP x, Rcpp::NumericMatrix centers, int iter_max,
                          double tol, int n_threads,
                          Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  kmreduce::KmeansOptions opt;
  opt.k = centers.nrow();
  opt.iter_max = iter_max;
  opt.tol = tol;
  opt.n_threads = n_threads;
  Rcpp::NumericVector keep;
  const kmreduce::LloydResult res = glue::with_matrix(x, [&](const auto& a) {
    if (centers.ncol() != a.d) throw std::invalid_argument("centres need ncol(x) columns");
    const double* s = shift_of(shift, keep, static_cast<int>(a.d));
    const std::vector<double> c0 =
        kmreduce::shifted_centres(&centers[0], opt.k, a.d, s);
    return kmreduce::with_row_access(a, n_threads, [&](const auto& rows) {
      kmreduce::LloydResult r = kmreduce::kmeans_from(rows, c0, opt, glue::r_interrupt());
      kmreduce::unshift_result(rows, s, opt.k, r, n_threads);
      return r;
    }, s);
  });
  return lloyd_list(res, centers.nrow(), centers.ncol());
}

// lloyd_from_cpp() for rows read block by block by read(first, last) (an
// out-of-core matrix): the same Lloyd, with the cluster sums of every
// iteration summed block by block.
// [[Rcpp::export]]
Rcpp::List lloyd_blocks_cpp(Rcpp::Function read, double n, int d, double block_rows,
                            Rcpp::NumericMatrix centers, int iter_max, double tol,
                            int n_threads,
                            Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  if (centers.ncol() != d) throw std::invalid_argument("centres need d columns");
  kmreduce::KmeansOptions opt;
  opt.k = centers.nrow();
  opt.iter_max = iter_max;
  opt.tol = tol;
  opt.n_threads = n_threads;
  Rcpp::NumericVector keep;
  const double* s = shift_of(shift, keep, d);
  const RBlockSource src(read, static_cast<kmreduce::index_t>(n), d,
                         static_cast<kmreduce::index_t>(block_rows), n_threads, s);
  kmreduce::LloydResult res = kmreduce::kmeans_from_source(
      src, kmreduce::shifted_centres(&centers[0], opt.k, d, s), opt, glue::r_interrupt());
  kmreduce::unshift_result_source(src, s, opt.k, res, n_threads);
  return lloyd_list(res, centers.nrow(), d);
}

// [[Rcpp::export]]
Rcpp::IntegerVector predict_nearest_cpp(SEXP x, Rcpp::NumericMatrix centers,
                                        int n_threads,
                                        Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  Rcpp::NumericVector keep;
  const std::vector<int> label = glue::with_matrix(x, [&](const auto& a) {
    if (centers.ncol() != a.d) throw std::invalid_argument("centres need ncol(x) columns");
    const double* s = shift_of(shift, keep, static_cast<int>(a.d));
    const std::vector<double> c =
        kmreduce::shifted_centres(&centers[0], centers.nrow(), a.d, s);
    return kmreduce::with_row_access(a, n_threads, [&](const auto& rows) {
      return kmreduce::predict_nearest(rows, c.data(), centers.nrow(), n_threads);
    }, s);
  });
  return one_based(label);
}

// With `means` (k x ncol(x), the cluster means of these labels, as Lloyd
// returns them when no label changed in its last step), dense x takes one
// pass instead of two.
// [[Rcpp::export]]
Rcpp::List cluster_stats_cpp(SEXP x, Rcpp::IntegerVector cluster, int k,
                             int n_threads,
                             Rcpp::Nullable<Rcpp::NumericMatrix> means = R_NilValue) {
  const std::vector<int> label = zero_based(cluster);
  int d = 0;
  const double* mu = nullptr;
  Rcpp::NumericMatrix mm;
  if (means.isNotNull()) {
    mm = Rcpp::NumericMatrix(means.get());
    mu = &mm[0];
  }
  const kmreduce::ClusterStats s = glue::with_matrix(x, [&](const auto& a) {
    d = static_cast<int>(a.d);
    return stats_of(a, label.data(), k, mu, n_threads);
  });
  Rcpp::IntegerVector size(s.size.begin(), s.size.end());
  return Rcpp::List::create(
      Rcpp::Named("centers") = centres_matrix(s.centres, k, d),
      Rcpp::Named("withinss") = Rcpp::wrap(s.withinss),
      Rcpp::Named("size") = size,
      Rcpp::Named("totss") = s.totss,
      Rcpp::Named("sumsq") = s.sumsq);
}

// Column means of a dense matrix, threaded.
// [[Rcpp::export]]
Rcpp::NumericVector column_means_cpp(Rcpp::NumericMatrix x, int n_threads) {
  Rcpp::NumericVector out(x.ncol());
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  kmreduce::column_means(a, &out[0], n_threads);
  return out;
}

// [[Rcpp::export]]
bool has_distinct_rows_cpp(SEXP x, double k) {
  return glue::with_matrix(x, [&](const auto& a) {
    return kmreduce::has_distinct_rows(a, static_cast<kmreduce::index_t>(k));
  });
}

// [[Rcpp::export]]
double distinct_rows_cpp(SEXP x) {
  return static_cast<double>(glue::with_matrix(
      x, [](const auto& a) { return kmreduce::distinct_rows(a); }));
}

// One pass over the values: number of non-finite ones, the first (1-based),
// and the largest finite magnitude. R's range() would copy the data.
// [[Rcpp::export]]
Rcpp::List scan_values_cpp(SEXP v) {
  const kmreduce::ScanResult s = kmreduce::scan_values(REAL(v), XLENGTH(v));
  return Rcpp::List::create(Rcpp::Named("nonfinite") = static_cast<double>(s.nonfinite),
                            Rcpp::Named("first") = static_cast<double>(s.first + 1),
                            Rcpp::Named("maxabs") = s.maxabs);
}

// Streaming statistics: the two passes of cluster_stats over one row block.
// [[Rcpp::export]]
Rcpp::List block_moments_cpp(SEXP x, Rcpp::IntegerVector cluster, int k,
                             int n_threads, bool sumsq = true) {
  const std::vector<int> label = zero_based(cluster);
  int d = 0;
  const kmreduce::BlockMoments m = glue::with_matrix(x, [&](const auto& a) {
    d = static_cast<int>(a.d);
    return kmreduce::block_moments(a, label.data(), k, n_threads, sumsq);
  });
  Rcpp::IntegerVector size(m.size.begin(), m.size.end());
  return Rcpp::List::create(Rcpp::Named("sums") = centres_matrix(m.sums, k, d),
                            Rcpp::Named("size") = size,
                            Rcpp::Named("sumsq") = m.sumsq);
}

// [[Rcpp::export]]
Rcpp::List block_deviations_cpp(SEXP x, Rcpp::IntegerVector cluster,
                                Rcpp::NumericMatrix centers,
                                Rcpp::NumericVector mean) {
  const std::vector<int> label = zero_based(cluster);
  const kmreduce::BlockDeviations dv = glue::with_matrix(x, [&](const auto& a) {
    if (centers.ncol() != a.d || mean.size() != a.d)
      throw std::invalid_argument("block_deviations: centres and mean need ncol(x) columns");
    return kmreduce::block_deviations(a, label.data(), &centers[0],
                                      centers.nrow(), &mean[0]);
  });
  return Rcpp::List::create(Rcpp::Named("withinss") = Rcpp::wrap(dv.withinss),
                            Rcpp::Named("totss") = dv.totss);
}

// ---- pieces of the distributed (MPI) k-means, run on each rank's rows -----

// The k-means++ random stream of replicate t (0-based), as kmeans() uses it.
// [[Rcpp::export]]
SEXP rng_new_cpp(double seed, int replicate) {
  Rcpp::XPtr<kmreduce::Rng> p(new kmreduce::Rng(kmreduce::stream_key(
      glue::as_seed(seed), kmreduce::kStreamKmeansInit,
      static_cast<std::uint64_t>(replicate))));
  return p;
}

// [[Rcpp::export]]
double rng_uniform_cpp(SEXP rng) {
  Rcpp::XPtr<kmreduce::Rng> p(rng);
  return p->uniform();
}

// 0-based uniform integer in [0, n).
// [[Rcpp::export]]
double rng_below_cpp(SEXP rng, double n) {
  Rcpp::XPtr<kmreduce::Rng> p(rng);
  return static_cast<double>(p->below(static_cast<std::uint64_t>(n)));
}

// The rows of one rank in the form the row-wise kernels take (packed tiles
// for dense data, a CSR copy for sparse), with their squared norms: made
// once per k-means run, not once per iteration.
namespace {
struct RowsHandle {
  Rcpp::RObject keep;  // the R matrix the views point into
  std::unique_ptr<kmreduce::DenseMatrix> dense;
  std::unique_ptr<kmreduce::PackedRows> packed;
  std::unique_ptr<kmreduce::SparseMatrix> sparse;
  std::unique_ptr<kmreduce::SparseRows> csr;
  std::vector<double> norms;
  kmreduce::index_t d = 0;
  template <class F>
  int visit(F f) const {
    if (packed) return f(*packed);
    if (csr) return f(*csr);
    return f(*dense);
  }
};
}  // namespace

// [[Rcpp::export]]
SEXP rows_handle_cpp(SEXP x, int n_threads) {
  std::unique_ptr<RowsHandle> h(new RowsHandle);
  h->keep = x;
  if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
    h->dense.reset(new kmreduce::DenseMatrix(REAL(x), Rf_nrows(x), Rf_ncols(x)));
    if (kmreduce::simd_level() != kmreduce::SimdLevel::Portable)
      h->packed.reset(new kmreduce::PackedRows(*h->dense, n_threads));
    h->d = h->dense->d;
  } else if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
    const Eigen::Map<Eigen::SparseMatrix<double>> m =
        Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    h->sparse.reset(new kmreduce::SparseMatrix(m.outerIndexPtr(), m.innerIndexPtr(),
                                               m.valuePtr(), m.rows(), m.cols()));
    h->csr.reset(new kmreduce::SparseRows(*h->sparse));
    h->d = h->sparse->d;
  } else {
    throw std::invalid_argument("expected a double matrix or a dgCMatrix");
  }
  h->visit([&](const auto& rows) {
    h->norms.assign(rows.n, 0.0);
    kmreduce::row_sqnorms(rows, h->norms.data(), n_threads);
    return 0;
  });
  return Rcpp::XPtr<RowsHandle>(h.release(), true);
}

// Squared distances (n x m) of the rows to the m points (m x d), with the
// arithmetic of k-means++ (dist2_to_points).
// [[Rcpp::export]]
Rcpp::NumericMatrix dist2_cpp(SEXP handle, Rcpp::NumericMatrix points, int n_threads) {
  Rcpp::XPtr<RowsHandle> h(handle);
  if (points.ncol() != h->d) throw std::invalid_argument("dist2: points need d columns");
  Rcpp::NumericMatrix out(static_cast<int>(h->norms.size()), points.nrow());
  const std::vector<double> pts(points.begin(), points.end());
  h->visit([&](const auto& rows) {
    kmreduce::dist2_to_points(rows, h->norms.data(), pts.data(), points.nrow(),
                              &out[0], n_threads);
    return 0;
  });
  return out;
}

// Nearest centre (1-based) of every row and the squared distance to it, as
// the final pass of lloyd(); also the squared row norms.
// [[Rcpp::export]]
Rcpp::List nearest_cpp(SEXP handle, Rcpp::NumericMatrix centers, int n_threads) {
  Rcpp::XPtr<RowsHandle> h(handle);
  if (centers.ncol() != h->d) throw std::invalid_argument("nearest: centres need d columns");
  std::vector<int> label(h->norms.size(), -1);
  std::vector<double> dist(h->norms.size(), 0.0);
  h->visit([&](const auto& rows) {
    kmreduce::assign_nearest(rows, h->norms.data(), &centers[0], centers.nrow(),
                             label.data(), dist.data(), n_threads);
    return 0;
  });
  return Rcpp::List::create(Rcpp::Named("cluster") = one_based(label),
                            Rcpp::Named("dist") = Rcpp::wrap(dist),
                            Rcpp::Named("norms") = Rcpp::wrap(h->norms));
}
