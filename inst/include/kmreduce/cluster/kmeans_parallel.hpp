// kmreduce: k-means|| seeding (Bahmani, Moseley, Vattani, Kumar &
// Vassilvitskii 2012, "Scalable k-means++"), for tall data, where greedy
// k-means++'s two passes over the rows per centre cost more than its
// arithmetic.
//
// The first candidate is a row drawn uniformly. Each of `rounds` rounds then
// samples every row independently with probability min(1, l D(x) / phi)
// (D(x) the squared distance to the nearest candidate, phi their sum,
// l = oversampling * k) and takes the distances of all rows to the rows
// sampled: one pass per round. Every row's nearest candidate is kept on the
// way, so the weights (how many rows each candidate is nearest to) need no
// pass of their own. The weighted candidates (about l * rounds) are then
// clustered into k in memory: greedy weighted k-means++ (the best of
// 2 + floor(ln k) candidates per centre, drawn with probability w D^2),
// then weighted Lloyd, up to 10 times while that costs at most about a
// tenth of the rounds (the lowest weighted cost kept). Passes over the
// rows: rounds + 1, and one more for the assignment of the rows to the k
// seeds that Lloyd (and the local search) start from; greedy k-means++
// makes up to 2 per centre.
//
// Guarantee (Bahmani et al. 2012, Theorems 1 and 2): with l = Theta(k) and
// O(log psi) rounds (psi the cost after the first candidate) the candidates
// cost O(1) times the optimum in expectation, and an alpha-approximate
// weighted reclustering makes the seeding an O(alpha)-approximation
// (k-means++: alpha = O(log k)). The defaults l = 2k and 5 rounds are those
// of the paper's experiments; with fewer than log psi rounds the bound is
// not proven (Rozhon 2020 shows O(log psi / log log psi) rounds suffice).
//
// Draws: row g (global index) is sampled in round i iff a uniform from
// counter_hash(key_i, g) is below its probability, key_i drawn from the
// replicate's generator; candidates are ordered by round, then by row. So
// the seeds are the same for any number of threads and, with rows on several
// processes (Combine), those of one process on the stacked rows.
#ifndef KMREDUCE_KMEANS_PARALLEL_HPP
#define KMREDUCE_KMEANS_PARALLEL_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kmeans_parallel_options.hpp"
#include "kmeanspp.hpp"
#include "lloyd.hpp"
#include "../kernels/matrix.hpp"
#include "../kernels/nearest.hpp"
#include "../kernels/packed.hpp"
#include "../kernels/packed_single.hpp"
#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"
#include "../runtime/rng.hpp"
#include "../data/row_source.hpp"
#include "../runtime/simd.hpp"

namespace kmreduce {

// What the seeding did (tests): the candidates (global rows, in order),
// their weights, the cost phi before each round and after the last, and
// whether it fell back to greedy k-means++ (fewer than k candidates with
// rows nearest to them).
struct KmeansParallelTrace {
  std::vector<index_t> candidates;
  std::vector<double> weights;
  std::vector<double> phi;
  bool fallback = false;
};

namespace detail {

// The rows r of [r0, r1) that a round samples: D(r) > 0 and the uniform of
// counter_hash(key, offset + r) below l D(r) / phi; appended in row order.
inline void sample_rows_scalar(const double* dist, index_t r0, index_t r1, std::uint64_t key,
                               std::uint64_t offset, double ell, double phi,
                               std::vector<index_t>& pick) {
  for (index_t r = r0; r < r1; ++r)
    if (dist[r] > 0.0 &&
        uniform_of(counter_hash(key, offset + static_cast<std::uint64_t>(r))) <
            ell * dist[r] / phi)
      pick.push_back(r);
}

// sample_rows_scalar() with observation weights w: probability
// min(1, l w D(r) / phi), phi = sum w D.
inline void sample_rows_weighted(const double* dist, const double* w, index_t r0, index_t r1,
                                 std::uint64_t key, std::uint64_t offset, double ell,
                                 double phi, std::vector<index_t>& pick) {
  for (index_t r = r0; r < r1; ++r)
    if (dist[r] > 0.0 &&
        uniform_of(counter_hash(key, offset + static_cast<std::uint64_t>(r))) <
            ell * (w[r] * dist[r]) / phi)
      pick.push_back(r);
}

// A round's update of the rows [r0, r1) from their nearest new candidate
// (best = ||c||^2 - 2 x.c, which = its index): D(r) and the nearest
// candidate where the squared distance max(0, ||x||^2 + best) is smaller.
inline void take_nearer_scalar(const double* rn, const double* best, const int* which,
                               index_t len, int base, double* dist, int* near) {
  for (index_t i = 0; i < len; ++i) {
    const double v = std::max(0.0, rn[i] + best[i]);
    if (v < dist[i]) {
      dist[i] = v;
      near[i] = base + which[i];
    }
  }
}

#ifdef KMREDUCE_X86_SIMD
// mix64() of 8 words.
__attribute__((target("avx512f,avx512dq"))) inline __m512i mix64_avx512(__m512i z) {
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(0xBF58476D1CE4E5B9ULL));
  const __m512i m2 = _mm512_set1_epi64(static_cast<long long>(0x94D049BB133111EBULL));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), m1);
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), m2);
  return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

// sample_rows_scalar() for 8 rows at a time: the same hash (64-bit lane
// multiplies), the same exact conversion to a uniform and the same division,
// so the same rows.
__attribute__((target("avx512f,avx512dq"))) inline void sample_rows_avx512(
    const double* dist, index_t r0, index_t r1, std::uint64_t key, std::uint64_t offset,
    double ell, double phi, std::vector<index_t>& pick) {
  const __m512i golden = _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ULL));
  const __m512i vkey = _mm512_set1_epi64(static_cast<long long>(key));
  const __m512i step = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const __m512d vell = _mm512_set1_pd(ell), vphi = _mm512_set1_pd(phi),
                scale = _mm512_set1_pd(1.0 / 9007199254740992.0), zero = _mm512_setzero_pd();
  for (index_t r = r0; r < r1; r += 8) {
    const __mmask8 lanes =
        static_cast<__mmask8>(r1 - r >= 8 ? 0xffu : (1u << (r1 - r)) - 1u);
    const __m512d x = _mm512_maskz_loadu_pd(lanes, dist + r);
    const __mmask8 positive = _mm512_mask_cmp_pd_mask(lanes, x, zero, _CMP_GT_OQ);
    if (positive == 0) continue;
    const __m512i c = _mm512_add_epi64(
        _mm512_set1_epi64(static_cast<long long>(offset + static_cast<std::uint64_t>(r))), step);
    const __m512i h = _mm512_add_epi64(
        mix64_avx512(_mm512_xor_si512(vkey, _mm512_mullo_epi64(c, golden))), c);
    const __m512d u =
        _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(mix64_avx512(h), 11)), scale);
    const __m512d p = _mm512_div_pd(_mm512_mul_pd(vell, x), vphi);
    for (unsigned bits = _mm512_mask_cmp_pd_mask(positive, u, p, _CMP_LT_OQ); bits != 0;
         bits &= bits - 1)
      pick.push_back(r + __builtin_ctz(bits));
  }
}

// take_nearer_scalar() for 8 rows at a time (max with 0 as std::max(0.0, v),
// also for NaN; the same comparison).
__attribute__((target("avx512f,avx512vl"))) inline void take_nearer_avx512(
    const double* rn, const double* best, const int* which, index_t len, int base,
    double* dist, int* near) {
  const __m512d zero = _mm512_setzero_pd();
  const __m256i vbase = _mm256_set1_epi32(base);
  for (index_t i = 0; i < len; i += 8) {
    const __mmask8 lanes =
        static_cast<__mmask8>(len - i >= 8 ? 0xffu : (1u << (len - i)) - 1u);
    const __m512d v = _mm512_max_pd(
        _mm512_add_pd(_mm512_maskz_loadu_pd(lanes, rn + i), _mm512_maskz_loadu_pd(lanes, best + i)),
        zero);
    const __mmask8 lt =
        _mm512_mask_cmp_pd_mask(lanes, v, _mm512_maskz_loadu_pd(lanes, dist + i), _CMP_LT_OQ);
    if (lt == 0) continue;
    _mm512_mask_storeu_pd(dist + i, lt, v);
    _mm256_mask_storeu_epi32(near + i, lt,
                             _mm256_add_epi32(vbase, _mm256_maskz_loadu_epi32(lt, which + i)));
  }
}
#endif

inline void sample_rows(const double* dist, index_t r0, index_t r1, std::uint64_t key,
                        std::uint64_t offset, double ell, double phi,
                        std::vector<index_t>& pick) {
#ifdef KMREDUCE_X86_SIMD
  const bool dq = cpu_features().avx512dq;
  if (simd_level() == SimdLevel::Avx512 && dq) {
    sample_rows_avx512(dist, r0, r1, key, offset, ell, phi, pick);
    return;
  }
#endif
  sample_rows_scalar(dist, r0, r1, key, offset, ell, phi, pick);
}

inline void take_nearer(const double* rn, const double* best, const int* which, index_t len,
                        int base, double* dist, int* near) {
#ifdef KMREDUCE_X86_SIMD
  const bool vl = cpu_features().avx512vl;
  if (simd_level() == SimdLevel::Avx512 && vl) {
    take_nearer_avx512(rn, best, which, len, base, dist, near);
    return;
  }
#endif
  take_nearer_scalar(rn, best, which, len, base, dist, near);
}

// Weighted k-means on the m points of c (squared norms `norms`) with weights
// w: greedy weighted k-means++ then weighted Lloyd (at most iter_max
// iterations, until no label changes). Writes the k centres (k x d,
// column-major). Needs at least k points of positive weight.
inline void weighted_kmeans(const DenseMatrix& c, const double* norms,
                            const std::vector<double>& w, index_t k, Rng& rng, double* centres,
                            int iter_max, int n_threads, const InterruptCheck& interrupt) {
  const index_t m = c.n, d = c.d;
  const double* pts = c.x;
  const index_t trials = greedy_trials(k);
  std::vector<double> dist(m), wd(m), cand(trials * d), dc(m * trials), row(d);
  std::vector<index_t> pick(trials);
  auto take = [&](index_t i, index_t q) {
    for (index_t j = 0; j < d; ++j) centres[q + k * j] = pts[i + m * j];
  };
  // First centre: drawn with probability w.
  double wsum = 0.0;
  for (index_t i = 0; i < m; ++i) wsum += w[i];
  draw_weighted_many(w, wsum, rng, 1, pick.data());
  take(pick[0], 0);
  get_row(c, pick[0], row.data());
  dist2_to_points(c, norms, row.data(), 1, dist.data(), n_threads);
  dist[pick[0]] = 0.0;
  for (index_t q = 1; q < k; ++q) {
    double total = 0.0;
    for (index_t i = 0; i < m; ++i) total += (wd[i] = w[i] * dist[i]);
    draw_weighted_many(wd, total, rng, trials, pick.data());
    for (index_t t = 0; t < trials; ++t)
      for (index_t j = 0; j < d; ++j) cand[t + trials * j] = pts[pick[t] + m * j];
    dist2_to_points(c, norms, cand.data(), trials, dc.data(), n_threads);
    index_t best = 0;
    double best_pot = std::numeric_limits<double>::infinity();
    for (index_t t = 0; t < trials; ++t) {
      dc[pick[t] + m * t] = 0.0;
      double pot = 0.0;
      for (index_t i = 0; i < m; ++i) pot += w[i] * std::min(dist[i], dc[i + m * t]);
      if (t == 0 || pot < best_pot * (1.0 - 1e-12)) {  // (ties to rounding: the first)
        best_pot = pot;
        best = t;
      }
    }
    take(pick[best], q);
    for (index_t i = 0; i < m; ++i) dist[i] = std::min(dist[i], dc[i + m * best]);
    check_interrupt(interrupt);
  }
  // Weighted Lloyd; a cluster left empty keeps its centre.
  std::vector<int> label(m, -1);
  std::vector<double> sums(k * d), wq(k);
  for (int it = 0; it < iter_max; ++it) {
    if (assign_nearest(c, norms, centres, k, label.data(), dist.data(), n_threads) == 0 &&
        it > 0)
      break;
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(wq.begin(), wq.end(), 0.0);
    for (index_t i = 0; i < m; ++i) {
      const index_t q = label[i];
      wq[q] += w[i];
      for (index_t j = 0; j < d; ++j) sums[q + k * j] += w[i] * pts[i + m * j];
    }
    for (index_t q = 0; q < k; ++q)
      if (wq[q] > 0.0)
        for (index_t j = 0; j < d; ++j) centres[q + k * j] = sums[q + k * j] / wq[q];
    check_interrupt(interrupt);
  }
}

// The best (lowest weighted cost; the first on ties) of `runs`
// weighted_kmeans() runs on the candidates, into centres.
inline void recluster(const std::vector<double>& pts, index_t m, index_t d,
                      const std::vector<double>& w, index_t k, Rng& rng, double* centres,
                      int runs, int n_threads, const InterruptCheck& interrupt) {
  const DenseMatrix c(pts.data(), m, d);
  std::vector<double> norms(m), dist(m), run(k * d);
  std::vector<int> label(m, -1);
  row_sqnorms(c, norms.data(), n_threads);
  double best = std::numeric_limits<double>::infinity();
  for (int t = 0; t < runs; ++t) {
    weighted_kmeans(c, norms.data(), w, k, rng, run.data(), 100, n_threads, interrupt);
    assign_nearest(c, norms.data(), run.data(), k, label.data(), dist.data(), n_threads);
    double cost = 0.0;
    for (index_t i = 0; i < m; ++i) cost += w[i] * dist[i];
    if (cost < best) {
      best = cost;
      std::copy(run.begin(), run.end(), centres);
    }
  }
}

}  // namespace detail

// The nearest and second nearest of the k centres (k x d, column-major) for
// every row, by row blocks: the assignment kmeanspp() returns, for seeds
// found otherwise.
template <class Data>
void seed_assignment(const Data& a, const double* row_norms, const double* centres, index_t k,
                     SeedAssignment& assign, int n_threads) {
  const index_t n = a.n;
  assign_rows(assign.label, n, 0);
  if (assign.with_second_label) assign_rows(assign.second_label, n, 0);
  assign_rows(assign.nearest, n, 0.0);
  assign_rows(assign.second, n, std::numeric_limits<double>::infinity());
  const std::vector<double> cnorm = centre_sqnorms(centres, k, a.d);
  const CentreView cv = prepare_centres(a, centres, k);
  parallel_for_scratch<std::vector<double>>(n_blocks(n, kRowBlock), n_threads,
                                            [&](index_t b, std::vector<double>& buf) {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
    buf.resize(kRowBlock * k);
    cross_block(a, r0, r1, cv, k, buf.data());
    nearest_two_rows(buf.data(), len, k, row_norms + r0, cnorm.data(), assign.label.data() + r0,
                     assign.nearest.data() + r0,
                     assign.with_second_label ? assign.second_label.data() + r0 : nullptr,
                     assign.second.data() + r0);
  }, static_cast<double>(n) * k * a.d);
}

// The candidates of k-means|| on the rows of `a` (the first row drawn, then
// `opt.rounds` rounds of rows sampled by their distance to the candidates so
// far): their rows (global index) and values (row-major), and for every
// row of this process its squared distance to the nearest candidate and
// that candidate's index. Passes over the rows: rounds + 1.
struct ParallelCandidates {
  std::vector<index_t> rows;
  std::vector<double> values;  // rows.size() x d, row-major
  std::vector<double> dist;    // per row: squared distance to the nearest candidate
  std::vector<int> near;       // per row: that candidate
};

namespace detail {
// This process's rows sampled in a round of k-means|| (each row with
// probability ell D / phi, weighted: ell w D / phi, by a counter-based draw
// keyed by its global row), in row order: the blocks' picks in
// `block_pick`, where each block's start in the result in `first_pick`.
inline std::vector<index_t> sample_round(const std::vector<double>& dist, const double* weight,
                                         index_t n, int n_threads, std::uint64_t key,
                                         index_t offset, double ell, double phi,
                                         std::vector<std::vector<index_t>>& block_pick,
                                         std::vector<index_t>& first_pick) {
  const index_t nb = n_blocks(n, kRowBlock);
  parallel_for(nb, n_threads, [&](index_t b, int) {
    std::vector<index_t>& pick = block_pick[b];
    pick.clear();
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
    if (weight != nullptr) {
      sample_rows_weighted(dist.data(), weight, r0, r1, key, static_cast<std::uint64_t>(offset),
                           ell, phi, pick);
      return;
    }
    sample_rows(dist.data(), r0, r1, key, static_cast<std::uint64_t>(offset), ell, phi, pick);
  }, static_cast<double>(n));
  std::vector<index_t> mine;
  for (index_t b = 0; b < nb; ++b) {
    first_pick[b] = static_cast<index_t>(mine.size());
    mine.insert(mine.end(), block_pick[b].begin(), block_pick[b].end());
  }
  return mine;
}

// Every process gets every sampled row: a sum of vectors each fills at its
// own place (rank order = global row order). Returns the m rows (m x d,
// column-major, then their global row indices); `before`: the rows of the
// processes before this one.
template <class Data, class Combine>
std::vector<double> share_sampled(const Data& a, const std::vector<index_t>& mine,
                                  const Combine& combine, index_t& m, index_t& before) {
  const index_t d = a.d;
  const int np = combine.size(), me = combine.rank();
  std::vector<double> counts(np, 0.0);
  counts[me] = static_cast<double>(mine.size());
  combine.sum(counts.data(), np);
  m = 0;
  before = 0;
  for (int p = 0; p < np; ++p) {
    if (p < me) before += static_cast<index_t>(counts[p]);
    m += static_cast<index_t>(counts[p]);
  }
  if (m == 0) return std::vector<double>();
  std::vector<double> pts((d + 1) * m, 0.0), row(d);
  for (index_t t = 0; t < static_cast<index_t>(mine.size()); ++t) {
    get_row(a, mine[t], row.data());
    for (index_t j = 0; j < d; ++j) pts[before + t + m * j] = row[j];
    pts[d * m + before + t] = static_cast<double>(combine.offset() + mine[t]);
  }
  combine.sum(pts.data(), (d + 1) * m);
  return pts;
}

// Each row block's sum of D (weighted: of w D), into block_total (in the
// pass that updates D, or in one of its own), and phi, their sum in block
// order over all processes.
struct BlockPotential {
  BlockPotential(index_t n_rows, const double* w)
      : n(n_rows), nb(n_blocks(n_rows, kRowBlock)), weight(w), block_total(nb) {}
  index_t n, nb;
  const double* weight;
  std::vector<double> block_total;
  void sum_block(index_t b, const std::vector<double>& dist) {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
    block_total[b] = weight != nullptr
                         ? weighted_sum(weight + r0, dist.data() + r0, r1 - r0)
                         : sum_of_min(dist.data() + r0, dist.data() + r0, r1 - r0);
  }
  template <class Combine>
  double phi(const Combine& combine) const {
    double phi = 0.0;
    for (index_t b = 0; b < nb; ++b) phi += block_total[b];
    return combined_sum(combine, phi);
  }
  // (a pass of its own)
  template <class Combine>
  double of(const std::vector<double>& dist, int n_threads, const Combine& combine) {
    parallel_for(nb, n_threads, [&](index_t b, int) { sum_block(b, dist); },
                 static_cast<double>(n));
    return phi(combine);
  }
};

// The first candidate of k-means||: a row drawn (by its weight), uniformly
// over the stacked rows of all processes; every row's D is its squared
// distance to it.
template <class Data, class Combine>
void first_candidate(const Data& a, const double* row_norms, Rng& rng, int n_threads,
                     const Combine& combine, const double* weight, ParallelCandidates& out) {
  const index_t n = a.n, d = a.d;
  const index_t first = combine.size() == 1
                            ? draw_first(rng, n, weight)
                            : static_cast<index_t>(rng.below(combine.total_rows(n)));
  std::vector<double> row(d);
  combined_row(combine, first, n, d, [&](index_t r, double* o) { get_row(a, r, o); },
               row.data());
  out.rows.push_back(first);
  out.values.insert(out.values.end(), row.begin(), row.end());
  dist2_to_points(a, row_norms, row.data(), 1, out.dist.data(), n_threads);
  const index_t first_here = local_row(combine, first, n);
  if (first_here >= 0) out.dist[first_here] = 0.0;
}

// A round's m sampled rows `pts` (share_sampled()) become candidates base,
// base + 1, ...: appended to `out`, and every row's D and nearest candidate
// follow its distance to them, in one pass (the blocks' sums of D into
// `pot`). The rows sampled here (block_pick, from candidate base + before +
// first_pick[b] on) are at 0, nearest to themselves unless an earlier
// candidate equals them.
template <class Data>
void add_candidates(const Data& a, const double* row_norms, const std::vector<double>& pts,
                    index_t m, index_t before,
                    const std::vector<std::vector<index_t>>& block_pick,
                    const std::vector<index_t>& first_pick, int n_threads,
                    ParallelCandidates& out, BlockPotential& pot) {
  const index_t n = a.n, d = a.d;
  const int base = static_cast<int>(out.rows.size());
  for (index_t t = 0; t < m; ++t) {
    out.rows.push_back(static_cast<index_t>(pts[d * m + t]));
    for (index_t j = 0; j < d; ++j) out.values.push_back(pts[t + m * j]);
  }
  std::vector<double>& dist = out.dist;
  std::vector<int>& near = out.near;
  const std::vector<double> cnorm = centre_sqnorms(pts.data(), m, d);
  const CentreView cv = prepare_centres(a, pts.data(), m);
  struct Scratch {
    std::vector<double> buf, best;
    std::vector<int> which;
  };
  parallel_for_scratch<Scratch>(pot.nb, n_threads, [&](index_t b, Scratch& s) {
    const index_t r0 = b * kRowBlock, r1 = std::min(n, r0 + kRowBlock), len = r1 - r0;
    s.buf.resize(kRowBlock * m);
    s.best.resize(kRowBlock);
    s.which.resize(kRowBlock);
    if (!nearest_block(a, r0, r1, cv, cnorm.data(), m, s.best.data(), nullptr,
                       s.which.data())) {
      cross_block(a, r0, r1, cv, m, s.buf.data());
      two_nearest(s.buf.data(), len, m, cnorm.data(), s.best.data(), nullptr, s.which.data());
    }
    take_nearer(row_norms + r0, s.best.data(), s.which.data(), len, base, dist.data() + r0,
                near.data() + r0);
    const std::vector<index_t>& pick = block_pick[b];
    for (index_t t = 0; t < static_cast<index_t>(pick.size()); ++t) {
      const index_t r = pick[t];
      if (dist[r] > 0.0) near[r] = base + static_cast<int>(before + first_pick[b] + t);
      dist[r] = 0.0;
    }
    pot.sum_block(b, dist);
  }, static_cast<double>(n) * m * d);
}
}  // namespace detail

// The candidates (ParallelCandidates, above): the first row, then rounds
// of rows sampled by D, each round's rows shared by all processes and
// every row's D following them (detail::add_candidates()).
template <class Data, class Combine = LocalCombine>
ParallelCandidates parallel_candidates(const Data& a, const double* row_norms, index_t k,
                                       Rng& rng, int n_threads,
                                       const KmeansParallelOptions& opt,
                                       const InterruptCheck& interrupt = InterruptCheck(),
                                       const Combine& combine = Combine(),
                                       KmeansParallelTrace* trace = nullptr,
                                       const double* weight = nullptr) {
  if (!(opt.oversampling > 0.0) || opt.rounds < 1)
    throw std::invalid_argument("k-means||: oversampling and rounds must be positive");
  const index_t n = a.n;
  const double ell = opt.oversampling * static_cast<double>(k);
  ParallelCandidates out;
  out.dist = rows_array(n, 0.0);
  out.near = rows_array(n, 0);
  detail::BlockPotential pot(n, weight);
  detail::first_candidate(a, row_norms, rng, n_threads, combine, weight, out);
  double phi = pot.of(out.dist, n_threads, combine);
  if (trace != nullptr) trace->phi.push_back(phi);

  std::vector<std::vector<index_t>> block_pick(pot.nb);
  std::vector<index_t> first_pick(pot.nb);  // where each block's picks start in `mine`
  for (int round = 0; round < opt.rounds && phi > 0.0; ++round) {
    const std::uint64_t key = rng.next();
    const std::vector<index_t> mine = detail::sample_round(out.dist, weight, n, n_threads, key,
                                                           combine.offset(), ell, phi,
                                                           block_pick, first_pick);
    index_t m = 0, before = 0;
    const std::vector<double> pts = detail::share_sampled(a, mine, combine, m, before);
    if (m == 0) {
      if (trace != nullptr) trace->phi.push_back(phi);
      continue;
    }
    detail::add_candidates(a, row_norms, pts, m, before, block_pick, first_pick, n_threads, out,
                           pot);
    phi = pot.phi(combine);
    if (trace != nullptr) trace->phi.push_back(phi);
    check_interrupt(interrupt);
  }
  return out;
}

// Whether the rounds of k-means|| on dense packed rows take their products
// from float tiles (kernels/packed_single.hpp): from k = 64 on, where the
// rounds' products with about 2 k candidates per round are nearly all of the
// seeding's work. Their distances only set the rows' sampling probabilities
// and the candidates' weights (each row counted at its nearest candidate),
// so rounding them to float's 24 bits changes which rows a draw picks, not
// what the draw is; the reclustering, the seeds' assignment and everything
// after it are in double.
constexpr index_t kSingleRoundsFromK = 64;

namespace detail {
// The candidates of k-means|| (parallel_candidates()) on the rows as they
// are; on dense packed rows with k >= kSingleRoundsFromK, from their float
// tiles (the same rows, minus the same shift), unless the typical rows'
// products vanish in float (PackedRowsF::holds_bulk(): a few rows far from
// all the others).
template <class Data, class Combine>
ParallelCandidates seeding_candidates(const Data& a, const double* row_norms, index_t k, Rng& rng,
                                      int n_threads, const KmeansParallelOptions& opt,
                                      const InterruptCheck& interrupt, const Combine& combine,
                                      KmeansParallelTrace* trace, const double* weight) {
  return parallel_candidates(a, row_norms, k, rng, n_threads, opt, interrupt, combine, trace,
                             weight);
}
template <class Combine>
ParallelCandidates seeding_candidates(const PackedRows& a, const double* row_norms, index_t k,
                                      Rng& rng, int n_threads, const KmeansParallelOptions& opt,
                                      const InterruptCheck& interrupt, const Combine& combine,
                                      KmeansParallelTrace* trace, const double* weight) {
  if (k < kSingleRoundsFromK)
    return parallel_candidates(a, row_norms, k, rng, n_threads, opt, interrupt, combine, trace,
                               weight);
  const PackedRowsF f(a.src, n_threads, a.shift, keep_single_copy(a.n, a.d));
  if (!f.holds_bulk())
    return parallel_candidates(a, row_norms, k, rng, n_threads, opt, interrupt, combine, trace,
                               weight);
  return parallel_candidates(f, f.norms.data(), k, rng, n_threads, opt, interrupt, combine,
                             trace, weight);
}
}  // namespace detail

// Writes k centres (k x d, column-major) by k-means|| on the rows of `a`,
// and with `assign` the assignment of the rows to them (as kmeanspp()).
// When fewer than k candidates have rows nearest to them (data with fewer
// distinct rows than the sampling needs), greedy k-means++ seeds instead.
// With observation weights (`weight`, one per row; one process): the first
// candidate drawn with probability w (draw_first()), rows sampled with
// probability min(1, l w D / phi), phi = sum w D, and each candidate weighted
// by the sum of the weights of the rows nearest to it.
template <class Data, class Combine = LocalCombine>
void kmeans_parallel(const Data& a, const double* row_norms, index_t k, Rng& rng,
                     double* centres, int n_threads, const KmeansParallelOptions& opt,
                     const InterruptCheck& interrupt = InterruptCheck(),
                     SeedAssignment* assign = nullptr, const Combine& combine = Combine(),
                     KmeansParallelTrace* trace = nullptr, const double* weight = nullptr) {
  const index_t n = a.n, d = a.d;
  const index_t n_all = combine.total_rows(n);
  ParallelCandidates pc = detail::seeding_candidates(a, row_norms, k, rng, n_threads, opt,
                                                     interrupt, combine, trace, weight);
  const std::vector<index_t>& cand_rows = pc.rows;
  const std::vector<double>& cand_vals = pc.values;
  std::vector<double>& dist = pc.dist;
  std::vector<int>& near = pc.near;
  const index_t mc = static_cast<index_t>(cand_rows.size());
  std::vector<double> w(mc, 0.0);
  if (weight != nullptr) {
    for (index_t r = 0; r < n; ++r) w[near[r]] += weight[r];
  } else {
    for (index_t r = 0; r < n; ++r) w[near[r]] += 1.0;
  }
  combine.sum(w.data(), mc);
  index_t positive = 0;
  for (double v : w) positive += v > 0.0;
  if (trace != nullptr) {
    trace->candidates = cand_rows;
    trace->weights = w;
  }
  if (positive < k) {
    std::vector<int>().swap(near);
    std::vector<double>().swap(dist);
    // Too few distinct candidates for k seeds: greedy k-means++ on the rows.
    if (trace != nullptr) trace->fallback = true;
    kmeanspp(a, row_norms, k, rng, centres, n_threads, interrupt, assign, combine, nullptr,
             weight);
    return;
  }
  std::vector<double> pts(mc * d);
  for (index_t t = 0; t < mc; ++t)
    for (index_t j = 0; j < d; ++j) pts[t + mc * j] = cand_vals[t * d + j];
  // Reclustering runs (the best kept) while they cost at most about a tenth
  // of the rounds: m k (2 + ln k) d each against n l d per round.
  const int runs = static_cast<int>(std::max(
      1.0, std::min(10.0, std::floor(static_cast<double>(n_all) /
                                     (static_cast<double>(mc) * greedy_trials(k))))));
  detail::recluster(pts, mc, d, w, k, rng, centres, runs, n_threads, interrupt);
  if (assign != nullptr) {
    // (the rows' arrays reused: fresh memory costs its first touch)
    assign->nearest = std::move(dist);
    assign->label = std::move(near);
    seed_assignment(a, row_norms, centres, k, *assign, n_threads);
  }
}

}  // namespace kmreduce

#endif  // KMREDUCE_KMEANS_PARALLEL_HPP
