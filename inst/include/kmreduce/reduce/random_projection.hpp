// kmreduce: dense random projections other than signs, C = A R with R d x dims:
//   * Gaussian: R_ij ~ N(0, 1/dims) (Johnson & Lindenstrauss; Indyk & Motwani);
//   * Achlioptas (2003): R_ij = +-sqrt(3/dims) with probability 1/6 each,
//     0 with probability 2/3.
// Every entry is a function of (seed, i, j) alone (counter-based), so R is
// generated in column panels and never stored whole; the product is a GEMM
// per panel (products.hpp).
#ifndef KMREDUCE_RANDOM_PROJECTION_HPP
#define KMREDUCE_RANDOM_PROJECTION_HPP

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../kernels/matrix.hpp"
#include "../kernels/products.hpp"
#include "../runtime/rng.hpp"
#include "projection_call.hpp"

namespace kmreduce {

// Uniform on (0, 1) from 53 bits of a word (never 0, so log() is finite).
inline double open_uniform(std::uint64_t w) {
  return (static_cast<double>(w >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// Standard normal number of counter `c` of stream `key` (Box-Muller, cosine).
inline double counter_normal(std::uint64_t key, std::uint64_t c) {
  const std::uint64_t h1 = counter_hash(key, 2 * c);
  const std::uint64_t h2 = counter_hash(key, 2 * c + 1);
  const double r = std::sqrt(-2.0 * std::log(open_uniform(h1)));
  return r * std::cos(6.283185307179586 * open_uniform(h2));
}

enum class ProjectionKind { Gaussian, Achlioptas };

class RandomMatrix {
 public:
  RandomMatrix(ProjectionKind kind, std::uint64_t seed, index_t d, index_t dims)
      : kind_(kind),
        key_(stream_key(seed, kind == ProjectionKind::Gaussian
                                  ? kStreamGaussian
                                  : kStreamAchlioptas)),
        d_(d),
        dims_(dims) {
    if (d < 1 || dims < 1)
      throw std::invalid_argument("projection dimensions must be positive");
    scale_ = kind == ProjectionKind::Gaussian
                 ? 1.0 / std::sqrt(static_cast<double>(dims))
                 : std::sqrt(3.0 / static_cast<double>(dims));
  }
  double entry(index_t i, index_t j) const {
    const std::uint64_t c = static_cast<std::uint64_t>(i * dims_ + j);
    if (kind_ == ProjectionKind::Gaussian) return scale_ * counter_normal(key_, c);
    const int u = static_cast<int>(open_uniform(counter_hash(key_, c)) * 6.0);
    return u == 0 ? scale_ : (u == 1 ? -scale_ : 0.0);
  }
  // Columns [c0, c1) as a dense d x (c1 - c0) column-major panel.
  void panel(index_t c0, index_t c1, double* out) const {
    for (index_t c = c0; c < c1; ++c)
      for (index_t i = 0; i < d_; ++i) out[i + d_ * (c - c0)] = entry(i, c);
  }
  index_t rows() const { return d_; }
  index_t cols() const { return dims_; }

 private:
  ProjectionKind kind_;
  std::uint64_t key_;
  index_t d_, dims_;
  double scale_;
};

template <class Matrix>
void random_project(const Matrix& a, ProjectionKind kind, index_t dims,
                    std::uint64_t seed, double* out, int n_threads) {
  project_by_panels(a, RandomMatrix(kind, seed, a.d, dims), out, n_threads);
}

// The projection policies (reduce/projections.hpp) of the Gaussian and the
// Achlioptas maps.
struct GaussianProjection {
  static const char* name() { return "gaussian"; }
  template <class Matrix>
  static bool project(const Matrix& a, const ProjectionCall& c, double* out) {
    random_project(a, ProjectionKind::Gaussian, c.dims, c.seed, out, c.n_threads);
    return false;
  }
};
struct AchlioptasProjection {
  static const char* name() { return "achlioptas"; }
  template <class Matrix>
  static bool project(const Matrix& a, const ProjectionCall& c, double* out) {
    random_project(a, ProjectionKind::Achlioptas, c.dims, c.seed, out, c.n_threads);
    return false;
  }
};

}  // namespace kmreduce

#endif  // KMREDUCE_RANDOM_PROJECTION_HPP
