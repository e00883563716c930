// kmreduce: a task run on a thread of its own while its caller goes on (a
// block converted or multiplied while the next one is read from a file).
//
// The task's exception is kept and rethrown by wait() (or rethrow()). The task is joined
// when the object is destroyed, in the process that started it; in a
// process forked while it ran (R's mclapply) the thread does not exist, so
// there it is let go, never waited for, and wait() is an error.
#ifndef KMREDUCE_BACKGROUND_HPP
#define KMREDUCE_BACKGROUND_HPP

#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#ifndef _WIN32
#include <unistd.h>
#endif

namespace kmreduce {

inline long process_id() {
#ifndef _WIN32
  return static_cast<long>(getpid());
#else
  return 0;
#endif
}

class BackgroundTask {
 public:
  BackgroundTask() = default;
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;
  ~BackgroundTask() {
    if (!worker_.joinable()) return;
    if (process_id() == pid_) {
      worker_.join();
    } else {
      worker_.detach();
    }
  }

  // Runs f() on a new thread (at most one task per object).
  template <class F>
  void start(F f) {
    if (worker_.joinable()) throw std::logic_error("a background task is already running");
    pid_ = process_id();
    worker_ = std::thread([this, f]() mutable { run(f); });
  }

  // Runs f() on the calling thread, its exception kept as start()'s.
  template <class F>
  void run_here(F f) {
    run(f);
  }

  // Waits for the task. `what` names it in the error of a process forked
  // while it ran.
  void join(const char* what = "a task") {
    if (!worker_.joinable()) return;
    if (process_id() != pid_)
      throw std::runtime_error(std::string(what) + " started in another process (before a fork)");
    worker_.join();
  }

  // The task's exception, if it threw (every time: a failed task stays
  // failed).
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

  void wait(const char* what = "a task") {
    join(what);
    rethrow();
  }

 private:
  template <class F>
  void run(F& f) {
    try {
      f();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  std::thread worker_;
  std::exception_ptr error_;
  long pid_ = 0;
};

}  // namespace kmreduce

#endif  // KMREDUCE_BACKGROUND_HPP
