// Helpers shared by the k-means glue files (kmeans.cpp, cluster_stats.cpp,
// test_hooks.cpp): R objects to and from the core's types.
#ifndef KMREDUCE_KMEANS_GLUE_H
#define KMREDUCE_KMEANS_GLUE_H

#include "glue.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/cluster/kmeans_options.hpp>
#include <kmreduce/cluster/seeding.hpp>
#include <kmreduce/kernels/packed.hpp>

namespace {

inline Rcpp::NumericMatrix centres_matrix(const std::vector<double>& c, int k, int d) {
  Rcpp::NumericMatrix out(k, d);
  std::copy(c.begin(), c.end(), out.begin());
  return out;
}

inline Rcpp::IntegerVector one_based(const std::vector<int>& label) {
  Rcpp::IntegerVector out(label.size());
  for (std::size_t r = 0; r < label.size(); ++r) out[r] = label[r] + 1;
  return out;
}

inline std::vector<int> zero_based(const Rcpp::IntegerVector& cluster) {
  // (fresh memory advised for huge pages: see memory.hpp)
  std::vector<int> out = kmreduce::rows_array(static_cast<std::size_t>(cluster.size()), 0);
  for (R_xlen_t r = 0; r < cluster.size(); ++r) out[r] = cluster[r] - 1;
  return out;
}


// An optional shift of the rows (dense data far from the origin; see
// with_row_access), length ncol(x).
inline const double* shift_of(const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                       Rcpp::NumericVector& keep, int d) {
  if (shift.isNull()) return nullptr;
  keep = Rcpp::NumericVector(shift.get());
  if (keep.size() != d) throw std::invalid_argument("shift must have ncol(x) values");
  return &keep[0];
}

// The options of k-means and of Lloyd from given centres, from one named R
// list (R/kmeans_cpp_options.R builds it): the core's KmeansOptions and what
// the glue itself reads (progress messages, the value limit, single
// precision). Every name is optional (a missing one keeps the default of
// KmeansOptions: those R also declares, control_options(), agree with R's,
// and R sends every name but split_confirm; test-kmeans_cpp_options.R checks
// both through kmeans_options_cpp()); an unknown name, a value of the wrong
// type or out of range is an error naming the option. Names and values:
//   k, n_init, iter_max, n_threads, rounds, tries, split_rounds: whole >= 1
//   local_search: whole >= 0;  tol, limit: >= 0;  oversampling: > 0
//   seed: a whole number (the seed of every random stream)
//   seeding: a seeding policy's name, "k-means++" or "k-means||" (seeding.hpp)
//   algorithm: "lloyd" (Lloyd's iterations) or "macqueen" (MacQueen's
//     online updates) after each seeding, or from given centres; or
//     "minibatch" (mini-batch k-means, minibatch.hpp, instead of both)
//   batch_size: whole >= 1;  reassignment_ratio: in [0, 1] (mini-batch)
//   polish: "none", "hartigan" or "split_merge"
//   polish_starts: whole >= 1, or "auto" (kPolishStartsAuto)
//   polish_work: a number (< 0: no bound; KmeansOptions::polish_work)
//   split_confirm: a number (KmeansOptions::split_confirm; < 0: never)
//   sketch_rows: whole >= 0 (the replicates on a sketch of about so many
//     rows; 0: on all rows)
//   precision: "double" or "single" (dense rows in float, single.hpp)
//   verbose: TRUE or FALSE (a message after each replicate)
struct KmeansCall {
  kmreduce::KmeansOptions opt;
  bool verbose = false;
  double limit = 0;
  bool single = false;
};

namespace option {

[[noreturn]] inline void fail(const std::string& name, const std::string& what) {
  throw std::invalid_argument("k-means option `" + name + "` " + what);
}

inline double number(SEXP v, const std::string& name) {
  if ((TYPEOF(v) != INTSXP && TYPEOF(v) != REALSXP) || Rf_xlength(v) != 1)
    fail(name, "must be one number");
  const double x = Rf_asReal(v);
  if (!std::isfinite(x)) fail(name, "must be finite");
  return x;
}

inline int whole(SEXP v, const std::string& name, int lo) {
  const double x = number(v, name);
  if (x != std::floor(x) || x < lo || x > 2147483647.0)
    fail(name, "must be a whole number >= " + std::to_string(lo));
  return static_cast<int>(x);
}

inline std::string text(SEXP v, const std::string& name) {
  if (TYPEOF(v) != STRSXP || Rf_xlength(v) != 1 || STRING_ELT(v, 0) == NA_STRING)
    fail(name, "must be one string");
  return CHAR(STRING_ELT(v, 0));
}

inline std::string choice(SEXP v, const std::string& name,
                          const std::vector<std::string>& choices) {
  const std::string s = text(v, name);
  for (const std::string& c : choices)
    if (s == c) return s;
  std::string known;
  for (const std::string& c : choices) known += (known.empty() ? "\"" : ", \"") + c + "\"";
  fail(name, "must be one of " + known + ", not \"" + s + "\"");
}

inline bool flag(SEXP v, const std::string& name) {
  if (TYPEOF(v) != LGLSXP || Rf_xlength(v) != 1 || LOGICAL(v)[0] == NA_LOGICAL)
    fail(name, "must be TRUE or FALSE");
  return LOGICAL(v)[0] != 0;
}

}  // namespace option

// Each option's setter into `call` (one table, the one place the names are
// read; kmeans_options_cpp() lists them for R's tests).
inline glue::OptionSetters kmeans_option_setters(KmeansCall& call) {
  kmreduce::KmeansOptions* const opt = &call.opt;
  // (setters of one kind; `name` for their errors)
  auto whole = [](int lo, int& to) {
    return [lo, &to](const std::string& name, SEXP v) { to = option::whole(v, name, lo); };
  };
  auto number = [](double& to) {
    return [&to](const std::string& name, SEXP v) { to = option::number(v, name); };
  };
  auto non_negative = [](double& to) {
    return [&to](const std::string& name, SEXP v) {
      to = option::number(v, name);
      if (to < 0) option::fail(name, "must be >= 0");
    };
  };
  return {
      {"k", [opt](const std::string& name, SEXP v) { opt->k = option::whole(v, name, 1); }},
      {"n_init", whole(1, opt->n_init)},
      {"iter_max", whole(1, opt->iter_max)},
      {"tol", non_negative(opt->tol)},
      {"seed", [opt](const std::string& name, SEXP v) {
         const double seed = option::number(v, name);
         if (seed != std::floor(seed)) option::fail(name, "must be a whole number");
         opt->seed = glue::as_seed(seed);
       }},
      {"n_threads", whole(1, opt->n_threads)},
      {"verbose", [&call](const std::string& name, SEXP v) {
         call.verbose = option::flag(v, name);
       }},
      {"limit", non_negative(call.limit)},
      {"seeding", [opt](const std::string& name, SEXP v) {
         opt->seeding = option::choice(v, name, kmreduce::seeding_names());
       }},
      {"local_search", whole(0, opt->local_search)},
      {"oversampling", [opt](const std::string& name, SEXP v) {
         opt->parallel.oversampling = option::number(v, name);
         if (!(opt->parallel.oversampling > 0)) option::fail(name, "must be > 0");
       }},
      {"rounds", whole(1, opt->parallel.rounds)},
      {"algorithm", [opt](const std::string& name, SEXP v) {
         const std::string a = option::choice(v, name, {"lloyd", "macqueen", "minibatch"});
         opt->online = a == "macqueen";
         opt->minibatch = a == "minibatch";
       }},
      {"batch_size", [opt](const std::string& name, SEXP v) {
         opt->batches.batch_size = option::whole(v, name, 1);
       }},
      {"reassignment_ratio", [opt](const std::string& name, SEXP v) {
         opt->batches.reassignment_ratio = option::number(v, name);
         if (opt->batches.reassignment_ratio < 0 || opt->batches.reassignment_ratio > 1)
           option::fail(name, "must be in [0, 1]");
       }},
      {"polish", [opt](const std::string& name, SEXP v) {
         const std::string p = option::choice(v, name, {"none", "hartigan", "split_merge"});
         opt->polish = p == "split_merge" ? kmreduce::Polish::SplitMerge
                       : p == "hartigan"  ? kmreduce::Polish::Hartigan
                                          : kmreduce::Polish::None;
       }},
      {"tries", whole(1, opt->split.tries)},
      {"split_rounds", whole(1, opt->split.rounds)},
      {"polish_starts", [opt](const std::string& name, SEXP v) {
         opt->polish_starts = TYPEOF(v) == STRSXP ? (option::choice(v, name, {"auto"}),
                                                     kmreduce::kPolishStartsAuto)
                                                  : option::whole(v, name, 1);
       }},
      {"polish_work", number(opt->polish_work)},
      {"sketch_rows", [opt](const std::string& name, SEXP v) {
         opt->sketch_rows = option::whole(v, name, 0);
       }},
      {"split_confirm", number(opt->split_confirm)},
      {"precision", [&call](const std::string& name, SEXP v) {
         call.single = option::choice(v, name, {"double", "single"}) == "single";
       }}};
}

inline KmeansCall kmeans_options(const Rcpp::List& options) {
  KmeansCall call;
  glue::read_options(options, "k-means", kmeans_option_setters(call));
  return call;
}

inline Rcpp::List stats_list(const kmreduce::ClusterStats& s, int k, int d) {
  Rcpp::IntegerVector size(s.size.begin(), s.size.end());
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("centers") = centres_matrix(s.centres, k, d),
      Rcpp::Named("withinss") = Rcpp::wrap(s.withinss),
      Rcpp::Named("size") = size,
      Rcpp::Named("totss") = s.totss,
      Rcpp::Named("sumsq") = s.sumsq);
  if (!s.weight.empty()) out["weight"] = Rcpp::wrap(s.weight);
  return out;
}

inline Rcpp::List lloyd_list(const kmreduce::LloydResult& res, int k, int d) {
  return Rcpp::List::create(
      Rcpp::Named("cluster") = one_based(res.label),
      Rcpp::Named("centers") = centres_matrix(res.centres, k, d),
      Rcpp::Named("objective") = res.objective,
      Rcpp::Named("iter") = res.iter,
      Rcpp::Named("converged") = res.converged,
      Rcpp::Named("means") = res.means);
}

// Calls f(rows, centres, shift) with the rows of x as the row-wise
// algorithms take them and the centres, both minus `shift` (see
// with_row_access()): where predict, distances and Lloyd from given centres
// compare rows with centres as the fit did.
template <class F>
auto with_shifted_rows(SEXP x, const Rcpp::NumericMatrix& centers,
                       const Rcpp::Nullable<Rcpp::NumericVector>& shift, int n_threads, F f) {
  Rcpp::NumericVector keep;
  return glue::with_matrix(x, [&](const auto& a) {
    if (centers.ncol() != a.d) throw std::invalid_argument("centres need ncol(x) columns");
    const double* s = shift_of(shift, keep, static_cast<int>(a.d));
    const std::vector<double> c = kmreduce::shifted_centres(&centers[0], centers.nrow(), a.d, s);
    return kmreduce::with_row_access(a, n_threads, [&](const auto& rows) {
      return f(rows, c, s);
    }, s);
  });
}

}  // namespace

#endif  // KMREDUCE_KMEANS_GLUE_H
