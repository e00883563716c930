// kmreduce: deterministic parallelism on a thread pool of our own.
//
// Work is cut into tasks (blocks) whose boundaries depend only on the problem
// size, never on the thread count; each task is computed by one thread, and
// any reduction over tasks is done serially in task order afterwards. Hence
// results are bitwise identical for every n_threads.
//
// Why not OpenMP: on a shared machine (R next to a browser, several R
// processes, a busy server) libgomp's idle threads spin while the thread they
// wait for is descheduled, and static schedules leave a descheduled thread's
// share to the end; libgomp's pool also hangs in a child made by fork()
// (parallel::mclapply) and kills the process when a thread cannot be created.
// This pool:
//   * hands tasks out dynamically (an atomic counter), so a thread that gets
//     less CPU simply takes fewer tasks;
//   * lets idle workers spin briefly, yielding the core at every round, then
//     sleep on a condition variable;
//   * is dropped (never touched again) in a forked child, which builds a fresh
//     one on first use;
//   * uses fewer threads when the system refuses to create one;
//   * lets the calling thread poll for a user interrupt between its tasks
//     (set_interrupt_hook below), then cancels the remaining tasks.
#ifndef KMREDUCE_PARALLEL_HPP
#define KMREDUCE_PARALLEL_HPP

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define KMREDUCE_HAVE_FORK 1
#endif
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace kmreduce {

using index_t = std::int64_t;

// Rows per block in row-blocked kernels (fixed: part of the definition of
// every result, so it never depends on the machine).
constexpr index_t kRowBlock = 256;

inline index_t n_blocks(index_t n, index_t block) {
  return (n + block - 1) / block;
}

// A callback the algorithms call on the calling (main) thread between blocks
// or iterations; the R glue uses it to check for a user interrupt and throws
// when there is one. Pure C++ users pass nothing.
using InterruptCheck = std::function<void()>;

struct interrupted : public std::runtime_error {
  interrupted() : std::runtime_error("interrupted by the user") {}
};

namespace detail {
// The process's interrupt check and the one thread allowed to call it.
struct InterruptHook {
  InterruptCheck f;
  std::thread::id owner;
};
inline InterruptHook& interrupt_hook() {
  static InterruptHook h;
  return h;
}
// Nesting: a parallel_for inside a task runs serially on its thread.
inline bool& in_parallel_task() {
  static thread_local bool flag = false;
  return flag;
}
inline std::atomic<bool>& forked_flag() {
  static std::atomic<bool> flag(false);
  return flag;
}
}  // namespace detail

// Installs `f` as the interrupt check of the calling thread (the R glue does
// this once, from R's main thread, when the library is loaded): from then
// on every parallel_for called on that thread, and poll_interrupt(), calls
// it about every 20 ms between tasks, so every long loop can be interrupted.
// Pure C++ users need none. Call before any parallel work.
inline void set_interrupt_hook(InterruptCheck f) {
  detail::interrupt_hook().f = std::move(f);
  detail::interrupt_hook().owner = std::this_thread::get_id();
}

inline void check_interrupt(const InterruptCheck& f) {
  if (f) f();
}

// True on the thread that owns the interrupt hook.
inline bool interruptible_here() {
  const detail::InterruptHook& h = detail::interrupt_hook();
  return h.f && std::this_thread::get_id() == h.owner;
}

// Calls the interrupt hook when on its thread (at most every `ms`).
inline void poll_interrupt(int ms = 20) {
  const detail::InterruptHook& h = detail::interrupt_hook();
  if (!h.f || std::this_thread::get_id() != h.owner) return;
  using clock = std::chrono::steady_clock;
  static thread_local clock::time_point last;
  const clock::time_point now = clock::now();
  if (ms > 0 && now - last < std::chrono::milliseconds(ms)) return;
  last = now;
  h.f();
}

// True in a process made by fork() from one that had loaded the library
// (once register_fork_handler() ran); the R glue uses one thread there by
// default, as data.table does.
inline bool in_forked_child() { return detail::forked_flag().load(); }

namespace detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
  _mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// Waits until done() for up to about kSpinMicros before the caller sleeps:
// long enough to bridge the short serial steps between two parallel loops of
// one algorithm (Lloyd's centre update), so that on a quiet machine the
// workers are awake when the next loop starts. The spin yields the core at
// every round, so on a busy machine the thread it waits for (or another
// program) runs instead of the spinner.
#ifndef KMREDUCE_SPIN_MICROS
#define KMREDUCE_SPIN_MICROS 200
#endif
constexpr int kSpinMicros = KMREDUCE_SPIN_MICROS;

template <class Done>
bool spin_until(Done done) {
  using clock = std::chrono::steady_clock;
  const clock::time_point end = clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int i = 0;; ++i) {
    for (int j = 0; j < 32; ++j) {
      if (done()) return true;
      cpu_relax();
    }
    if (clock::now() >= end) return done();
    std::this_thread::yield();
  }
}

class Pool {
 public:
  // Workers 1..team-1 may run job(ctx, id) while the caller runs job(ctx, 0).
  // The job must make progress without any given worker (tasks are claimed
  // dynamically): a worker that wakes up after the caller has run out of
  // tasks does not join, so the caller waits only for workers that joined
  // (never for one the system has not scheduled yet).
  using Job = void (*)(void*, int);

  void run(int team, Job job, void* ctx) {
    team = grow(team);
    if (team <= 1) {
      job(ctx, 0);
      return;
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      job_ = job;
      ctx_ = ctx;
      team_ = team;
      open_ = true;
      joined_ = 0;
      finished_.store(0, std::memory_order_relaxed);
      gen_.fetch_add(1, std::memory_order_release);
    }
    cv_work_.notify_all();
    job(ctx, 0);  // never throws: the loop catches
    int joined;
    {
      std::lock_guard<std::mutex> lk(mu_);
      open_ = false;  // late workers no longer join
      joined = joined_;
    }
    spin_until([&] { return finished_.load(std::memory_order_acquire) >= joined; });
    if (finished_.load(std::memory_order_acquire) < joined) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_done_.wait(lk, [&] { return finished_.load(std::memory_order_acquire) >= joined; });
    }
  }

  int workers() const { return static_cast<int>(threads_.size()); }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
      gen_.fetch_add(1, std::memory_order_release);
    }
    cv_work_.notify_all();
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
    threads_.clear();
  }

 private:
  // Makes sure team - 1 workers exist; returns the team that can run.
  int grow(int team) {
    while (static_cast<int>(threads_.size()) < team - 1) {
      const int id = static_cast<int>(threads_.size()) + 1;
      try {
        threads_.emplace_back([this, id] { loop(id); });
      } catch (const std::system_error&) {
        break;  // the system refuses more threads: run with what exists
      } catch (const std::bad_alloc&) {
        break;
      }
    }
    return std::min(team, static_cast<int>(threads_.size()) + 1);
  }

  void loop(int id) {
    std::uint64_t seen = 0;
    for (;;) {
      spin_until([&] { return gen_.load(std::memory_order_acquire) != seen; });
      Job job;
      void* ctx;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_work_.wait(lk, [&] { return stop_ || gen_.load(std::memory_order_acquire) != seen; });
        if (stop_) return;
        seen = gen_.load(std::memory_order_acquire);
        if (!open_ || id >= team_) continue;
        ++joined_;
        job = job_;
        ctx = ctx_;
      }
      job(ctx, id);
      finished_.fetch_add(1, std::memory_order_acq_rel);
      std::lock_guard<std::mutex> lk(mu_);
      cv_done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_work_, cv_done_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> gen_{0};
  std::atomic<int> finished_{0};
  Job job_ = nullptr;
  void* ctx_ = nullptr;
  int team_ = 1;
  int joined_ = 0;
  bool open_ = false;
  bool stop_ = false;
};

// The process's pool. Never destroyed by static destructors (its threads
// may outlive them at exit); shutdown_pool() joins it (the R glue calls it
// when the library is unloaded). One caller at a time: the R glue calls the
// core from R's main thread only; a second thread calling in runs serially.
inline Pool*& pool_ptr() {
  static Pool* p = nullptr;
  return p;
}
inline std::mutex& pool_owner() {
  static std::mutex m;
  return m;
}

#ifdef KMREDUCE_HAVE_FORK
inline void atfork_child() {
  // The parent's workers do not exist here: forget the pool without touching
  // it (a fresh one is built on first use) and remember being a child. (R
  // forks from its main thread, never while a parallel loop runs; were the
  // owner lock held, parallel_for would run serially, never wait.)
  pool_ptr() = nullptr;
  forked_flag().store(true);
}
#endif

}  // namespace detail

// Registers the fork handler (once per process; safe to call often).
inline void register_fork_handler() {
#ifdef KMREDUCE_HAVE_FORK
  static const bool done = (pthread_atfork(nullptr, nullptr, &detail::atfork_child), true);
  (void)done;
#endif
}

// Stops and joins the pool's threads (before the library is unloaded).
inline void shutdown_pool() {
  std::lock_guard<std::mutex> lk(detail::pool_owner());
  detail::Pool* p = detail::pool_ptr();
  if (p != nullptr) {
    p->shutdown();
    delete p;
    detail::pool_ptr() = nullptr;
  }
}

// Number of threads parallel_for uses for n_tasks tasks: at most n_threads
// and n_tasks, and, with a work estimate (about one unit per multiply-add),
// no more threads than there are 2^18 units of work for each (tens of
// microseconds: handing a loop to a thread costs a few microseconds when it
// is awake, tens when it sleeps, more when another program holds its core).
#ifndef KMREDUCE_MIN_WORK
#define KMREDUCE_MIN_WORK 262144.0
#endif
inline int team_size(index_t n_tasks, int n_threads, double work = -1.0) {
  index_t t = std::max<index_t>(1, std::min<index_t>(n_threads, n_tasks));
  if (work >= 0.0) {
    const double per = KMREDUCE_MIN_WORK;
    t = std::min<index_t>(t, std::max<index_t>(1, static_cast<index_t>(work / per)));
  }
  return static_cast<int>(t);
}

namespace detail {
template <class Body>
struct Loop {
  Body* body;
  index_t n_tasks;
  std::atomic<index_t> next{0};
  std::atomic<bool> cancel{false};
  std::mutex err_mu;
  std::exception_ptr error;

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lk(err_mu);
    if (!error) error = e;
    cancel.store(true, std::memory_order_relaxed);
  }

  static void run(void* self, int worker) {
    Loop& l = *static_cast<Loop*>(self);
    bool& nested = in_parallel_task();
    const bool was = nested;
    nested = true;
    for (;;) {
      if (l.cancel.load(std::memory_order_relaxed)) break;
      if (worker == 0) {
        try {
          nested = was;
          poll_interrupt();
          nested = true;
        } catch (...) {
          nested = true;
          l.fail(std::current_exception());
          break;
        }
      }
      const index_t t = l.next.fetch_add(1, std::memory_order_relaxed);
      if (t >= l.n_tasks) break;
      try {
        (*l.body)(t, worker);
      } catch (...) {
        l.fail(std::current_exception());
        break;
      }
    }
    nested = was;
  }
};
}  // namespace detail

// Calls body(task, worker) for every task in [0, n_tasks), on at most
// team_size(n_tasks, n_threads, work) threads; worker is in [0, team) and
// lets a body use per-worker scratch space (size it with team_size() and
// the same arguments). The first exception thrown by a body (or by the
// interrupt check) cancels the tasks not yet started and is rethrown here.
template <class Body>
void parallel_for(index_t n_tasks, int n_threads, Body&& body, double work = -1.0) {
  if (n_tasks <= 0) return;
  int team = team_size(n_tasks, n_threads, work);
  detail::Loop<typename std::remove_reference<Body>::type> loop;
  loop.body = &body;
  loop.n_tasks = n_tasks;
  std::unique_lock<std::mutex> owner(detail::pool_owner(), std::defer_lock);
  if (team > 1 && !detail::in_parallel_task() && owner.try_lock()) {
    register_fork_handler();
    detail::Pool*& p = detail::pool_ptr();
    if (p == nullptr) p = new detail::Pool();
    p->run(team, &decltype(loop)::run, &loop);
  } else {
    decltype(loop)::run(&loop, 0);
  }
  if (loop.error) std::rethrow_exception(loop.error);
}

// f(r0, r1) over the rows [0, n) in runs of 64 row blocks, on the threads:
// for loops whose rows are independent of each other (so the results do not
// depend on the threads); small n run on the calling thread.
template <class F>
void each_row_block(index_t n, int n_threads, F&& f) {
  constexpr index_t run = 64 * kRowBlock;
  parallel_for(n_blocks(n, run), n_threads,
               [&](index_t b, int) { f(b * run, std::min(n, (b + 1) * run)); },
               static_cast<double>(n));
}

// parallel_for with per-worker scratch space: body(task, scratch) gets the
// Scratch of the thread running the task (default-constructed, kept across
// that thread's tasks), sized by the same team_size() as the loop itself.
// Returns the scratches, for results reduced over workers.
template <class Scratch, class Body>
std::vector<Scratch> parallel_for_scratch(index_t n_tasks, int n_threads, Body&& body,
                                          double work = -1.0) {
  std::vector<Scratch> ws(static_cast<std::size_t>(team_size(n_tasks, n_threads, work)));
  parallel_for(n_tasks, n_threads, [&](index_t t, int w) { body(t, ws[w]); }, work);
  return ws;
}

// Runs fn() on a helper thread while the calling thread polls for a user
// interrupt (for a long call that cannot check by itself, such as LAPACK).
// fn must own everything it touches: after an interrupt the caller returns at
// once and the abandoned helper finishes on its own, then frees its state.
// Without an interrupt check on this thread, or when no thread can be made,
// fn runs here.
template <class Result>
Result run_interruptible(std::function<Result()> fn) {
  if (!interruptible_here()) return fn();
  const detail::InterruptHook& h = detail::interrupt_hook();
  struct State {
    std::function<Result()> fn;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    Result result;
    std::exception_ptr error;
  };
  auto st = std::make_shared<State>();
  st->fn = std::move(fn);
  try {
    std::thread([st] {
      Result r;
      std::exception_ptr e;
      try {
        r = st->fn();
      } catch (...) {
        e = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(st->mu);
      st->result = std::move(r);
      st->error = e;
      st->done = true;
      st->cv.notify_all();
    }).detach();
  } catch (const std::system_error&) {
    return st->fn();
  }
  std::unique_lock<std::mutex> lk(st->mu);
  while (!st->cv.wait_for(lk, std::chrono::milliseconds(50), [&] { return st->done; })) {
    lk.unlock();
    h.f();  // throws on an interrupt: the helper is abandoned
    lk.lock();
  }
  if (st->error) std::rethrow_exception(st->error);
  return std::move(st->result);
}

}  // namespace kmreduce

#endif  // KMREDUCE_PARALLEL_HPP
