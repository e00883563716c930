// Glue for the reducers: sign projection, products, leverage sampling, SVD.
#include "glue.h"

#include <cmath>
#include <string>

#include <kmreduce/data/row_shift.hpp>
#include <kmreduce/kernels/products.hpp>
#include <kmreduce/reduce/leverage.hpp>
#include <kmreduce/reduce/projections.hpp>

// [[Rcpp::export]]
Rcpp::NumericMatrix sign_matrix_cpp(double d, double dims, double seed) {
  const kmreduce::SignMatrix r(glue::as_seed(seed),
                               static_cast<kmreduce::index_t>(d),
                               static_cast<kmreduce::index_t>(dims));
  Rcpp::NumericMatrix out(static_cast<int>(d), static_cast<int>(dims));
  r.panel(0, r.cols(), &out[0]);
  return out;
}

namespace {
// The reduced rows minus `shift`, so that they sit around the origin
// however far the data do (k-means on them computes ||x||^2 + ||c||^2 -
// 2 x.c): NULL, none; else a vector of ncol(out) values (fitted by
// robust_shift_cpp() of the training rows, R/reducer.R::map_rows()).
void apply_shift(Rcpp::NumericMatrix& out, const Rcpp::Nullable<Rcpp::NumericVector>& shift) {
  if (shift.isNull()) return;
  const Rcpp::NumericVector s(shift.get());
  const kmreduce::index_t n = out.nrow(), m = out.ncol();
  if (s.size() != m) throw std::invalid_argument("shift must have one value per reduced column");
  if (n > 0 && m > 0) kmreduce::subtract_row(&out[0], n, &s[0], m);
}
}  // namespace

namespace {
// The projection's name (the registry entry's `cpp`) and the options of the
// call, read from the named list R builds (R/reducer.R::reduce_options()),
// in this one place.
struct ReduceOptions {
  std::string method;
  kmreduce::ProjectionCall call;
};

ReduceOptions reduce_options(const Rcpp::List& o) {
  ReduceOptions r;
  kmreduce::ProjectionCall& c = r.call;
  glue::read_options(o, "reduce", {
      {"method", [&](auto&, SEXP v) { r.method = Rcpp::as<std::string>(v); }},
      {"dims", [&](auto&, SEXP v) {
         c.dims = static_cast<kmreduce::index_t>(Rcpp::as<double>(v));
       }},
      {"seed", [&](auto&, SEXP v) { c.seed = glue::as_seed(Rcpp::as<double>(v)); }},
      {"n_threads", [&](auto&, SEXP v) { c.n_threads = Rcpp::as<int>(v); }},
      {"limit", [&](auto&, SEXP v) { c.limit = Rcpp::as<double>(v); }},
      {"density", [&](auto&, SEXP v) { c.density = Rcpp::as<double>(v); }},
      {"algorithm", [&](auto&, SEXP v) { c.algorithm = Rcpp::as<std::string>(v); }}});
  if (c.dims < 1) throw std::invalid_argument("reduce options: dims must be at least 1");
  return r;
}
}  // namespace

// C = A R for the data-oblivious maps, R defined by the options (see
// ReduceOptions), minus `shift` (apply_shift()). With limit > 0 (the
// sparse embedding of dense x), attribute "invalid" is TRUE when a value is
// not finite or exceeds limit in magnitude.
// [[Rcpp::export]]
Rcpp::NumericMatrix project_cpp(SEXP x, Rcpp::List options,
                                Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  const ReduceOptions o = reduce_options(options);
  Rcpp::NumericMatrix out;
  bool invalid = false;
  glue::with_matrix(x, [&](const auto& a) {
    out = Rcpp::NumericMatrix(static_cast<int>(a.n), static_cast<int>(o.call.dims));
    invalid = kmreduce::project(o.method, a, o.call, &out[0]);
    return 0;
  });
  if (o.call.limit > 0) out.attr("invalid") = invalid;
  if (!invalid) apply_shift(out, shift);
  return out;
}

// The pieces of the FJLT's R = D H P^T / sqrt(dims) (tests build R from
// them): the signs of D, and P (dims x 2^ceil(log2 d)) as triplets, 1-based;
// `transform`: whether n rows with `stored` values take the transform.
// [[Rcpp::export]]
Rcpp::List fjlt_parts_cpp(double d, double dims, double seed, double density,
                          double n = 1, double stored = 1) {
  const kmreduce::FjltMap m(glue::as_seed(seed), static_cast<kmreduce::index_t>(d),
                            static_cast<kmreduce::index_t>(dims), density);
  const double unscale = std::sqrt(static_cast<double>(m.padded) * m.dims);
  Rcpp::IntegerVector i(m.value.size()), j(m.value.size());
  Rcpp::NumericVector x(m.value.size());
  for (kmreduce::index_t t = 0; t < m.dims; ++t) {
    for (kmreduce::index_t e = m.start[t]; e < m.start[t + 1]; ++e) {
      i[e] = static_cast<int>(t + 1);
      j[e] = static_cast<int>(m.coordinate(t, e) + 1);
      x[e] = m.value[e] * unscale;
    }
  }
  return Rcpp::List::create(Rcpp::Named("sign") = Rcpp::wrap(m.sign),
                            Rcpp::Named("padded") = static_cast<double>(m.padded),
                            Rcpp::Named("i") = i, Rcpp::Named("j") = j,
                            Rcpp::Named("x") = x,
                            Rcpp::Named("transform") = kmreduce::fjlt_use_transform(
                                stored, static_cast<kmreduce::index_t>(n), m));
}

// The names project_cpp() accepts (the registry entries' `cpp`), in the
// order of the core's list `Projections`.
// [[Rcpp::export]]
Rcpp::CharacterVector projections_cpp() { return Rcpp::wrap(kmreduce::projection_names()); }

// [[Rcpp::export]]
std::string simd_level_cpp() { return kmreduce::simd_level_name(); }

// An independent seed for repetition r of a seeded computation (< 2^53).
// [[Rcpp::export]]
double derive_seed_cpp(double seed, int r) {
  const std::uint64_t k = kmreduce::stream_key(
      glue::as_seed(seed), kmreduce::kStreamRepeat, static_cast<std::uint64_t>(r));
  return static_cast<double>(k >> 11);
}

// [[Rcpp::export]]
Rcpp::NumericMatrix multiply_cpp(SEXP x, Rcpp::NumericMatrix b,
                                 int n_threads,
                                 Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  Rcpp::NumericMatrix out;
  glue::with_matrix(x, [&](const auto& a) {
    if (a.d != b.nrow()) throw std::invalid_argument("non-conformable product");
    out = Rcpp::NumericMatrix(static_cast<int>(a.n), b.ncol());
    kmreduce::multiply(a, &b[0], b.ncol(), &out[0], n_threads);
    return 0;
  });
  apply_shift(out, shift);
  return out;
}

// [[Rcpp::export]]
Rcpp::NumericMatrix gather_columns_cpp(SEXP x, Rcpp::IntegerVector index,
                                       Rcpp::NumericVector scale,
                                       int n_threads,
                                       Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
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
  apply_shift(out, shift);
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

// x (n x m) minus `row` (m) from each of its rows, in place: for a matrix
// its caller made and alone holds (stream_reduce()), centred without a
// second copy. The numbers of x - rep(row, each = n).
// [[Rcpp::export]]
void subtract_row_in_place_cpp(SEXP x, Rcpp::NumericVector row) {
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x)) throw std::invalid_argument("a double matrix expected");
  const kmreduce::index_t n = Rf_nrows(x), m = Rf_ncols(x);
  if (row.size() != m) throw std::invalid_argument("one value per column expected");
  if (n > 0 && m > 0) kmreduce::subtract_row(REAL(x), n, &row[0], m);
}

// Sets the attribute `name` of x (NULL: removes it) in place: for a result
// its caller just made (stream_reduce(), reduce_training()), which R's
// `attr<-` would copy whole while the frames that made it are still held.
// [[Rcpp::export]]
void set_attr_in_place_cpp(SEXP x, std::string name, SEXP value) {
  Rf_setAttrib(x, Rf_install(name.c_str()), value);
}

// robust_shift() of a dense matrix (data/row_shift.hpp): in each column the
// lower median of the rows of shift_sample().
// [[Rcpp::export]]
Rcpp::NumericVector robust_shift_cpp(Rcpp::NumericMatrix x, int n_threads = 1) {
  Rcpp::NumericVector out(x.ncol());
  if (x.nrow() > 0 && x.ncol() > 0)
    kmreduce::robust_shift(kmreduce::DenseMatrix(&x[0], x.nrow(), x.ncol()), &out[0], n_threads);
  return out;
}

// The rows of x whose values hash lowest (lowest_row_hashes(): at most 256),
// 1-based, with their 64-bit hashes as two exact doubles (the high and the
// low 32 bits): the candidates of this MPI rank for the shift of the rows of
// all ranks (R/mpi.R::mpi_robust_shift()).
// [[Rcpp::export]]
Rcpp::List shift_candidates_cpp(Rcpp::NumericMatrix x, int n_threads = 1) {
  std::vector<kmreduce::RowHash> h;
  if (x.nrow() > 0 && x.ncol() > 0)
    h = kmreduce::lowest_row_hashes(kmreduce::DenseMatrix(&x[0], x.nrow(), x.ncol()), n_threads);
  Rcpp::NumericVector row(h.size()), hi(h.size()), lo(h.size());
  for (std::size_t t = 0; t < h.size(); ++t) {
    row[t] = static_cast<double>(h[t].second + 1);
    hi[t] = static_cast<double>(h[t].first >> 32);
    lo[t] = static_cast<double>(h[t].first & 0xFFFFFFFFULL);
  }
  return Rcpp::List::create(Rcpp::Named("row") = row, Rcpp::Named("hi") = hi,
                            Rcpp::Named("lo") = lo);
}

// Column means of a dense matrix, threaded; with `weights` (one per row),
// weighted.
// [[Rcpp::export]]
Rcpp::NumericVector column_means_cpp(Rcpp::NumericMatrix x, int n_threads,
                                     Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue) {
  Rcpp::NumericVector out(x.ncol());
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (weights.isNotNull()) {
    const Rcpp::NumericVector w(weights.get());
    if (w.size() != x.nrow()) throw std::invalid_argument("weights must have one value per row");
    kmreduce::weighted_column_means(a, &w[0], &out[0], n_threads);
    return out;
  }
  kmreduce::column_means(a, &out[0], n_threads);
  return out;
}
