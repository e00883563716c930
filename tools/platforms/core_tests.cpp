// Standalone tests of kmreduce's C++ core (no R): the SIMD kernels against
// plain reference loops, k-means, Lloyd, the statistics and the projections
// on small data, and the alignment of every buffer the kernels may write
// with aligned or streaming stores. Built and run by tools/check-platforms.sh
// natively, under Wine (x86_64-w64-mingw32) and under qemu-aarch64, once per
// SIMD level (the environment variable KMREDUCE_SIMD lowers the level).
// Prints one line per failed check and "N passed, N failed" at the end; the
// exit status is 0 when nothing failed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kmreduce/cluster/cluster_stats.hpp>
#include <kmreduce/data/block_passes.hpp>
#include <kmreduce/data/block_pool.hpp>
#include <kmreduce/cluster/kmeans.hpp>
#include <kmreduce/reduce/mailman.hpp>
#include <kmreduce/reduce/projections.hpp>
#include <kmreduce/kernels/packed.hpp>
#include <kmreduce/reduce/random_projection.hpp>
#include <kmreduce/reduce/sign_projection.hpp>
#include <kmreduce/cluster/single.hpp>
#include <kmreduce/data/cells.hpp>
#include <kmreduce/data/normalization.hpp>
#include <kmreduce/runtime/background.hpp>
#include <kmreduce/reduce/sparse_embedding.hpp>
#include <kmreduce/reduce/srht.hpp>

using namespace kmreduce;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAILED: %s\n", what.c_str());
    std::fflush(stdout);
  }
}

std::string fmt(const char* f, double a, double b = 0.0) {
  char buf[200];
  std::snprintf(buf, sizeof(buf), f, a, b);
  return buf;
}

// Data: k well separated Gaussian blobs in d dimensions (column-major n x d),
// the true label of each row, and an offset added to every value.
struct Blobs {
  index_t n, d, k;
  std::vector<double> x;
  std::vector<int> truth;
  Blobs(index_t n_, index_t d_, index_t k_, std::uint64_t seed, double offset = 0.0)
      : n(n_), d(d_), k(k_), x(n_ * d_), truth(n_) {
    std::mt19937_64 gen(seed);
    auto unif = [&]() { return (static_cast<double>(gen() >> 11) + 0.5) / 9007199254740992.0; };
    auto normal = [&]() {
      return std::sqrt(-2.0 * std::log(unif())) * std::cos(6.283185307179586 * unif());
    };
    std::vector<double> centre(k * d);
    for (double& c : centre) c = 20.0 * normal();
    for (index_t i = 0; i < n; ++i) {
      const int g = static_cast<int>(i % k);
      truth[i] = g;
      for (index_t j = 0; j < d; ++j) x[i + n * j] = offset + centre[g + k * j] + normal();
    }
  }
  DenseMatrix dense() const { return DenseMatrix(x.data(), n, d); }
};

// A sparse copy (CSC) of a dense matrix with about a third of the values zeroed.
struct Sparse {
  std::vector<double> dense_values;
  std::vector<int> p, i;
  std::vector<double> v;
  SparseMatrix m;
  Sparse(const std::vector<double>& x, index_t n, index_t d)
      : dense_values(x), p(d + 1, 0), m(nullptr, nullptr, nullptr, 0, 0) {
    for (index_t j = 0; j < d; ++j) {
      for (index_t r = 0; r < n; ++r) {
        double& val = dense_values[r + n * j];
        if ((r * 7 + j * 3) % 3 == 0) val = 0.0;
        if (val != 0.0) {
          i.push_back(static_cast<int>(r));
          v.push_back(val);
        }
      }
      p[j + 1] = static_cast<int>(i.size());
    }
    m = SparseMatrix(p.data(), i.data(), v.data(), n, d);
  }
};

double naive_dot(const DenseMatrix& a, index_t r, const double* c, index_t k, index_t q,
                 const double* shift = nullptr) {
  double s = 0.0;
  for (index_t j = 0; j < a.d; ++j) s += (a(r, j) - (shift ? shift[j] : 0.0)) * c[q + k * j];
  return s;
}

double naive_dist2(const DenseMatrix& a, index_t r, const double* c, index_t k, index_t q) {
  double s = 0.0;
  for (index_t j = 0; j < a.d; ++j) {
    const double t = a(r, j) - c[q + k * j];
    s += t * t;
  }
  return s;
}

// Whether labels a and b are the same partition (up to relabelling).
bool same_partition(const std::vector<int>& a, const std::vector<int>& b, index_t k) {
  if (a.size() != b.size()) return false;
  std::vector<int> map(k, -1), back(k, -1);
  for (std::size_t r = 0; r < a.size(); ++r) {
    if (a[r] < 0 || a[r] >= k || b[r] < 0 || b[r] >= k) return false;
    if (map[a[r]] == -1 && back[b[r]] == -1) {
      map[a[r]] = b[r];
      back[b[r]] = a[r];
    }
    if (map[a[r]] != b[r]) return false;
  }
  return true;
}

// The objective of labels with their means, and the means (naive loops).
double naive_objective(const DenseMatrix& a, const std::vector<int>& label, index_t k,
                       std::vector<double>* means_out = nullptr) {
  std::vector<double> mean(k * a.d, 0.0);
  std::vector<double> count(k, 0.0);
  for (index_t r = 0; r < a.n; ++r) {
    count[label[r]] += 1.0;
    for (index_t j = 0; j < a.d; ++j) mean[label[r] + k * j] += a(r, j);
  }
  for (index_t q = 0; q < k; ++q)
    for (index_t j = 0; j < a.d; ++j) mean[q + k * j] /= std::max(count[q], 1.0);
  double obj = 0.0;
  for (index_t r = 0; r < a.n; ++r) obj += naive_dist2(a, r, mean.data(), k, label[r]);
  if (means_out) *means_out = mean;
  return obj;
}

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

#if defined(KMREDUCE_X86_SIMD)
// A 32-byte aligned streaming store to p (as the kernels' streaming stores
// need 64-byte alignment on AVX-512): faults when p is not aligned.
__attribute__((target("avx"))) void stream_probe(void* p) {
  _mm256_stream_pd(static_cast<double*>(p), _mm256_setzero_pd());
  _mm_sfence();
}
#endif

// Every buffer a kernel writes with aligned or streaming stores is 64-byte
// aligned: the packed tiles (double and float), kept; sizes above glibc's
// mmap threshold, where malloc() returns 16 bytes past a page boundary.
void test_alignment() {
  for (index_t n : {index_t(40), index_t(3000), index_t(20000)}) {
    const Blobs b(n, 13, 3, 1 + n);
    const DenseMatrix a = b.dense();
    const PackedRows rows(a, 1, nullptr, true);
    check(aligned64(rows.v.get()), fmt("packed double tiles of %g rows 64-byte aligned", n));
    const PackedRowsF rf(a, 1, nullptr, true);
    check(aligned64(rf.v.get()), fmt("packed float tiles of %g rows 64-byte aligned", n));
#if defined(KMREDUCE_X86_SIMD)
    if (simd_level() != SimdLevel::Portable) {
      stream_probe(const_cast<double*>(rows.v.get()));
      stream_probe(const_cast<float*>(rf.v.get()));
    }
#endif
  }
}

// Products of rows with centres (cross_block) for every row layout against
// the naive sums: dense, packed (kept or packed as needed, shifted or not),
// single-precision tiles, sparse rows.
void test_products() {
  for (index_t d : {index_t(1), index_t(7), index_t(16), index_t(33)}) {
    for (index_t k : {index_t(1), index_t(5), index_t(13)}) {
      const Blobs b(203, d, 3, 10 * d + k);
      const DenseMatrix a = b.dense();
      std::vector<double> c(k * d), shift(d);
      std::mt19937_64 gen(d * 100 + k);
      for (double& v : c) v = static_cast<double>(gen() % 2001) / 100.0 - 10.0;
      for (double& v : shift) v = static_cast<double>(gen() % 201) / 10.0 - 10.0;
      auto compare = [&](const auto& rows, const double* sh, double rel, const char* what) {
        std::vector<double> out;
        double err = 0.0, scale = 0.0;
        for (index_t r0 = 0; r0 < a.n; r0 += kRowBlock) {
          const index_t r1 = std::min(a.n, r0 + kRowBlock);
          out.assign((r1 - r0) * k, 0.0);
          const CentreView cv = prepare_centres(rows, c.data(), k);
          cross_block(rows, r0, r1, cv, k, out.data());
          for (index_t q = 0; q < k; ++q)
            for (index_t r = r0; r < r1; ++r) {
              const double ref = naive_dot(a, r, c.data(), k, q, sh);
              double mag = 0.0;
              for (index_t j = 0; j < d; ++j)
                mag += std::fabs((a(r, j) - (sh ? sh[j] : 0.0)) * c[q + k * j]);
              err = std::max(err, std::fabs(out[(r - r0) + (r1 - r0) * q] - ref) / (mag + 1e-300));
              scale = std::max(scale, mag);
            }
        }
        char buf[160];
        std::snprintf(buf, sizeof(buf), "products %s, d = %d, k = %d: relative error %.3g",
                      what, static_cast<int>(d), static_cast<int>(k), err);
        check(err <= rel, buf);
      };
      compare(a, nullptr, 1e-13, "dense");
      {
        // the tiles hold x - shift exactly; the norms are the rows' sums of
        // squares; the summary has the largest |x|
        const PackedRows p(a, 2, shift.data(), true);
        bool exact = true;
        double nerr = 0.0, mx = 0.0;
        for (index_t r = 0; r < a.n; ++r) {
          double nrm = 0.0;
          for (index_t j = 0; j < d; ++j) {
            const double x = a(r, j) - shift[j];
            exact = exact && p.tile(r / 16)[j * 16 + r % 16] == x;
            nrm += x * x;
            mx = std::max(mx, std::fabs(a(r, j)));
          }
          nerr = std::max(nerr, std::fabs(p.norms[r] - nrm) / (nrm + 1e-300));
        }
        check(exact, fmt("packed tiles hold x - shift exactly, d = %g", static_cast<double>(d)));
        check(nerr <= 1e-14, fmt("packed norms, relative error %g", nerr));
        check(p.values.finite && p.values.maxabs == mx, "packed value summary");
      }
      compare(PackedRows(a, 1, nullptr, true), nullptr, 1e-13, "packed, kept");
      compare(PackedRows(a, 2, nullptr, false), nullptr, 1e-13, "packed as needed");
      compare(PackedRows(a, 1, shift.data(), true), shift.data(), 1e-13, "packed, shifted");
      compare(PackedRows(a, 2, shift.data(), false), shift.data(), 1e-13,
              "packed as needed, shifted");
      compare(PackedRowsF(a, 1, nullptr, true), nullptr, 1e-5, "single precision, kept");
      compare(PackedRowsF(a, 2, shift.data(), false), shift.data(), 1e-5,
              "single precision as needed, shifted");
      const Sparse s(b.x, a.n, a.d);
      const SparseRows sr(s.m);
      std::vector<double> out(a.n * k);
      cross_block(sr, 0, a.n, c.data(), k, out.data());
      const DenseMatrix sd(s.dense_values.data(), a.n, a.d);
      double err = 0.0;
      for (index_t q = 0; q < k; ++q)
        for (index_t r = 0; r < a.n; ++r)
          err = std::max(err, std::fabs(out[r + a.n * q] - naive_dot(sd, r, c.data(), k, q)));
      check(err <= 1e-9, fmt("sparse products, error %g", err));
    }
  }
}

// Squared norms and nearest centres against naive loops (ties excepted).
void test_nearest() {
  const Blobs b(777, 19, 6, 5);
  const DenseMatrix a = b.dense();
  const index_t k = 9;
  std::vector<double> c(k * a.d);
  for (index_t q = 0; q < k; ++q)
    for (index_t j = 0; j < a.d; ++j) c[q + k * j] = a(q * 37, j) + 0.25;
  const PackedRows rows(a, 2, nullptr, true);
  std::vector<double> norms(a.n);
  row_sqnorms(rows, norms.data(), 2);
  double err = 0.0;
  for (index_t r = 0; r < a.n; ++r) {
    double s = 0.0;
    for (index_t j = 0; j < a.d; ++j) s += a(r, j) * a(r, j);
    err = std::max(err, std::fabs(norms[r] - s) / s);
  }
  check(err <= 1e-14, fmt("packed row norms, relative error %g", err));
  auto agree = [&](const std::vector<int>& label, const char* what) {
    int bad = 0;
    for (index_t r = 0; r < a.n; ++r) {
      double best = naive_dist2(a, r, c.data(), k, 0);
      for (index_t q = 1; q < k; ++q) best = std::min(best, naive_dist2(a, r, c.data(), k, q));
      const double mine = naive_dist2(a, r, c.data(), k, label[r]);
      if (!(mine <= best * (1 + 1e-9))) ++bad;
    }
    check(bad == 0, std::string("nearest centres (") + what + "): " + std::to_string(bad) +
                        " rows not nearest");
  };
  agree(predict_nearest(a, c.data(), k, 2), "dense");
  agree(predict_nearest(rows, c.data(), k, 2), "packed");
  agree(predict_nearest(PackedRows(a, 1, nullptr, false), c.data(), k, 1), "packed as needed");
}

KmeansOptions options(index_t k, std::uint64_t seed, int threads) {
  KmeansOptions opt;
  opt.k = k;
  opt.n_init = 3;
  opt.iter_max = 50;
  opt.tol = 0.0;
  opt.seed = seed;
  opt.n_threads = threads;
  return opt;
}

// k-means on well separated blobs finds the planted partition, its
// objective and centres are those of naive loops, 1 and 2 threads agree
// bit for bit; every seeding and polish, dense, packed, single precision
// and sparse rows.
void test_kmeans() {
  const Blobs b(3001, 24, 7, 11);
  const DenseMatrix a = b.dense();
  const index_t k = b.k;
  for (int variant = 0; variant < 4; ++variant) {
    KmeansOptions o1 = options(k, 42 + variant, 1), o2 = options(k, 42 + variant, 2);
    const char* name[] = {"k-means++", "k-means||", "k-means++ with Hartigan",
                          "k-means|| with local search and split/merge"};
    for (KmeansOptions* o : {&o1, &o2}) {
      if (variant == 1 || variant == 3) o->seeding = "k-means||";
      if (variant == 2) o->polish = Polish::Hartigan;
      if (variant == 3) {
        o->polish = Polish::SplitMerge;
        o->local_search = 2;
      }
    }
    const KmeansResult r1 = with_row_access(a, 1, [&](const auto& rows) {
      return kmeans(rows, o1);
    });
    const KmeansResult r2 = with_row_access(a, 2, [&](const auto& rows) {
      return kmeans(rows, o2);
    });
    const std::string what = std::string("k-means (") + name[variant] + ")";
    check(same_partition(r1.best.label, b.truth, k), what + ": planted partition");
    check(r1.best.label == r2.best.label && r1.best.centres == r2.best.centres &&
              r1.best.objective == r2.best.objective,
          what + ": 1 and 2 threads identical");
    std::vector<double> means;
    const double obj = naive_objective(a, r1.best.label, k, &means);
    check(std::fabs(r1.best.objective - obj) <= 1e-10 * obj,
          what + fmt(": objective %.17g vs naive %.17g", r1.best.objective, obj));
    double err = 0.0;
    for (std::size_t t = 0; t < means.size(); ++t)
      err = std::max(err, std::fabs(r1.best.centres[t] - means[t]));
    check(err <= 1e-9, what + fmt(": centres vs naive means, error %g", err));
  }
  // Single precision, then Lloyd in double: the same partition and means.
  const KmeansOptions o = options(k, 7, 2);
  const KmeansResult rs = kmeans_single(a, nullptr, o, InterruptCheck(), LocalCombine(),
                                        [](const ValueSummary&) { return true; });
  check(same_partition(rs.best.label, b.truth, k), "k-means single precision: planted partition");
  const double obj = naive_objective(a, rs.best.label, k);
  check(std::fabs(rs.best.objective - obj) <= 1e-10 * obj,
        "k-means single precision: objective vs naive");
  // Far from the origin, rows shifted by their column means.
  const Blobs far(1500, 9, 4, 3, 1e6);
  const DenseMatrix af = far.dense();
  std::vector<double> mu(af.d, 0.0);
  for (index_t j = 0; j < af.d; ++j) {
    for (index_t r = 0; r < af.n; ++r) mu[j] += af(r, j);
    mu[j] /= static_cast<double>(af.n);
  }
  const KmeansOptions of = options(far.k, 3, 2);
  KmeansResult rf = with_row_access(af, 2, [&](const auto& rows) {
    KmeansResult r = kmeans(rows, of);
    unshift_result(ResidentRows<std::decay_t<decltype(rows)>>(rows), mu.data(), of.k, r.best,
                   2);
    return r;
  }, mu.data());
  check(same_partition(rf.best.label, far.truth, far.k), "k-means shifted rows: planted partition");
  check(predict_nearest(af, rf.best.centres.data(), far.k, 1) == rf.best.label,
        "k-means shifted rows: labels nearest to the returned centres");
  // Sparse rows: the planted partition of the sparse data's blobs.
  const Sparse s(b.x, a.n, a.d);
  const KmeansResult rsp = kmeans(SparseRows(s.m), options(k, 5, 2));
  const DenseMatrix sd(s.dense_values.data(), a.n, a.d);
  const KmeansResult rsd = kmeans(sd, options(k, 5, 2));
  check(same_partition(rsp.best.label, rsd.best.label, k), "k-means sparse rows = dense rows");
}

// A step policy of the plainest kind (the interface of lloyd_step.hpp): a
// full assignment pass every iteration, fresh sums at every update, nothing
// kept between iterations, the objective summed row by row. lloyd() runs it
// as it runs HamerlyStep: the seam test_lloyd() checks.
template <class Source, class Combine>
class PlainStep {
 public:
  PlainStep(const Source& src, const double* row_norms, const Combine& combine,
            const LloydCall& call, index_t k, std::vector<int>& label)
      : src_(src), row_norms_(row_norms), combine_(combine), k_(k), n_threads_(call.n_threads) {
    label.assign(static_cast<std::size_t>(src.n()), -1);
    label_ = &label;
    dist_.assign(static_cast<std::size_t>(src.n()), 0.0);
  }
  index_t assign(const std::vector<double>& centres, std::vector<int>& label) {
    return source_assign_nearest(src_, row_norms_, centres.data(), k_, label.data(),
                                 dist_.data(), n_threads_);
  }
  std::vector<index_t> update(std::vector<double>& centres, std::vector<int>& label) {
    sums_.assign(static_cast<std::size_t>(k_ * src_.d()), 0.0);
    count_.assign(static_cast<std::size_t>(k_), 0);
    fresh_sums(src_, k_, label.data(), sums_, count_, n_threads_);
    return update_centres(src_, k_, label.data(), dist_.data(), centres.data(), sums_, count_,
                          combine_);
  }
  void follow(const std::vector<double>&, const std::vector<double>&, const std::vector<int>&,
              const std::vector<index_t>&) {}
  double objective(const std::vector<double>& centres) const {
    std::vector<double> x(static_cast<std::size_t>(src_.d()));
    double s = 0.0;
    for (index_t r = 0; r < src_.n(); ++r) {
      src_.row(r, x.data());
      for (index_t j = 0; j < src_.d(); ++j) {
        const double e = x[j] - centres[(*label_)[r] + k_ * j];
        s += e * e;
      }
    }
    return s;
  }

 private:
  const Source& src_;
  const double* row_norms_;
  const Combine& combine_;
  index_t k_;
  int n_threads_;
  const std::vector<int>* label_;
  std::vector<double> dist_, sums_;
  std::vector<index_t> count_;
};

// A naive Lloyd from given centres against kmeans_from (same start); the
// call's defaults against k-means' options; lloyd() with another step
// policy (PlainStep) against the same naive Lloyd.
void test_lloyd() {
  const Blobs b(1200, 11, 5, 21);
  const DenseMatrix a = b.dense();
  const index_t k = 8;  // more centres than blobs: Lloyd moves them
  std::vector<double> c0(k * a.d);
  for (index_t q = 0; q < k; ++q)
    for (index_t j = 0; j < a.d; ++j) c0[q + k * j] = a(q * 131 + 3, j);
  std::vector<double> c = c0;
  std::vector<int> label(a.n, -1);
  for (int it = 0; it < 100; ++it) {
    bool changed = false;
    for (index_t r = 0; r < a.n; ++r) {
      int best = 0;
      double bd = naive_dist2(a, r, c.data(), k, 0);
      for (index_t q = 1; q < k; ++q) {
        const double dq = naive_dist2(a, r, c.data(), k, q);
        if (dq < bd) {
          bd = dq;
          best = static_cast<int>(q);
        }
      }
      changed = changed || label[r] != best;
      label[r] = best;
    }
    if (!changed) break;
    naive_objective(a, label, k, &c);
  }
  KmeansOptions opt = options(k, 0, 2);
  opt.n_init = 1;
  opt.iter_max = 100;
  const auto run = [&](const auto& rows) {
    return kmeans_from(ResidentRows<std::decay_t<decltype(rows)>>(rows), c0, opt);
  };
  const LloydResult r = with_row_access(a, 2, run);
  check(same_partition(r.label, label, k), "Lloyd from given centres = naive Lloyd (partition)");
  double err = 0.0;
  for (std::size_t t = 0; t < c.size(); ++t) err = std::max(err, std::fabs(r.centres[t] - c[t]));
  check(err <= 1e-9, fmt("Lloyd from given centres = naive Lloyd (centres, error %g)", err));
  const LloydResult rd = kmeans_from(ResidentRows<DenseMatrix>(a), c0, opt);
  check(rd.label == label, "Lloyd on dense rows = naive Lloyd (labels)");
  // (one default per option: LloydCall's are KmeansOptions')
  const LloydCall defaults;
  const KmeansOptions kdefaults;
  check(defaults.iter_max == kdefaults.iter_max && defaults.tol == kdefaults.tol &&
            defaults.n_threads == kdefaults.n_threads && defaults.start == nullptr &&
            defaults.grid == nullptr && defaults.weight == nullptr,
        "LloydCall's defaults = KmeansOptions' (iter_max, tol, n_threads; no start, grid, weights)");
  std::vector<double> norms(a.n);
  row_sqnorms(a, norms.data(), 1);
  LloydCall call;
  call.centres = c0;
  call.n_threads = 2;
  const LloydResult rp = lloyd<PlainStep>(ResidentRows<DenseMatrix>(a), norms.data(), call);
  check(rp.label == label && rp.converged && rp.means,
        "Lloyd with a plain step policy = naive Lloyd (labels, settled)");
  err = 0.0;
  for (std::size_t t = 0; t < c.size(); ++t) err = std::max(err, std::fabs(rp.centres[t] - c[t]));
  check(err <= 1e-9, fmt("Lloyd with a plain step policy = naive Lloyd (centres, error %g)", err));
  const double naive = naive_objective(a, label, k);
  check(std::fabs(rp.objective - naive) <= 1e-9 * naive && rp.iter == rd.iter,
        fmt("Lloyd with a plain step policy: objective %g (naive %g), iterations as Hamerly's",
            rp.objective, naive));
}

// The statistics of rows in memory on one process (the column kernels).
template <class Matrix>
ClusterStats stats_in_memory(const Matrix& a, const std::vector<int>& label, index_t k,
                             int threads, const double* means = nullptr,
                             const double* weight = nullptr) {
  StatsInput in;
  in.label = label.data();
  in.k = k;
  in.means = means;
  in.weight = weight;
  in.n_threads = threads;
  return cluster_stats(OneBlock<Matrix>(a), in);
}

// Rows of a dense matrix visited in blocks of `rows` (a source read block
// by block: the accumulator's passes).
struct DenseBlocks {
  const DenseMatrix& a;
  index_t rows;
  std::vector<std::vector<double>> parts;
  DenseBlocks(const DenseMatrix& a_, index_t rows_) : a(a_), rows(rows_) {
    for (index_t r0 = 0; r0 < a.n; r0 += rows) {
      const index_t r1 = std::min(a.n, r0 + rows);
      std::vector<double> b((r1 - r0) * a.d);
      for (index_t j = 0; j < a.d; ++j)
        for (index_t r = r0; r < r1; ++r) b[(r - r0) + (r1 - r0) * j] = a(r, j);
      parts.push_back(std::move(b));
    }
  }
  index_t n() const { return a.n; }
  index_t d() const { return a.d; }
  template <class F>
  void visit_blocks(F&& f) const {
    for (std::size_t b = 0; b < parts.size(); ++b) {
      const index_t r0 = static_cast<index_t>(b) * rows;
      f(DenseMatrix(parts[b].data(), std::min(rows, a.n - r0), a.d), r0);
    }
  }
  template <class F>
  void visit_stored(F&& f) const {
    visit_blocks(f);
  }
};

// Two processes holding the same rows: every sum doubled.
struct TwinCombine {
  int rank() const { return 0; }
  int size() const { return 2; }
  index_t offset() const { return 0; }
  index_t total_rows(index_t local_rows) const { return 2 * local_rows; }
  void sum(double* v, index_t m) const {
    for (index_t t = 0; t < m; ++t) v[t] *= 2.0;
  }
};

double stats_gap(const ClusterStats& a, const ClusterStats& b) {
  double err = std::fabs(a.totss - b.totss) / b.totss + std::fabs(a.sumsq - b.sumsq) / b.sumsq;
  for (std::size_t t = 0; t < a.centres.size(); ++t)
    err = std::max(err, std::fabs(a.centres[t] - b.centres[t]) / (1.0 + std::fabs(b.centres[t])));
  for (std::size_t q = 0; q < a.withinss.size(); ++q)
    err = std::max(err, std::fabs(a.withinss[q] - b.withinss[q]) / b.withinss[q]);
  return a.size == b.size && a.weight.size() == b.weight.size() ? err : 1.0;
}

// Original-space statistics against naive sums, dense and sparse, with and
// without the means given.
void test_stats() {
  const Blobs b(999, 17, 4, 31);
  const DenseMatrix a = b.dense();
  const index_t k = b.k;
  std::vector<double> means;
  const double obj = naive_objective(a, b.truth, k, &means);
  double tot = 0.0, sumsq = 0.0;
  std::vector<double> grand(a.d, 0.0);
  for (index_t j = 0; j < a.d; ++j) {
    for (index_t r = 0; r < a.n; ++r) grand[j] += a(r, j) / static_cast<double>(a.n);
    for (index_t r = 0; r < a.n; ++r) {
      tot += (a(r, j) - grand[j]) * (a(r, j) - grand[j]);
      sumsq += a(r, j) * a(r, j);
    }
  }
  auto verify = [&](const ClusterStats& s, const char* what) {
    double w = 0.0, err = 0.0;
    for (double v : s.withinss) w += v;
    for (std::size_t t = 0; t < means.size(); ++t)
      err = std::max(err, std::fabs(s.centres[t] - means[t]));
    index_t size = 0;
    for (index_t v : s.size) size += v;
    check(std::fabs(w - obj) <= 1e-10 * obj && std::fabs(s.totss - tot) <= 1e-10 * tot &&
              std::fabs(s.sumsq - sumsq) <= 1e-10 * sumsq && err <= 1e-10 && size == a.n,
          std::string("cluster statistics (") + what + ") vs naive sums");
  };
  verify(stats_in_memory(a, b.truth, k, 2), "dense");
  verify(stats_in_memory(a, b.truth, k, 2, means.data()), "dense, means given");
  // k <= 16 takes the masked AVX-512 sums; more clusters the other path.
  const index_t k2 = 20;
  std::vector<int> l2(a.n);
  for (index_t r = 0; r < a.n; ++r) l2[r] = static_cast<int>((r * 7) % k2);
  std::vector<double> m2;
  const double o2 = naive_objective(a, l2, k2, &m2);
  const ClusterStats s2 = stats_in_memory(a, l2, k2, 1);
  double w2 = 0.0;
  for (double v : s2.withinss) w2 += v;
  check(std::fabs(w2 - o2) <= 1e-10 * o2, "cluster statistics, k = 20, vs naive sums");
  {
    // several blocks of rows (1024 each) and a last partial group of rows:
    // the same bits on 1 and 2 threads, with and without the means
    const Blobs big(2503, 9, 5, 7);
    const DenseMatrix ab = big.dense();
    const ClusterStats one = stats_in_memory(ab, big.truth, big.k, 1);
    const ClusterStats two = stats_in_memory(ab, big.truth, big.k, 2);
    const ClusterStats from = stats_in_memory(ab, big.truth, big.k, 2, one.centres.data());
    check(one.withinss == two.withinss && one.totss == two.totss && one.sumsq == two.sumsq &&
              one.centres == two.centres && from.withinss == one.withinss &&
              from.totss == one.totss,
          "cluster statistics: the same bits on 1 and 2 threads, means given or not");
  }
  const Sparse s(b.x, a.n, a.d);
  const DenseMatrix sd(s.dense_values.data(), a.n, a.d);
  const ClusterStats ss = stats_in_memory(s.m, b.truth, k, 2);
  const ClusterStats sds = stats_in_memory(sd, b.truth, k, 2);
  double err = std::fabs(ss.totss - sds.totss) / sds.totss;
  for (std::size_t t = 0; t < ss.centres.size(); ++t)
    err = std::max(err, std::fabs(ss.centres[t] - sds.centres[t]));
  check(err <= 1e-10, fmt("cluster statistics sparse = dense, error %g", err));
}

// The accumulator (rows in blocks, processes): two passes and one pass equal
// the column kernels to rounding, with and without weights; one pass gives
// way to the second where its differences would lose digits; two processes
// holding the same rows give the statistics of the rows twice over.
void test_stats_blocks() {
  for (double offset : {0.0, 1e6}) {
    const Blobs b(1203, 11, 5, 13, offset);
    const DenseMatrix a = b.dense();
    std::vector<double> w(a.n);
    for (index_t r = 0; r < a.n; ++r) w[r] = 0.5 + static_cast<double>(r % 7) / 4.0;
    const DenseBlocks blocks(a, 100);
    for (const double* wp : {static_cast<const double*>(nullptr),
                             static_cast<const double*>(w.data())}) {
      const std::string what = fmt(", offset %g", offset) + (wp ? ", weighted" : "");
      const ClusterStats ref = stats_in_memory(a, b.truth, b.k, 2, nullptr, wp);
      StatsInput in;
      in.label = b.truth.data();
      in.k = b.k;
      in.weight = wp;
      in.n_threads = 2;
      const ClusterStats two = cluster_stats(blocks, in);
      check(stats_gap(two, ref) <= 1e-10, "statistics in blocks, two passes" + what);
      in.one_pass = true;
      const ClusterStats one = cluster_stats(blocks, in);
      check(stats_gap(one, ref) <= (offset == 0.0 ? 1e-9 : 1e-10),
            "statistics in blocks, one pass" + what);
      // far from the origin the differences would lose digits: the two
      // passes from the start, the same bits
      check(offset == 0.0 || (one.withinss == two.withinss && one.centres == two.centres &&
                              one.totss == two.totss && one.sumsq == two.sumsq),
            "one pass gives way to the two passes" + what);
      in.n_threads = 1;
      const ClusterStats one1 = cluster_stats(blocks, in);
      check(one1.withinss == one.withinss && one1.centres == one.centres &&
                one1.totss == one.totss,
            "one pass: the same bits on 1 and 2 threads" + what);
      if (wp) continue;
      in.one_pass = false;
      const ClusterStats twin = cluster_stats(OneBlock<DenseMatrix>(a), in, TwinCombine());
      bool doubled = twin.centres.size() == ref.centres.size();
      for (index_t q = 0; q < b.k; ++q) doubled = doubled && twin.size[q] == 2 * ref.size[q];
      check(doubled && std::fabs(twin.totss - 2 * ref.totss) <= 1e-10 * ref.totss &&
                std::fabs(twin.withinss[0] - 2 * ref.withinss[0]) <= 1e-10 * ref.withinss[0],
            "two processes holding the same rows: the statistics twice over" + what);
      // one pass on two processes (far from the origin: giving way to the
      // two passes, the same bits as they give)
      in.one_pass = true;
      const ClusterStats twin1 = cluster_stats(OneBlock<DenseMatrix>(a), in, TwinCombine());
      check(twin1.size == twin.size && stats_gap(twin1, twin) <= 1e-9 &&
                (offset == 0.0 || (twin1.withinss == twin.withinss &&
                                   twin1.centres == twin.centres && twin1.totss == twin.totss)),
            "two processes, one pass" + what);
    }
  }
  // labels outside [0, k) are refused, whatever the source
  const Blobs b(50, 3, 2, 5);
  std::vector<int> bad = b.truth;
  bad[7] = 2;
  std::string msg;
  try {
    stats_in_memory(b.dense(), bad, 2, 1);
  } catch (const std::invalid_argument& e) {
    msg = e.what();
  }
  check(msg == "cluster labels must be in [0, k)", "statistics: labels outside [0, k)");
}

// Sums by label (cluster_sums, weighted_cluster_sums: masked AVX-512 sums
// for k <= 16, four columns at a time on AVX2, scalar otherwise) against
// naive sums, for k below and above 16, d not a multiple of 4, n not a
// multiple of 4; the same bits on 1 and 2 threads.
void test_label_sums() {
  const index_t n = 1003, d = 7;
  std::vector<double> x(n * d), w(n), shift(d);
  for (index_t t = 0; t < n * d; ++t) x[t] = std::sin(0.37 * static_cast<double>(t)) * 3.0 + 1.0;
  for (index_t r = 0; r < n; ++r) w[r] = 0.5 + static_cast<double>(r % 5);
  for (index_t j = 0; j < d; ++j) shift[j] = 0.25 * static_cast<double>(j);
  const DenseMatrix a(x.data(), n, d);
  for (index_t k : {index_t(3), index_t(10), index_t(33)}) {
    std::vector<int> label(n);
    for (index_t r = 0; r < n; ++r) label[r] = static_cast<int>((r * 13 + r / 7) % k);
    std::vector<double> want(k * d, 0.0), want_w(k * d, 0.0);
    for (index_t j = 0; j < d; ++j)
      for (index_t r = 0; r < n; ++r) {
        want[label[r] + k * j] += a(r, j);
        want_w[label[r] + k * j] += w[r] * (a(r, j) - shift[j]);
      }
    std::vector<double> one(k * d, 0.0), two(k * d, 0.0), w1(k * d, 0.0), w2(k * d, 0.0);
    cluster_sums(a, label.data(), k, one.data(), 1);
    cluster_sums(a, label.data(), k, two.data(), 2);
    weighted_cluster_sums(a, label.data(), w.data(), k, w1.data(), 1, shift.data());
    weighted_cluster_sums(a, label.data(), w.data(), k, w2.data(), 2, shift.data());
    double err = 0.0, err_w = 0.0;
    for (index_t t = 0; t < k * d; ++t) {
      err = std::max(err, std::fabs(one[t] - want[t]));
      err_w = std::max(err_w, std::fabs(w1[t] - want_w[t]));
    }
    check(err <= 1e-10 && err_w <= 1e-9,
          fmt("sums by label vs naive sums, k = %g", static_cast<double>(k)) +
              fmt(": errors %g", err) + fmt(", weighted %g", err_w));
    check(one == two && w1 == w2,
          fmt("sums by label, k = %g: the same bits on 1 and 2 threads", static_cast<double>(k)));
  }
}

// two_nearest() (AVX-512: 8 rows at a time, AVX2: 16 and 4, portable: one)
// against the loop it stands for, bit for bit: m not a multiple of 4,
// products on a coarse grid so that centres tie (the first wins), k = 1
// (no second: infinite) to 21.
void test_two_nearest() {
  const index_t m = 1003;
  for (index_t k : {index_t(1), index_t(2), index_t(7), index_t(21)}) {
    std::vector<double> buf(m * k), cnorm(k);
    for (index_t t = 0; t < m * k; ++t)
      buf[t] = std::floor(std::sin(0.71 * static_cast<double>(t)) * 8.0) / 4.0;
    for (index_t q = 0; q < k; ++q) cnorm[q] = static_cast<double>(q % 3) * 0.5;
    std::vector<double> best(m), second(m), best2(m);
    std::vector<int> which(m), which2(m);
    two_nearest(buf.data(), m, k, cnorm.data(), best.data(), second.data(), which.data());
    two_nearest(buf.data(), m, k, cnorm.data(), best2.data(), nullptr, which2.data());
    int bad = 0, ties = 0;
    for (index_t r = 0; r < m; ++r) {
      double b = cnorm[0] - 2.0 * buf[r];
      double s2 = std::numeric_limits<double>::infinity();
      int w = 0;
      for (index_t q = 1; q < k; ++q) {
        const double v = cnorm[q] - 2.0 * buf[r + m * q];
        if (v < b) {
          s2 = b;
          b = v;
          w = static_cast<int>(q);
        } else if (v < s2) {
          s2 = v;
        }
        ties += v == b && q != static_cast<index_t>(w);
      }
      bad += !(best[r] == b && second[r] == s2 && which[r] == w && best2[r] == b &&
               which2[r] == w);
    }
    check(bad == 0 && (k < 7 || ties > 0),
          fmt("two_nearest, k = %g", static_cast<double>(k)) +
              fmt(": %g rows differ from the loop", static_cast<double>(bad)) +
              fmt(" (%g ties)", static_cast<double>(ties)));
  }
}

// The fused nearest centres of packed rows, double and single precision
// (nearest_block(): AVX-512 and AVX2) against the products written out then
// two_nearest(), bit for bit: blocks that start and end inside tiles, single
// halves, k from 1 to past several groups of centres, values on a coarse
// grid so that centres tie.
template <class Rows>
void check_nearest_block(const Rows& rows, const DenseMatrix& a, const char* what) {
  const index_t n = a.n, d = a.d;
  for (index_t k : {index_t(1), index_t(5), index_t(6), index_t(7), index_t(13), index_t(40)}) {
    std::vector<double> c(k * d);
    for (index_t q = 0; q < k; ++q)
      for (index_t j = 0; j < d; ++j) c[q + k * j] = a((q * 29) % n, j) + (q % 2) * 0.5;
    const std::vector<double> cnorm = centre_sqnorms(c.data(), k, d);
    const CentreView cv = prepare_centres(rows, c.data(), k);
    int bad = 0, fused = 0;
    const index_t ranges[][2] = {{0, 203}, {8, 16}, {16, 24}, {24, 40}, {40, 47}, {192, 203},
                                 {200, 203}, {56, 129}};
    for (const auto& rg : ranges) {
      const index_t r0 = rg[0], r1 = rg[1], m = r1 - r0;
      std::vector<double> buf(m * k), b1(m), s1(m), b2(m), s2(m);
      std::vector<int> w1(m), w2(m);
      cross_block(rows, r0, r1, cv, k, buf.data());
      two_nearest(buf.data(), m, k, cnorm.data(), b1.data(), s1.data(), w1.data());
      if (!nearest_block(rows, r0, r1, cv, cnorm.data(), k, b2.data(), s2.data(), w2.data()))
        continue;
      ++fused;
      for (index_t r = 0; r < m; ++r)
        bad += !(b1[r] == b2[r] && s1[r] == s2[r] && w1[r] == w2[r]);
    }
    const bool want_fused = simd_level() == SimdLevel::Avx2 ||
                            (simd_level() == SimdLevel::Avx512 && cpu_features().avx512vl);
    check(bad == 0 && (fused > 0) == want_fused,
          std::string("nearest_block (") + what + ")" +
              fmt(", k = %g", static_cast<double>(k)) +
              fmt(": %g rows differ from the products then two_nearest", static_cast<double>(bad)) +
              fmt(" (%g blocks fused)", static_cast<double>(fused)));
  }
}

void test_nearest_block() {
  const index_t n = 203, d = 11;
  std::vector<double> x(n * d);
  for (index_t t = 0; t < n * d; ++t)
    x[t] = std::floor(std::sin(0.43 * static_cast<double>(t)) * 6.0) / 2.0;
  const DenseMatrix a(x.data(), n, d);
  check_nearest_block(PackedRows(a, 1, nullptr, true), a, "double");
  std::vector<double> shift(d, 0.25);
  check_nearest_block(PackedRowsF(a, 1, shift.data(), true), a, "single");
}

// The pool of two blocks' memory (data/block_pool.hpp): slots in turn, a
// view stale once its slot holds a later block, memory a conversion still
// holds never reused, all stale after release().
void test_block_pool() {
  BlockPool pool;
  BlockPool::Block a = pool.next(100);
  const BlockPool::Block b = pool.next(50);
  check(a.slot == 0 && b.slot == 1 && a.generation == 1 && b.generation == 2 &&
            pool.current(0, 1) == a.memory.get() && pool.current(1, 2) == b.memory.get(),
        "block pool: two slots in turn, each block its generation");
  BlockMemory* first = a.memory.get();
  a.memory.reset();  // (the first block's conversion is done with it)
  const BlockPool::Block c = pool.next(80);
  check(c.slot == 0 && c.memory.get() == first && pool.current(0, 1) == nullptr &&
            pool.current(0, 3) == first,
        "block pool: a slot's memory reused by a later block, the older view stale");
  const BlockPool::Block d = pool.next(10);  // (b still held: new memory)
  check(d.memory.get() != b.memory.get() && pool.current(1, 2) == nullptr,
        "block pool: memory still held by a conversion is not reused");
  const BlockPool::Block e = pool.next(1000);  // (slot 0: too small, c held)
  check(e.memory->capacity == 1000 && e.memory.get() != first, "block pool: grows for a larger block");
  pool.release();
  check(pool.current(0, 5) == nullptr && pool.current(1, 4) == nullptr,
        "block pool: every view stale after release()");
}

// The kernels of stored cells (data/cells.hpp) against the converted block:
// the product and the moments by cluster bit for bit, on 1 and 2 threads,
// with a cell stored out of gene order; the first failing cell's error.
void test_stored_cells() {
  const index_t n_cells = 700, n_genes = 300, m = 13, k = 5;
  std::mt19937_64 gen(41);
  std::vector<double> ptr(1, 0.0);
  std::vector<int> value, gene;
  for (index_t c = 0; c < n_cells; ++c) {
    for (index_t g = 0; g < n_genes; ++g) {
      if (c == 9 || gen() % 10 != 0) continue;  // (cell 9 has no counts)
      gene.push_back(static_cast<int>(g));
      value.push_back(1 + static_cast<int>(gen() % (c % 3 == 0 ? 100 : 6)));
    }
    ptr.push_back(static_cast<double>(gene.size()));
  }
  // cell 4's genes in reverse order
  std::reverse(gene.begin() + static_cast<index_t>(ptr[4]), gene.begin() + static_cast<index_t>(ptr[5]));
  std::reverse(value.begin() + static_cast<index_t>(ptr[4]), value.begin() + static_cast<index_t>(ptr[5]));
  const CellNormalization norm(CellTransform::log1p_scaled, 1e4, nullptr);
  auto as_double = [](int v) { return static_cast<double>(v); };
  const index_t nnz = static_cast<index_t>(gene.size());
  std::vector<int> p(n_genes + 1), i(nnz);
  std::vector<double> x(nnz);
  cells_to_rows(value.data(), gene.data(), ptr.data(), n_cells, n_genes, norm, 1.0,
                as_double, p.data(), i.data(), x.data());
  const SparseMatrix rows(p.data(), i.data(), x.data(), n_cells, n_genes);
  std::vector<double> b(n_genes * m);
  for (double& v : b) v = static_cast<double>(gen() % 2001) / 1000.0 - 1.0;
  std::vector<double> want(n_cells * m);
  multiply(rows, b.data(), m, want.data(), 2);
  const StoredCells<int, int, decltype(as_double)> cells(value.data(), gene.data(), ptr.data(),
                                                         n_cells, n_genes, norm, 1.0,
                                                         as_double);
  const std::vector<double> bt = cells_multiply_rows(b.data(), n_genes, m);
  for (int threads : {1, 2}) {
    std::vector<double> got(n_cells * m, -1.0);
    cells_multiply(cells, bt.data(), m, got.data(), n_cells, threads);
    check(got == want, "stored cells times B = the converted block times B, bit for bit, " +
                           std::to_string(threads) + " thread(s)");
  }
  std::vector<int> label(n_cells);
  std::vector<double> w(n_cells);
  for (index_t r = 0; r < n_cells; ++r) {
    label[r] = static_cast<int>((r * 3 + r / 7) % k);
    w[r] = 0.5 + static_cast<double>(r % 4);
  }
  for (const double* wp : {static_cast<const double*>(nullptr), static_cast<const double*>(w.data())}) {
    std::vector<double> s0(k * n_genes, 0.0), z0(k, 0.0), q0(k, 0.0);
    label_moments(rows, label.data(), wp, k, s0.data(), z0.data(), q0.data(), 2);
    for (int threads : {1, 2}) {
      std::vector<double> s1(k * n_genes, 0.0), z1(k, 0.0), q1(k, 0.0);
      cells_label_moments(cells, label.data(), wp, k, s1.data(), z1.data(), q1.data(), threads);
      check(s1 == s0 && z1 == z0 && q1 == q0,
            std::string("moments of stored cells = of the converted block") +
                (wp ? ", weighted" : "") + ", " + std::to_string(threads) + " thread(s)");
    }
  }
  // two bad cells in different tasks: the error names the first
  std::vector<int> bad = gene;
  bad[static_cast<index_t>(ptr[600])] = static_cast<int>(n_genes);
  bad[static_cast<index_t>(ptr[30]) + 1] = bad[static_cast<index_t>(ptr[30])];
  const StoredCells<int, int, decltype(as_double)> broken(value.data(), bad.data(), ptr.data(),
                                                          n_cells, n_genes, norm, 1.0,
                                                          as_double);
  std::vector<double> out(n_cells * m);
  std::string msg;
  try {
    cells_multiply(broken, bt.data(), m, out.data(), n_cells, 2);
  } catch (const std::exception& e) {
    msg = e.what();
  }
  check(msg.find("stored twice at cell 31") != std::string::npos,
        "stored cells: the first bad cell's error (" + msg + ")");
}

// The one transform of the normalizations (data/normalization.hpp) in its
// three layouts and in the conversion of stored cells: log1p(x / s * t), the
// same numbers for counts whichever way the cells are laid out, size
// factors used as given, a cell without counts kept zero; a value that is
// not a count refused, naming its cell; identity copies.
void test_normalization() {
  const index_t n_cells = 40, n_genes = 25;
  std::mt19937_64 gen(7);
  std::vector<double> dense(n_cells * n_genes, 0.0), sf(n_cells);
  for (index_t c = 0; c < n_cells; ++c) {
    sf[c] = 0.5 + static_cast<double>(c % 5) / 4;
    if (c == 3) continue;  // (no counts)
    for (index_t g = 0; g < n_genes; ++g)
      if (gen() % 3 == 0)
        dense[c + n_cells * g] = static_cast<double>(1 + gen() % (c % 2 ? 90 : 7));
  }
  // the same cells as rows (CSC over genes) and as columns (CSC over cells)
  std::vector<int> rp(1, 0), ri, cp(1, 0), value, gene;
  std::vector<double> rx, cx, ptr(1, 0.0);
  for (index_t g = 0; g < n_genes; ++g) {
    for (index_t c = 0; c < n_cells; ++c)
      if (dense[c + n_cells * g] != 0) {
        ri.push_back(static_cast<int>(c));
        rx.push_back(dense[c + n_cells * g]);
      }
    rp.push_back(static_cast<int>(ri.size()));
  }
  for (index_t c = 0; c < n_cells; ++c) {
    for (index_t g = 0; g < n_genes; ++g)
      if (dense[c + n_cells * g] != 0) {
        cx.push_back(dense[c + n_cells * g]);
        value.push_back(static_cast<int>(dense[c + n_cells * g]));
        gene.push_back(static_cast<int>(g));
      }
    cp.push_back(static_cast<int>(cx.size()));
    ptr.push_back(static_cast<double>(cx.size()));
  }
  const index_t nnz = static_cast<index_t>(rx.size());
  auto as_double = [](int v) { return static_cast<double>(v); };
  const double* none = nullptr;
  for (const double* sizes : {none, static_cast<const double*>(sf.data())}) {
    const CellNormalization norm(cell_transform("log1p_scaled"), 1e4, sizes);
    std::vector<double> d_out(dense.size()), r_out(nnz), c_out(nnz), x_out(nnz);
    normalize_dense_rows(dense.data(), n_cells, n_genes, norm, 1.0, d_out.data());
    normalize_sparse_rows(rp.data(), ri.data(), rx.data(), n_cells, n_genes, norm, 1.0,
                          r_out.data());
    normalize_sparse_columns(cp.data(), cx.data(), n_cells, norm, 1.0, c_out.data());
    std::vector<int> p_out(n_genes + 1), i_out(nnz);
    cells_to_rows(value.data(), gene.data(), ptr.data(), n_cells, n_genes, norm, 1.0, as_double,
                  p_out.data(), i_out.data(), x_out.data());
    bool formula = true, same = p_out == rp && i_out == ri && x_out == r_out;
    for (index_t g = 0, t = 0; g < n_genes; ++g)
      for (index_t c = 0; c < n_cells; ++c) {
        const double v = dense[c + n_cells * g];
        double lib = 0.0;
        for (index_t h = 0; h < n_genes; ++h) lib += dense[c + n_cells * h];
        const double s = sizes != nullptr ? sizes[c] : (lib == 0 ? 1.0 : lib);
        formula = formula && d_out[c + n_cells * g] == std::log1p(v / s * 1e4);
        if (v != 0) same = same && d_out[c + n_cells * g] == r_out[t++];
      }
    for (index_t c = 0, u = 0; c < n_cells; ++c)
      for (index_t g = 0; g < n_genes; ++g)
        if (dense[c + n_cells * g] != 0) same = same && c_out[u++] == d_out[c + n_cells * g];
    const std::string with = sizes ? ", size factors" : "";
    check(formula, "normalization: log1p(x / s * t)" + with);
    check(same, "normalization: the same numbers in every layout" + with);
    check(d_out[3] == 0 && d_out[3 + n_cells] == 0,
          "normalization: a cell without counts stays zero");
  }
  std::vector<double> copy(nnz);
  normalize_sparse_rows(rp.data(), ri.data(), rx.data(), n_cells, n_genes, CellNormalization(),
                        1.0, copy.data());
  check(copy == rx, "normalization: identity copies the values");
  std::vector<double> bad = cx;
  bad[static_cast<std::size_t>(cp[7])] = -2;
  std::string msg;
  try {
    normalize_sparse_columns(cp.data(), bad.data(), n_cells,
                             CellNormalization(CellTransform::log1p_scaled, 1e6, nullptr), 11.0,
                             bad.data());
  } catch (const std::domain_error& e) {
    msg = e.what();
  }
  check(msg == "count < 0 at cell 18", "normalization: a value that is not a count (" + msg + ")");
  check(first_non_count(bad.data(), nnz) == cp[7] && first_non_count(cx.data(), nnz) == -1,
        "normalization: the first value that is not a count");
  msg.clear();
  try {
    cell_transform("sqrt");
  } catch (const std::invalid_argument& e) {
    msg = e.what();
  }
  check(msg.find("\"identity\", \"log1p_scaled\", not \"sqrt\"") != std::string::npos,
        "normalization: an unknown transform (" + msg + ")");
}

// Projections: the sign projection (GEMM and mailman, dense and sparse)
// against the explicit product with the sign matrix; the other maps dense
// against sparse.
void test_projections() {
  const Blobs b(301, 70, 3, 41);
  const DenseMatrix a = b.dense();
  const Sparse s(b.x, a.n, a.d);
  const DenseMatrix sd(s.dense_values.data(), a.n, a.d);
  for (index_t dims : {index_t(1), index_t(9), index_t(64), index_t(100)}) {
    const std::uint64_t seed = 1000 + dims;
    const SignMatrix r(seed, a.d, dims);
    std::vector<double> rm(a.d * dims);
    r.panel(0, dims, rm.data());
    std::vector<double> ref(a.n * dims, 0.0), ref_s(a.n * dims, 0.0);
    for (index_t c = 0; c < dims; ++c)
      for (index_t j = 0; j < a.d; ++j)
        for (index_t i = 0; i < a.n; ++i) {
          ref[i + a.n * c] += a(i, j) * rm[j + a.d * c];
          ref_s[i + a.n * c] += sd(i, j) * rm[j + a.d * c];
        }
    std::vector<double> g(a.n * dims), m(a.n * dims), ms(a.n * dims);
    sign_project_gemm(a, dims, seed, g.data(), 2);
    sign_project_mailman(a, dims, seed, m.data(), 2);
    sign_project_mailman(s.m, dims, seed, ms.data(), 2);
    double eg = 0.0, em = 0.0, es = 0.0, scale = 0.0;
    for (index_t t = 0; t < a.n * dims; ++t) {
      scale = std::max(scale, std::fabs(ref[t]));
      eg = std::max(eg, std::fabs(g[t] - ref[t]));
      em = std::max(em, std::fabs(m[t] - ref[t]));
      es = std::max(es, std::fabs(ms[t] - ref_s[t]));
    }
    const double tol = 1e-12 * (scale + 1.0) * static_cast<double>(a.d);
    check(eg <= tol, fmt("sign projection (GEMM), dims %g: error %g", dims, eg));
    check(em <= tol, fmt("sign projection (mailman), dims %g: error %g", dims, em));
    check(es <= tol, fmt("sign projection (mailman, sparse), dims %g: error %g", dims, es));
    std::vector<double> p1(a.n * dims), p2(a.n * dims);
    for (ProjectionKind kind : {ProjectionKind::Gaussian, ProjectionKind::Achlioptas}) {
      random_project(sd, kind, dims, seed, p1.data(), 2);
      random_project(s.m, kind, dims, seed, p2.data(), 1);
      double e = 0.0;
      for (index_t t = 0; t < a.n * dims; ++t) e = std::max(e, std::fabs(p1[t] - p2[t]));
      check(e <= tol, fmt("random projection dense = sparse, dims %g: error %g", dims, e));
    }
    ValueSummary seen;
    sparse_embed(sd, CountSketch(seed, a.d, dims), p1.data(), 2, &seen);
    const ValueSummary scanned = summarize_values(sd.x, sd.n * sd.d);
    check(seen.finite && seen.maxabs == scanned.maxabs,
          fmt("sparse embedding: the values read on the way, dims %g", dims));
    sparse_embed(s.m, CountSketch(seed, a.d, dims), p2.data(), 1);
    double e = 0.0;
    for (index_t t = 0; t < a.n * dims; ++t) e = std::max(e, std::fabs(p1[t] - p2[t]));
    check(e <= tol, fmt("sparse embedding dense = sparse, dims %g: error %g", dims, e));
    if (dims <= next_pow2(a.d)) {
      const SrhtMap map(seed, a.d, dims);
      srht_project(sd, map, p1.data(), 2);
      srht_project(SparseRows(s.m), map, p2.data(), 1);
      double e2 = 0.0;
      for (index_t t = 0; t < a.n * dims; ++t) e2 = std::max(e2, std::fabs(p1[t] - p2[t]));
      check(e2 <= tol, fmt("SRHT dense = sparse, dims %g: error %g", dims, e2));
    }
  }
}

// The sparse embedding of dense A notes a value that is not finite, in any
// row (the vector body and the tail) and any column, at every SIMD level.
void test_embedding_checks() {
  const Blobs b(203, 37, 3, 47);
  std::vector<double> x(b.x.begin(), b.x.end());
  std::vector<double> out(203 * 5);
  const double bad_values[] = {std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()};
  for (index_t pos : {index_t(0), index_t(5), index_t(202), index_t(203 * 20 + 101),
                      index_t(203 * 37 - 1)}) {
    for (double v : bad_values) {
      std::vector<double> y = x;
      y[pos] = v;
      ValueSummary seen;
      sparse_embed(DenseMatrix(y.data(), 203, 37), CountSketch(3, 37, 5), out.data(), 2, &seen);
      check(!seen.finite, fmt("sparse embedding: a value not finite at %g is seen", pos));
    }
  }
}

// Every policy of `Projections`, called by its name: dense and sparse A give
// the same numbers, 1 and 2 threads the same bits, and the FJLT and sign
// policies their kernels' numbers; stream purposes from names are distinct
// from each other and from the numbered ones.
void test_projection_list() {
  const Blobs b(157, 40, 3, 43);
  const Sparse s(b.x, 157, 40);
  const DenseMatrix sd(s.dense_values.data(), 157, 40);
  const std::vector<std::string> names = projection_names();
  check(names.size() == std::tuple_size<Projections>::value, "projection names: one per policy");
  for (const std::string& name : names) {
    ProjectionCall c;
    c.dims = 12;
    c.seed = 99;
    c.density = 0.5;
    std::vector<double> d1(sd.n * c.dims), d2(sd.n * c.dims), sp(sd.n * c.dims);
    c.n_threads = 1;
    project(name, sd, c, d1.data());
    c.n_threads = 2;
    project(name, sd, c, d2.data());
    project(name, s.m, c, sp.data());
    double e = 0.0, scale = 0.0;
    for (std::size_t t = 0; t < d1.size(); ++t) {
      e = std::max(e, std::fabs(d1[t] - sp[t]));
      scale = std::max(scale, std::fabs(d1[t]));
    }
    check(d1 == d2, "projection " + name + ": the same bits on 1 and 2 threads");
    check(e <= 1e-12 * (scale + 1.0) * 40.0, fmt("projection dense = sparse: error %g", e));
  }
  ProjectionCall c;
  c.dims = 7;
  c.seed = 5;
  c.algorithm = "mailman";
  std::vector<double> by_name(sd.n * 7), direct(sd.n * 7);
  project("sign", sd, c, by_name.data());
  sign_project_mailman(sd, 7, 5, direct.data(), 1);
  check(by_name == direct, "projection \"sign\": the mailman kernel's bits");
  std::string msg;
  try {
    project("nope", sd, c, by_name.data());
  } catch (const std::invalid_argument& err) {
    msg = err.what();
  }
  check(msg.find("projection must be one of \"sign\"") == 0, "unknown projection: " + msg);
  constexpr std::uint64_t p1 = stream_purpose("a projection"), p2 = stream_purpose("another");
  check(p1 != p2 && p1 > kStreamSketch && p2 > kStreamSketch, "stream purposes from names");
  check(stream_key(3, p1) != stream_key(3, p2), "streams from names differ");
}

// A background task runs beside its caller; its exception comes back from
// wait(), every time; one run on the calling thread behaves the same.
void test_background() {
  std::vector<double> out(1000, 0.0);
  {
    BackgroundTask task;
    task.start([&out]() {
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(i) * 2.0;
    });
    task.wait();
  }
  check(out[999] == 1998.0 && out[1] == 2.0, "background task: its writes seen after wait()");
  for (int here = 0; here < 2; ++here) {
    BackgroundTask failing;
    auto f = []() { throw std::invalid_argument("bad cell 7"); };
    if (here) failing.run_here(f); else failing.start(f);
    int caught = 0;
    for (int t = 0; t < 2; ++t) {
      try {
        failing.wait();
      } catch (const std::invalid_argument& e) {
        caught += std::string(e.what()) == "bad cell 7" ? 1 : 0;
      }
    }
    check(caught == 2, "background task: its exception rethrown by every wait()");
  }
  {
    BackgroundTask abandoned;  // (destroyed while running: joined)
    abandoned.start([&out]() { out[0] = -1.0; });
  }
  check(out[0] == -1.0, "background task: joined when destroyed");
}

}  // namespace

// The passes over blocks (data/block_passes.hpp): the reduced rows, a sample
// and the row sums of rows read in blocks of 4 are those of the rows whole,
// bit for bit, dense and sparse; blocks without a sampled row are not read.
void test_block_passes() {
  const index_t n = 23, d = 6, m = 3;
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(n * d);
  for (double& v : x) v = u(gen) < 0 ? 0.0 : u(gen);
  const DenseMatrix whole(x.data(), n, d);
  // (rows [r0, r1) as a dense block, and as a column-compressed one)
  std::vector<double> buf;
  std::vector<int> sp, si;
  std::vector<double> sx;
  int reads = 0;
  auto read = [&](bool sparse) {
    return [&, sparse](index_t r0, index_t r1, auto&& g) {
      ++reads;
      const index_t b = r1 - r0;
      buf.assign(b * d, 0.0);
      for (index_t j = 0; j < d; ++j)
        for (index_t i = 0; i < b; ++i) buf[i + b * j] = x[(r0 + i) + n * j];
      if (!sparse) return g(DenseMatrix(buf.data(), b, d));
      sp.assign(1, 0);
      si.clear();
      sx.clear();
      for (index_t j = 0; j < d; ++j) {
        for (index_t i = 0; i < b; ++i) {
          if (buf[i + b * j] == 0) continue;
          si.push_back(static_cast<int>(i));
          sx.push_back(buf[i + b * j]);
        }
        sp.push_back(static_cast<int>(si.size()));
      }
      g(SparseMatrix(sp.data(), si.data(), sx.data(), b, d));
    };
  };
  ProjectionCall c;
  c.dims = m;
  c.seed = 5;
  std::vector<double> sums(n);
  block_row_sums(whole, sums.data());
  const std::vector<index_t> index = {1, 2, 9, 22};
  for (int sparse = 0; sparse < 2; ++sparse) {
    const std::string what = sparse ? "sparse" : "dense";
    // (the rows whole, of the same kind)
    std::vector<double> ref(n * m, 0.0);
    read(sparse)(0, n, [&](const auto& a) { project("gaussian", a, c, ref.data()); });
    std::vector<double> out(n * m, -1.0);
    map_block_rows(n, 4, m, read(sparse), [&](const auto& a, double* part) {
      project("gaussian", a, c, part);
    }, out.data());
    check(out == ref, "block passes (" + what + "): reduced rows of the whole");
    std::vector<double> s(n);
    TakenRows taken(static_cast<index_t>(index.size()), d);
    reads = 0;
    block_pass(n, 4, index, false, read(sparse), [&](const auto& a, index_t r0, std::size_t first,
                                                     std::size_t last) {
      std::vector<index_t> local(index.begin() + first, index.begin() + last);
      for (index_t& r : local) r -= r0;
      taken.take(a, local.data(), static_cast<index_t>(local.size()), first);
      block_row_sums(a, s.data() + r0);
    });
    check(reads == 3, "block passes (" + what + "): only the blocks holding sampled rows read");
    std::vector<double> rows(index.size() * d, 0.0);
    if (taken.sparse()) {
      std::vector<int> p, i;
      std::vector<double> v;
      taken.compressed(p, i, v);
      for (index_t j = 0; j < d; ++j)
        for (int t = p[j]; t < p[j + 1]; ++t) rows[i[t] + index.size() * j] = v[t];
    } else {
      rows = taken.dense();
    }
    bool same = true;
    for (std::size_t t = 0; t < index.size(); ++t)
      for (index_t j = 0; j < d; ++j) same = same && rows[t + index.size() * j] == x[index[t] + n * j];
    check(same && taken.sparse() == (sparse == 1), "block passes (" + what + "): the sample");
    std::vector<double> all(n);
    block_pass(n, 5, {}, true, read(sparse), [&](const auto& a, index_t r0, std::size_t,
                                                 std::size_t) { block_row_sums(a, all.data() + r0); });
    check(all == sums, "block passes (" + what + "): row sums of the whole");
  }
}

int main() {
  const char* req = std::getenv("KMREDUCE_SIMD");
  std::printf("SIMD level: %s (KMREDUCE_SIMD=%s)\n", simd_level_name(), req ? req : "");
  if (req != nullptr) check(std::strcmp(req, simd_level_name()) == 0,
                            std::string("requested SIMD level ") + req + " is the level run");
  test_alignment();
  test_products();
  test_nearest();
  test_kmeans();
  test_lloyd();
  test_stats();
  test_stats_blocks();
  test_label_sums();
  test_two_nearest();
  test_nearest_block();
  test_projections();
  test_projection_list();
  test_embedding_checks();
  test_block_pool();
  test_stored_cells();
  test_normalization();
  test_background();
  test_block_passes();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
