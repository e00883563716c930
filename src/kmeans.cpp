// Glue for k-means and Lloyd, for every row source: in memory, block by
// block (a big.matrix) and on MPI ranks (sources.h). The statistics are in
// cluster_stats.cpp, the tests' single steps in test_hooks.cpp.
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
// The seeding of the replicates: LocalSearch++ steps in the even ones, and
// greedy k-means++ (seeding 0) or k-means|| (1, with l = oversampling k and
// `rounds` rounds).
void set_seeding(kmreduce::KmeansOptions& opt, int local_search, int seeding,
                 double oversampling, int rounds) {
  if (seeding != 0 && seeding != 1) throw std::invalid_argument("seeding must be 0 or 1");
  opt.local_search = local_search;
  opt.seeding = seeding == 1 ? kmreduce::Seeding::KmeansParallel : kmreduce::Seeding::KmeansPP;
  opt.parallel.oversampling = oversampling;
  opt.parallel.rounds = rounds;
}

// The polish of the best replicate: none (0), Hartigan's moves (1), or
// split/merge moves then Hartigan's (2), `tries` moves per round, from
// `starts` replicates (0: kPolishStartsAuto).
void set_polish(kmreduce::KmeansOptions& opt, int polish, int tries, int split_rounds,
                int starts) {
  if (polish < 0 || polish > 2) throw std::invalid_argument("polish must be 0, 1 or 2");
  if (tries < 1 || split_rounds < 1 || starts < 0)
    throw std::invalid_argument("tries and split_rounds must be positive, starts not negative");
  opt.polish = polish == 2 ? kmreduce::Polish::SplitMerge
                           : polish == 1 ? kmreduce::Polish::Hartigan : kmreduce::Polish::None;
  opt.split.tries = tries;
  opt.split.rounds = split_rounds;
  opt.polish_starts = starts;
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
    if (single && kmeans_single_rows(a, s, opt, limit, combine, invalid, r)) return r;
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
      return r;
    }, s);
  });
}

// With `online` (MacQueen's updates) or `hartigan` (Hartigan's moves after
// Lloyd) the algorithms of stats::kmeans(algorithm = ) from given centres
// (kmeans_from_rows(); one process).
template <class Combine>
Rcpp::List lloyd_from_rows(SEXP x, const Rcpp::NumericMatrix& centers, int iter_max, double tol,
                           int n_threads, const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                           const Combine& combine,
                           const Rcpp::Nullable<Rcpp::NumericVector>& weights = R_NilValue,
                           bool online = false, bool hartigan = false) {
  kmreduce::KmeansOptions opt = options(centers.nrow(), 1, iter_max, tol, 0, n_threads);
  Rcpp::NumericVector wkeep;
  opt.weights = weights_of(weights, wkeep, rows_of(x));
  opt.online = online;
  if (hartigan) opt.polish = kmreduce::Polish::Hartigan;
  if ((online || hartigan) && combine.size() > 1)
    throw std::invalid_argument("MacQueen and Hartigan from given centres: one process only");
  const kmreduce::LloydResult res = with_shifted_rows(
      x, centers, shift, n_threads,
      [&](const auto& rows, const std::vector<double>& c0, const double* s) {
        const kmreduce::ResidentRows<std::decay_t<decltype(rows)>> src(rows);
        kmreduce::LloydResult r =
            online || hartigan
                ? kmreduce::kmeans_from_rows(rows, c0, opt, glue::r_interrupt())
                : kmreduce::kmeans_from(src, c0, opt, glue::r_interrupt(), combine);
        kmreduce::unshift_result(src, s, opt.k, r, n_threads, combine, opt.weights);
        return r;
      });
  return lloyd_list(res, centers.nrow(), centers.ncol());
}


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
                      Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue,
                      int local_search = 0, int seeding = 0, double oversampling = 2,
                      int rounds = 5, int polish = 0, int tries = 5, int split_rounds = 5,
                      int polish_starts = 2, bool single = false,
                      Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue,
                      bool online = false) {
  kmreduce::KmeansOptions opt = options(k, n_init, iter_max, tol, seed, n_threads);
  opt.online = online;
  set_seeding(opt, local_search, seeding, oversampling, rounds);
  set_polish(opt, polish, tries, split_rounds, polish_starts);
  Rcpp::NumericVector wkeep;
  opt.weights = weights_of(weights, wkeep, rows_of(x));
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
  int d = 0;
  bool invalid = false;
  const kmreduce::KmeansResult res =
      kmeans_rows(x, opt, shift, limit, glue::AnyCombine(kmreduce::LocalCombine()), d,
                  invalid, single);
  if (invalid) return Rcpp::List::create(Rcpp::Named("invalid") = true);
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
  return out;
}

// [[Rcpp::export]]
Rcpp::List lloyd_from_cpp(SEXP x, Rcpp::NumericMatrix centers, int iter_max,
                          double tol, int n_threads,
                          Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue,
                          Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue,
                          bool online = false, bool hartigan = false) {
  return lloyd_from_rows(x, centers, iter_max, tol, n_threads, shift,
                         glue::AnyCombine(kmreduce::LocalCombine()), weights, online, hartigan);
}

// lloyd_from_cpp() for rows read block by block by read(first, last) (an
// out-of-core matrix): the same Lloyd, with the cluster sums of every
// iteration summed block by block.
// [[Rcpp::export]]
Rcpp::List lloyd_blocks_cpp(Rcpp::Function read, double n, int d, double block_rows,
                            Rcpp::NumericMatrix centers, int iter_max, double tol,
                            int n_threads,
                            Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue,
                            Rcpp::Nullable<Rcpp::NumericVector> weights = R_NilValue) {
  if (centers.ncol() != d) throw std::invalid_argument("centres need d columns");
  kmreduce::KmeansOptions opt = options(centers.nrow(), 1, iter_max, tol, 0, n_threads);
  Rcpp::NumericVector keep, wkeep;
  opt.weights = weights_of(weights, wkeep, n);
  const double* s = shift_of(shift, keep, d);
  const glue::RBlockSource src(read, static_cast<kmreduce::index_t>(n), d,
                         static_cast<kmreduce::index_t>(block_rows), n_threads, s);
  kmreduce::LloydResult res = kmreduce::kmeans_from(
      src, kmreduce::shifted_centres(&centers[0], opt.k, d, s), opt, glue::r_interrupt());
  kmreduce::unshift_result(src, s, opt.k, res, n_threads, kmreduce::LocalCombine(), opt.weights);
  return lloyd_list(res, centers.nrow(), d);
}

// kmeans_cpp() and lloyd_from_cpp() on the rows of this MPI rank; `mpi` is
// list(allreduce, rank, size, offset, n) (see R/mpi.R). Collective: every
// rank calls them in the same order.
// [[Rcpp::export]]
Rcpp::List mpi_kmeans_cpp(SEXP x, int k, int n_init, int iter_max, double tol,
                          double seed, int n_threads, Rcpp::List mpi,
                          Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue,
                          int local_search = 0, int seeding = 0, double oversampling = 2,
                          int rounds = 5, int polish = 0, int tries = 5,
                          int split_rounds = 5, int polish_starts = 2, bool single = false) {
  int d = 0;
  bool invalid = false;
  kmreduce::KmeansOptions opt = options(k, n_init, iter_max, tol, seed, n_threads);
  set_seeding(opt, local_search, seeding, oversampling, rounds);
  set_polish(opt, polish, tries, split_rounds, polish_starts);
  const kmreduce::KmeansResult res =
      kmeans_rows(x, opt, shift, 0, glue::AnyCombine(glue::mpi_combine(mpi)), d, invalid,
                  single);
  Rcpp::List out = lloyd_list(res.best, k, d);
  out["best_replicate"] = res.best_replicate + 1;
  return out;
}

// [[Rcpp::export]]
Rcpp::List mpi_lloyd_cpp(SEXP x, Rcpp::NumericMatrix centers, int iter_max, double tol,
                         int n_threads, Rcpp::List mpi,
                         Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  return lloyd_from_rows(x, centers, iter_max, tol, n_threads, shift,
                         glue::AnyCombine(glue::mpi_combine(mpi)));
}
