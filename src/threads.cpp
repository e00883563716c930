// Glue for the thread pool: the interrupt hook and fork handler at load, the
// pool joined at unload, and what R needs to choose a default thread count.
#include <Rcpp.h>

#include <kmreduce/runtime/parallel.hpp>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

// [[Rcpp::init]]
void kmreduce_init_threads(DllInfo* /*dll*/) {
  // Called on R's main thread: only this thread ever runs the check.
  kmreduce::set_interrupt_hook([]() { Rcpp::checkUserInterrupt(); });
  kmreduce::register_fork_handler();
}

extern "C" void R_unload_kmreduce(DllInfo* /*dll*/) { kmreduce::shutdown_pool(); }

// [[Rcpp::export]]
Rcpp::List threads_info_cpp() {
  int affinity = NA_INTEGER;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) affinity = CPU_COUNT(&set);
#endif
  return Rcpp::List::create(
      Rcpp::Named("hardware") = static_cast<int>(std::thread::hardware_concurrency()),
      Rcpp::Named("affinity") = affinity,
      Rcpp::Named("forked_child") = kmreduce::in_forked_child());
}
