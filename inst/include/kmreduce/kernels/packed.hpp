// kmreduce: dense rows packed in tiles of 16 (tile t holds rows 16t..16t+15,
// column by column: v[(t * d + j) * 16 + lane]) so that the SIMD kernels of
// cross_product.hpp and nearest.hpp stream them contiguously. Lloyd and
// k-means++ pass over the data many times; packing once costs one copy of
// the data and turns every later pass into sequential reads. Padding rows
// of the last tile are zero and are never reported. With a `shift` (length
// d), the tiles hold the rows minus the shift (Lloyd on data far from the
// origin: see with_row_access).
#ifndef KMREDUCE_PACKED_HPP
#define KMREDUCE_PACKED_HPP

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "cross_product.hpp"
#include "matrix.hpp"
#include "nearest.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/scan.hpp"
#include "../runtime/simd.hpp"

namespace kmreduce {

namespace detail {
// The tiles: written once (by streaming stores on AVX-512, which need 64-byte
// alignment), then read on every pass; aligned_array() (memory.hpp) puts them
// on 2 MiB boundaries advised for huge pages on Linux, on 64 bytes elsewhere.
// (Of doubles, or of floats for the single-precision tiles of single.hpp.)
template <class V = double>
using HugeBuffer = AlignedArray<V>;

template <class V = double>
HugeBuffer<V> huge_buffer(std::size_t count) {
  return aligned_array<V>(count, true);
}
}  // namespace detail

// Data larger than this are not copied: their tiles are packed block by
// block as the kernels need them (into a small per-thread buffer), so the
// memory stays that of the input plus O(n) (a little slower: the packing is
// repeated on every pass).
// (A setting, so that tests can lower it; set it only while no fit runs.)
inline double& packed_copy_max_bytes() {
  static double limit = 1073741824.0;  // 1 GiB
  return limit;
}

struct PackedRows {
  static constexpr index_t T = 16;  // rows per tile
  const DenseMatrix& src;  // the column-major original (for column passes)
  const double* shift;     // subtracted from every row, or nullptr
  index_t n, d, tiles;
  bool stored;           // tiles kept in v (else packed when needed)
  detail::HugeBuffer<> v;  // tiles * d * T, written once below
  // Not kept, on AVX-512: whole tiles are read in place by the kernels,
  // minus this (the shift, or zeros), instead of packed.
  bool direct;
  std::vector<double> direct_shift;
  std::vector<double> norms;  // squared row norms, summed while packing
  ValueSummary values;        // finite? largest |value|? (of the original
                              // values, while packing)
  PackedRows(const DenseMatrix& a, int n_threads, const double* shift_ = nullptr,
             bool store = true)
      : src(a), shift(shift_), n(a.n), d(a.d), tiles((a.n + T - 1) / T), stored(store),
        v(store ? detail::huge_buffer(static_cast<std::size_t>(tiles * a.d * T))
                : detail::HugeBuffer<>()),
        direct(!store && simd_level() == SimdLevel::Avx512),
        direct_shift(direct ? static_cast<std::size_t>(a.d) : 0, 0.0),
        norms(rows_array(static_cast<std::size_t>(tiles * T), 0.0)) {
    // 16 tiles (one row block) at a time: columns are read in runs of 256.
    const index_t per_block = kRowBlock / T;
    const index_t nb = n_blocks(tiles, per_block);
    const SimdLevel level = simd_level();
    std::vector<ValueSummary> part(static_cast<std::size_t>(nb));
    parallel_for(nb, n_threads, [&](index_t b, int) {
      const index_t t0 = b * per_block, t1 = std::min(tiles, t0 + per_block);
      // Whole tiles: column by column (runs of 16 (t1 - t0) values), SIMD
      // where the processor has it, with streaming stores when kept (the
      // tiles are read again only after the whole matrix is packed); not
      // kept: only the norms and the summary of the values. The last,
      // partial tile goes through pack_tile() (into a scratch tile when the
      // tiles are not kept).
      const index_t full = std::min(t1, n / T);
      if (full > t0) {
        double* out = stored ? v.get() + t0 * d * T : nullptr;
        if (level == SimdLevel::Avx512) {
          part[b] = pack_tiles_simd(a, t0, full, out, stored);
        } else if (level == SimdLevel::Avx2) {
          part[b] = pack_tiles_avx2(a, t0, full, out, stored);
        } else {
          part[b] = pack_tiles_plain(a, t0, full, out);
        }
#if defined(KMREDUCE_X86_SIMD)
        if (stored && level != SimdLevel::Portable)
          _mm_sfence();  // this thread's streaming stores, before it reports done
#endif
      }
      for (index_t t = std::max(t0, full); t < t1; ++t) {
        if (stored) {
          part[b].merge(pack_tile(t, v.get() + t * d * T));
        } else {
          std::vector<double> scratch(static_cast<std::size_t>(d * T));
          part[b].merge(pack_tile(t, scratch.data()));
        }
      }
    }, static_cast<double>(n) * d);
    for (const ValueSummary& p : part) values.merge(p);
    if (direct && shift != nullptr) std::copy(shift, shift + d, direct_shift.begin());
  }

  // Whether tile t is read in place (whole, and direct).
  bool in_place(index_t t) const { return direct && (t + 1) * T <= n; }

  // One tile with plain loops (zero-padded when it is the last, partial
  // one), shifted, into tile_out (d * T values).
  void copy_tile(index_t t, double* tile_out) const {
    const index_t r0 = t * T, len = std::min<index_t>(index_t(T), n - r0);
    for (index_t j = 0; j < d; ++j) {
      const double* col = src.x + src.n * j + r0;
      double* dst = tile_out + j * T;
      const double sj = shift != nullptr ? shift[j] : 0.0;
      for (index_t l = 0; l < len; ++l) dst[l] = col[l] - sj;
      for (index_t l = len; l < T; ++l) dst[l] = 0.0;
    }
  }

  // copy_tile(), then the tile's squared row norms into `norms` (columns in
  // turn) and the summary of its original values.
  ValueSummary pack_tile(index_t t, double* tile_out) {
    copy_tile(t, tile_out);
    const index_t r0 = t * T, len = std::min<index_t>(index_t(T), n - r0);
    double* nrm = norms.data() + r0;
    ValueSummary vs;
    for (index_t j = 0; j < d; ++j) {
      const double* col = src.x + src.n * j + r0;
      const double* dst = tile_out + j * T;
      for (index_t l = 0; l < len; ++l) {
        nrm[l] += dst[l] * dst[l];
        vs.add(col[l]);
      }
    }
    return vs;
  }

  // Whole tiles [t0, t1) into out (tile t0 first; null: nothing stored),
  // with plain loops in the order of the SIMD versions below: column by
  // column, runs of 16 (t1 - t0) values; each row's norm is summed over the
  // columns in turn, as pack_tile() sums it, so the numbers are the same.
  ValueSummary pack_tiles_plain(const DenseMatrix& a, index_t t0, index_t t1, double* out) {
    double* nrm = norms.data() + t0 * T;
    const index_t len = (t1 - t0) * T;
    ValueSummary vs;
    for (index_t j = 0; j < d; ++j) {
      const double* col = a.x + a.n * j + t0 * T;
      const double sj = shift != nullptr ? shift[j] : 0.0;
      for (index_t r = 0; r < len; ++r) {
        const double x = col[r] - sj;
        if (out != nullptr) out[((r / T) * d + j) * T + r % T] = x;
        nrm[r] += x * x;
        vs.add(col[r]);
      }
    }
    return vs;
  }

#if defined(KMREDUCE_X86_SIMD)
  // pack_tiles_plain() with AVX2 (4 lanes; a multiply then an add, no FMA:
  // the same norms as the plain loops), streaming stores when `stream`.
  __attribute__((target("avx2"))) ValueSummary pack_tiles_avx2(
      const DenseMatrix& a, index_t t0, index_t t1, double* out, bool stream) {
    double* nrm = norms.data() + t0 * T;
    const __m256d absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    const __m256d big = _mm256_set1_pd(DBL_MAX);
    __m256d mx = _mm256_setzero_pd(), bad = _mm256_setzero_pd();
    for (index_t j = 0; j < d; ++j) {
      const double* col = a.x + a.n * j + t0 * T;
      const __m256d sj = _mm256_set1_pd(shift != nullptr ? shift[j] : 0.0);
      for (index_t t = t0; t < t1; ++t) {
        const double* s = col + (t - t0) * T;
        double* nt = nrm + (t - t0) * T;
        double* dst = out != nullptr ? out + ((t - t0) * d + j) * T : nullptr;
        for (int q = 0; q < 4; ++q) {
          const __m256d r = _mm256_loadu_pd(s + 4 * q);
          const __m256d x = _mm256_sub_pd(r, sj);
          if (dst != nullptr) {
            if (stream) {
              _mm256_stream_pd(dst + 4 * q, x);
            } else {
              _mm256_storeu_pd(dst + 4 * q, x);
            }
          }
          _mm256_storeu_pd(nt + 4 * q,
                           _mm256_add_pd(_mm256_loadu_pd(nt + 4 * q), _mm256_mul_pd(x, x)));
          const __m256d ab = _mm256_and_pd(r, absmask);
          bad = _mm256_or_pd(bad, _mm256_cmp_pd(ab, big, _CMP_NLE_UQ));
          mx = _mm256_max_pd(mx, ab);
        }
      }
    }
    ValueSummary vs;
    vs.finite = _mm256_movemask_pd(bad) == 0;
    alignas(32) double m[4];
    _mm256_store_pd(m, mx);
    vs.maxabs = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
    return vs;
  }
#else
  ValueSummary pack_tiles_avx2(const DenseMatrix& a, index_t t0, index_t t1, double* out,
                               bool) {
    return pack_tiles_plain(a, t0, t1, out);
  }
#endif

#if defined(KMREDUCE_X86_SIMD)
  // Whole tiles [t0, t1) into out (tile t0 first; streaming stores or not;
  // null: rows read in place, nothing stored): column by column (runs of
  // 16 (t1 - t0) values), norms accumulated with FMAs in the same column
  // order.
  __attribute__((target("avx512f"))) ValueSummary pack_tiles_simd(
      const DenseMatrix& a, index_t t0, index_t t1, double* out, bool stream) {
    double* nrm = norms.data() + t0 * T;
    __m512d mx = _mm512_setzero_pd();
    __mmask8 bad = 0;
    for (index_t j = 0; j < d; ++j) {
      const double* col = a.x + a.n * j + t0 * T;
      const __m512d sj = _mm512_set1_pd(shift != nullptr ? shift[j] : 0.0);
      for (index_t t = t0; t < t1; ++t) {
        const double* s = col + (t - t0) * T;
        double* nt = nrm + (t - t0) * T;
        const __m512d r0 = _mm512_loadu_pd(s), r1 = _mm512_loadu_pd(s + 8);
        const __m512d x0 = _mm512_sub_pd(r0, sj), x1 = _mm512_sub_pd(r1, sj);
        if (out != nullptr) {
          double* dst = out + ((t - t0) * d + j) * T;
          if (stream) {
            _mm512_stream_pd(dst, x0);
            _mm512_stream_pd(dst + 8, x1);
          } else {
            _mm512_storeu_pd(dst, x0);
            _mm512_storeu_pd(dst + 8, x1);
          }
        }
        _mm512_storeu_pd(nt, _mm512_fmadd_pd(x0, x0, _mm512_loadu_pd(nt)));
        _mm512_storeu_pd(nt + 8, _mm512_fmadd_pd(x1, x1, _mm512_loadu_pd(nt + 8)));
        detail::note_values(r0, mx, bad);
        detail::note_values(r1, mx, bad);
      }
    }
    ValueSummary vs;
    vs.finite = bad == 0;
    vs.maxabs = _mm512_reduce_max_pd(mx);  // meaningful only when finite
    return vs;
  }
#else
  ValueSummary pack_tiles_simd(const DenseMatrix&, index_t, index_t, double*, bool) {
    return ValueSummary();
  }
#endif
  const double* tile(index_t t) const { return v.get() + t * d * T; }
#if defined(KMREDUCE_X86_SIMD)
  // Whole tiles [t0, t0 + count) into out, shifted (no norms: they were
  // taken once, at construction).
  __attribute__((target("avx512f"))) void pack_whole_tiles(index_t t0, index_t count,
                                                           double* out) const {
    for (index_t j = 0; j < d; ++j) {
      const double* col = src.x + src.n * j + t0 * T;
      const __m512d sj = _mm512_set1_pd(shift != nullptr ? shift[j] : 0.0);
      for (index_t t = 0; t < count; ++t) {
        double* dst = out + (t * d + j) * T;
        _mm512_storeu_pd(dst, _mm512_sub_pd(_mm512_loadu_pd(col + t * T), sj));
        _mm512_storeu_pd(dst + 8, _mm512_sub_pd(_mm512_loadu_pd(col + t * T + 8), sj));
      }
    }
  }
  // The same with AVX2.
  __attribute__((target("avx2"))) void pack_whole_tiles_avx2(index_t t0, index_t count,
                                                             double* out) const {
    for (index_t j = 0; j < d; ++j) {
      const double* col = src.x + src.n * j + t0 * T;
      const __m256d sj = _mm256_set1_pd(shift != nullptr ? shift[j] : 0.0);
      for (index_t t = 0; t < count; ++t) {
        double* dst = out + (t * d + j) * T;
        for (int q = 0; q < 4; ++q)
          _mm256_storeu_pd(dst + 4 * q,
                           _mm256_sub_pd(_mm256_loadu_pd(col + t * T + 4 * q), sj));
      }
    }
  }
#else
  void pack_whole_tiles(index_t, index_t, double*) const {}
  void pack_whole_tiles_avx2(index_t, index_t, double*) const {}
#endif
  // Tiles [t0, t0 + count): where they are kept, or in a per-thread buffer
  // (valid until this thread's next call), packed now unless this thread's
  // last packing (of these rows) holds them.
  const double* tiles_at(index_t t0, index_t count) const {
    if (stored) return v.get() + t0 * d * T;
    struct Packed {
      std::uint64_t owner = 0;  // the id of the PackedRows packed
      index_t first = 0, count = 0;
      std::vector<double> buf;
    };
    thread_local Packed last;
    if (last.owner == id && t0 >= last.first && t0 + count <= last.first + last.count)
      return last.buf.data() + (t0 - last.first) * d * T;
    last.owner = id;
    last.first = t0;
    last.count = count;
    last.buf.resize(static_cast<std::size_t>(count * d * T));
    index_t t = 0;
    const SimdLevel level = simd_level();
    if (level != SimdLevel::Portable) {
      const index_t full = std::min(count, n / T - t0);  // whole tiles
      if (full > 0) {
        if (level == SimdLevel::Avx512) {
          pack_whole_tiles(t0, full, last.buf.data());
        } else {
          pack_whole_tiles_avx2(t0, full, last.buf.data());
        }
      }
      t = std::max<index_t>(full, 0);
    }
    for (; t < count; ++t) copy_tile(t0 + t, last.buf.data() + t * d * T);
    return last.buf.data();
  }

 private:
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
  const std::uint64_t id = next_id();  // tells tiles_at() this object's rows
};

// Rows [r0, r1) will be read tile by tile (Lloyd's bounds leave some): when
// the tiles are not kept, they are packed now in one go (a run of 16 tiles
// per column reads faster than 16 runs of one), and tiles_at() then finds
// them packed. (Other row forms: nothing to do.)
inline void pack_ahead(const PackedRows& a, index_t r0, index_t r1) {
  constexpr index_t T = PackedRows::T;
  if (!a.stored && !a.direct && r1 > r0) a.tiles_at(r0 / T, (r1 - 1) / T - r0 / T + 1);
}

// Whether with_row_access() keeps a packed copy of data of this size.
inline bool keep_packed_copy(index_t n, index_t d) {
  return static_cast<double>(n) * static_cast<double>(d) * sizeof(double) <=
         packed_copy_max_bytes();
}

// (T is never odr-used: no out-of-class definition, so that this header can
// be included by several translation units)

// The shift subtracted from the rows (or nullptr): see lloyd()'s `grid`.
inline const double* rows_shift(const PackedRows& a) { return a.shift; }

// Computed while packing (same order: columns in turn).
inline void row_sqnorms(const PackedRows& a, double* out, int /*n_threads*/) {
  std::copy(a.norms.begin(), a.norms.begin() + a.n, out);
}

inline const double* row_sqnorms_of(const PackedRows& a, std::vector<double>& /*store*/,
                                    int /*n_threads*/) {
  return a.norms.data();
}

// out (m x k) = rows [r0, r1) times C^T; r0 is a multiple of 16, or of 8
// with at most 8 rows (half a tile: only its cache lines are read).
inline void cross_block(const PackedRows& a, index_t r0, index_t r1,
                        const double* c, index_t k, double* out) {
  const index_t m = r1 - r0;
  constexpr index_t T = PackedRows::T;
  if (m <= T / 2) {
    double half[8 * 64];
    double* h = k <= 64 ? half : nullptr;
    std::vector<double> big;
    if (h == nullptr) {
      big.resize(static_cast<std::size_t>(8 * k));
      h = big.data();
    }
    if (cross_product_half(a.tiles_at(r0 / T, 1) + r0 % T, T, a.d, c, k, h, 8)) {
      for (index_t q = 0; q < k; ++q) std::copy(h + 8 * q, h + 8 * q + m, out + m * q);
      return;
    }
  }
  // Whole tiles from the one holding r0 (which may start half-way into it:
  // the second half of a tile when no half-tile kernel ran).
  const index_t off = r0 % T;
  const index_t tiles = (off + m + T - 1) / T;
  const index_t ld = tiles * T;
  thread_local std::vector<double> buf;
  buf.resize(static_cast<std::size_t>(ld * k));
  if (a.in_place(r0 / T + tiles - 1)) {
    // the whole tiles read in place, shifted as read: the same products
    cross_product_block(a.src.x, a.n, a.d, r0 - off, r0 - off + ld, c, k, buf.data(), ld,
                        a.direct_shift.data());
  } else {
    const double* xs = a.tiles_at(r0 / T, tiles);
    for (index_t t = 0; t < tiles; ++t) {
      const double* xt = xs + t * a.d * T;
      // A tile of 16 contiguous rows per column: leading dimension 16.
      cross_product_block(xt, T, a.d, 0, T, c, k, buf.data() + t * T, ld);
    }
  }
  for (index_t q = 0; q < k; ++q)
    std::copy(buf.data() + ld * q + off, buf.data() + ld * q + off + m, out + m * q);
}

// The nearest centres of rows [r0, r1) (r0 a multiple of 8) from their
// tiles, fused (nearest_in_tile(): AVX-512 and AVX2), a tile or the half of
// one the rows need at a time; the same results as cross_block() then
// two_nearest().
inline bool nearest_block(const PackedRows& a, index_t r0, index_t r1, const CentreView& cv,
                          const double* cnorm, index_t k, double* best, double* second,
                          int* which) {
  constexpr index_t T = PackedRows::T;
  const SimdLevel level = simd_level();
  if ((level != SimdLevel::Avx512 && level != SimdLevel::Avx2) || r0 % 8 != 0) return false;
  const index_t m = r1 - r0, off = r0 % T;
  // (on AVX2 one half of a tile, or whole tiles)
  if (level == SimdLevel::Avx2 && !fused_pays_avx2(a.d, k, m <= 8 ? 8 : 16))
    return false;
  const index_t tiles = (off + m + T - 1) / T;
  // (tiles read in place need no packing; a last, partial tile does)
  const bool in_place = a.in_place(r0 / T + tiles - 1);
  const double* xs = in_place ? nullptr : a.tiles_at(r0 / T, tiles);
  double b[T], s[T];
  int w[T];
  for (index_t t = 0; t < tiles; ++t) {
    const index_t lo = t == 0 ? off : 0, hi = std::min(T, off + m - t * T);
    const int half = lo >= T / 2 ? 1 : hi <= T / 2 ? 0 : -1;
    const bool ok =
        in_place ? nearest_in_tile(a.src.x + (r0 / T + t) * T, a.d, half, cv.c, k, cnorm, b, s,
                                   w, a.direct_shift.data(), a.n)
                 : nearest_in_tile(xs + t * a.d * T, a.d, half, cv.c, k, cnorm, b, s, w);
    if (!ok) return false;
    const index_t from = half == 1 ? T / 2 : 0;
    for (index_t l = lo; l < hi; ++l) {
      const index_t r = t * T + l - off;
      best[r] = b[l - from];
      if (second != nullptr) second[r] = s[l - from];
      which[r] = w[l - from];
    }
  }
  return true;
}

// Column passes read the column-major original, which suits them better
// (minus the shift, once per cluster and column).
inline void shifted_cluster_sums(const DenseMatrix& a, const double* shift, const int* label,
                                 index_t k, double* sums, int n_threads) {
  if (shift == nullptr) {
    cluster_sums(a, label, k, sums, n_threads);
    return;
  }
  std::vector<double> own(static_cast<std::size_t>(k * a.d), 0.0);
  cluster_sums(a, label, k, own.data(), n_threads);
  std::vector<double> count(static_cast<std::size_t>(k), 0.0);
  for (index_t r = 0; r < a.n; ++r) count[label[r]] += 1.0;
  for (index_t j = 0; j < a.d; ++j)
    for (index_t q = 0; q < k; ++q)
      sums[q + k * j] += own[q + k * j] - count[q] * shift[j];
}
inline void cluster_sums(const PackedRows& a, const int* label, index_t k,
                         double* sums, int n_threads) {
  shifted_cluster_sums(a.src, a.shift, label, k, sums, n_threads);
}

// Weighted cluster sums of the rows minus the shift (matrix.hpp), from the
// column-major original.
inline void weighted_cluster_sums(const PackedRows& a, const int* label, const double* w,
                                  index_t k, double* sums, int n_threads) {
  weighted_cluster_sums(a.src, label, w, k, sums, n_threads, a.shift);
}

// A row minus the shift, from the column-major original.
inline void get_row(const PackedRows& a, index_t r, double* out) {
  get_row(a.src, r, out);
  if (a.shift != nullptr)
    for (index_t j = 0; j < a.d; ++j) out[j] -= a.shift[j];
}

namespace detail {
// Moved rows (from[r] -> to[r]) into the cluster sums, each row read by
// get_row() (for rows whose tiles are not kept).
template <class Rows>
void move_rows_by_row(const Rows& a, const std::vector<index_t>& rows, const int* from,
                      const int* to, index_t k, double* sums) {
  std::vector<double> x(static_cast<std::size_t>(a.d));
  for (index_t r : rows) {
    get_row(a, r, x.data());
    for (index_t j = 0; j < a.d; ++j) {
      sums[to[r] + k * j] += x[j];
      sums[from[r] + k * j] -= x[j];
    }
  }
}
}  // namespace detail

// Moved rows read from their tiles (d consecutive 128-byte groups each).
inline void move_rows(const PackedRows& a, const std::vector<index_t>& rows,
                      const int* from, const int* to, index_t k, double* sums,
                      int /*n_threads*/) {
  constexpr index_t T = PackedRows::T;
  if (!a.stored) {  // from the original, minus the shift
    detail::move_rows_by_row(a, rows, from, to, k, sums);
    return;
  }
  for (index_t r : rows) {
    const double* x = a.tile(r / T) + r % T;
    double* st = sums + to[r];
    double* sf = sums + from[r];
    for (index_t j = 0; j < a.d; ++j) {
      st[k * j] += x[T * j];
      sf[k * j] -= x[T * j];
    }
  }
}

// Calls f with the row-access form the row-wise algorithms should use:
// packed tiles for dense data when a SIMD kernel is available, the dense
// matrix itself otherwise, and a CSR copy for sparse data. Dense data above
// packed_copy_max_bytes() are not copied (tiles packed as needed, also in the
// portable build).
//
// With a `shift` (dense data only), f sees the rows minus the shift: the
// packed tiles are written shifted, or (portable build) a shifted copy is
// made. Distances are computed as ||x||^2 + ||c||^2 - 2 x.c, which loses
// every digit when the data sit far from the origin (an offset of 1e8 on
// unit-scale clusters); shifted by their column means they do not.
template <class F>
auto with_row_access(const DenseMatrix& a, int n_threads, F f,
                     const double* shift = nullptr) -> decltype(f(a)) {
  const bool keep = keep_packed_copy(a.n, a.d);
  if (simd_level() != SimdLevel::Portable || !keep) {
    const PackedRows p(a, n_threads, shift, keep);
    return f(p);
  }
  if (shift == nullptr) return f(a);
  std::vector<double> copy(static_cast<std::size_t>(a.n * a.d));
  parallel_for(a.d, n_threads, [&](index_t j, int) {
    const double* col = a.x + a.n * j;
    double* dst = copy.data() + a.n * j;
    for (index_t r = 0; r < a.n; ++r) dst[r] = col[r] - shift[j];
  }, static_cast<double>(a.n) * a.d);
  const DenseMatrix shifted(copy.data(), a.n, a.d);
  return f(shifted);
}

template <class F>
auto with_row_access(const SparseMatrix& a, int /*n_threads*/, F f,
                     const double* shift = nullptr)
    -> decltype(f(std::declval<const SparseRows&>())) {
  if (shift != nullptr)
    throw std::invalid_argument("sparse rows cannot be shifted (they would become dense)");
  const SparseRows s(a);
  return f(s);
}

}  // namespace kmreduce

#endif  // KMREDUCE_PACKED_HPP
