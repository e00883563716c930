"""scikit-learn side of bench/speed/speed.R (the README's comparison): reads the
matrix written by R and prints one line per call, as a user writes it:

  kmeans          KMeans(n_clusters=k, n_init=10, random_state=1).fit(x)
  srp100_kmeans   SparseRandomProjection(n_components=100, random_state=1)
                  .fit_transform(x), then that KMeans on it
  randomized_svd  randomized_svd(x, 10, random_state=1)

Every other parameter is scikit-learn's default (1.2: init="k-means++",
max_iter=300, tol=1e-4, algorithm="lloyd"); n_init=10 is given because 1.2
warns that its default will change. Each line: name seconds value, where
seconds is the best of `reps` runs and value the k-means objective on the
ORIGINAL data (for randomized_svd the top singular value). The first line,
starting with "#", gives scikit-learn's version and the BLAS numpy runs on.
Arguments: path n d k reps."""
import sys, time
import numpy as np
import sklearn
from sklearn.cluster import KMeans
from sklearn.random_projection import SparseRandomProjection
from sklearn.utils.extmath import randomized_svd

path, n, d, k, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
x = np.fromfile(path, dtype=np.float64).reshape((n, d), order="F")
x = np.ascontiguousarray(x)

blas = "unknown"
try:
    from threadpoolctl import threadpool_info
    info = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    if info:
        blas = "%s %s (%s threads)" % (info[0].get("internal_api"), info[0].get("version"),
                                        info[0].get("num_threads"))
except Exception:
    pass
print(f"# scikit-learn {sklearn.__version__}; numpy {np.__version__}; numpy's BLAS: {blas}", flush=True)


def objective(labels):
    tot = 0.0
    for q in np.unique(labels):
        xq = x[labels == q]
        tot += ((xq - xq.mean(axis=0)) ** 2).sum()
    return tot


def best_of(f):
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter(); out = f(); best = min(best, time.perf_counter() - t)
    return best, out


def kmeans(data):
    return KMeans(n_clusters=k, n_init=10, random_state=1).fit(data)


t, km = best_of(lambda: kmeans(x))
print(f"kmeans {t:.4f} {objective(km.labels_):.6e}", flush=True)
t, km = best_of(lambda: kmeans(SparseRandomProjection(n_components=100, random_state=1).fit_transform(x)))
print(f"srp100_kmeans {t:.4f} {objective(km.labels_):.6e}", flush=True)
t, (u, s, vt) = best_of(lambda: randomized_svd(x, 10, random_state=1))
print(f"randomized_svd {t:.4f} {s[0]:.6e}", flush=True)
