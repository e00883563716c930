// kmreduce: the values of a one-dimensional dataset stored in compressed
// chunks, as HDF5 stores a 10x file's counts and gene indices: each chunk's
// filters undone (deflate, shuffle; the last one applied first, those its
// mask skipped left out), its values converted into R's integer or double
// type and written where they belong in the destination, the chunks on
// several threads. The chunks come as stored (the glue reads them with
// HDF5's direct chunk read, src/tenx_hdf5.cpp); nothing here knows HDF5.
// Only exact conversions are made: decode_chunks() answers false when a
// value has no exact counterpart in the destination's type (then the glue
// leaves the read to rhdf5, whose conversions and messages apply).
// Needs zlib.
#ifndef KMREDUCE_STORED_CHUNKS_HPP
#define KMREDUCE_STORED_CHUNKS_HPP

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../runtime/parallel.hpp"

namespace kmreduce {

// The stored values' type: little-endian integers of 1, 2, 4 or 8 bytes,
// or IEEE floats of 4 or 8.
struct StoredType {
  bool is_float = false;
  bool is_signed = true;
  std::size_t size = 0;
};

// A chunk's filters, in the order they were applied when written.
enum class ChunkFilter { deflate, shuffle };

struct StoredChunk {
  std::vector<unsigned char> bytes;  // as stored
  std::uint32_t skipped = 0;         // bit k set: filter k was not applied
  index_t first = 0;                 // its first value within the dataset
};

namespace detail {

template <class T>
inline T load_bytes(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// The integer at p; `over` set when an unsigned 64-bit value does not fit
// a signed one.
inline std::int64_t load_integer(const unsigned char* p, const StoredType& t, bool& over) {
  if (t.is_signed) {
    switch (t.size) {
      case 1: return load_bytes<std::int8_t>(p);
      case 2: return load_bytes<std::int16_t>(p);
      case 4: return load_bytes<std::int32_t>(p);
      default: return load_bytes<std::int64_t>(p);
    }
  }
  switch (t.size) {
    case 1: return load_bytes<std::uint8_t>(p);
    case 2: return load_bytes<std::uint16_t>(p);
    case 4: return load_bytes<std::uint32_t>(p);
    default: {
      const std::uint64_t u = load_bytes<std::uint64_t>(p);
      over = over || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      return static_cast<std::int64_t>(u & 0x7fffffffffffffffULL);
    }
  }
}

// n values at src into dest; false when one has no exact counterpart: an
// integer outside R's integers (whose smallest is its NA), a 64-bit integer
// of magnitude 2^53 or more into a double (2^53 + 1 would read as 2^53: the
// caller cannot tell them apart, and reads those values another way), a
// float into an integer.
inline bool convert_values(const unsigned char* src, std::size_t n, const StoredType& t,
                           int* dest) {
  if (t.is_float) return false;
  bool over = false, fits = true;
  for (std::size_t j = 0; j < n; ++j) {
    const std::int64_t v = load_integer(src + j * t.size, t, over);
    fits = fits && v > std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
    dest[j] = fits ? static_cast<int>(v) : 0;
  }
  return fits && !over;
}

inline bool convert_values(const unsigned char* src, std::size_t n, const StoredType& t,
                           double* dest) {
  const std::int64_t exact = 9007199254740992LL;  // (2^53)
  bool over = false, fits = true;
  for (std::size_t j = 0; j < n; ++j) {
    const unsigned char* p = src + j * t.size;
    if (t.is_float) {
      dest[j] = t.size == 4 ? static_cast<double>(load_bytes<float>(p)) : load_bytes<double>(p);
    } else {
      const std::int64_t v = load_integer(p, t, over);
      fits = fits && v < exact && v > -exact;
      dest[j] = static_cast<double>(v);
    }
  }
  return fits && !over;
}

// A chunk's filters undone into `out` (chunk_bytes long); `tmp` is scratch.
inline void undo_filters(const StoredChunk& c, const std::vector<ChunkFilter>& filters,
                         std::size_t chunk_bytes, std::size_t size, std::vector<unsigned char>& out,
                         std::vector<unsigned char>& tmp) {
  out.assign(c.bytes.begin(), c.bytes.end());
  for (std::size_t k = filters.size(); k-- > 0;) {
    if (k < 32 && (c.skipped & (1u << k))) continue;
    if (filters[k] == ChunkFilter::deflate) {
      tmp.resize(chunk_bytes);
      uLongf len = static_cast<uLongf>(chunk_bytes);
      const int rc = uncompress(tmp.data(), &len, out.data(), static_cast<uLong>(out.size()));
      if (rc != Z_OK || len != chunk_bytes) {
        throw std::runtime_error(std::string("a chunk could not be decompressed (zlib: ") +
                                 (rc == Z_OK ? "wrong length" : zError(rc)) + ")");
      }
      out.swap(tmp);
    } else if (size > 1) {  // shuffle: byte b of value i was stored at b * n + i
      if (out.size() != chunk_bytes) throw std::runtime_error("a chunk has the wrong length");
      tmp.resize(chunk_bytes);
      const std::size_t n = chunk_bytes / size;
      for (std::size_t b = 0; b < size; ++b) {
        const unsigned char* s = out.data() + b * n;
        unsigned char* d = tmp.data() + b;
        for (std::size_t i = 0; i < n; ++i) d[i * size] = s[i];
      }
      out.swap(tmp);
    }
  }
  if (out.size() != chunk_bytes) throw std::runtime_error("a chunk has the wrong length");
}

}  // namespace detail

// The values from..from+count of the dataset into dest[0..count), from the
// chunks (of chunk_values values each) that hold them, decoded on up to
// n_threads threads (one chunk a task: the same values whatever the
// threads). False when a value has no exact counterpart in Out (dest is
// then incomplete); an error when a chunk cannot be decoded.
template <class Out>
bool decode_chunks(const std::vector<StoredChunk>& chunks, const std::vector<ChunkFilter>& filters,
                   const StoredType& type, index_t chunk_values, index_t from, index_t count,
                   Out* dest, int n_threads) {
  struct Scratch {
    std::vector<unsigned char> out, tmp;
  };
  const std::size_t chunk_bytes = static_cast<std::size_t>(chunk_values) * type.size;
  std::atomic<bool> fits(true);
  parallel_for_scratch<Scratch>(
      static_cast<index_t>(chunks.size()), n_threads,
      [&](index_t j, Scratch& s) {
        const StoredChunk& c = chunks[static_cast<std::size_t>(j)];
        detail::undo_filters(c, filters, chunk_bytes, type.size, s.out, s.tmp);
        const index_t lo = std::max(c.first, from);
        const index_t hi = std::min(c.first + chunk_values, from + count);
        if (hi <= lo) return;
        if (!detail::convert_values(s.out.data() + static_cast<std::size_t>(lo - c.first) * type.size,
                                    static_cast<std::size_t>(hi - lo), type, dest + (lo - from))) {
          fits.store(false);
        }
      },
      static_cast<double>(chunks.size()) * static_cast<double>(chunk_values) * 16.0);
  return fits.load();
}

}  // namespace kmreduce

#endif
