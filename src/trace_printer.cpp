// Glue for progress reports (progress.hpp): kmeans_reduced(trace = ) installs
// a hook on R's main thread for the duration of a fit, which prints each
// report (trace level >= 1, stats::kmeans()'s form: Rprintf) or keeps one
// progress line that updates in place on the console (a fit that runs for
// more than a few seconds in an interactive session; REprintf, erased at the
// end). The core only reports; printing happens here, between its parallel
// loops.
#include <Rcpp.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <kmreduce/runtime/progress.hpp>

namespace {

struct TraceState {
  int level = 0;        // print reports of depth < level
  bool line = false;    // the updating progress line
  double delay = 3.0;   // seconds before the line appears
  int n_init = 0;
  std::chrono::steady_clock::time_point start, last_line;
  std::size_t line_width = 0;  // characters of the line on the console (0: none)
};

TraceState& trace_state() {
  static TraceState s;
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// "replicate 3/10, " or "polish of start 2, " or "".
std::string context(const kmreduce::ProgressEvent& e, int n_init) {
  char buf[64];
  if (e.polish > 0) {
    std::snprintf(buf, sizeof(buf), "polish of start %d, ", e.polish);
  } else if (e.replicate > 0 && n_init > 0) {
    std::snprintf(buf, sizeof(buf), "replicate %d/%d, ", e.replicate, n_init);
  } else {
    buf[0] = '\0';
  }
  return buf;
}

std::string step_name(const kmreduce::ProgressEvent& e) {
  const std::string stage = e.stage;
  if (stage == "split/merge") return "split/merge round";
  if (stage == "Lloyd") return "Lloyd iteration";
  if (stage == "mini-batch") return "mini-batch batch";
  return stage + " sweep";
}

void on_progress(const kmreduce::ProgressEvent& e) {
  TraceState& s = trace_state();
  const double t = seconds_since(s.start);
  if (s.level > 0 && e.depth < s.level) {
    std::string moved;
    if (std::string(e.stage) == "split/merge") {
      moved = e.moved > 0 ? "a move kept" : "no move kept";
    } else if (std::string(e.stage) == "mini-batch") {
      char m[64];
      std::snprintf(m, sizeof(m), "%.0f centres reassigned so far", e.moved);
      moved = m;
    } else {
      char m[48];
      std::snprintf(m, sizeof(m), "%.0f rows moved", e.moved);
      moved = m;
    }
    Rprintf("kmreduce: %s%s %d: objective %.10g, %s, %.2f s\n", context(e, s.n_init).c_str(),
            step_name(e).c_str(), e.step, e.objective, moved.c_str(), t);
    return;
  }
  if (!s.line || t < s.delay) return;
  if (s.line_width > 0 && seconds_since(s.last_line) < 0.25) return;
  s.last_line = std::chrono::steady_clock::now();
  char buf[200];
  const int len = std::snprintf(buf, sizeof(buf), "kmreduce: %s%s %d, objective %.7g (%.0f s)",
                                context(e, s.n_init).c_str(), step_name(e).c_str(), e.step,
                                e.objective, t);
  std::string text(buf, static_cast<std::size_t>(len > 0 ? len : 0));
  if (text.size() < s.line_width) text.append(s.line_width - text.size(), ' ');
  REprintf("\r%s", text.c_str());
  s.line_width = text.size();
}

}  // namespace

// Installs the progress hook for a fit: `level` > 0 prints every report of
// the main runs (2: also the Lloyd runs inside the polish), `line` keeps a
// progress line once `delay` seconds have passed; `n_init` names the
// replicates.
// [[Rcpp::export]]
void set_trace_cpp(int level, bool line, int n_init, double delay = 3) {
  TraceState& s = trace_state();
  s = TraceState();
  s.level = level;
  s.line = line;
  s.delay = delay;
  s.n_init = n_init;
  s.start = s.last_line = std::chrono::steady_clock::now();
  if (level <= 0 && !line) {
    kmreduce::set_progress_hook(kmreduce::ProgressHook());
    return;
  }
  kmreduce::set_progress_hook(on_progress);
}

// Removes the hook; erases the progress line if one was shown.
// [[Rcpp::export]]
void clear_trace_cpp() {
  TraceState& s = trace_state();
  kmreduce::set_progress_hook(kmreduce::ProgressHook());
  if (s.line_width > 0) REprintf("\r%s\r", std::string(s.line_width, ' ').c_str());
  s = TraceState();
}
