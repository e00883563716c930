// Glue for k-means and the original-space statistics, for every row source:
// in memory, block by block (a big.matrix) and on MPI ranks (sources.h).
#include "glue.h"
#include "sources.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>

#include <kmreduce/cluster_stats.hpp>
#include <kmreduce/kmeans.hpp>
#include <kmreduce/packed.hpp>
#include <kmreduce/row_source.hpp>
#include <kmreduce/single.hpp>

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
  // (fresh memory advised for huge pages: see memory.hpp)
  std::vector<int> out = kmreduce::rows_array(static_cast<std::size_t>(cluster.size()), 0);
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

// The options of k-means (n_init replicates from k-means++) or of Lloyd from
// given centres (n_init 1, no seed).
kmreduce::KmeansOptions options(int k, int n_init, int iter_max, double tol, double seed,
                                int n_threads) {
  kmreduce::KmeansOptions opt;
  opt.k = k;
  opt.n_init = n_init;
  opt.iter_max = iter_max;
  opt.tol = tol;
  opt.seed = glue::as_seed(seed);
  opt.n_threads = n_threads;
  return opt;
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

Rcpp::List stats_list(const kmreduce::ClusterStats& s, int k, int d) {
  Rcpp::IntegerVector size(s.size.begin(), s.size.end());
  return Rcpp::List::create(
      Rcpp::Named("centers") = centres_matrix(s.centres, k, d),
      Rcpp::Named("withinss") = Rcpp::wrap(s.withinss),
      Rcpp::Named("size") = size,
      Rcpp::Named("totss") = s.totss,
      Rcpp::Named("sumsq") = s.sumsq);
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
                               opt.k, r.best, opt.n_threads, combine);
      return r;
    }, s);
  });
}

template <class Combine>
Rcpp::List lloyd_from_rows(SEXP x, const Rcpp::NumericMatrix& centers, int iter_max, double tol,
                           int n_threads, const Rcpp::Nullable<Rcpp::NumericVector>& shift,
                           const Combine& combine) {
  const kmreduce::KmeansOptions opt = options(centers.nrow(), 1, iter_max, tol, 0, n_threads);
  const kmreduce::LloydResult res = with_shifted_rows(
      x, centers, shift, n_threads,
      [&](const auto& rows, const std::vector<double>& c0, const double* s) {
        const kmreduce::ResidentRows<std::decay_t<decltype(rows)>> src(rows);
        kmreduce::LloydResult r = kmreduce::kmeans_from(src, c0, opt, glue::r_interrupt(), combine);
        kmreduce::unshift_result(src, s, opt.k, r, n_threads, combine);
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
                      int polish_starts = 2, bool single = false) {
  kmreduce::KmeansOptions opt = options(k, n_init, iter_max, tol, seed, n_threads);
  set_seeding(opt, local_search, seeding, oversampling, rounds);
  set_polish(opt, polish, tries, split_rounds, polish_starts);
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
      kmeans_rows(x, opt, shift, limit, kmreduce::LocalCombine(), d, invalid, single);
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

// Hartigan's moves on dense x from the labels `cluster` (1-based; tests):
// the new labels, the means, sweeps, moves and the summed exact changes.
// [[Rcpp::export]]
Rcpp::List hartigan_cpp(Rcpp::NumericMatrix x, Rcpp::IntegerVector cluster, int k, int sweeps,
                        int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (cluster.size() != x.nrow()) throw std::invalid_argument("one label per row");
  std::vector<int> label = zero_based(cluster);
  std::vector<double> norms(a.n), centres;
  kmreduce::row_sqnorms(a, norms.data(), n_threads);
  const kmreduce::HartiganResult h = kmreduce::hartigan(
      a, norms.data(), k, label.data(), centres, sweeps, n_threads, glue::r_interrupt());
  return Rcpp::List::create(
      Rcpp::Named("cluster") = one_based(label),
      Rcpp::Named("centers") = centres_matrix(centres, k, x.ncol()),
      Rcpp::Named("sweeps") = h.sweeps, Rcpp::Named("moves") = static_cast<double>(h.moves),
      Rcpp::Named("change") = h.change, Rcpp::Named("converged") = h.converged);
}

// k-means++ then `steps` local search steps on dense x (tests): the seeds,
// the final centres, their assignment and every step (1-based rows).
// [[Rcpp::export]]
Rcpp::List local_search_cpp(Rcpp::NumericMatrix x, int k, int steps, double seed,
                            int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (k < 1 || k > x.nrow() || steps < 0) throw std::invalid_argument("bad k or steps");
  std::vector<double> norms(a.n);
  kmreduce::row_sqnorms(a, norms.data(), n_threads);
  kmreduce::Rng rng(kmreduce::stream_key(glue::as_seed(seed), kmreduce::kStreamKmeansInit, 0));
  Rcpp::NumericMatrix seeds(k, x.ncol()), centres(k, x.ncol());
  kmreduce::SeedAssignment assign;
  kmreduce::kmeanspp(a, norms.data(), k, rng, &seeds[0], n_threads, glue::r_interrupt(), &assign);
  std::copy(seeds.begin(), seeds.end(), centres.begin());
  const kmreduce::LocalSearchResult res = kmreduce::local_search(
      a, norms.data(), k, steps, rng, &centres[0], assign, n_threads, glue::r_interrupt(),
      kmreduce::LocalCombine(), true);
  Rcpp::List trace(res.trace.size());
  for (std::size_t s = 0; s < res.trace.size(); ++s) {
    const kmreduce::LocalSearchStep& st = res.trace[s];
    Rcpp::NumericVector cand(st.candidates.size());
    for (std::size_t t = 0; t < st.candidates.size(); ++t) cand[t] = st.candidates[t] + 1.0;
    trace[s] = Rcpp::List::create(
        Rcpp::Named("candidates") = cand, Rcpp::Named("candidate") = st.candidate + 1.0,
        Rcpp::Named("centre") = st.centre + 1.0, Rcpp::Named("before") = st.before,
        Rcpp::Named("after") = st.after, Rcpp::Named("swapped") = st.swapped);
  }
  Rcpp::IntegerVector label(assign.label.begin(), assign.label.end());
  Rcpp::IntegerVector label2(assign.second_label.begin(), assign.second_label.end());
  return Rcpp::List::create(
      Rcpp::Named("seeds") = seeds, Rcpp::Named("centers") = centres,
      Rcpp::Named("label") = label + 1, Rcpp::Named("second_label") = label2 + 1,
      Rcpp::Named("nearest") = Rcpp::wrap(assign.nearest),
      Rcpp::Named("second") = Rcpp::wrap(assign.second), Rcpp::Named("cost") = res.cost,
      Rcpp::Named("swaps") = res.swaps, Rcpp::Named("trace") = trace);
}

// k-means|| seeding on dense x (tests): the candidates (1-based rows) with
// their weights, the cost before each round and after the last, whether it
// fell back to k-means++, the seeds and the rows' assignment to them.
// [[Rcpp::export]]
Rcpp::List kmeans_parallel_cpp(Rcpp::NumericMatrix x, int k, double seed, double oversampling,
                               int rounds, int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (k < 1 || k > x.nrow()) throw std::invalid_argument("bad k");
  std::vector<double> norms(a.n);
  kmreduce::row_sqnorms(a, norms.data(), n_threads);
  kmreduce::Rng rng(kmreduce::stream_key(glue::as_seed(seed), kmreduce::kStreamKmeansInit, 0));
  kmreduce::KmeansParallelOptions opt;
  opt.oversampling = oversampling;
  opt.rounds = rounds;
  Rcpp::NumericMatrix seeds(k, x.ncol());
  kmreduce::SeedAssignment assign;
  kmreduce::KmeansParallelTrace trace;
  kmreduce::kmeans_parallel(a, norms.data(), k, rng, &seeds[0], n_threads, opt,
                            glue::r_interrupt(), &assign, kmreduce::LocalCombine(), &trace);
  Rcpp::NumericVector cand(trace.candidates.size());
  for (std::size_t t = 0; t < trace.candidates.size(); ++t) cand[t] = trace.candidates[t] + 1.0;
  Rcpp::IntegerVector label(assign.label.begin(), assign.label.end());
  Rcpp::IntegerVector label2(assign.second_label.begin(), assign.second_label.end());
  return Rcpp::List::create(
      Rcpp::Named("candidates") = cand, Rcpp::Named("weights") = Rcpp::wrap(trace.weights),
      Rcpp::Named("phi") = Rcpp::wrap(trace.phi), Rcpp::Named("fallback") = trace.fallback,
      Rcpp::Named("seeds") = seeds, Rcpp::Named("label") = label + 1,
      Rcpp::Named("second_label") = label2 + 1,
      Rcpp::Named("nearest") = Rcpp::wrap(assign.nearest),
      Rcpp::Named("second") = Rcpp::wrap(assign.second));
}

// [[Rcpp::export]]
Rcpp::List lloyd_from_cpp(SEXP x, Rcpp::NumericMatrix centers, int iter_max,
                          double tol, int n_threads,
                          Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  return lloyd_from_rows(x, centers, iter_max, tol, n_threads, shift, kmreduce::LocalCombine());
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
  const kmreduce::KmeansOptions opt = options(centers.nrow(), 1, iter_max, tol, 0, n_threads);
  Rcpp::NumericVector keep;
  const double* s = shift_of(shift, keep, d);
  const glue::RBlockSource src(read, static_cast<kmreduce::index_t>(n), d,
                         static_cast<kmreduce::index_t>(block_rows), n_threads, s);
  kmreduce::LloydResult res = kmreduce::kmeans_from(
      src, kmreduce::shifted_centres(&centers[0], opt.k, d, s), opt, glue::r_interrupt());
  kmreduce::unshift_result(src, s, opt.k, res, n_threads);
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
      kmeans_rows(x, opt, shift, 0, glue::mpi_combine(mpi), d, invalid, single);
  Rcpp::List out = lloyd_list(res.best, k, d);
  out["best_replicate"] = res.best_replicate + 1;
  return out;
}

// [[Rcpp::export]]
Rcpp::List mpi_lloyd_cpp(SEXP x, Rcpp::NumericMatrix centers, int iter_max, double tol,
                         int n_threads, Rcpp::List mpi,
                         Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  return lloyd_from_rows(x, centers, iter_max, tol, n_threads, shift, glue::mpi_combine(mpi));
}

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
  return stats_list(s, k, d);
}

// cluster_stats_cpp() for rows read block by block by read(first, last).
// [[Rcpp::export]]
Rcpp::List stats_blocks_cpp(Rcpp::Function read, double n, int d, double block_rows,
                            Rcpp::IntegerVector cluster, int k, int n_threads) {
  const std::vector<int> label = zero_based(cluster);
  if (static_cast<double>(label.size()) != n) throw std::invalid_argument("one label per row");
  const glue::RBlockSource src(read, static_cast<kmreduce::index_t>(n), d,
                         static_cast<kmreduce::index_t>(block_rows), n_threads, nullptr);
  return stats_list(kmreduce::cluster_stats_blocks(src, label.data(), k, n_threads), k, d);
}

// cluster_stats_cpp() for the rows of all MPI ranks (collective).
// [[Rcpp::export]]
Rcpp::List mpi_stats_cpp(SEXP x, Rcpp::IntegerVector cluster, int k, int n_threads,
                         Rcpp::List mpi) {
  const std::vector<int> label = zero_based(cluster);
  const glue::RCombine combine = glue::mpi_combine(mpi);
  int d = 0;
  const kmreduce::ClusterStats s = glue::with_matrix(x, [&](const auto& a) {
    d = static_cast<int>(a.d);
    if (static_cast<kmreduce::index_t>(label.size()) != a.n)
      throw std::invalid_argument("one label per row");
    // One rank holds all the rows: the in-memory statistics (one pass).
    if (combine.size() == 1) return stats_of(a, label.data(), k, nullptr, n_threads);
    using Matrix = std::decay_t<decltype(a)>;
    return kmreduce::cluster_stats_blocks(kmreduce::OneBlock<Matrix>(a), label.data(), k,
                                          n_threads, combine);
  });
  return stats_list(s, k, d);
}


// Greedy k-means++ on dense x (tests): the seeds, the assignment it leaves
// and, for every step, the rows drawn (1-based), the potential with each and
// the one kept (1-based among them).
// [[Rcpp::export]]
Rcpp::List kmeanspp_trace_cpp(Rcpp::NumericMatrix x, int k, double seed, int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (k < 1 || k > x.nrow()) throw std::invalid_argument("bad k");
  std::vector<double> norms(a.n);
  kmreduce::row_sqnorms(a, norms.data(), n_threads);
  kmreduce::Rng rng(kmreduce::stream_key(glue::as_seed(seed), kmreduce::kStreamKmeansInit, 0));
  Rcpp::NumericMatrix seeds(k, x.ncol());
  kmreduce::SeedAssignment assign;
  std::vector<kmreduce::KmeansppStep> trace;
  kmreduce::kmeanspp(a, norms.data(), k, rng, &seeds[0], n_threads, glue::r_interrupt(), &assign,
                     kmreduce::LocalCombine(), &trace);
  Rcpp::List steps(trace.size());
  for (std::size_t s = 0; s < trace.size(); ++s) {
    Rcpp::NumericVector cand(trace[s].candidates.size());
    for (std::size_t t = 0; t < trace[s].candidates.size(); ++t)
      cand[t] = trace[s].candidates[t] + 1.0;
    steps[s] = Rcpp::List::create(Rcpp::Named("candidates") = cand,
                                  Rcpp::Named("potentials") = Rcpp::wrap(trace[s].potentials),
                                  Rcpp::Named("chosen") = trace[s].chosen + 1.0);
  }
  Rcpp::IntegerVector label(assign.label.begin(), assign.label.end());
  return Rcpp::List::create(Rcpp::Named("seeds") = seeds, Rcpp::Named("label") = label + 1,
                            Rcpp::Named("nearest") = Rcpp::wrap(assign.nearest),
                            Rcpp::Named("second") = Rcpp::wrap(assign.second),
                            Rcpp::Named("trace") = steps);
}

// Sets the size above which dense data are not copied into packed tiles
// (bytes; tests lower it to run the packing-as-needed path on small data).
// Returns the previous value.
// [[Rcpp::export]]
double packed_copy_limit_cpp(double bytes) {
  const double old = kmreduce::packed_copy_max_bytes();
  if (!(bytes >= 0.0)) throw std::invalid_argument("bytes must be non-negative");
  kmreduce::packed_copy_max_bytes() = bytes;
  return old;
}

// The products of the rows of dense x with the centres, both minus `shift`,
// as the single-precision rows give them (tests): n x k, rows in blocks of
// `block`, tiles kept or packed as needed.
// [[Rcpp::export]]
Rcpp::NumericMatrix single_products_cpp(Rcpp::NumericMatrix x, Rcpp::NumericMatrix centers,
                                        bool store, int block, int n_threads,
                                        Rcpp::Nullable<Rcpp::NumericVector> shift = R_NilValue) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (centers.ncol() != x.ncol()) throw std::invalid_argument("centers must have ncol(x) columns");
  if (block < 1) throw std::invalid_argument("block must be positive");
  Rcpp::NumericVector keep;
  const double* s = shift_of(shift, keep, static_cast<int>(a.d));
  const kmreduce::PackedRowsF rows(a, n_threads, s, store);
  const kmreduce::index_t k = centers.nrow();
  const std::vector<double> c = kmreduce::shifted_centres(&centers[0], k, a.d, s);
  const kmreduce::CentreView cv = kmreduce::prepare_centres(rows, c.data(), k);
  Rcpp::NumericMatrix out(x.nrow(), static_cast<int>(k));
  std::vector<double> buf;
  for (kmreduce::index_t r0 = 0; r0 < a.n; r0 += block) {
    const kmreduce::index_t r1 = std::min<kmreduce::index_t>(a.n, r0 + block);
    buf.resize((r1 - r0) * k);
    kmreduce::cross_block(rows, r0, r1, cv, k, buf.data());
    for (kmreduce::index_t q = 0; q < k; ++q)
      for (kmreduce::index_t r = r0; r < r1; ++r) out(r, q) = buf[(r - r0) + (r1 - r0) * q];
  }
  return out;
}
