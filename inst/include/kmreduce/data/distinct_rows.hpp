// kmreduce: number of distinct rows, by hashing each row's values (64-bit
// hashes; -0 and +0 are the same value). Used to validate k.
#ifndef KMREDUCE_DISTINCT_ROWS_HPP
#define KMREDUCE_DISTINCT_ROWS_HPP

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/rng.hpp"

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

// A hash of each row's values.
inline std::vector<std::uint64_t> row_hashes(const DenseMatrix& a) {
  std::vector<std::uint64_t> h(a.n, 0x2545F4914F6CDD1DULL);
  for (index_t j = 0; j < a.d; ++j) {
    const double* col = a.x + a.n * j;
    for (index_t r = 0; r < a.n; ++r)
      h[r] = mix64(h[r] ^ detail::value_bits(col[r]));
  }
  return h;
}

// Explicitly stored zeros hash like implicit ones: only nonzero values and
// their columns enter the hash.
inline std::vector<std::uint64_t> row_hashes(const SparseMatrix& a) {
  std::vector<std::uint64_t> h(a.n, 0x2545F4914F6CDD1DULL);
  for (index_t j = 0; j < a.d; ++j) {
    for (index_t t = a.p[j]; t < a.p[j + 1]; ++t) {
      if (a.x[t] == 0.0) continue;
      const index_t r = a.i[t];
      h[r] = mix64(h[r] ^ mix64(static_cast<std::uint64_t>(j) + 1) ^
                   detail::value_bits(a.x[t]));
    }
  }
  return h;
}

// The number of distinct rows (of distinct row hashes).
template <class Matrix>
index_t distinct_rows(const Matrix& a) {
  std::vector<std::uint64_t> h = row_hashes(a);
  return detail::count_unique(h);
}

// The distinct row hashes, sorted: the distinct rows of a matrix read in
// blocks are those of the union of its blocks' hashes.
template <class Matrix>
std::vector<std::uint64_t> distinct_row_hashes(const Matrix& a) {
  std::vector<std::uint64_t> h = row_hashes(a);
  h.resize(static_cast<std::size_t>(detail::count_unique(h)));
  return h;
}

namespace detail {
inline bool same_row(const DenseMatrix& a, index_t r, index_t s) {
  for (index_t j = 0; j < a.d; ++j)
    if (!(a.x[r + a.n * j] == a.x[s + a.n * j])) return false;
  return true;
}
inline bool same_row(const SparseRows& a, index_t r, index_t s) {
  // Compare the nonzero patterns and values (explicit zeros count as zeros).
  std::vector<std::pair<int, double>> u, v;
  for (index_t t = a.rp[r]; t < a.rp[r + 1]; ++t)
    if (a.v[t] != 0.0) u.emplace_back(a.cj[t], a.v[t]);
  for (index_t t = a.rp[s]; t < a.rp[s + 1]; ++t)
    if (a.v[t] != 0.0) v.emplace_back(a.cj[t], a.v[t]);
  return u == v;
}
}  // namespace detail

// Whether `a` has at least k distinct rows. Cheap when it has: rows are
// scanned in order and compared with the distinct ones found so far (most
// comparisons stop at the first column); only when 4k + 64 rows do not give k
// distinct ones are all rows hashed.
template <class Rows>
bool scan_distinct_rows(const Rows& rows, index_t n, index_t k) {
  std::vector<index_t> found;
  const index_t scan = std::min(n, 4 * k + 64);
  for (index_t r = 0; r < scan && static_cast<index_t>(found.size()) < k; ++r) {
    bool fresh = true;
    for (index_t s : found)
      if (detail::same_row(rows, r, s)) {
        fresh = false;
        break;
      }
    if (fresh) found.push_back(r);
  }
  return static_cast<index_t>(found.size()) >= k;
}

inline bool has_distinct_rows(const DenseMatrix& a, index_t k) {
  if (k <= 1) return a.n >= k;
  return scan_distinct_rows(a, a.n, k) || distinct_rows(a) >= k;
}

inline bool has_distinct_rows(const SparseMatrix& a, index_t k) {
  if (k <= 1) return a.n >= k;
  const SparseRows rows(a);
  return scan_distinct_rows(rows, a.n, k) || distinct_rows(a) >= k;
}

}  // namespace kmreduce

#endif  // KMREDUCE_DISTINCT_ROWS_HPP
