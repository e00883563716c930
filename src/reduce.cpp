// Glue for the reducers: sign projection, products, leverage sampling, SVD.
#include "glue.h"
#include "sources.h"

#include <cmath>
#include <string>
#include <vector>

#include <kmreduce/data/block_passes.hpp>
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

namespace {
// One block's reduced rows as the reducer's family maps them, the numbers
// of its apply on the same rows in memory (R/reducer.R::reducer_spec(): the
// list that says how): "projection" (project_cpp(): `options(block)`, the
// ReduceOptions of the block; `invalid(block)`, the R error of values out
// of range when `limit` > 0), "selection" (gather_columns_cpp(): `index`,
// 1-based, and `scale`), "extraction" (multiply_cpp(): `rotation`), each
// minus `shift` (NULL: none); "r" (`apply(block)`, a method's own apply in
// R, which takes the shift). `names`: the reduced columns.
class BlockMap {
 public:
  BlockMap(const Rcpp::List& spec, kmreduce::index_t d)
      : spec_(spec), family_(Rcpp::as<std::string>(spec["family"])),
        names_(Rcpp::as<Rcpp::CharacterVector>(spec["names"])), n_threads_(Rcpp::as<int>(spec["n_threads"])) {
    m_ = names_.size();
    if (spec.containsElementNamed("shift") && !Rf_isNull(spec["shift"])) {
      shift_ = Rcpp::as<std::vector<double>>(spec["shift"]);
      if (static_cast<kmreduce::index_t>(shift_.size()) != m_)
        throw std::invalid_argument("shift must have one value per reduced column");
    }
    if (family_ == "selection") {
      const Rcpp::IntegerVector index = Rcpp::as<Rcpp::IntegerVector>(spec["index"]);
      scale_ = Rcpp::as<std::vector<double>>(spec["scale"]);
      for (R_xlen_t t = 0; t < index.size(); ++t) {
        if (index[t] < 1 || index[t] > d) throw std::invalid_argument("column index out of range");
        index_.push_back(index[t] - 1);
      }
      if (static_cast<kmreduce::index_t>(index_.size()) != m_ || scale_.size() != index_.size())
        throw std::invalid_argument("one index and one scale per reduced column");
    } else if (family_ == "extraction") {
      rotation_ = Rcpp::as<Rcpp::NumericMatrix>(spec["rotation"]);
      if (rotation_.nrow() != d || rotation_.ncol() != m_)
        throw std::invalid_argument("the rotation must be ncol x (reduced columns)");
    } else if (family_ != "projection" && family_ != "r") {
      throw std::invalid_argument("unknown reducer family `" + family_ + "`");
    }
  }
  kmreduce::index_t m() const { return m_; }
  SEXP names() const { return names_; }
  // part (a.n x m, zeros) = the rows of `block` (its view `a`) mapped.
  template <class Matrix>
  void operator()(SEXP block, const Matrix& a, double* part) const {
    if (family_ == "r") return call_apply(block, a.n, part);
    bool invalid = false;
    if (family_ == "projection") {
      const ReduceOptions o =
          reduce_options(call("options", block));
      if (o.call.dims != m_) throw std::invalid_argument("dims must be the reduced columns");
      invalid = kmreduce::project(o.method, a, o.call, part) && o.call.limit > 0;
      if (invalid) {
        call("invalid", block);
        throw std::runtime_error("values that cannot be clustered");
      }
    } else if (family_ == "selection") {
      kmreduce::gather_columns(a, index_, scale_, part, n_threads_);
    } else {
      kmreduce::multiply(a, &rotation_[0], m_, part, n_threads_);
    }
    if (!shift_.empty() && a.n > 0) kmreduce::subtract_row(part, a.n, shift_.data(), m_);
  }

 private:
  // The spec's R function `name` called with the block.
  SEXP call(const char* name, SEXP block) const {
    const Rcpp::Function f = spec_[name];
    return f(block);
  }
  void call_apply(SEXP block, kmreduce::index_t n, double* part) const {
    const Rcpp::NumericMatrix r = Rcpp::as<Rcpp::NumericMatrix>(call("apply", block));
    if (r.nrow() != n || r.ncol() != m_)
      throw std::invalid_argument("the reducer's apply gave a block of the wrong shape");
    std::copy(r.begin(), r.end(), part);
  }
  Rcpp::List spec_;
  std::string family_;
  Rcpp::CharacterVector names_;
  int n_threads_;
  kmreduce::index_t m_ = 0;
  std::vector<double> shift_;
  std::vector<kmreduce::index_t> index_;
  std::vector<double> scale_;
  Rcpp::NumericMatrix rotation_;
};

// The dimnames of a block (a matrix's attribute, a dgCMatrix's slot).
SEXP block_dimnames(SEXP b) {
  return Rf_isS4(b) ? R_do_slot(b, Rf_install("Dimnames")) : Rf_getAttrib(b, R_DimNamesSymbol);
}

// The rows `index` (1-based, increasing) 0-based, checked.
std::vector<kmreduce::index_t> row_index(const Rcpp::NumericVector& index, kmreduce::index_t n) {
  std::vector<kmreduce::index_t> out(index.size());
  for (R_xlen_t t = 0; t < index.size(); ++t)
    out[t] = static_cast<kmreduce::index_t>(index[t]) - 1;
  kmreduce::check_row_index(out, n);
  return out;
}

// The rows of a sample taken block by block (kmreduce::TakenRows) and their
// names, as rbind() of the blocks' rows names them: the rows' names where
// a block has some, the columns' of the first block that has them.
class Sample {
 public:
  Sample(const std::vector<kmreduce::index_t>& index, kmreduce::index_t d)
      : index_(index), d_(d), rows_(static_cast<kmreduce::index_t>(index.size()), d),
        row_names_(index.size()) {}
  // The sampled rows first..last-1 (positions in index) from the block b
  // (its view a) of rows r0..
  template <class Matrix>
  void take(SEXP b, const Matrix& a, kmreduce::index_t r0, std::size_t first, std::size_t last) {
    if (last == first) return;
    local_.assign(index_.begin() + first, index_.begin() + last);
    for (auto& r : local_) r -= r0;
    rows_.take(a, local_.data(), static_cast<kmreduce::index_t>(local_.size()),
                static_cast<kmreduce::index_t>(first));
    const SEXP dn = block_dimnames(b);
    if (Rf_isNull(dn)) return;
    const SEXP rn = VECTOR_ELT(dn, 0), cn = VECTOR_ELT(dn, 1);
    if (!Rf_isNull(cn) && Rf_isNull(col_names_)) col_names_ = cn;
    if (Rf_isNull(rn)) return;
    named_ = true;
    for (std::size_t t = 0; t < local_.size(); ++t)
      row_names_[first + t] = STRING_ELT(rn, local_[t]);
  }
  // A double matrix, or a dgCMatrix when the blocks were sparse.
  SEXP result() const {
    const int m = static_cast<int>(index_.size());
    const Rcpp::List dn = Rcpp::List::create(named_ ? SEXP(row_names_) : R_NilValue,
                                             SEXP(col_names_));
    if (!rows_.sparse()) {
      const std::vector<double>& x = rows_.dense();
      Rcpp::NumericMatrix out(m, static_cast<int>(d_));
      std::copy(x.begin(), x.end(), out.begin());
      if (named_ || !Rf_isNull(col_names_)) out.attr("dimnames") = dn;
      return out;
    }
    std::vector<int> p, i;
    std::vector<double> x;
    rows_.compressed(p, i, x);
    Rcpp::S4 out("dgCMatrix");
    out.slot("i") = Rcpp::wrap(i);
    out.slot("p") = Rcpp::wrap(p);
    out.slot("x") = Rcpp::wrap(x);
    out.slot("Dim") = Rcpp::IntegerVector::create(m, static_cast<int>(d_));
    out.slot("Dimnames") = dn;
    return out;
  }

 private:
  const std::vector<kmreduce::index_t>& index_;
  kmreduce::index_t d_;
  kmreduce::TakenRows rows_;
  std::vector<kmreduce::index_t> local_;
  Rcpp::CharacterVector row_names_;
  Rcpp::RObject col_names_;
  bool named_ = false;
};
}  // namespace

// The rows of `source` (glue::SourceSpec: read in blocks, or in memory)
// mapped by the reducer `reducer` (BlockMap), block by block
// (kmreduce::map_block_rows(): one block at a time plus the result), with
// the reduced columns' names: the numbers of the reducer's apply on the
// same rows in memory, the same bits.
// [[Rcpp::export]]
Rcpp::NumericMatrix reduce_source_cpp(SEXP source, Rcpp::List reducer) {
  const glue::SourceSpec spec(source);
  const BlockMap map(reducer, spec.d());
  Rcpp::NumericMatrix out(static_cast<int>(spec.n()), static_cast<int>(map.m()));
  glue::SpecBlocks blocks(spec);
  kmreduce::map_block_rows(
      spec.n(), blocks.block_rows(), map.m(), blocks,
      [&](const auto& a, double* part) { map(blocks.current(), a, part); }, out.begin(),
      glue::r_interrupt());
  out.attr("dimnames") = Rcpp::List::create(R_NilValue, map.names());
  return out;
}

// The rows `index` (1-based, increasing, at least one) of `source`, read in
// one pass (the blocks that hold none are not read): a double matrix, or a
// dgCMatrix when the blocks are sparse, named as rbind() of the blocks'
// rows.
// [[Rcpp::export]]
SEXP rows_at_cpp(SEXP source, Rcpp::NumericVector index) {
  const glue::SourceSpec spec(source);
  const std::vector<kmreduce::index_t> idx = row_index(index, spec.n());
  Sample sample(idx, spec.d());
  glue::SpecBlocks blocks(spec);
  kmreduce::block_pass(spec.n(), blocks.block_rows(), idx, false, blocks,
                       [&](const auto& a, kmreduce::index_t r0, std::size_t first,
                           std::size_t last) { sample.take(blocks.current(), a, r0, first, last); },
                       glue::r_interrupt());
  return sample.result();
}

// The library sizes of the rows of `source` (the sum of each row, as
// Matrix::rowSums() adds them) in one pass over every block, which also
// keeps the rows `index` (1-based, increasing; empty: none) as rows_at_cpp()
// gives them: list(sizes, rows), rows NULL without index.
// [[Rcpp::export]]
Rcpp::List library_sizes_cpp(SEXP source, Rcpp::NumericVector index) {
  const glue::SourceSpec spec(source);
  const std::vector<kmreduce::index_t> idx = row_index(index, spec.n());
  Sample sample(idx, spec.d());
  Rcpp::NumericVector sizes(static_cast<R_xlen_t>(spec.n()));
  glue::SpecBlocks blocks(spec);
  kmreduce::block_pass(spec.n(), blocks.block_rows(), idx, true, blocks,
                       [&](const auto& a, kmreduce::index_t r0, std::size_t first,
                           std::size_t last) {
                         kmreduce::block_row_sums(a, sizes.begin() + r0);
                         sample.take(blocks.current(), a, r0, first, last);
                       },
                       glue::r_interrupt());
  return Rcpp::List::create(Rcpp::Named("sizes") = sizes,
                            Rcpp::Named("rows") = idx.empty() ? R_NilValue : sample.result());
}
