// kmreduce: number of distinct rows, by hashing each row's values (64-bit
// hashes; -0 and +0 are the same value). Used to validate k.
#ifndef KMREDUCE_DISTINCT_ROWS_HPP
#define KMREDUCE_DISTINCT_ROWS_HPP

#include <algorithm>
#include <cstring>
#include <vector>

#include "matrix.hpp"
#include "rng.hpp"

namespace kmreduce {

namespace detail {
inline std::uint64_t value_bits(double v) {
  if (v == 0.0) v = 0.0;  // fold -0 into +0
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline index_t count_unique(std::vector<std::uint64_t>& h) {
  std::sort(h.begin(), h.end());
  return static_cast<index_t>(std::unique(h.begin(), h.end()) - h.begin());
}
}  // namespace detail

inline index_t distinct_rows(const DenseMatrix& a) {
  std::vector<std::uint64_t> h(a.n, 0x2545F4914F6CDD1DULL);
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    for (index_t r = 0; r < a.n; ++r)
      h[r] = mix64(h[r] ^ detail::value_bits(col[r]));
  }
  return detail::count_unique(h);
}

// Explicitly stored zeros hash like implicit ones: only nonzero values and
// their columns enter the hash.
inline index_t distinct_rows(const SparseMatrix& a) {
  std::vector<std::uint64_t> h(a.n, 0x2545F4914F6CDD1DULL);
  for (index_t j = 0; j < a.d; ++j) {
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
      if (a.x[t] == 0.0) continue;
      const index_t r = a.i[t];
      h[r] = mix64(h[r] ^ mix64(static_cast<std::uint64_t>(j) + 1) ^
                   detail::value_bits(a.x[t]));
    }
  }
  return detail::count_unique(h);
}

}  // namespace kmreduce

#endif  // KMREDUCE_DISTINCT_ROWS_HPP
