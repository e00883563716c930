// kmreduce: the random sign matrix of Algorithm 2 of Boutsidis, Zouzias,
// Mahoney & Drineas (2015): R is d x dims with entries +-1/sqrt(dims), each
// sign an independent fair bit. R is defined by (seed, dims) alone: the bits of
// feature i are the words counter_hash(key, i * W + w), w < W = ceil(dims/64),
// bit b of word w giving column 64 w + b (bit set = negative). Any block of R
// can thus be generated on its own, and R is never stored whole.
#ifndef KMREDUCE_SIGN_PROJECTION_HPP
#define KMREDUCE_SIGN_PROJECTION_HPP

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../kernels/products.hpp"
#include "../runtime/rng.hpp"

namespace kmreduce {

class SignMatrix {
 public:
  SignMatrix(std::uint64_t seed, index_t d, index_t dims)
      : key_(stream_key(seed, kStreamSignMatrix)),
        d_(d),
        dims_(dims),
        words_((dims + 63) / 64),
        scale_(1.0 / std::sqrt(static_cast<double>(dims))) {
    if (d < 1 || dims < 1)
      throw std::invalid_argument("sign matrix dimensions must be positive");
  }
  index_t rows() const { return d_; }
  index_t cols() const { return dims_; }
  double scale() const { return scale_; }
  // 64 sign bits of feature i, columns [64 w, 64 w + 64).
  std::uint64_t word(index_t i, index_t w) const {
    return counter_hash(key_, static_cast<std::uint64_t>(i * words_ + w));
  }
  // Columns [c0, c1) as a dense d x (c1 - c0) column-major panel.
  void panel(index_t c0, index_t c1, double* out) const {
    for (index_t i = 0; i < d_; ++i) {
      for (index_t c = c0; c < c1; ++c) {
        const bool neg = (word(i, c / 64) >> (c % 64)) & 1ULL;
        out[i + d_ * (c - c0)] = neg ? -scale_ : scale_;
      }
    }
  }

 private:
  std::uint64_t key_;
  index_t d_, dims_, words_;
  double scale_;
};

// out (n x dims) = A R, by panels of R and a GEMM (Eigen) per panel.
template <class Matrix>
void sign_project_gemm(const Matrix& a, index_t dims, std::uint64_t seed,
                       double* out, int n_threads) {
  project_by_panels(a, SignMatrix(seed, a.d, dims), out, n_threads);
}

}  // namespace kmreduce

#endif  // KMREDUCE_SIGN_PROJECTION_HPP
