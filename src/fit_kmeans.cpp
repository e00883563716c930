// Glue for k-means and Lloyd, for every row source: in memory, block by
// block (a big.matrix) and on MPI ranks (sources.h). The statistics are in
// fit_stats.cpp, the tests' single steps in test_hooks.cpp.
#include "glue.h"
#include "sources.h"
#include "kmeans_glue.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/kernels/packed.hpp>
#include <kmreduce/data/row_source.hpp>
#include <kmreduce/cluster/single.hpp>

namespace {

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
// k-means in single precision (single.hpp): dense rows only; other rows
// (sparse) stay in double (returns false).
template <class Combine>
bool kmeans_single_rows(const kmreduce::DenseMatrix& a, const double* shift,
                        const kmreduce::KmeansOptions& opt, double limit,
                        const Combine& combine, bool& invalid, kmreduce::KmeansResult& out) {
  out = kmreduce::kmeans_single(a, shift, opt, glue::r_interrupt(), combine,
                                [&](const kmreduce::ValueSummary& v) {
    invalid = limit > 0 && kmreduce::values_out_of_range(v, limit);
    return !invalid;
  });
  return true;
}
template <class Matrix, class Combine>
bool kmeans_single_rows(const Matrix&, const double*, const kmreduce::KmeansOptions&, double,
                        const Combine&, bool&, kmreduce::KmeansResult&) {
  return false;
}

// k-means (k-means++ replicates and Lloyd) on the rows of x, and Lloyd from
// given centres, on one process or an MPI rank (Combine).
template <class Combine>
kmreduce::KmeansResult kmeans_rows(SEXP x, const kmreduce::KmeansOptions& opt,
                                   const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                                   double limit, const Combine& combine, int& d,
                                   bool& invalid, bool single = false) {
  Rcpp::NumericVector keep;
  return glue::with_matrix(x, [&](const auto& a) {
    d = static_cast<int>(a.d);
    const double* s = shift_of(shift, keep, d);
    kmreduce::KmeansResult r;
    if (single && !opt.minibatch && kmeans_single_rows(a, s, opt, limit, combine, invalid, r))
      return r;
    return kmreduce::with_row_access(a, opt.n_threads, [&](const auto& rows) {
      if (limit > 0) {
        const kmreduce::ValueSummary v = value_summary(rows, a);
        if (kmreduce::values_out_of_range(v, limit)) {
          invalid = true;
          return kmreduce::KmeansResult();
        }
      }
      kmreduce::KmeansResult r = kmreduce::kmeans(rows, opt, glue::r_interrupt(), combine);
      kmreduce::unshift_result(kmreduce::ResidentRows<std::decay_t<decltype(rows)>>(rows), s,
                               opt.k, r.best, opt.n_threads, combine, opt.weights);
      if (s != nullptr && r.sketch_rows > 0) {  // (the sketch's centres, unshifted too)
        for (auto* c : {&r.sketch_centres, &r.lifted_centres})
          for (int j = 0; j < d; ++j)
            for (kmreduce::index_t q = 0; q < opt.k; ++q) (*c)[q + opt.k * j] += s[j];
      }
      return r;
    }, s);
  });
}

// Lloyd from given centres (k = their rows) with the options of `call`
// (n_init, seed, seeding and local_search are not used); with
// opt.online (MacQueen's updates) or a polish (Hartigan's moves after Lloyd)
// the algorithms of stats::kmeans(algorithm = ), kmeans_from_rows(), on one
// process only.
template <class Combine>
Rcpp::List lloyd_from_rows(SEXP x, const Rcpp::NumericMatrix& centers, KmeansCall call,
                           const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                           const Combine& combine, const double* weights) {
  kmreduce::KmeansOptions& opt = call.opt;
  opt.weights = weights;
  const bool hartigan = opt.polish != kmreduce::Polish::None;
  if ((opt.online || hartigan || opt.minibatch) && combine.size() > 1)
    throw std::invalid_argument(
        "MacQueen, Hartigan and mini-batch from given centres: one process only");
  const int n_threads = opt.n_threads;
  const kmreduce::LloydResult res = with_shifted_rows(
      x, centers, shift, n_threads,
      [&](const auto& rows, const std::vector<double>& c0, const double* s) {
        const kmreduce::ResidentRows<std::decay_t<decltype(rows)>> src(rows);
        kmreduce::LloydResult r =
            opt.online || hartigan || opt.minibatch
                ? kmreduce::kmeans_from_rows(rows, c0, opt, glue::r_interrupt(), combine)
                : kmreduce::kmeans_from(src, c0, opt, glue::r_interrupt(), combine);
        kmreduce::unshift_result(src, s, opt.k, r, n_threads, combine, opt.weights);
        return r;
      });
  return lloyd_list(res, centers.nrow(), centers.ncol());
}

// The result of kmeans_rows() as an R list.
Rcpp::List kmeans_list(const kmreduce::KmeansResult& res, int k, int d) {
  Rcpp::List out = lloyd_list(res.best, k, d);
  out["best_replicate"] = res.best_replicate + 1;
  out["objectives"] = Rcpp::wrap(res.objectives);
  out["hartigan_moves"] = static_cast<double>(res.hartigan_moves);
  out["split_accepted"] = res.split.accepted;
  out["split_rounds"] = res.split.rounds;
  out["polish_starts"] = res.polish_starts;
  out["split_tries"] = res.split_tries;
  Rcpp::NumericVector tried(res.split.trace.size());
  for (std::size_t i = 0; i < res.split.trace.size(); ++i)
    tried[i] = res.split.trace[i].objective;
  out["split_objectives"] = tried;
  out["objective_before_polish"] = res.before_polish;
  const kmreduce::KmeansPasses& p = res.passes;
  out["passes"] = Rcpp::NumericVector::create(
      Rcpp::Named("sketch") = p.sketch, Rcpp::Named("replicates") = p.replicates,
      Rcpp::Named("lift") = p.lift, Rcpp::Named("lloyd") = p.lloyd,
      Rcpp::Named("polish") = p.polish);
  if (res.sketch_rows > 0) {
    Rcpp::NumericMatrix sc(k, d), lc(k, d);
    std::copy(res.sketch_centres.begin(), res.sketch_centres.end(), sc.begin());
    std::copy(res.lifted_centres.begin(), res.lifted_centres.end(), lc.begin());
    out["sketch"] = Rcpp::List::create(
        Rcpp::Named("rows") = static_cast<double>(res.sketch_rows),
        Rcpp::Named("objective") = res.sketch_objective, Rcpp::Named("centers") = sc,
        Rcpp::Named("lifted") = lc);
  }
  return out;
}

// The options of Lloyd from `k` given centres (`options` as kmeans_cpp()'s):
// one run, no seeding; the polish is `centres_polish` (Hartigan's moves after
// Lloyd, as stats::kmeans(algorithm = "Hartigan-Wong")), not `polish`.
KmeansCall from_centres_options(const Rcpp::List& options, const glue::SourceSpec& spec,
                                int k) {
  KmeansCall call = kmeans_options(options, spec.combine().total_rows(spec.n()));
  call.opt.k = k;
  call.opt.n_init = 1;
  call.opt.polish = call.control.centres_polish == "hartigan" ? kmreduce::Polish::Hartigan
                                                              : kmreduce::Polish::None;
  return call;
}

// Lloyd from given centres on rows read block by block (glue::SourceSpec),
// the sums of every iteration combined over the MPI ranks if any (Lloyd
// only: `options` without algorithm and polish).
Rcpp::List lloyd_blocks(const glue::SourceSpec& spec, const Rcpp::NumericMatrix& centers,
                        const Rcpp::List& options,
                        const Rcpp::Nullable<Rcpp::NumericVector>& shift) {
  const int d = static_cast<int>(spec.d());
  if (centers.ncol() != d) throw std::invalid_argument("centres need d columns");
  KmeansCall call = from_centres_options(options, spec, centers.nrow());
  kmreduce::KmeansOptions& opt = call.opt;
  const int n_threads = opt.n_threads;
  opt.weights = spec.weights();
  Rcpp::NumericVector keep;
  const double* s = shift_of(shift, keep, d);
  const glue::RBlockSource src = spec.blocks(n_threads, s);
  kmreduce::LloydResult res =
      kmreduce::kmeans_from(src, kmreduce::shifted_centres(&centers[0], opt.k, d, s), opt,
                            glue::r_interrupt(), spec.combine());
  kmreduce::unshift_result(src, s, opt.k, res, n_threads, spec.combine(), opt.weights);
  return lloyd_list(res, centers.nrow(), d);
}

}  // namespace

// k-means on the rows of `source` (glue::SourceSpec: rows in memory, a
// double matrix or a dgCMatrix, on one process or this MPI rank), with the
// options of the named list `options` (kmeans_options() in kmeans_glue.h;
// built by kmeans_cpp_options(), R/source_steps.R). With option limit > 0, the values of
// dense rows are checked while they are packed (no pass of their own): if
// one is not finite or exceeds limit in magnitude, nothing is clustered and
// list(invalid = TRUE) is returned (R then finds and reports the offending
// value). With `shift` (dense rows), Lloyd runs on the rows minus the shift
// and the centres are returned unshifted. On MPI ranks collective: every
// rank calls it in the same order.
// [[Rcpp::export]]
Rcpp::List kmeans_cpp(SEXP source, Rcpp::List options,
                      Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  const glue::SourceSpec spec(source);
  if (!spec.in_memory()) throw std::invalid_argument("k-means replicates need rows in memory");
  KmeansCall call = kmeans_options(options, spec.combine().total_rows(spec.n()));
  kmreduce::KmeansOptions& opt = call.opt;
  opt.weights = spec.weights();
  if (call.verbose) {
    const int n_init = opt.n_init;
    opt.on_replicate = [n_init](int t, int iter, double objective) {
      Rcpp::Function message("message");
      char buf[160];
      std::snprintf(buf, sizeof(buf),
                    "kmreduce:   replicate %d/%d: %d Lloyd iterations, objective %.7g",
                    t, n_init, iter, objective);
      message(std::string(buf));
    };
  }
  int d = 0;
  bool invalid = false;
  const kmreduce::KmeansResult res = kmeans_rows(spec.rows(), opt, shift, call.limit,
                                                 spec.combine(), d, invalid, call.single);
  if (invalid) return Rcpp::List::create(Rcpp::Named("invalid") = true);
  return kmeans_list(res, static_cast<int>(opt.k), d);
}

// Lloyd from the given centres on the rows of `source` (glue::SourceSpec:
// in memory or read block by block, on one process or this MPI rank). Of
// `options` (as kmeans_cpp()) it reads iter_max, tol, n_threads, and, for
// rows in memory on one process, algorithm and polish ("hartigan":
// Hartigan's moves after Lloyd). Collective on MPI ranks.
// [[Rcpp::export]]
Rcpp::List lloyd_cpp(SEXP source, Rcpp::NumericMatrix centers, Rcpp::List options,
                     Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  const glue::SourceSpec spec(source);
  if (!spec.in_memory()) return lloyd_blocks(spec, centers, options, shift);
  return lloyd_from_rows(spec.rows(), centers, from_centres_options(options, spec, centers.nrow()),
                         shift, spec.combine(), spec.weights());
}

// The names of the core's seedings (seeding.hpp), those control$seeding
// takes besides "auto".
// [[Rcpp::export]]
Rcpp::CharacterVector kmeans_seedings_cpp() { return Rcpp::wrap(kmreduce::seeding_names()); }

// The table of options (kmeans_options.def), one element per option: its
// name, kind, default (R code), bounds, whether "auto" or NULL is accepted,
// choices, scope and help. R builds kmeans_control(), its checks and
// ?kmeans_control from it (R/kmeans_control.R).
// [[Rcpp::export]]
Rcpp::List kmeans_option_table_cpp() {
  Rcpp::List out;
  Rcpp::CharacterVector names;
  for (const kmreduce::OptionSpec& o : kmreduce::kmeans_option_specs()) {
    names.push_back(o.name);
    static const char* kinds[] = {"flag", "whole", "number", "choice"};
    static const char* scopes[] = {"control", "r_only", "call"};
    out.push_back(Rcpp::List::create(
        Rcpp::Named("name") = o.name, Rcpp::Named("kind") = kinds[static_cast<int>(o.kind)],
        Rcpp::Named("value") = o.value, Rcpp::Named("lower") = o.lower,
        Rcpp::Named("upper") = o.upper,
        Rcpp::Named("auto") = (o.flags & kmreduce::kAuto) != 0,
        Rcpp::Named("null") = (o.flags & kmreduce::kNull) != 0,
        Rcpp::Named("open_lower") = (o.flags & kmreduce::kOpenLower) != 0,
        Rcpp::Named("open_upper") = (o.flags & kmreduce::kOpenUpper) != 0,
        Rcpp::Named("choices") = Rcpp::wrap(kmreduce::option_choices(o)),
        Rcpp::Named("scope") = scopes[static_cast<int>(o.scope)], Rcpp::Named("help") = o.help));
  }
  out.names() = names;
  return out;
}

// The options `options` (as kmeans_cpp()'s) resolved for `n_rows` rows
// (resolve_options()): what a fit runs with, for messages and tests.
// [[Rcpp::export]]
Rcpp::List kmeans_resolved_cpp(Rcpp::List options, double n_rows) {
  const KmeansCall call = kmeans_options(options, static_cast<kmreduce::index_t>(n_rows));
  const kmreduce::KmeansOptions& o = call.opt;
  const char* polish[] = {"none", "hartigan", "split_merge"};
  return Rcpp::List::create(
      Rcpp::Named("seeding") = o.seeding, Rcpp::Named("local_search") = o.local_search,
      Rcpp::Named("polish") = polish[static_cast<int>(o.polish)],
      Rcpp::Named("polish_starts") = o.polish_starts == kmreduce::kPolishStartsAuto
                                         ? Rcpp::RObject(Rcpp::wrap("auto"))
                                         : Rcpp::RObject(Rcpp::wrap(o.polish_starts)),
      Rcpp::Named("polish_work") = o.polish_work,
      Rcpp::Named("sketch_rows") = static_cast<double>(o.sketch_rows),
      Rcpp::Named("precision") = call.single ? "single" : "double");
}
