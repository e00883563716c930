"""scikit-learn side of bench/speed.R: reads the matrix written by R and prints
one line per run: name seconds objective (objective on the ORIGINAL data)."""
import sys, time
import numpy as np
from sklearn.cluster import KMeans
from sklearn.random_projection import SparseRandomProjection
from sklearn.utils.extmath import randomized_svd

path, n, d, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
x = np.fromfile(path, dtype=np.float64).reshape((n, d), order="F")
x = np.ascontiguousarray(x)

def objective(labels):
    tot = 0.0
    for q in np.unique(labels):
        xq = x[labels == q]
        tot += ((xq - xq.mean(axis=0)) ** 2).sum()
    return tot

def best_of(f, reps=3):
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter(); out = f(); best = min(best, time.perf_counter() - t)
    return best, out

for algo in ("lloyd", "elkan"):
    t, km = best_of(lambda: KMeans(k, algorithm=algo, n_init=1, max_iter=100, random_state=1).fit(x))
    print(f"sklearn_kmeans_{algo} {t:.4f} {objective(km.labels_):.6e}")
def srp_kmeans():
    c = SparseRandomProjection(100, random_state=1).fit_transform(x)
    return KMeans(k, algorithm="lloyd", n_init=1, max_iter=100, random_state=1).fit(c)
t, km = best_of(srp_kmeans)
print(f"sklearn_srp100_kmeans {t:.4f} {objective(km.labels_):.6e}")
if "nosvd" not in sys.argv[5:]:
    t, (u, s, vt) = best_of(lambda: randomized_svd(x, 10, random_state=1))
    print(f"sklearn_randomized_svd {t:.4f} {s[0]:.6e}")
