// Mailman block size on wide data: the bucket algorithm of Liberty & Zucker
// (2009) with B-bit sign patterns (2^B buckets, B output columns per block)
// for B = 4 .. 16, all by the same portable code, side by side in one run,
// and the package's 8-bit SIMD kernel (mailman.hpp) for reference.
// Per block of B outputs and panel of P rows: d bucket adds of P lanes, then
// 2 * 2^B adds of P lanes to fold the buckets into the B outputs, so the work
// per output column is P (d + 2^(B+1)) / B, least near B = log2(d) - 3
// (Liberty & Zucker take B = log2(d)), but the 2^B x P buckets leave the L1
// cache from B = 10 on (P = 8) and the folds grow as 2^B.
// Build: bench/speed/mailman_blocks.sh. Output: seconds (best of 5) per B.
#include <kmreduce/reduce/mailman.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace kmreduce;

constexpr index_t P = 8;  // rows per panel (lanes)

// C (n x dims) = A R, R's signs given as bits sign(i, c) in `bits` (d x dims).
void mailman_bits(const std::vector<double>& a, index_t n, index_t d, index_t dims,
                  const std::vector<std::uint8_t>& bits, int B, std::vector<double>& out) {
  const index_t nbuck = index_t(1) << B;
  const index_t blocks = (dims + B - 1) / B;
  // patterns[b * d + i]: bits of row i of R in columns B b .. B b + B - 1
  std::vector<std::uint32_t> pat(static_cast<std::size_t>(blocks * d), 0);
  for (index_t b = 0; b < blocks; ++b)
    for (index_t i = 0; i < d; ++i) {
      std::uint32_t p = 0;
      for (int t = 0; t < B && b * B + t < dims; ++t)
        if (bits[i * dims + b * B + t]) p |= 1u << t;
      pat[b * d + i] = p;
    }
  std::vector<double> panel(d * P), buck(nbuck * P);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dims));
  for (index_t r0 = 0; r0 < n; r0 += P) {
    const index_t len = std::min(P, n - r0);
    for (index_t i = 0; i < d; ++i)
      for (index_t r = 0; r < P; ++r) panel[i * P + r] = r < len ? a[i * n + r0 + r] : 0.0;
    for (index_t b = 0; b < blocks; ++b) {
      std::fill(buck.begin(), buck.end(), 0.0);
      const std::uint32_t* pb = pat.data() + b * d;
      for (index_t i = 0; i < d; ++i) {
        double* q = buck.data() + pb[i] * P;
        const double* x = panel.data() + i * P;
        for (index_t r = 0; r < P; ++r) q[r] += x[r];
      }
      // fold: bit t set = sign -1: output_t = sum(clear) - sum(set)
      for (int t = B - 1; t >= 0; --t) {
        const index_t half = index_t(1) << t;
        double acc[P] = {0};
        for (index_t q = 0; q < half; ++q)
          for (index_t r = 0; r < P; ++r) {
            const double lo = buck[q * P + r], hi = buck[(q + half) * P + r];
            acc[r] += lo - hi;
            buck[q * P + r] = lo + hi;
          }
        const index_t c = b * B + t;
        if (c < dims)
          for (index_t r = 0; r < len; ++r) out[c * n + r0 + r] = scale * acc[r];
      }
    }
  }
}

int main(int argc, char** argv) {
  const index_t d = argc > 1 ? std::atol(argv[1]) : 50000;
  const index_t n = argc > 2 ? std::atol(argv[2]) : 1000;
  const index_t dims = argc > 3 ? std::atol(argv[3]) : 240;
  std::mt19937_64 g(1);
  std::normal_distribution<double> nd;
  std::vector<double> a(n * d);
  for (auto& v : a) v = nd(g);
  const SignMatrix sm(7, d, dims);
  // the package's signs, as bits (1 = negative entry)
  std::vector<double> col(d * dims);
  sm.panel(0, dims, col.data());
  std::vector<std::uint8_t> bits(d * dims);
  for (index_t i = 0; i < d; ++i)
    for (index_t c = 0; c < dims; ++c) bits[i * dims + c] = col[i + d * c] < 0;
  std::vector<double> ref(n * dims), out(n * dims);
  const DenseMatrix am(a.data(), n, d);
  auto best = [](auto f) {
    double t = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      t = std::min(t, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return t;
  };
  const double tp = best([&] { sign_project_mailman(am, dims, 7, ref.data(), 1); });
  std::printf("d = %ld, n = %ld, dims = %ld, 1 thread, best of 5\n", (long)d, (long)n, (long)dims);
  std::printf("package kernel (8-bit, SIMD): %.3f s\n", tp);
  const double tg = best([&] { sign_project_gemm(am, dims, 7, out.data(), 1); });
  std::printf("package GEMM on generated panels: %.3f s\n", tg);
  for (int B : {4, 6, 8, 10, 12, 14, 16}) {
    const double t = best([&] { mailman_bits(a, n, d, dims, bits, B, out); });
    double err = 0;
    for (index_t e = 0; e < n * dims; ++e) err = std::max(err, std::abs(out[e] - ref[e]));
    std::printf("portable B = %2d: %.3f s (max |difference| from the package %.1e)\n", B, t, err);
  }
}
