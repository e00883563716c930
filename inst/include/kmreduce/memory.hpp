// kmreduce: arrays of one value per row (distances, labels, bounds). The
// memory of a large one is advised for transparent huge pages before its
// first touch (Linux): one page fault per 2 MiB instead of one per 4 KiB.
// Where transparent huge pages are enabled on request only ("madvise", the
// default of Debian and Ubuntu) a fresh array of 10^7 values otherwise costs
// 20000 faults, and on virtual machines, where a fault is dear, that is a
// large part of a pass over the data. Elsewhere this is a plain assign().
#ifndef KMREDUCE_MEMORY_HPP
#define KMREDUCE_MEMORY_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kmreduce {

// Advises [p, p + bytes) (its whole 2 MiB pages) for huge pages; nothing
// below 4 MiB or where the system has no such advice.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(1) << 21;
  if (p == nullptr || bytes < 2 * huge) return;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// v.assign(n, value), with fresh memory (when v must grow) advised for huge
// pages before it is first written.
template <class T>
void assign_rows(std::vector<T>& v, std::size_t n, const T& value) {
  if (v.capacity() < n) {
    std::vector<T> fresh;
    fresh.reserve(n);
    advise_huge_pages(fresh.data(), n * sizeof(T));
    v.swap(fresh);
  }
  v.assign(n, value);
}

// A new array of n copies of value, as assign_rows() makes it.
template <class T>
std::vector<T> rows_array(std::size_t n, const T& value) {
  std::vector<T> v;
  assign_rows(v, n, value);
  return v;
}

}  // namespace kmreduce

#endif  // KMREDUCE_MEMORY_HPP
