// kmreduce: random sign projection C = A R by the mailman algorithm
// (Liberty & Zucker 2009), as suggested for Algorithm 2 of Boutsidis et al.
// (2015). R (d x dims, +-1/sqrt(dims)) is the SignMatrix of
// sign_projection.hpp and is never stored as doubles: only its bits, one byte
// per feature and block of 8 output columns (d * ceil(dims / 8) bytes).
//
// For a panel of P rows and a block of 8 output columns, every feature i has
// an 8-bit sign pattern p_i; the row values are summed into 256 buckets by
// pattern (one vector add of P lanes per feature, instead of 8 multiply-adds),
// then the 8 outputs are read off the buckets by folding: the output of the
// highest bit is (sum of buckets with the bit clear) - (sum with it set); the
// two halves are added and the recursion goes on with the next bit (510 adds).
// Rows of a panel are packed so each feature's P values are contiguous, and a
// panel (P x d) stays in cache while all blocks are processed. SIMD (AVX-512,
// AVX2) is chosen at run time. Each output is one fixed sequence of additions:
// results do not depend on the number of threads.
#ifndef KMREDUCE_MAILMAN_HPP
#define KMREDUCE_MAILMAN_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "sign_projection.hpp"
#include "../runtime/simd.hpp"
#include "projection_call.hpp"

namespace kmreduce {

// Sign patterns: pattern(block, i) = bits 8 block .. 8 block + 7 of row i of R.
struct SignPatterns {
  index_t d, dims, blocks;
  std::vector<std::uint8_t> byte;  // blocks x d (feature fastest)
  SignPatterns(const SignMatrix& r)
      : d(r.rows()), dims(r.cols()), blocks((r.cols() + 7) / 8),
        byte(static_cast<std::size_t>(blocks * r.rows())) {
    const index_t words = (dims + 63) / 64;
    for (index_t i = 0; i < d; ++i)
      for (index_t w = 0; w < words; ++w) {
        const std::uint64_t bits = r.word(i, w);
        for (index_t b = 0; b < 8 && 8 * w + b < blocks; ++b)
          byte[(8 * w + b) * d + i] = static_cast<std::uint8_t>(bits >> (8 * b));
      }
  }
  const std::uint8_t* block(index_t b) const { return byte.data() + b * d; }
};

// Features of each block grouped by pattern (stable counting sort): the
// features with pattern p in block b are order[b * d + start[b * 257 + p] ...
// start[b * 257 + p + 1] - 1], in increasing order.
struct PatternGroups {
  index_t d, blocks;
  std::vector<std::uint32_t> order, start;
  explicit PatternGroups(const SignPatterns& s)
      : d(s.d), blocks(s.blocks), order(static_cast<std::size_t>(s.blocks * s.d)),
        start(static_cast<std::size_t>(s.blocks * 257), 0) {
    for (index_t b = 0; b < blocks; ++b) {
      const std::uint8_t* p = s.block(b);
      std::uint32_t* st = start.data() + b * 257;
      for (index_t i = 0; i < d; ++i) ++st[p[i] + 1];
      for (int q = 0; q < 256; ++q) st[q + 1] += st[q];
      std::vector<std::uint32_t> pos(st, st + 256);
      std::uint32_t* o = order.data() + b * d;
      for (index_t i = 0; i < d; ++i) o[pos[p[i]]++] = static_cast<std::uint32_t>(i);
    }
  }
};

namespace detail {

// A buffer of doubles aligned to 64 bytes (aligned_array(), memory.hpp): the
// kernels below load and store the buckets and panels with aligned moves, and
// no access straddles two cache lines.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t n) : data_(aligned_array<double>(n)) {
    std::fill(data_.get(), data_.get() + n, 0.0);
  }
  double* data() { return data_.get(); }

 private:
  AlignedArray<double> data_;
};

// Fold 256 buckets of `lanes` values into the 8 outputs of one block:
// out[t * lanes + l] for bit t (only t < nbits are needed).
inline void mailman_fold(double* bucket, index_t lanes, int nbits, double* out) {
  for (int t = 7; t >= 0; --t) {
    const index_t half = index_t(1) << t;
    if (t < nbits) {
      double* o = out + t * lanes;
      for (index_t l = 0; l < lanes; ++l) o[l] = 0.0;
      for (index_t p = 0; p < half; ++p)
        for (index_t l = 0; l < lanes; ++l)
          o[l] += bucket[p * lanes + l] - bucket[(p + half) * lanes + l];
    }
    for (index_t p = 0; p < half; ++p)
      for (index_t l = 0; l < lanes; ++l) bucket[p * lanes + l] += bucket[(p + half) * lanes + l];
  }
}

// Bucket p = sum of the panel rows of the features with pattern p, gathered
// in increasing feature order into two alternating accumulators (no stores
// inside the sum, no chains of dependent stores).
inline void mailman_gather(const double* panel, const std::uint32_t* order,
                           const std::uint32_t* start, double* bucket) {
  for (int p = 0; p < 256; ++p) {
    double a0[8] = {0}, a1[8] = {0};
    std::uint32_t i = start[p];
    const std::uint32_t e = start[p + 1];
    for (; i + 2 <= e; i += 2) {
      const double* x0 = panel + 8 * static_cast<index_t>(order[i]);
      const double* x1 = panel + 8 * static_cast<index_t>(order[i + 1]);
      for (int l = 0; l < 8; ++l) {
        a0[l] += x0[l];
        a1[l] += x1[l];
      }
    }
    if (i < e) {
      const double* x0 = panel + 8 * static_cast<index_t>(order[i]);
      for (int l = 0; l < 8; ++l) a0[l] += x0[l];
    }
    for (int l = 0; l < 8; ++l) bucket[8 * p + l] = a0[l] + a1[l];
  }
}

#ifdef KMREDUCE_X86_SIMD
__attribute__((target("avx512f"))) inline void mailman_gather_avx512(
    const double* panel, const std::uint32_t* order, const std::uint32_t* start,
    double* bucket) {
  for (int p = 0; p < 256; ++p) {
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    std::uint32_t i = start[p];
    const std::uint32_t e = start[p + 1];
    for (; i + 2 <= e; i += 2) {
      a0 = _mm512_add_pd(a0, _mm512_load_pd(panel + 8 * static_cast<index_t>(order[i])));
      a1 = _mm512_add_pd(a1, _mm512_load_pd(panel + 8 * static_cast<index_t>(order[i + 1])));
    }
    if (i < e) a0 = _mm512_add_pd(a0, _mm512_load_pd(panel + 8 * static_cast<index_t>(order[i])));
    _mm512_store_pd(bucket + 8 * p, _mm512_add_pd(a0, a1));
  }
}

__attribute__((target("avx2"))) inline void mailman_gather_avx2(
    const double* panel, const std::uint32_t* order, const std::uint32_t* start,
    double* bucket) {
  for (int p = 0; p < 256; ++p) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    __m256d b0 = _mm256_setzero_pd(), b1 = _mm256_setzero_pd();
    std::uint32_t i = start[p];
    const std::uint32_t e = start[p + 1];
    for (; i + 2 <= e; i += 2) {
      const double* x0 = panel + 8 * static_cast<index_t>(order[i]);
      const double* x1 = panel + 8 * static_cast<index_t>(order[i + 1]);
      a0 = _mm256_add_pd(a0, _mm256_load_pd(x0));
      b0 = _mm256_add_pd(b0, _mm256_load_pd(x0 + 4));
      a1 = _mm256_add_pd(a1, _mm256_load_pd(x1));
      b1 = _mm256_add_pd(b1, _mm256_load_pd(x1 + 4));
    }
    if (i < e) {
      const double* x0 = panel + 8 * static_cast<index_t>(order[i]);
      a0 = _mm256_add_pd(a0, _mm256_load_pd(x0));
      b0 = _mm256_add_pd(b0, _mm256_load_pd(x0 + 4));
    }
    _mm256_store_pd(bucket + 8 * p, _mm256_add_pd(a0, a1));
    _mm256_store_pd(bucket + 8 * p + 4, _mm256_add_pd(b0, b1));
  }
}

__attribute__((target("avx512f"))) inline void mailman_fold_avx512(
    double* bucket, int nbits, double* out) {
  for (int t = 7; t >= 0; --t) {
    const index_t half = index_t(1) << t;
    if (t < nbits) {
      __m512d acc = _mm512_setzero_pd();
      for (index_t p = 0; p < half; ++p)
        acc = _mm512_add_pd(acc, _mm512_sub_pd(_mm512_loadu_pd(bucket + 8 * p),
                                               _mm512_loadu_pd(bucket + 8 * (p + half))));
      _mm512_storeu_pd(out + 8 * t, acc);
    }
    for (index_t p = 0; p < half; ++p)
      _mm512_storeu_pd(bucket + 8 * p, _mm512_add_pd(_mm512_loadu_pd(bucket + 8 * p),
                                                     _mm512_loadu_pd(bucket + 8 * (p + half))));
  }
}

#endif  // KMREDUCE_X86_SIMD

// Bucket sums of one panel of 8 lanes by gathering; every SIMD level does
// the same additions in the same order, so all compute the same numbers.
inline void mailman_panel_gather(const double* panel, const std::uint32_t* order,
                                 const std::uint32_t* start, double* bucket) {
#ifdef KMREDUCE_X86_SIMD
  const SimdLevel level = simd_level();
  if (level == SimdLevel::Avx512) return mailman_gather_avx512(panel, order, start, bucket);
  if (level == SimdLevel::Avx2) return mailman_gather_avx2(panel, order, start, bucket);
#endif
  mailman_gather(panel, order, start, bucket);
}

inline void mailman_fold8(double* bucket, int nbits, double* out) {
#ifdef KMREDUCE_X86_SIMD
  if (simd_level() == SimdLevel::Avx512) return mailman_fold_avx512(bucket, nbits, out);
#endif
  mailman_fold(bucket, 8, nbits, out);
}

}  // namespace detail

// Rows per panel (the SIMD width of the bucket arrays) and panels packed at
// once (so that X is read in runs of 64 contiguous values per column).
constexpr index_t kMailmanLanes = 8;
constexpr index_t kMailmanGroup = 8;
constexpr index_t kMailmanPrefetch = 8;

// out (n x dims) = A R.
inline void sign_project_mailman(const DenseMatrix& a, index_t dims,
                                 std::uint64_t seed, double* out, int n_threads) {
  const SignMatrix r(seed, a.d, dims);
  const SignPatterns pat(r);
  const PatternGroups groups(pat);
  const double scale = r.scale();
  const index_t rows = kMailmanLanes * kMailmanGroup;
  const index_t ngroups = n_blocks(a.n, rows);
  const double work = static_cast<double>(a.n) * a.d * pat.blocks;
  struct Scratch {
    detail::AlignedBuffer packed, bucket;
  };
  parallel_for_scratch<std::unique_ptr<Scratch>>(ngroups, n_threads,
                                                 [&](index_t g, std::unique_ptr<Scratch>& ws) {
    if (!ws)
      ws.reset(new Scratch{detail::AlignedBuffer(static_cast<std::size_t>(a.d * rows)),
                           detail::AlignedBuffer(2 * 256 * kMailmanLanes)});
    detail::AlignedBuffer& packed = ws->packed;
    detail::AlignedBuffer& bucket = ws->bucket;
    double res[8 * kMailmanLanes];
    const index_t r0 = g * rows, len = std::min(rows, a.n - r0);
    const index_t panels = n_blocks(len, kMailmanLanes);
    // Pack: panel q holds rows r0 + 8q .. r0 + 8q + 7 feature by feature
    // (missing rows of the last panel are zero).
    for (index_t i = 0; i < a.d; ++i) {
      const double* col = a.x + a.n * i + r0;
#ifdef KMREDUCE_X86_SIMD
      // Columns are read in short runs: prefetch a few columns ahead.
      if (i + kMailmanPrefetch < a.d) {
        const char* ahead = reinterpret_cast<const char*>(col + a.n * kMailmanPrefetch);
        for (index_t byte = 0; byte < len * 8; byte += 64) _mm_prefetch(ahead + byte, _MM_HINT_T0);
      }
#endif
      for (index_t q = 0; q < panels; ++q) {
        double* dst = packed.data() + q * a.d * kMailmanLanes + i * kMailmanLanes;
        for (index_t l = 0; l < kMailmanLanes; ++l) {
          const index_t rr = q * kMailmanLanes + l;
          dst[l] = rr < len ? col[rr] : 0.0;
        }
      }
    }
    for (index_t q = 0; q < panels; ++q) {
      const double* panel = packed.data() + q * a.d * kMailmanLanes;
      const index_t pr0 = r0 + q * kMailmanLanes;
      const index_t plen = std::min(kMailmanLanes, a.n - pr0);
      for (index_t b = 0; b < pat.blocks; ++b) {
        const int nbits = static_cast<int>(std::min<index_t>(8, dims - 8 * b));
        detail::mailman_panel_gather(panel, groups.order.data() + b * a.d,
                                     groups.start.data() + b * 257, bucket.data());
        detail::mailman_fold8(bucket.data(), nbits, res);
        for (int t = 0; t < nbits; ++t) {
          double* o = out + a.n * (8 * b + t) + pr0;
          for (index_t l = 0; l < plen; ++l) o[l] = scale * res[t * kMailmanLanes + l];
        }
      }
    }
  }, work);
}

// Sparse rows: per row, nonzeros summed into 256 scalar buckets per block,
// then folded. O(nnz * blocks + n * blocks * 510).
inline void sign_project_mailman(const SparseMatrix& a, index_t dims,
                                 std::uint64_t seed, double* out, int n_threads) {
  const SignMatrix r(seed, a.d, dims);
  const SignPatterns pat(r);
  const double scale = r.scale();
  const SparseRows rows(a);
  constexpr index_t kRows = 64;  // rows per task
  const double work = static_cast<double>(a.p[a.d]) * pat.blocks;
  parallel_for_scratch<std::vector<double>>(n_blocks(a.n, kRows), n_threads,
                                            [&](index_t blk, std::vector<double>& bucket) {
    bucket.resize(256);
    double res[8];
    const index_t i1 = std::min(a.n, (blk + 1) * kRows);
    for (index_t i = blk * kRows; i < i1; ++i) {
      for (index_t b = 0; b < pat.blocks; ++b) {
        const std::uint8_t* p = pat.block(b);
        std::fill(bucket.begin(), bucket.end(), 0.0);
        for (index_t t = rows.rp[i]; t < rows.rp[i + 1]; ++t)
          bucket[p[rows.cj[t]]] += rows.v[t];
        const int nbits = static_cast<int>(std::min<index_t>(8, dims - 8 * b));
        detail::mailman_fold(bucket.data(), 1, nbits, res);
        for (int t = 0; t < nbits; ++t) out[i + a.n * (8 * b + t)] = scale * res[t];
      }
    }
  }, work);
}

// The projection policy (reduce/projections.hpp) of the random sign
// matrix: by the mailman kernel, or by panels and a GEMM (`algorithm`).
struct SignProjection {
  static const char* name() { return "sign"; }
  template <class Matrix>
  static bool project(const Matrix& a, const ProjectionCall& c, double* out) {
    if (c.algorithm == "mailman") {
      sign_project_mailman(a, c.dims, c.seed, out, c.n_threads);
    } else {
      sign_project_gemm(a, c.dims, c.seed, out, c.n_threads);
    }
    return false;
  }
};

inline const char* mailman_simd_level() { return simd_level_name(); }

}  // namespace kmreduce

#endif  // KMREDUCE_MAILMAN_HPP
