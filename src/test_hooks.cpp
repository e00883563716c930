// TEST HOOKS. Every function in this file is compiled into the package but
// called only by the tests (tests/testthat/), never by the package's R code:
// they expose single steps of the core on dense x so that the tests can
// compare them with references (Hartigan's moves, local search, k-means||
// and k-means++ traces), reach code paths that need large data otherwise
// (the packing limit) and check the single-precision products. Production
// glue lives in the other files of src/; a function the package's R code
// calls does not belong here. Three more hooks live elsewhere:
// strong_rrqr_cpp() and block_lanczos_cpp() in decompositions.cpp, marked
// "TEST HOOK" (they need Armadillo, which only that file parses: here it
// would lengthen the build, bench/RESULTS.md, "Installation time"), and
// fjlt_parts_cpp() in reduce.cpp
// (the reduction glue).
#include "glue.h"
#include "kmeans_glue.h"
#include "sources.h"

#include <algorithm>
#include <memory>

#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/kernels/packed.hpp>
#include <kmreduce/cluster/single.hpp>

namespace {
// One process, as the fits' glue gives it (sources.h): the hooks then run
// the core's instances of the fits (compiled once: Makevars, unit_kmeans.cpp).
glue::AnyCombine one_process() { return glue::AnyCombine(kmreduce::LocalCombine()); }
}  // namespace

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
  const kmreduce::HartiganResult h =
      kmreduce::hartigan(a, norms.data(), k, label.data(), centres, sweeps, n_threads,
                         glue::r_interrupt(), one_process());
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
      one_process(), true);
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
// fell back to k-means++, the seeds and the rows' assignment to them. With
// `packed`, on the packed tiles k-means reads dense rows from (whose rounds
// take float products from k = 64 on).
// [[Rcpp::export]]
Rcpp::List kmeans_parallel_cpp(Rcpp::NumericMatrix x, int k, double seed, double oversampling,
                               int rounds, int n_threads, bool packed = false) {
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
  if (packed) {
    const kmreduce::PackedRows rows(a, n_threads, nullptr, true);
    kmreduce::kmeans_parallel(rows, rows.norms.data(), k, rng, &seeds[0], n_threads, opt,
                              glue::r_interrupt(), &assign, one_process(), &trace);
  } else {
    kmreduce::kmeans_parallel(a, norms.data(), k, rng, &seeds[0], n_threads, opt,
                              glue::r_interrupt(), &assign, one_process(), &trace);
  }
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


// The seeding policy called `name` (seeding.hpp) on dense x, drawing from
// replicate 1's stream (tests): the seeds and the rows' assignment to them.
// [[Rcpp::export]]
Rcpp::List seeding_cpp(Rcpp::NumericMatrix x, int k, double seed, std::string name,
                       int n_threads) {
  const kmreduce::DenseMatrix a(&x[0], x.nrow(), x.ncol());
  if (k < 1 || k > x.nrow()) throw std::invalid_argument("bad k");
  std::vector<double> norms(a.n);
  kmreduce::row_sqnorms(a, norms.data(), n_threads);
  kmreduce::KmeansOptions opt;
  opt.k = k;
  opt.n_threads = n_threads;
  opt.seeding = name;
  const kmreduce::InterruptCheck interrupt = glue::r_interrupt();
  const glue::AnyCombine combine = one_process();
  const kmreduce::SeedingCall<kmreduce::DenseMatrix, glue::AnyCombine> call{
      a, norms.data(), opt, interrupt, combine};
  kmreduce::Rng rng(kmreduce::stream_key(glue::as_seed(seed), kmreduce::kStreamKmeansInit, 0));
  Rcpp::NumericMatrix seeds(k, x.ncol());
  kmreduce::SeedAssignment assign;
  kmreduce::with_seeding(kmreduce::seeding_index(name), [&](auto policy) {
    decltype(policy)::seed(call, rng, &seeds[0], &assign);
  });
  Rcpp::IntegerVector label(assign.label.begin(), assign.label.end());
  return Rcpp::List::create(Rcpp::Named("seeds") = seeds, Rcpp::Named("label") = label + 1,
                            Rcpp::Named("nearest") = Rcpp::wrap(assign.nearest),
                            Rcpp::Named("second") = Rcpp::wrap(assign.second));
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
                     one_process(), &trace);
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

// The batches mini-batch k-means draws for n rows with this seed (tests: a
// reference of its updates fed the same batches): a list of `batches`
// vectors of 1-based row indices, each sorted.
// [[Rcpp::export]]
Rcpp::List minibatch_batches_cpp(double n, double batch_size, int batches, double seed) {
  if (!(n >= 1) || !(batch_size >= 1) || batches < 0)
    throw std::invalid_argument("n and batch_size must be >= 1, batches >= 0");
  const auto draws = kmreduce::minibatch_batches(static_cast<kmreduce::index_t>(n),
                                                 static_cast<kmreduce::index_t>(batch_size),
                                                 batches, glue::as_seed(seed));
  Rcpp::List out(draws.size());
  for (std::size_t i = 0; i < draws.size(); ++i) {
    Rcpp::NumericVector v(draws[i].size());
    for (std::size_t t = 0; t < draws[i].size(); ++t) v[t] = static_cast<double>(draws[i][t] + 1);
    out[i] = v;
  }
  return out;
}
