// kmreduce: progress of the long loops (Lloyd's iterations, Hartigan's and
// MacQueen's sweeps, split/merge rounds), reported to a hook that the glue
// installs on the calling thread (R's main thread; see set_interrupt_hook()
// in parallel.hpp for the same pattern). The core never prints: the hook
// decides what to show (R's `trace =`, or a progress line). Reports are made
// on the hook's thread between parallel loops; without a hook (or on another
// thread) nothing is computed for them, and they never change a result.
#ifndef KMREDUCE_PROGRESS_HPP
#define KMREDUCE_PROGRESS_HPP

#include <functional>
#include <thread>
#include <utility>

namespace kmreduce {

struct ProgressEvent {
  const char* stage;  // "Lloyd", "Hartigan", "MacQueen", "split/merge"
  int step;           // iteration, sweep or round (1-based)
  double objective;   // of the clustered rows after the step
  double moved;       // rows that changed cluster in the step (-1: not counted)
  int replicate;      // the replicate (1-based) whose run this is; 0: none
  int polish;         // the polished start (1-based); 0: not in the polish
  int depth;          // 0: a main run; 1: a run inside the polish (split/merge's Lloyd runs)
};
using ProgressHook = std::function<void(const ProgressEvent&)>;

namespace detail {
struct ProgressState {
  ProgressHook hook;
  std::thread::id owner;
  int replicate = 0, polish = 0, depth = 0;
};
inline ProgressState& progress_state() {
  static ProgressState s;
  return s;
}
}  // namespace detail

// Installs `f` (empty: none) as the progress hook of the calling thread.
inline void set_progress_hook(ProgressHook f) {
  detail::ProgressState& s = detail::progress_state();
  s.hook = std::move(f);
  s.owner = std::this_thread::get_id();
  s.replicate = s.polish = s.depth = 0;
}

// Whether reports are wanted here (a hook, and this is its thread).
inline bool progress_active() {
  const detail::ProgressState& s = detail::progress_state();
  return static_cast<bool>(s.hook) && s.owner == std::this_thread::get_id();
}

inline void report_progress(const char* stage, int step, double objective, double moved) {
  if (!progress_active()) return;
  const detail::ProgressState& s = detail::progress_state();
  s.hook(ProgressEvent{stage, step, objective, moved, s.replicate, s.polish, s.depth});
}

// While in scope, reports name this replicate or polished start (0: keep
// the enclosing one), one level deeper with `inner`.
class ProgressScope {
 public:
  ProgressScope(int replicate, int polish, bool inner = false)
      : active_(progress_active()) {
    if (!active_) return;  // (only the hook's thread keeps this state)
    detail::ProgressState& s = detail::progress_state();
    saved_[0] = s.replicate;
    saved_[1] = s.polish;
    saved_[2] = s.depth;
    if (replicate > 0 || polish > 0) {
      s.replicate = replicate;
      s.polish = polish;
    }
    if (inner) ++s.depth;
  }
  ~ProgressScope() { leave(); }
  // Restores the enclosing state now (once).
  void leave() {
    if (!active_) return;
    active_ = false;
    detail::ProgressState& s = detail::progress_state();
    s.replicate = saved_[0];
    s.polish = saved_[1];
    s.depth = saved_[2];
  }
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  bool active_;
  int saved_[3] = {0, 0, 0};
};

}  // namespace kmreduce

#endif  // KMREDUCE_PROGRESS_HPP
