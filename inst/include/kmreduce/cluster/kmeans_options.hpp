// kmreduce: the options of k-means (kmeans.hpp). Every option is declared
// once, in kmeans_options.def: its name, kind, default, bounds and help.
// From that table come KmeansControl (one field per option, as R gives
// it: "auto" or NULL where the fit chooses), its one validator
// (checked_option()), and, through the glue, R's kmeans_control(), its
// checks and ?kmeans_control. resolve_options() turns a KmeansControl into
// the KmeansOptions the algorithms read (every "auto" chosen for the rows at
// hand); the standalone tests set KmeansOptions' fields directly.
#ifndef KMREDUCE_KMEANS_OPTIONS_HPP
#define KMREDUCE_KMEANS_OPTIONS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kmeans_parallel_options.hpp"
#include "split_merge_options.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// Called on the calling thread after each replicate with (replicate, 1-based;
// Lloyd iterations; objective on the clustered data). Empty: no call, no cost.
using ReplicateHook = std::function<void(int, int, double)>;

// After the replicates, on each of the `polish_starts` best distinct ones
// (the lowest result kept): nothing, Hartigan's moves (hartigan.hpp), or
// split/merge moves (split_merge.hpp) then Hartigan's moves.
enum class Polish { None, Hartigan, SplitMerge };

// polish_starts = kPolishStartsAuto: the two lowest distinct replicates are
// polished, then the next ones in increasing objective while the lowest
// polished result has been reached from one start only (a second start
// ending at the same objective confirms it), up to all distinct replicates.
// When two replicates reached the lowest objective before any polish, it is
// confirmed already: no split/merge, only Hartigan's moves from it and from
// the distinct replicates near it (where a polish has nothing to gain, the
// replicates agree; where it gains, the lowest replicate is reached once).
constexpr int kPolishStartsAuto = 0;

// Mini-batch k-means (minibatch.hpp): rows per batch, the reassignment
// ratio of scikit-learn's MiniBatchKMeans (0: no reassignment), and the
// batches without improvement of the smoothed batch objective that stop it.
struct MinibatchOptions {
  index_t batch_size = 1024;
  double reassignment_ratio = 0.01;
  int max_no_improvement = 10;
};

struct KmeansOptions {
  index_t k = 2;
  int n_init = 10;
  int iter_max = 100;
  double tol = 0.0;
  int local_search = 0;  // LocalSearch++ steps after the seeding of replicates 2, 4, ...
  // The seeding of every replicate, by its name: one of the policies of
  // seeding.hpp ("k-means++", "k-means||"; seeding_names()).
  std::string seeding = "k-means++";
  KmeansParallelOptions parallel;  // k-means|| (seeding "k-means||")
  Polish polish = Polish::None;
  int polish_starts = 2;  // the lowest distinct replicates polished;
                          // kPolishStartsAuto: until the lowest is confirmed
  int hartigan_sweeps = 100;  // at most, per polished replicate
  // (auto) Hartigan's moves from replicates not otherwise polished only when
  // their objective is within this fraction of the lowest.
  double hartigan_gap = 1e-2;
  // The Lloyd iterations of the split/merge tries, all starts together, at
  // most this many times those of the replicates (< 0: no bound).
  double polish_budget = 2.0;
  // (auto) A start after the first is polished, and replicates not polished
  // get Hartigan's moves, only while the polish's passes over the rows so
  // far (split/merge's and Hartigan's sweeps) are below this many times the
  // replicates' Lloyd iterations (< 0: no bound).
  double polish_work = 2.0;
  // (auto) Two polished starts whose split/merge results (before Hartigan's
  // moves) lie within this fraction of the lowest of them confirm it: no
  // further start is polished.
  double split_confirm = 1e-6;
  SplitMergeOptions split;  // its iter_max and tol are those above
  std::uint64_t seed = 0;
  int n_threads = 1;
  ReplicateHook on_replicate;
  // MacQueen's online updates (macqueen.hpp) instead of Lloyd after each
  // seeding (stats::kmeans(algorithm = "MacQueen")); one process only.
  bool online = false;
  // Mini-batch k-means (minibatch.hpp) instead of the replicates and Lloyd:
  // n_init seedings on a sample, the best one kept, then mini-batch updates
  // for at most iter_max passes over the rows; one process only.
  bool minibatch = false;
  MinibatchOptions batches;
  // The replicates (and their polish) on a coreset sketch of about this many
  // rows (sketch.hpp), the best then lifted to all rows for Lloyd and the
  // polish (kmeans.hpp); 0, or at least the number of rows: on all rows.
  index_t sketch_rows = 0;
  // Observation weights, one positive weight per row (nullptr: all 1): every
  // step weighted (seeding by w D^2, weighted means and objective, the
  // polish's moves), so that whole weights give the fit of the rows repeated.
  const double* weights = nullptr;
};


// The table of options (kmeans_options.def) --------------------------------

constexpr double kInf = std::numeric_limits<double>::infinity();
enum class OptionKind { Flag, Whole, Number, Choice };
enum class OptionScope { Control, ROnly, Call };
enum OptionFlags : unsigned { kAuto = 1u, kNull = 2u, kOpenLower = 4u, kOpenUpper = 8u };

// One row of the table.
struct OptionSpec {
  const char* name;
  OptionKind kind;
  const char* value;  // the default, as R code
  double lower, upper;
  unsigned flags;
  const char* choices;  // a Choice's values, separated by ;
  OptionScope scope;
  const char* help;
};

inline const std::vector<OptionSpec>& kmeans_option_specs() {
  static const std::vector<OptionSpec> specs = {
#define X(name, kind, value, lower, upper, flags, choices, scope, help) \
  {#name, OptionKind::kind, value, lower, upper, flags, choices, OptionScope::scope, help},
#include "kmeans_options.def"
#undef X
  };
  return specs;
}

inline const OptionSpec& option_spec(const std::string& name) {
  for (const OptionSpec& s : kmeans_option_specs())
    if (name == s.name) return s;
  throw std::invalid_argument("unknown k-means option `" + name + "`");
}

inline std::vector<std::string> option_choices(const OptionSpec& s) {
  std::vector<std::string> out;
  std::string c = s.choices;
  for (std::size_t at = 0; !c.empty();) {
    const std::size_t bar = c.find(';', at);
    out.push_back(c.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
    if (bar == std::string::npos) break;
    at = bar + 1;
  }
  return out;
}

// A value as R gives it: NULL, TRUE/FALSE, a number or a string.
struct OptionValue {
  // (Invalid: none of these, e.g. a vector of two values)
  enum Type { Null, Flag, Number, Text, Invalid } type = Null;
  bool flag = false;
  double number = 0.0;
  std::string text;
};

// A default of the table (R code: NULL, TRUE, FALSE, "text" or a number).
inline OptionValue option_default(const char* code) {
  const std::string v = code;
  OptionValue out;
  if (v == "NULL") return out;
  if (v == "TRUE" || v == "FALSE") {
    out.type = OptionValue::Flag;
    out.flag = v == "TRUE";
  } else if (!v.empty() && v.front() == '"') {
    out.type = OptionValue::Text;
    out.text = v.substr(1, v.size() - 2);
  } else {
    out.type = OptionValue::Number;
    out.number = v == "Inf" ? kInf : std::strtod(v.c_str(), nullptr);
  }
  return out;
}

namespace detail {

[[noreturn]] inline void option_fail(const OptionSpec& s, const std::string& what) {
  throw std::invalid_argument(std::string("k-means option `") + s.name + "` " + what);
}

inline std::string bound_text(double v) {
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return buf;
}

// "a whole number in [1, 1000]" and the like, with "auto" or NULL.
inline std::string expected_text(const OptionSpec& s) {
  std::string out;
  if (s.flags & kAuto) out += "\"auto\" or ";
  if (s.flags & kNull) out += "NULL or ";
  out += s.kind == OptionKind::Whole ? "a whole number in " : "a number in ";
  out += (s.flags & kOpenLower) ? "(" : "[";
  out += bound_text(s.lower) + ", " + bound_text(s.upper);
  out += (s.flags & kOpenUpper) ? ")" : "]";
  return out;
}

}  // namespace detail

// The one validator: `v` checked against its row of the table; returns it
// as the option holds it (a number, or Null for "auto" and NULL).
inline OptionValue checked_option(const OptionSpec& s, const OptionValue& v) {
  switch (s.kind) {
    case OptionKind::Flag:
      if (v.type != OptionValue::Flag) detail::option_fail(s, "must be TRUE or FALSE");
      return v;
    case OptionKind::Choice: {
      if (v.type != OptionValue::Text) detail::option_fail(s, "must be one string");
      std::string known;
      for (const std::string& c : option_choices(s)) {
        if (v.text == c) return v;
        known += (known.empty() ? "\"" : ", \"") + c + "\"";
      }
      detail::option_fail(s, "must be one of " + known + ", not \"" + v.text + "\"");
    }
    case OptionKind::Whole:
    case OptionKind::Number: {
      if (v.type == OptionValue::Null && (s.flags & kNull)) return OptionValue();
      if (v.type == OptionValue::Text && v.text == "auto" && (s.flags & kAuto))
        return OptionValue();
      const double x = v.number;
      const bool in_range = v.type == OptionValue::Number && !std::isnan(x) &&
                            ((s.flags & kOpenLower) ? x > s.lower : x >= s.lower) &&
                            ((s.flags & kOpenUpper) ? x < s.upper : x <= s.upper) &&
                            (s.kind == OptionKind::Number || std::isinf(x) || x == std::floor(x));
      if (!in_range) detail::option_fail(s, "must be " + detail::expected_text(s));
      return v;
    }
  }
  detail::option_fail(s, "has an unknown kind");
}

// An option's field of KmeansControl: TRUE or FALSE (Flag), a string
// (Choice), or a number (Whole, Number; NaN where "auto" or NULL leaves the
// choice to the fit).
template <OptionKind K>
struct OptionField {
  using type = double;
  static double of(const OptionValue& v) {
    return v.type == OptionValue::Number ? v.number : std::numeric_limits<double>::quiet_NaN();
  }
};
template <>
struct OptionField<OptionKind::Flag> {
  using type = bool;
  static bool of(const OptionValue& v) { return v.flag; }
};
template <>
struct OptionField<OptionKind::Choice> {
  using type = std::string;
  static std::string of(const OptionValue& v) { return v.text; }
};

// Every option of the table, as given (its default where not).
struct KmeansControl {
#define X(name, kind, value, ...) \
  OptionField<OptionKind::kind>::type name = OptionField<OptionKind::kind>::of(option_default(value));
#include "kmeans_options.def"
#undef X
};

// Sets the option `name` of `c` to `v`, checked (an unknown name or a bad
// value is an error naming the option).
inline void set_option(KmeansControl& c, const std::string& name, const OptionValue& v) {
#define X(nm, kind, ...)                                                        \
  if (name == #nm) {                                                           \
    c.nm = OptionField<OptionKind::kind>::of(checked_option(option_spec(#nm), v)); \
    return;                                                                    \
  }
#include "kmeans_options.def"
#undef X
  throw std::invalid_argument("unknown k-means option `" + name + "`");
}

// The seed of every random stream from a whole number (negative ones wrap).
inline std::uint64_t seed_of(double seed) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(seed));
}

// The options the algorithms read, every "auto" chosen for `n_rows` rows
// (of all processes):
//   seeding       k-means|| from n k >= 10^6 rows times clusters (mini-batch
//                 k-means: its seeding sample of max(3 batch_size, 3 k) rows),
//                 greedy k-means++ below (bench/speed/seeding.R)
//   local_search  ceiling(k / (2 + floor(log k))) steps: about k rows tried
//   polish        split/merge after several replicates, none after one
//   polish_starts 2 on reduced rows; every replicate where n k <= 10^4 (a
//                 polish costs next to nothing there, and two starts can agree
//                 on a poor optimum); else kPolishStartsAuto
//   polish_work   Inf: no bound (-1)
//   sketch_rows   m = max(2000, 100 k) when there are at least 10 m rows and
//                 several replicates (bench/speed/sketch_size.R,
//                 bench/quality/sketch_quality.R); Inf, or m >= n: all rows (0)
inline KmeansOptions resolve_options(const KmeansControl& c, index_t n_rows) {
  KmeansOptions o;
  const double n = static_cast<double>(n_rows);
  const double k = c.k;
  o.k = static_cast<index_t>(c.k);
  o.n_init = static_cast<int>(c.n_init);
  o.iter_max = static_cast<int>(c.iter_max);
  o.tol = c.tol;
  o.seed = seed_of(c.seed);
  o.n_threads = static_cast<int>(c.n_threads);
  o.online = c.algorithm == "macqueen";
  o.minibatch = c.algorithm == "minibatch";
  o.batches.batch_size = static_cast<index_t>(c.batch_size);
  o.batches.reassignment_ratio = c.reassignment_ratio;
  const double seeded = o.minibatch ? std::min(n, std::max(3.0 * c.batch_size, 3.0 * k)) : n;
  o.seeding = c.seeding != "auto" ? c.seeding : seeded * k >= 1e6 ? "k-means||" : "k-means++";
  o.parallel.oversampling = c.oversampling;
  o.parallel.rounds = static_cast<int>(c.rounds);
  o.local_search = static_cast<int>(std::isnan(c.local_search)
                                        ? std::ceil(k / (2.0 + std::floor(std::log(k))))
                                        : c.local_search);
  const std::string polish = c.polish != "auto" ? c.polish
                             : c.n_init > 1       ? "split_merge"
                                                  : "none";
  o.polish = polish == "split_merge" ? Polish::SplitMerge
             : polish == "hartigan"  ? Polish::Hartigan
                                     : Polish::None;
  o.polish_starts = !std::isnan(c.polish_starts) ? static_cast<int>(c.polish_starts)
                    : c.reduced                  ? 2
                    : n * k <= 1e4               ? static_cast<int>(c.n_init)
                                                 : kPolishStartsAuto;
  o.polish_work = std::isinf(c.polish_work) ? -1.0 : c.polish_work;
  o.split.tries = static_cast<int>(c.tries);
  o.split.rounds = static_cast<int>(c.split_rounds);
  o.split_confirm = c.split_confirm;
  double m = c.sketch_rows;
  if (std::isnan(m)) {
    m = std::max(2000.0, 100.0 * k);
    if (n < 10.0 * m || c.n_init < 2) m = 0.0;
  }
  o.sketch_rows = !std::isfinite(m) || m >= n ? 0 : static_cast<index_t>(m);
  return o;
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANS_OPTIONS_HPP
