// Glue for the decompositions (LAPACK through Armadillo): exact SVD, randomized
// SVD (in memory, block by block, on MPI ranks), CSSP, Gram and eigenvalues.
#include <RcppArmadillo.h>

#include "glue.h"
#include "sources.h"

#include <string>
#include <type_traits>

#include <kmreduce/reduce/cssp.hpp>
#include <kmreduce/reduce/rsvd.hpp>
#include <kmreduce/reduce/svd.hpp>

namespace {
// An optional centre of the columns (length ncol(x)): the decompositions are
// then of x - 1 center^T.
const double* center_of(const Rcpp::Nullable<Rcpp::NumericVector>& center,
                        Rcpp::NumericVector& keep, kmreduce::index_t d) {
  if (center.isNull()) return nullptr;
  keep = Rcpp::NumericVector(center.get());
  if (keep.size() != d) throw std::invalid_argument("center must have ncol(x) values");
  return &keep[0];
}
// Optional observation weights w (one per row, positive; checked in R): the
// decompositions are then of diag(sqrt(w)) (x - 1 center^T); the row
// scales sqrt(w), in `keep`.
const double* row_scale_of(const double* w, std::vector<double>& keep, kmreduce::index_t n) {
  if (w == nullptr) return nullptr;
  keep.assign(w, w + n);
  for (double& v : keep) v = std::sqrt(v);
  return keep.data();
}
// (the same of weights given from R: one per row, or NULL)
const double* row_scale_of(const Rcpp::Nullable<Rcpp::NumericVector>& weights,
                           std::vector<double>& keep, kmreduce::index_t n) {
  Rcpp::NumericVector w;
  return row_scale_of(weights_of(weights, w, static_cast<double>(n)), keep, n);
}
}  // namespace

// [[Rcpp::export]]
Rcpp::List top_svd_cpp(SEXP x, int k,
                       Rcpp::Nullable<Rcpp::NumericVector> center = R_NilValue,
                       Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue,
                       int n_threads = 1) {
  kmreduce::index_t d = 0;
  Rcpp::NumericVector keep;
  std::vector<double> scale;
  const kmreduce::TopSvd s = glue::with_matrix(x, [&](const auto& a) {
    d = a.d;
    return kmreduce::top_svd(a, k, center_of(center, keep, a.d),
                             row_scale_of(weights, scale, a.n), n_threads);
  });
  Rcpp::NumericMatrix v(static_cast<int>(d), k);
  std::copy(s.v.begin(), s.v.end(), v.begin());
  return Rcpp::List::create(Rcpp::Named("d") = Rcpp::wrap(s.d),
                            Rcpp::Named("v") = v);
}

// TEST HOOK (called only by the tests; see test_hooks.cpp): block Lanczos
// alone, the exact SVD's first way (svd.hpp): converged, and the top k
// singular values and right vectors when it did.
// [[Rcpp::export]]
Rcpp::List block_lanczos_cpp(SEXP x, int k, Rcpp::Nullable<Rcpp::NumericVector> center,
                             Rcpp::Nullable<Rcpp::NumericVector> weights, int n_threads) {
  kmreduce::index_t d = 0;
  Rcpp::NumericVector keep;
  std::vector<double> scale;
  kmreduce::TopSvd s;
  const bool converged = glue::with_matrix(x, [&](const auto& a) {
    d = a.d;
    return kmreduce::block_lanczos_svd(a, k, center_of(center, keep, a.d),
                                       row_scale_of(weights, scale, a.n), n_threads, s);
  });
  if (!converged) return Rcpp::List::create(Rcpp::Named("converged") = false);
  Rcpp::NumericMatrix v(static_cast<int>(d), k);
  std::copy(s.v.begin(), s.v.end(), v.begin());
  return Rcpp::List::create(Rcpp::Named("converged") = true,
                            Rcpp::Named("d") = Rcpp::wrap(s.d), Rcpp::Named("v") = v);
}

// The options of cssp_cpp(), from the named list of R/reducer.R::fit_cssp():
// c (expected columns of the randomized phase), repeats, seed, n_threads,
// spectral (the residual's norm), strong_f (> 0: strong RRQR with that f).
struct CsspOptions {
  double c = 0;
  int repeats = 1;
  double seed = 0;
  int n_threads = 1;
  bool spectral = false;
  double strong_f = 0;
};

namespace {
CsspOptions cssp_options(const Rcpp::List& o) {
  CsspOptions r;
  glue::read_options(o, "cssp", {
      {"c", [&](auto&, SEXP v) { r.c = Rcpp::as<double>(v); }},
      {"repeats", [&](auto&, SEXP v) { r.repeats = Rcpp::as<int>(v); }},
      {"seed", [&](auto&, SEXP v) { r.seed = Rcpp::as<double>(v); }},
      {"n_threads", [&](auto&, SEXP v) { r.n_threads = Rcpp::as<int>(v); }},
      {"spectral", [&](auto&, SEXP v) { r.spectral = Rcpp::as<bool>(v); }},
      {"strong_f", [&](auto&, SEXP v) { r.strong_f = Rcpp::as<double>(v); }}});
  return r;
}
}  // namespace

// [[Rcpp::export]]
Rcpp::List cssp_cpp(SEXP x, Rcpp::NumericMatrix v, Rcpp::List options,
                    Rcpp::Nullable<Rcpp::NumericVector> center = R_NilValue,
                    Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue) {
  const CsspOptions o = cssp_options(options);
  Rcpp::NumericVector keep;
  std::vector<double> scale;
  const kmreduce::CsspResult r = glue::with_matrix(x, [&](const auto& a) {
    if (v.nrow() != a.d) throw std::invalid_argument("cssp: V must have d rows");
    return kmreduce::cssp(a, &v[0], v.ncol(), o.c, o.repeats, glue::as_seed(o.seed),
                          o.n_threads, glue::r_interrupt(), center_of(center, keep, a.d),
                          o.spectral, o.strong_f, row_scale_of(weights, scale, a.n));
  });
  Rcpp::IntegerVector index(r.index.size());
  for (std::size_t t = 0; t < r.index.size(); ++t)
    index[t] = static_cast<int>(r.index[t]) + 1;
  return Rcpp::List::create(Rcpp::Named("index") = index,
                            Rcpp::Named("prob") = Rcpp::wrap(r.prob),
                            Rcpp::Named("residual") = r.residual,
                            Rcpp::Named("frob2") = r.frob2,
                            Rcpp::Named("best_repeat") = r.best_repeat + 1);
}

// TEST HOOK (called only by the tests; see test_hooks.cpp): the strong
// rank-revealing QR of m at rank k: the column order
// (1-based) and the number of swaps after the greedy pivoted QR.
// [[Rcpp::export]]
Rcpp::List strong_rrqr_cpp(Rcpp::NumericMatrix m, int k, double f) {
  const arma::mat mm(&m[0], m.nrow(), m.ncol(), false, true);
  const kmreduce::RrqrResult r = kmreduce::strong_rrqr(mm, static_cast<arma::uword>(k), f);
  Rcpp::IntegerVector perm(r.perm.n_elem);
  for (arma::uword t = 0; t < r.perm.n_elem; ++t) perm[t] = static_cast<int>(r.perm[t]) + 1;
  return Rcpp::List::create(Rcpp::Named("perm") = perm, Rcpp::Named("swaps") = r.swaps);
}

// [[Rcpp::export]]
Rcpp::NumericMatrix gram_cpp(Rcpp::NumericMatrix x, int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  const int m = std::min(x.nrow(), x.ncol());
  Rcpp::NumericMatrix g(m, m);
  kmreduce::gram(a, &g[0], n_threads);
  return g;
}

// [[Rcpp::export]]
Rcpp::NumericVector sym_eigenvalues_cpp(Rcpp::NumericMatrix g) {
  return Rcpp::wrap(kmreduce::sym_eigenvalues(&g[0], g.nrow()));
}

namespace {
// The options of randomized_svd_cpp(): k, oversample, power_iters, seed,
// n_threads and center: FALSE, TRUE (of the centred rows: their column
// means found in a pass of their own) or the column means themselves
// (length ncol; rows in memory on one process).
struct RsvdOptions {
  int k = 0, oversample = 0, power_iters = 0, n_threads = 1;
  double seed = 0;
  bool center = false;
  Rcpp::NumericVector means;
};
RsvdOptions rsvd_options(const Rcpp::List& options) {
  RsvdOptions o;
  glue::read_options(options, "randomized SVD", {
      {"k", [&](auto&, SEXP v) { o.k = Rcpp::as<int>(v); }},
      {"oversample", [&](auto&, SEXP v) { o.oversample = Rcpp::as<int>(v); }},
      {"power_iters", [&](auto&, SEXP v) { o.power_iters = Rcpp::as<int>(v); }},
      {"seed", [&](auto&, SEXP v) { o.seed = Rcpp::as<double>(v); }},
      {"n_threads", [&](auto&, SEXP v) { o.n_threads = Rcpp::as<int>(v); }},
      {"center", [&](auto&, SEXP v) {
         o.center = TYPEOF(v) == REALSXP || Rcpp::as<bool>(v);
         if (TYPEOF(v) == REALSXP) o.means = Rcpp::NumericVector(v);
       }}});
  return o;
}

Rcpp::List svd_list(const kmreduce::Svd& s, kmreduce::index_t n, kmreduce::index_t d, int k) {
  Rcpp::NumericMatrix u(static_cast<int>(n), k), v(static_cast<int>(d), k);
  std::copy(s.u.begin(), s.u.end(), u.begin());
  std::copy(s.v.begin(), s.v.end(), v.begin());
  return Rcpp::List::create(Rcpp::Named("d") = Rcpp::wrap(s.d), Rcpp::Named("u") = u,
                            Rcpp::Named("v") = v);
}
}  // namespace

// The randomized SVD (rsvd.hpp) of the rows of `source` (glue::SourceSpec),
// centred and weighted as it and `options` say: in memory on one process
// randomized_svd(); otherwise its products taken block by block
// (randomized_svd_blocks(): the same test matrix and steps, equal to
// rounding), summed over the MPI ranks if any (collective; u holds this
// rank's rows).
// [[Rcpp::export]]
Rcpp::List randomized_svd_cpp(SEXP source, Rcpp::List options) {
  const glue::SourceSpec spec(source);
  const RsvdOptions o = rsvd_options(options);
  const kmreduce::index_t n = spec.n(), d = spec.d();
  if (o.means.size() > 0 && (!spec.in_memory() || spec.distributed() || o.means.size() != d))
    throw std::invalid_argument("column means: ncol values, for rows in memory on one process");
  const std::uint64_t seed = glue::as_seed(o.seed);
  const glue::AnyCombine& combine = spec.combine();
  kmreduce::Svd s;
  if (!spec.in_memory()) {
    s = kmreduce::randomized_svd_blocks(spec.blocks(o.n_threads), o.k, o.oversample,
                                        o.power_iters, seed, o.n_threads, o.center,
                                        glue::r_interrupt(), combine, spec.weights());
  } else if (spec.distributed() || (o.center && o.means.size() == 0)) {
    if (spec.weights() != nullptr)
      throw std::invalid_argument("weights: rows in memory with their column means given");
    s = glue::with_matrix(spec.rows(), [&](const auto& a) {
      using Matrix = std::decay_t<decltype(a)>;
      return kmreduce::randomized_svd_blocks(kmreduce::OneBlock<Matrix>(a), o.k, o.oversample,
                                             o.power_iters, seed, o.n_threads, o.center,
                                             glue::r_interrupt(), combine);
    });
  } else {
    std::vector<double> scale;
    s = glue::with_matrix(spec.rows(), [&](const auto& a) {
      return kmreduce::randomized_svd(a, o.k, o.oversample, o.power_iters, seed, o.n_threads,
                                      glue::r_interrupt(),
                                      o.means.size() > 0 ? &o.means[0] : nullptr,
                                      row_scale_of(spec.weights(), scale, a.n));
    });
  }
  return svd_list(s, n, d, o.k);
}
