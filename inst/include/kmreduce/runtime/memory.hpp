// kmreduce: memory. Buffers that SIMD kernels write with aligned or
// streaming stores come from aligned_array() (64-byte aligned on every
// platform; large ones on 2 MiB boundaries on Linux). Arrays of one value per
// row (distances, labels, bounds) are std::vectors whose memory, when large,
// is advised for transparent huge pages before its first touch (Linux): one
// page fault per 2 MiB instead of one per 4 KiB. Where transparent huge pages
// are enabled on request only ("madvise", the default of Debian and Ubuntu) a
// fresh array of 10^7 values otherwise costs 20000 faults, and on virtual
// machines, where a fault is dear, that is a large part of a pass over the
// data. Elsewhere this is a plain assign().
#ifndef KMREDUCE_MEMORY_HPP
#define KMREDUCE_MEMORY_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(_WIN32)
#include <malloc.h>
#endif

// Large aligned arrays on 2 MiB boundaries with huge-page advice: Linux only.
// KMREDUCE_GENERIC_ALLOC (a compile-time switch for tests) takes the branch
// of the other systems on Linux too (64-byte alignment, no advice).
#if defined(__linux__) && !defined(KMREDUCE_GENERIC_ALLOC)
#define KMREDUCE_HUGE_ALIGN 1
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

// The alignment of every buffer a SIMD kernel may access with aligned loads
// or stores or with streaming stores: one AVX-512 vector, one cache line.
// (Neither malloc() nor operator new nor the stack guarantee more than 16
// bytes on every system: Windows and macOS do not.)
constexpr std::size_t kSimdAlign = 64;

namespace detail {
// `bytes` (> 0) on a multiple of `align` (a power of two, >= sizeof(void*)),
// or nullptr. Freed by aligned_free().
inline void* aligned_allocate(std::size_t bytes, std::size_t align) {
#if defined(_WIN32)
  return _aligned_malloc(bytes, align);
#else
  void* p = nullptr;
  return posix_memalign(&p, align, bytes) == 0 ? p : nullptr;
#endif
}
inline void aligned_free(void* p) {
#if defined(_WIN32)
  _aligned_free(p);
#else
  std::free(p);
#endif
}
struct AlignedFree {
  void operator()(void* p) const { aligned_free(p); }
};
}  // namespace detail

// An owned array from aligned_array().
template <class V>
using AlignedArray = std::unique_ptr<V[], detail::AlignedFree>;

// `count` values of V, not initialised, 64-byte aligned (kSimdAlign). With
// `huge` (large buffers written once and read often, as packed tiles), on
// Linux: on 2 MiB boundaries and advised for transparent huge pages, one
// page fault per 2 MiB instead of per 4 KiB when first written. Throws
// std::bad_alloc.
template <class V>
AlignedArray<V> aligned_array(std::size_t count, bool huge = false) {
  std::size_t bytes = count * sizeof(V);
  if (bytes == 0) bytes = kSimdAlign;
  std::size_t align = kSimdAlign;
#if defined(KMREDUCE_HUGE_ALIGN)
  if (huge) {
    constexpr std::size_t kHuge = std::size_t(1) << 21;
    align = kHuge;
    bytes = (bytes + kHuge - 1) / kHuge * kHuge;
  }
#else
  (void)huge;
#endif
  void* p = detail::aligned_allocate(bytes, align);
  if (p == nullptr) throw std::bad_alloc();
#if defined(KMREDUCE_HUGE_ALIGN)
  if (huge) advise_huge_pages(p, bytes);  // advice only
#endif
  return AlignedArray<V>(static_cast<V*>(p));
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
