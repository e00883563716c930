// kmreduce: k-means with n_init replicates of k-means++ seeding and Lloyd,
// keeping the replicate with the lowest objective (first one on ties, to a
// relative 1e-10). The replicates mix two seedings: the odd ones (1, 3, ...)
// plain greedy k-means++, the even ones followed by `local_search` steps of
// local search (local_search.hpp), which repair the seedings k-means++ gets
// wrong on noisy high-dimensional data but cost passes over the data and do
// not help everywhere. The seeding is a policy of seeding.hpp, named by
// KmeansOptions::seeding (kmeans_options.hpp): greedy k-means++
// (kmeanspp.hpp) or, for tall data, k-means|| (kmeans_parallel.hpp). With a polish, the
// `polish_starts` lowest distinct replicates (or, kPolishStartsAuto, as many
// as it takes to reach the lowest result twice) then get split/merge moves
// (split_merge.hpp) and Hartigan's moves (hartigan.hpp), the lowest result
// kept; with kPolishStartsAuto, when two replicates already reached the
// lowest objective (it is confirmed), only Hartigan's moves: from it, and
// from the distinct replicates within `hartigan_gap` of it; otherwise
// starts are polished until two reach the lowest result, or two reach the
// lowest split/merge result (within `split_confirm`; Hartigan's moves then
// differ only by a few rows), and a start after the first only while the
// polish's passes over the rows stay below `polish_work` times the
// replicates' Lloyd iterations. The
// Lloyd iterations of all split/merge tries stop at `polish_budget` times
// those of the replicates.
// Replicate t draws its seeding from the stream (seed, kStreamKmeansInit, t).
//
// With KmeansOptions::sketch_rows below the number of (dense) rows, all of
// that runs on coreset sketches of the rows instead (sketch.hpp,
// kmeans_sketched()): the best replicate of each sketch is lifted to all
// rows (its centres and the rows' assignment to them are Lloyd's start
// there, lift_assignment()), Lloyd runs from it, and the lowest of those is
// polished.
// The stages, in order: run_replicates(), polish_replicates() (the confirmed
// lowest, or polish_starts(); then hartigan_others()).
#ifndef KMREDUCE_KMEANS_HPP
#define KMREDUCE_KMEANS_HPP

#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>
#include <limits>
#include <utility>
#include <stdexcept>
#include <vector>

#include "kmeans_options.hpp"
#include "local_search.hpp"
#include "lloyd.hpp"
#include "macqueen.hpp"
#include "minibatch.hpp"
#include "seeding.hpp"
#include "../kernels/packed.hpp"
#include "../runtime/rng.hpp"
#include "sketch.hpp"
#include "split_merge.hpp"

namespace kmreduce {

// Passes over the clustered rows, by stage (Lloyd's iterations, the
// seedings' passes, the polish's sweeps and Lloyd iterations).
struct KmeansPasses {
  double sketch = 0.0;      // drawing the sketch (kmeans() with sketch_rows)
  double replicates = 0.0;  // seedings and Lloyd of the replicates on all rows
  double lift = 0.0;        // the best sketch replicate lifted to all rows
  double lloyd = 0.0;       // Lloyd on all rows from the lifted start
  double polish = 0.0;      // split/merge and Hartigan's moves on all rows
};

struct KmeansResult {
  LloydResult best;
  int best_replicate = 0;
  std::vector<double> objectives;  // one per replicate
  index_t hartigan_moves = 0;      // Hartigan's moves of the kept result
  SplitMergeResult split;          // split/merge rounds of the kept result
  int polish_starts = 0;           // replicates polished
  int split_tries = 0;             // split/merge moves tried from all of them
  KmeansPasses passes;
  double before_polish = 0.0;  // the objective of the best start before the polish
  // With a sketch: its rows (distinct), the objective of its best polished
  // replicate on the sketch, that replicate's centres and the lifted ones.
  index_t sketch_rows = 0;
  double sketch_objective = 0.0;
  std::vector<double> sketch_centres, lifted_centres;
};

// A Lloyd run (lloyd.hpp; MacQueen's, macqueen.hpp) from `centres` with the
// options of k-means: iter_max, tol, n_threads and weights (the call sets the
// rest: its start, the rows' grid).
inline LloydCall lloyd_call(const KmeansOptions& opt, std::vector<double> centres,
                            const InterruptCheck& interrupt) {
  LloydCall call;
  call.centres = std::move(centres);
  call.iter_max = opt.iter_max;
  call.tol = opt.tol;
  call.n_threads = opt.n_threads;
  call.interrupt = interrupt;
  call.weight = opt.weights;
  return call;
}

namespace detail {

// The replicates run: the `starts` lowest distinct ones kept (increasing
// objective, with their numbers), every objective, the Lloyd iterations
// (`work`) and how many replicates reached the lowest objective.
struct Replicates {
  std::vector<std::pair<int, LloydResult>> top;
  std::vector<double> objectives;
  double work = 0.0;
  double passes = 0.0;
  int lowest_hits = 0;
};

inline bool polishes(const KmeansOptions& opt) {
  return opt.polish != Polish::None && opt.k > 1;
}

// How many of the best distinct replicates the polish may start from.
inline int polish_start_count(const KmeansOptions& opt) {
  if (!polishes(opt)) return 1;
  if (opt.polish_starts == kPolishStartsAuto) return opt.n_init;
  return std::max(1, std::min(opt.polish_starts, opt.n_init));
}

// Keeps `res` among the lowest distinct results of `reps` (replicate t).
// A later replicate must be better by more than rounding: replicates
// reaching the same partition tie, and the first one is kept whatever the
// summation order (dense or sparse input) did to the last bits.
inline void keep_replicate(Replicates& reps, int t, LloydResult&& res, int starts) {
  bool tie = false;
  for (const auto& e : reps.top)
    tie = tie || std::abs(res.objective - e.second.objective) <= 1e-10 * e.second.objective;
  if (reps.top.empty() || (!tie && res.objective < reps.top.front().second.objective)) {
    reps.lowest_hits = 1;
  } else if (std::abs(res.objective - reps.top.front().second.objective) <=
             1e-10 * reps.top.front().second.objective) {
    ++reps.lowest_hits;
  }
  if (!tie) keep_lowest(reps.top, t, std::move(res), static_cast<std::size_t>(starts));
}

// The n_init replicates: seeding (with local search on the even ones) and
// Lloyd (or MacQueen's updates).
template <class Data, class Combine>
Replicates run_replicates(const Data& a, const double* row_norms, const KmeansOptions& opt,
                          const InterruptCheck& interrupt, const Combine& combine) {
  const std::size_t seeding = seeding_index(opt.seeding);
  const SeedingCall<Data, Combine> call{a, row_norms, opt, interrupt, combine};
  const int starts = polish_start_count(opt);
  Replicates reps;
  for (int t = 0; t < opt.n_init; ++t) {
    const ProgressScope scope(t + 1, 0);
    Rng rng(stream_key(opt.seed, kStreamKmeansInit, static_cast<std::uint64_t>(t)));
    std::vector<double> centres(opt.k * a.d);
    const bool search = opt.local_search > 0 && opt.k > 1 && t % 2 == 1;
    SeedAssignment seeds;
    seeds.with_second_label = search;
    // (its passes over the rows: the policy's, plus the local search's steps)
    double seeding_passes = search ? opt.local_search : 0;
    with_seeding(seeding, [&](auto policy) {
      decltype(policy)::seed(call, rng, centres.data(), &seeds);
      seeding_passes += decltype(policy)::passes(opt);
    });
    if (search)
      local_search(a, row_norms, opt.k, opt.local_search, rng, centres.data(), seeds,
                   opt.n_threads, interrupt, combine, false, opt.weights);
    // Lloyd takes the seeds' assignment over (its arrays become Lloyd's).
    LloydCall run = lloyd_call(opt, std::move(centres), interrupt);
    run.start = &seeds;
    run.grid = rows_shift(a);
    LloydResult res = opt.online
                          ? macqueen(a, row_norms, std::move(run))
                          : lloyd(ResidentRows<Data>(a), row_norms, std::move(run), combine);
    reps.work += res.iter;
    reps.passes += seeding_passes + res.iter;
    reps.objectives.push_back(res.objective);
    if (opt.on_replicate) opt.on_replicate(t + 1, res.iter, res.objective);
    keep_replicate(reps, t, std::move(res), starts);
  }
  return reps;
}

// Split/merge moves from start i's result `r` (its own random stream),
// within what is left of the tries' Lloyd iterations (`budget`, < 0: no
// bound; what they take is subtracted).
template <class Data, class Combine>
SplitMergeResult split_merge_start(const Data& a, const double* row_norms,
                                   const KmeansOptions& opt, std::size_t i, LloydResult& r,
                                   double& budget, const InterruptCheck& interrupt,
                                   const Combine& combine) {
  SplitMergeOptions so = opt.split;
  so.iter_max = opt.iter_max;
  so.tol = opt.tol;
  so.budget = budget;
  Rng rng(stream_key(opt.seed, kStreamSplitMerge, i));
  SplitMergeResult sm = split_merge(a, row_norms, opt.k, r, rng, so, opt.n_threads, interrupt,
                                    combine, opt.weights);
  if (budget >= 0.0) budget = std::max(0.0, budget - sm.iterations);
  return sm;
}

// (auto) Hartigan's moves from the distinct replicates top[from], top[from +
// 1], ... that the polish did not start from: only from those within
// opt.hartigan_gap of the lowest objective (single-row moves gain far less
// than that; on a replicate further up they are many sweeps of a handful of
// rows each, for a result that is not kept), and together at most
// `sweeps_left` sweeps (each a scan of the rows). A lower result replaces
// out.best. `settings`: Lloyd's after the moves (hartigan_polish()).
template <class Data, class Combine>
void hartigan_others(const Data& a, const double* row_norms, const KmeansOptions& opt,
                     const LloydCall& settings, const Combine& combine, std::size_t from,
                     double sweeps_left, Replicates& reps, KmeansResult& out) {
  auto& top = reps.top;
  for (std::size_t i = from; i < top.size(); ++i) {
    LloydResult r = std::move(top[i].second);
    top[i].second = LloydResult();  // (its memory is not needed any more)
    if (!(r.objective <= out.best.objective * (1.0 + opt.hartigan_gap))) continue;
    const int allowed =
        static_cast<int>(std::min<double>(opt.hartigan_sweeps, std::floor(sweeps_left)));
    if (allowed < 1) continue;
    int used = 0;
    const index_t moves = hartigan_polish(a, row_norms, r, allowed, settings, combine, &used);
    sweeps_left -= used;
    out.passes.polish += used;
    if (r.objective < out.best.objective * (1.0 - 1e-10)) {
      out.best = std::move(r);
      out.best_replicate = top[i].first;
      out.split = SplitMergeResult();
      out.hartigan_moves = moves;
    }
  }
}

// Split/merge (or nothing) and Hartigan's moves from each kept replicate in
// turn (out.best holds the first), the lowest result kept in `out` (the
// first on ties), while the tries' budget (opt.polish_budget times the
// replicates' Lloyd iterations) lasts; with kPolishStartsAuto, until two
// starts reach the lowest result or two reach the lowest split/merge result
// (within opt.split_confirm), and a start after the first only while the
// polish's passes over the rows are below `passes_max` (< 0: no bound).
// Returns those passes; out.polish_starts: the starts polished.
template <class Data, class Combine>
double polish_starts(const Data& a, const double* row_norms, const KmeansOptions& opt,
                     const LloydCall& settings, const Combine& combine, double passes_max,
                     Replicates& reps, KmeansResult& out) {
  auto& top = reps.top;
  const bool confirm = opt.polish_starts == kPolishStartsAuto;
  double budget = opt.polish_budget < 0.0 ? -1.0 : opt.polish_budget * reps.work;
  double passes = 0.0;
  // `reached`: the polished results that tie with the lowest;
  // `split_reached`: the split/merge results (before Hartigan's moves) within
  // opt.split_confirm of the lowest of them.
  int reached = 0, split_reached = 0;
  double split_lowest = std::numeric_limits<double>::infinity();
  std::size_t polished = 0;
  for (std::size_t i = 0; i < top.size(); ++i) {
    if (confirm && i >= 2 && (reached >= 2 || split_reached >= 2)) break;
    if (i > 0 && budget == 0.0) break;  // (the tries' budget is spent)
    if (i > 0 && passes_max >= 0.0 && passes >= passes_max) break;  // (auto: the work's)
    LloydResult r = i == 0 ? std::move(out.best) : std::move(top[i].second);
    const ProgressScope scope(0, static_cast<int>(i) + 1);
    SplitMergeResult sm;
    if (opt.polish == Polish::SplitMerge) {
      sm = split_merge_start(a, row_norms, opt, i, r, budget, settings.interrupt, combine);
      if (r.objective < split_lowest * (1.0 - opt.split_confirm)) {
        split_lowest = r.objective;
        split_reached = 1;
      } else if (r.objective <= split_lowest * (1.0 + opt.split_confirm)) {
        ++split_reached;
      }
    }
    int sweeps = 0;
    const index_t moves = hartigan_polish(a, row_norms, r, std::max(1, opt.hartigan_sweeps),
                                          settings, combine, &sweeps);
    passes += sm.passes + sweeps;
    out.passes.polish += sm.passes + sweeps;
    out.split_tries += static_cast<int>(sm.trace.size());
    ++polished;
    if (i == 0 || r.objective < out.best.objective * (1.0 - 1e-10)) {
      out.best = std::move(r);
      out.best_replicate = top[i].first;
      out.split = std::move(sm);
      out.hartigan_moves = moves;
      reached = 1;
    } else if (r.objective <= out.best.objective * (1.0 + 1e-10)) {
      ++reached;
    }
    top[i].second = LloydResult();  // its memory is not needed any more
  }
  out.polish_starts = static_cast<int>(polished);
  return passes;
}

// The polish of the kept replicates (see the top of this file); `out` gets
// the lowest result.
template <class Data, class Combine>
void polish_replicates(const Data& a, const double* row_norms, const KmeansOptions& opt,
                       const InterruptCheck& interrupt, const Combine& combine,
                       Replicates& reps, KmeansResult& out) {
  auto& top = reps.top;
  out.before_polish = top.front().second.objective;
  out.best = std::move(top.front().second);
  out.best_replicate = top.front().first;
  if (!polishes(opt)) return;
  const bool confirm = opt.polish_starts == kPolishStartsAuto;
  const double work = reps.work;
  // (Lloyd after Hartigan's moves: the replicates' settings)
  const LloydCall settings = lloyd_call(opt, std::vector<double>(), interrupt);
  // The lowest replicate confirmed by a second one: Hartigan's moves only,
  // from it and from the other distinct replicates near it (sweeps: at most
  // as many as the replicates' Lloyd iterations), the lowest result kept
  // (the first on ties).
  if (confirm && reps.lowest_hits >= 2) {
    int used = 0;
    out.hartigan_moves = hartigan_polish(a, row_norms, out.best,
                                         std::max(1, opt.hartigan_sweeps), settings, combine,
                                         &used);
    out.passes.polish += used;
    top[0].second = LloydResult();
    hartigan_others(a, row_norms, opt, settings, combine, 1, work, reps, out);
    out.polish_starts = static_cast<int>(top.size());
    return;
  }
  // (auto) The polish's passes over the rows, and their bound.
  const double passes_max = confirm && opt.polish_work >= 0.0 ? opt.polish_work * work : -1.0;
  const double passes =
      polish_starts(a, row_norms, opt, settings, combine, passes_max, reps, out);
  // (auto) The distinct replicates not polished get Hartigan's moves, as
  // above, within what is left of the work's bound.
  if (!confirm) return;
  double sweeps_left = work;
  if (passes_max >= 0.0) sweeps_left = std::min(sweeps_left, std::max(0.0, passes_max - passes));
  hartigan_others(a, row_norms, opt, settings, combine,
                  static_cast<std::size_t>(out.polish_starts), sweeps_left, reps, out);
}

// The replicates and their polish on all the rows, into `out` (which may
// hold the passes of a sketch given up already).
template <class Data, class Combine>
void kmeans_all_rows(const Data& a, const double* row_norms, const KmeansOptions& opt,
                     const InterruptCheck& interrupt, const Combine& combine,
                     KmeansResult& out) {
  Replicates reps = run_replicates(a, row_norms, opt, interrupt, combine);
  out.passes.replicates = reps.passes;
  out.objectives = reps.objectives;
  polish_replicates(a, row_norms, opt, interrupt, combine, reps, out);
}

// Whether the replicates of `a` run on a sketch: opt.sketch_rows asks for
// one smaller than the rows (of all processes), with Lloyd (not MacQueen's
// updates), on dense rows (a sketch of sparse rows would be dense).
template <class Data>
struct SketchableRows : std::false_type {};
template <>
struct SketchableRows<DenseMatrix> : std::true_type {};
template <>
struct SketchableRows<PackedRows> : std::true_type {};

template <class Data, class Combine>
bool sketch_applies(const Data& a, const KmeansOptions& opt, const Combine& combine) {
  return SketchableRows<Data>::value && opt.sketch_rows > 0 &&
         opt.sketch_rows < combine.total_rows(a.n) && !opt.online && opt.k > 1;
}

// The sketches kmeans_sketched() draws (at most one per replicate): the
// n_init replicates are dealt to them in turn, each sketch's replicates are
// polished there, and the best of each is lifted to all rows, where Lloyd
// runs from it, and the lowest of these starts is polished.
// Independent sketches put the choice between nearby optima to the rows
// themselves: on one sketch a cluster of a few rows can be drawn too seldom
// to tell them apart (bench/quality/sketch_hard_case.R; the figures are in
// bench/HISTORY.md, "Replicates on a sketch").
constexpr int kSketches = 3;

// The rounds of k-means|| for the sketches' rough solution (about 4 k
// candidates): its distances are most of the sketches' cost, and five
// rounds drew sketches no better on the hard case above (bench/HISTORY.md).
constexpr int kSketchRounds = 2;

// The replicates and their polish on coreset sketches of the rows
// (sketch.hpp), then the best of each lifted to all the rows and Lloyd
// there, and the polish of the lowest of those starts. With rows on several
// processes (Combine), the sketches are those of one process on the stacked
// rows, whole on every process, where each runs the same replicates; the
// lifts, Lloyd and the polish run on all the rows across the processes.
template <class Data, class Combine>
KmeansResult kmeans_sketched(const Data& a, const double* row_norms, const KmeansOptions& opt,
                             const InterruptCheck& interrupt, const Combine& combine) {
  KmeansResult out;
  Rng rng(stream_key(opt.seed, kStreamSketch, 0));
  // (n_init replicates in all, dealt to the sketches in turn)
  const int count = std::min(kSketches, opt.n_init);
  KmeansParallelOptions rough = opt.parallel;
  rough.rounds = kSketchRounds;
  const std::vector<Sketch> sketches =
      coreset_sketches(a, row_norms, opt.weights, opt.sketch_rows, opt.k, count, rough, rng,
                       opt.n_threads, interrupt, combine);
  out.passes.sketch = rough.rounds + 1.0;
  check_interrupt(interrupt);
  index_t fewest = sketches.front().m;
  for (const Sketch& sk : sketches) fewest = std::min(fewest, sk.m);
  if (opt.k > fewest) {  // (fewer sketch rows than k: the replicates on all rows)
    kmeans_all_rows(a, row_norms, opt, interrupt, combine, out);
    return out;
  }
  // The lifted starts after Lloyd on all rows: the lowest is polished (the
  // others too would double the polish's passes for a few rows moved).
  KmeansOptions lifted_opt = opt;
  lifted_opt.n_init = 1;
  const int starts = 1;
  Replicates reps;
  std::vector<KmeansResult> on_sketches;
  std::vector<std::vector<double>> lifted_all;
  std::vector<double> lifted_objectives;
  for (std::size_t i = 0; i < sketches.size(); ++i) {
    const Sketch& sk = sketches[i];
    KmeansOptions so = opt;
    so.sketch_rows = 0;
    so.weights = sk.weight.data();
    so.n_init = opt.n_init / count + (static_cast<int>(i) < opt.n_init % count ? 1 : 0);
    // (the first sketch's replicates draw from the seed's streams)
    if (i > 0) so.seed = stream_key(opt.seed, kStreamSketch, i);
    const DenseMatrix sx(sk.x.get(), sk.m, sk.d);
    on_sketches.push_back(with_row_access(sx, opt.n_threads, [&](const auto& rows) {
      return kmeans(rows, so, interrupt, local_combine(combine));
    }));
    const KmeansResult& on_sketch = on_sketches.back();
    // (Lloyd's first step from this assignment: the lifted centres, the
    // means of the rows nearest the sketch's)
    SeedAssignment lift =
        lift_assignment(a, row_norms, on_sketch.best.centres, opt.k, opt.n_threads);
    out.passes.lift += 1.0;
    check_interrupt(interrupt);
    const ProgressScope scope(0, 0);
    LloydCall run = lloyd_call(opt, on_sketch.best.centres, interrupt);
    run.start = &lift;
    run.grid = rows_shift(a);
    LloydResult res = lloyd(ResidentRows<Data>(a), row_norms, std::move(run), combine);
    lifted_all.push_back(std::move(res.first_means));
    out.passes.lloyd += res.iter;
    reps.work += res.iter;
    out.objectives.insert(out.objectives.end(), on_sketch.objectives.begin(),
                          on_sketch.objectives.end());
    lifted_objectives.push_back(res.objective);
    keep_replicate(reps, static_cast<int>(i), std::move(res), starts);
  }
  // Each lifted start comes from a sketch's best replicate after its
  // split/merge moves: two that agree within split_confirm confirm their
  // basin (as two polished starts do in polish_replicates()), and on all
  // rows only Hartigan's moves follow, which differ by a few rows.
  if (lifted_opt.polish == Polish::SplitMerge) {
    const double lowest = *std::min_element(lifted_objectives.begin(), lifted_objectives.end());
    int near = 0;
    for (double o : lifted_objectives) near += o <= lowest * (1.0 + opt.split_confirm) ? 1 : 0;
    if (near >= 2) lifted_opt.polish = Polish::Hartigan;
  }
  polish_replicates(a, row_norms, lifted_opt, interrupt, combine, reps, out);
  const std::size_t kept = static_cast<std::size_t>(out.best_replicate);
  out.sketch_rows = sketches[kept].m;
  out.sketch_objective = on_sketches[kept].best.objective;
  out.sketch_centres = on_sketches[kept].best.centres;
  out.lifted_centres = std::move(lifted_all[kept]);
  out.best_replicate = on_sketches[kept].best_replicate;
  for (std::size_t i = 0; i < kept; ++i)
    out.best_replicate += static_cast<int>(on_sketches[i].objectives.size());
  return out;
}

}  // namespace detail

// With rows on several processes (Combine; see row_source.hpp), every
// process calls this with its own rows: the replicates, centres and
// objectives are global, the labels its own.
template <class Data, class Combine = LocalCombine>
KmeansResult kmeans(const Data& a, const KmeansOptions& opt,
                    const InterruptCheck& interrupt = InterruptCheck(),
                    const Combine& combine = Combine()) {
  if (opt.k < 1 || opt.k > combine.total_rows(a.n))
    throw std::invalid_argument("k must be in [1, number of rows]");
  if (opt.n_init < 1 || opt.iter_max < 1)
    throw std::invalid_argument("n_init and iter_max must be positive");
  if (opt.weights != nullptr && combine.size() > 1)
    throw std::invalid_argument("observation weights are not supported on distributed rows");
  if (opt.online && combine.size() > 1)
    throw std::invalid_argument("MacQueen's updates are not available on distributed rows");
  if (opt.minibatch && combine.size() > 1)
    throw std::invalid_argument(
        "`algorithm` \"minibatch\" is not available on distributed rows; use \"Lloyd\"");
  seeding_index(opt.seeding);  // (an unknown name is an error before any work)
  std::vector<double> norm_store;
  const double* row_norms = row_sqnorms_of(a, norm_store, opt.n_threads);
  if (opt.minibatch) {  // mini-batch k-means (minibatch.hpp) instead
    MinibatchResult mb =
        minibatch(a, row_norms, std::vector<double>(), opt, interrupt, local_combine(combine));
    KmeansResult out;
    out.best = std::move(mb.fit);
    out.best_replicate = mb.seeding;
    out.objectives.push_back(out.best.objective);
    return out;
  }
  if (detail::sketch_applies(a, opt, combine))
    return detail::kmeans_sketched(a, row_norms, opt, interrupt, combine);
  KmeansResult out;
  detail::kmeans_all_rows(a, row_norms, opt, interrupt, combine, out);
  return out;
}

// Lloyd from given centres (k x d, column-major): no seeding, one run, on
// the rows of a row source (row_source.hpp; rows in memory: ResidentRows).
template <class Source, class Combine = LocalCombine>
LloydResult kmeans_from(const Source& src, std::vector<double> centres,
                        const KmeansOptions& opt,
                        const InterruptCheck& interrupt = InterruptCheck(),
                        const Combine& combine = Combine()) {
  if (static_cast<index_t>(centres.size()) != opt.k * src.d())
    throw std::invalid_argument("centres must be k x d");
  if (opt.k < 1 || opt.k > combine.total_rows(src.n()))
    throw std::invalid_argument("k must be in [1, number of rows]");
  if (opt.weights != nullptr && combine.size() > 1)
    throw std::invalid_argument("observation weights are not supported on distributed rows");
  std::vector<double> row_norms(src.n());
  source_row_sqnorms(src, row_norms.data(), opt.n_threads);
  return lloyd(src, row_norms.data(), lloyd_call(opt, std::move(centres), interrupt), combine);
}

// From given centres (k x d, column-major) on rows in memory, as
// stats::kmeans(x, centers = <matrix>, algorithm = ) runs: Lloyd, or with
// opt.online MacQueen's updates (macqueen.hpp), or with opt.minibatch
// mini-batch k-means (minibatch.hpp, nothing after it); then with opt.polish
// Hartigan's moves (hartigan_polish(); split/merge is not run from given
// centres). Weighted with opt.weights. One process: `combine` (a Combine of
// this process alone, e.g. local_combine()) only chooses the instances of
// Lloyd and Hartigan's moves, so that they are those of kmeans().
template <class Data, class Combine = LocalCombine>
LloydResult kmeans_from_rows(const Data& a, std::vector<double> centres,
                             const KmeansOptions& opt,
                             const InterruptCheck& interrupt = InterruptCheck(),
                             const Combine& combine = Combine()) {
  if (combine.size() > 1) throw std::invalid_argument("kmeans_from_rows(): one process only");
  if (static_cast<index_t>(centres.size()) != opt.k * a.d)
    throw std::invalid_argument("centres must be k x d");
  if (opt.k < 1 || opt.k > a.n) throw std::invalid_argument("k must be in [1, number of rows]");
  std::vector<double> norm_store;
  const double* row_norms = row_sqnorms_of(a, norm_store, opt.n_threads);
  if (opt.minibatch)  // mini-batch k-means from the centres (minibatch.hpp)
    return minibatch(a, row_norms, std::move(centres), opt, interrupt, combine).fit;
  LloydCall run = lloyd_call(opt, std::move(centres), interrupt);
  run.grid = rows_shift(a);
  LloydResult res = opt.online ? macqueen(a, row_norms, std::move(run))
                               : lloyd(ResidentRows<Data>(a), row_norms, std::move(run), combine);
  if (opt.polish != Polish::None && opt.k > 1) {
    const ProgressScope scope(0, 1);
    hartigan_polish(a, row_norms, res, std::max(1, opt.hartigan_sweeps),
                    lloyd_call(opt, std::vector<double>(), interrupt), combine);
  }
  return res;
}

// Nearest-centre labels (0-based) of the rows of `a`.
template <class Data>
std::vector<int> predict_nearest(const Data& a, const double* centres,
                                 index_t k, int n_threads) {
  std::vector<double> row_norms(a.n), min_dist(a.n);
  row_sqnorms(a, row_norms.data(), n_threads);
  std::vector<int> label(a.n, -1);
  assign_nearest(a, row_norms.data(), centres, k, label.data(),
                 min_dist.data(), n_threads);
  return label;
}

// Centres (k x d, column-major) minus a shift of the rows (length d):
// where rows shifted by with_row_access() are compared with them.
inline std::vector<double> shifted_centres(const double* centres, index_t k,
                                           index_t d, const double* shift) {
  std::vector<double> out(centres, centres + k * d);
  if (shift != nullptr)
    for (index_t j = 0; j < d; ++j)
      for (index_t q = 0; q < k; ++q) out[q + k * j] -= shift[j];
  return out;
}

// Lloyd ran on rows shifted by `shift`: its centres are put back in the
// original coordinates. Labels must stay exactly those predict_nearest()
// gives the rows for the returned centres (shifted again: (c + s) - s, which
// floating point does not always bring back to c; Lloyd's centres, rounded
// to the shift as they are computed (lloyd()'s `grid`), nearly always do),
// so when a centre does not survive that round trip the rows are assigned
// once more: one pass, labels updated in place and the objective summed by
// blocks of rows in row order (no array of n values: fresh memory costs its
// first touch). With `weight` (one per row), the objective is weighted.
template <class Source, class Combine = LocalCombine>
void unshift_result(const Source& src, const double* shift, index_t k, LloydResult& res,
                    int n_threads, const Combine& combine = Combine(),
                    const double* weight = nullptr) {
  if (shift == nullptr) return;
  const index_t d = src.d();
  const std::vector<double> used = res.centres;  // what the labels are nearest to
  for (index_t j = 0; j < d; ++j)
    for (index_t q = 0; q < k; ++q) res.centres[q + k * j] += shift[j];
  const std::vector<double> back = shifted_centres(res.centres.data(), k, d, shift);
  const bool same = back == used;
  if (same) return;
  index_t changes = 0;
  double objective = 0.0;
  std::vector<double> block_sum;
  std::vector<double> dist;  // (weights: each row's distance)
  src.visit([&](const auto& rows, index_t r0) {
    std::vector<double> norm_store;
    const double* norms = row_sqnorms_of(rows, norm_store, n_threads);
    if (weight != nullptr) {
      dist.assign(static_cast<std::size_t>(rows.n), 0.0);
      changes += assign_nearest(rows, norms, back.data(), k, res.label.data() + r0,
                                dist.data(), n_threads);
      objective += detail::serial_dot(weight + r0, dist.data(), rows.n);
      return;
    }
    block_sum.assign(static_cast<std::size_t>(n_blocks(rows.n, kRowBlock)), 0.0);
    changes += assign_nearest(rows, norms, back.data(), k, res.label.data() + r0, nullptr,
                              n_threads, block_sum.data());
    for (double v : block_sum) objective += v;
  });
  if (combined_sum(combine, changes > 0 ? 1.0 : 0.0) > 0.0) res.means = false;
  res.objective = combined_sum(combine, objective);
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANS_HPP
