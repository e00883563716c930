// libFuzzer harness for the C++ core of kmreduce (issue 6). Each input is
// decoded into a shape, values from a palette (zeros, signed zeros, +-1,
// denormals, tiny and huge magnitudes, random doubles, and in "hostile" mode
// NaN and Inf), a seed, dense or sparse storage and 1 or 2 threads; then every
// entry point runs. Valid inputs (finite, bounded, as R's checks guarantee)
// must give correct results; hostile inputs must only not crash or trigger a
// sanitizer report.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/reduce/cssp.hpp>
#include <kmreduce/data/distinct_rows.hpp>
#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/reduce/leverage.hpp>
#include <kmreduce/reduce/mailman.hpp>
#include <kmreduce/kernels/packed.hpp>
#include <kmreduce/reduce/random_projection.hpp>
#include <kmreduce/reduce/rsvd.hpp>
#include <kmreduce/reduce/sign_projection.hpp>
#include <kmreduce/reduce/sparse_embedding.hpp>
#include <kmreduce/reduce/srht.hpp>

using namespace kmreduce;

namespace {
struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
};

double value(Reader& r, bool hostile) {
  const uint8_t c = r.byte();
  switch (c % (hostile ? 12 : 10)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return 1.0;
    case 3: return -1.0;
    case 4: return 4.9e-324;            // smallest denormal
    case 5: return 1e-300;
    case 6: return (c & 128) ? 1e150 : -1e150;
    case 7: return static_cast<double>(r.byte()) - 128.0;
    case 8:
    case 9: return static_cast<double>(static_cast<int64_t>(r.u64() >> 20)) * 1e-6;
    case 10: return std::numeric_limits<double>::quiet_NaN();
    default: return (c & 128) ? HUGE_VAL : -HUGE_VAL;
  }
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  const uint8_t mode = r.byte();
  const bool hostile = mode & 1, sparse = mode & 2;
  const int threads = (mode & 4) ? 2 : 1;
  const index_t n = 1 + r.byte() % 64, d = 1 + r.byte() % 64;
  const index_t dims = 1 + r.byte() % 64;
  const uint64_t seed = r.u64();
  std::vector<double> x(n * d);
  for (double& v : x) v = value(r, hostile);
  // Values must stay below sqrt(DBL_MAX / (4 d)) for squared distances.
  const double limit = std::sqrt(std::numeric_limits<double>::max() / (4.0 * d));
  if (!hostile)
    for (double& v : x)
      if (std::fabs(v) > limit) v = std::copysign(limit / 2, v);
  const DenseMatrix a(x.data(), n, d);
  std::vector<int> p(d + 1, 0), ii;
  std::vector<double> xv;
  for (index_t j = 0; j < d; ++j) {
    for (index_t i = 0; i < n; ++i)
      if (x[i + n * j] != 0.0 || std::isnan(x[i + n * j])) {
        ii.push_back(static_cast<int>(i));
        xv.push_back(x[i + n * j]);
      }
    p[j + 1] = static_cast<int>(ii.size());
  }
  const SparseMatrix s(p.data(), ii.data(), xv.data(), n, d);

  // Projections: dense and sparse agree with the explicit product (valid).
  std::vector<double> o1(n * dims), o2(n * dims), o3(n * dims);
  sign_project_gemm(a, dims, seed, o1.data(), threads);
  sign_project_mailman(a, dims, seed, o2.data(), threads);
  if (sparse) sign_project_mailman(s, dims, seed, o3.data(), threads);
  random_project(a, ProjectionKind::Gaussian, dims, seed, o3.data(), threads);
  random_project(s, ProjectionKind::Achlioptas, dims, seed, o3.data(), threads);
  sparse_embed(a, CountSketch(seed, d, dims), o3.data(), threads);
  sparse_embed(s, CountSketch(seed, d, dims), o3.data(), threads);
  if (dims <= next_pow2(d)) {
    const SrhtMap m(seed, d, dims);
    srht_project(a, m, o3.data(), threads);
    srht_project(SparseRows(s), m, o3.data(), threads);
  }
  if (!hostile) {
    double scale = 0.0, err = 0.0;
    for (index_t t = 0; t < n * dims; ++t) {
      scale = std::max(scale, std::fabs(o1[t]));
      err = std::max(err, std::fabs(o1[t] - o2[t]));
    }
    double rowmax = 0.0;
    for (double v : x) rowmax = std::max(rowmax, std::fabs(v));
    check(err <= 1e-12 * std::max(scale, rowmax * static_cast<double>(d)) + 1e-300);
  }

  // k-means: k <= distinct rows; labels in range, no empty cluster.
  const index_t distinct = distinct_rows(a);
  const index_t k = 1 + static_cast<index_t>(seed % 8) % std::max<index_t>(1, std::min<index_t>(distinct, 8));
  if (!hostile && k <= distinct && has_distinct_rows(a, k)) {
    KmeansOptions opt;
    opt.k = k;
    opt.n_init = 2;
    opt.iter_max = 20;
    opt.tol = 1e-6;
    opt.seed = seed;
    opt.n_threads = threads;
    const KmeansResult res = with_row_access(a, threads, [&](const auto& rows) {
      return kmeans(rows, opt);
    });
    std::vector<index_t> count(k, 0);
    for (int l : res.best.label) {
      check(l >= 0 && l < k);
      ++count[l];
    }
    for (index_t c : count) check(c > 0);
    StatsInput in;
    in.label = res.best.label.data();
    in.k = k;
    in.n_threads = threads;
    const ClusterStats st = cluster_stats(OneBlock<DenseMatrix>(a), in);
    const ClusterStats ss = cluster_stats(OneBlock<SparseMatrix>(s), in);
    // Dense and sparse sum in different orders: equal up to rounding at the
    // scale of the data (values of opposite sign may cancel in a centre).
    double maxabs = 0.0;
    for (double v : x) maxabs = std::max(maxabs, std::fabs(v));
    for (index_t t = 0; t < k * d; ++t)
      check(std::fabs(st.centres[t] - ss.centres[t]) <=
            1e-12 * maxabs * static_cast<double>(n) + 1e-300);
    const KmeansResult rs = kmeans(SparseRows(s), opt);
    for (int l : rs.best.label) check(l >= 0 && l < k);
  }

  // Randomized SVD, leverage sampling and CSSP on valid input.
  if (!hostile) {
    const index_t kk = 1 + static_cast<index_t>(seed % 3) % std::min(n, d);
    const Svd sv = randomized_svd(a, kk, 2, 1, seed, threads);
    for (double v : sv.d) check(std::isfinite(v) && v >= 0);
    std::vector<double> lev = leverage_scores(sv.v.data(), d, kk);
    double tot = 0.0;
    for (double v : lev) tot += v;
    if (tot > 0) {
      const ColumnSample cs = sample_columns(lev, dims, seed);
      for (index_t j : cs.index) check(j >= 0 && j < d && lev[j] > 0);
    }
    const CsspResult c = cssp(a, sv.v.data(), kk, 4.0 * kk, 3, seed, threads);
    check(static_cast<index_t>(c.index.size()) == kk);
  }
  return 0;
}
