// kmreduce: seeded random numbers that never touch R's RNG.
//
// Two generators, both defined only by 64-bit integers:
//   * Rng: xoshiro256++ (Blackman & Vigna 2018) seeded through SplitMix64 from
//     (seed, stream). Independent streams are derived from (seed, purpose, id),
//     so results never depend on the number of threads; a purpose is a
//     number below, or stream_purpose("name") for a new algorithm.
//   * counter_hash(key, counter): a stateless counter-based generator (two
//     rounds of the SplitMix64 finaliser over key and counter). It lets any
//     block of a random matrix be generated on its own, in any order.
#ifndef KMREDUCE_RNG_HPP
#define KMREDUCE_RNG_HPP

#include <cmath>
#include <cstdint>

namespace kmreduce {

inline std::uint64_t splitmix64_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Stateless: a well-mixed 64-bit word for (key, counter).
inline std::uint64_t counter_hash(std::uint64_t key, std::uint64_t counter) {
  return mix64(mix64(key ^ (counter * 0x9E3779B97F4A7C15ULL)) + counter);
}

// Uniform on [0, 1) from the 53 high bits of a random word.
inline double uniform_of(std::uint64_t word) {
  return static_cast<double>(word >> 11) * (1.0 / 9007199254740992.0);
}

// Key of an independent stream: the seed, what it is for, and an index.
inline std::uint64_t stream_key(std::uint64_t seed, std::uint64_t purpose,
                                std::uint64_t id = 0) {
  std::uint64_t s = seed;
  std::uint64_t a = splitmix64_next(s);
  return mix64(a ^ mix64(purpose * 0xD1B54A32D192ED03ULL + id));
}

// Purposes of the streams (kept stable: changing them changes results).
enum StreamPurpose : std::uint64_t {
  kStreamKmeansInit = 1,
  kStreamSignMatrix = 2,
  kStreamLeverageSampling = 3,
  kStreamGaussian = 4,
  kStreamAchlioptas = 5,
  kStreamSrht = 6,
  kStreamSparseEmbedding = 7,
  kStreamRsvd = 8,
  kStreamCssp = 9,
  kStreamRepeat = 10,
  kStreamGapReference = 11,
  kStreamFjlt = 12,
  kStreamSplitMerge = 13,
  kStreamMinibatchSample = 14,    // mini-batch k-means: the seeding sample
  kStreamMinibatchBatch = 15,     // its batches
  kStreamMinibatchReassign = 16,  // its reassigned centres
  kStreamExactSvd = 17,           // the exact SVD's Lanczos start (a fixed seed)
  kStreamSketch = 18              // k-means: the coreset sketch of the rows (sketch.hpp)
};

// The purpose of a new stream, from its name (64-bit FNV-1a, its top bit set
// so that it differs from every numbered purpose above): a new algorithm
// draws from stream_key(seed, stream_purpose("its name"), id) and needs no
// entry here. The numbered purposes stay as they are, for their results.
constexpr std::uint64_t stream_purpose(const char* name) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (; *name != '\0'; ++name) {
    h ^= static_cast<unsigned char>(*name);
    h *= 0x100000001B3ULL;
  }
  return h | (1ULL << 63);
}

class Rng {
 public:
  explicit Rng(std::uint64_t key) {
    std::uint64_t sm = key;
    for (auto& w : s_) w = splitmix64_next(sm);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform on [0, 1) with 53 random bits.
  double uniform() {
    return uniform_of(next());
  }
  // Uniform integer in [0, n), n > 0, without modulo bias (rejection).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    std::uint64_t x;
    do {
      x = next();
    } while (x >= limit);
    return x % n;
  }
  // Standard normal (Marsaglia's polar method; the spare is kept).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
  }
  std::uint64_t s_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace kmreduce

#endif  // KMREDUCE_RNG_HPP
