"""scikit-learn side of bench/speed/n_init.R: reads the matrix written by R and prints
one line per run: name n_init seconds objective (objective on the ORIGINAL
data). Arguments: path n d k n_inits(comma-separated) [nosvd] [reps=R] [seeds=S]
(seeds: also the mean objective of SparseRandomProjection(100) + KMeans over
random_state 1..S, one fit each: a projection's objective is a draw)."""
import sys, time
import numpy as np
from sklearn.cluster import KMeans
from sklearn.random_projection import SparseRandomProjection
from sklearn.utils.extmath import randomized_svd

path, n, d, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
n_inits = [int(v) for v in sys.argv[5].split(",")]
extra = sys.argv[6:]
reps = 3
seeds = 0
for e in extra:
    if e.startswith("reps="):
        reps = int(e[5:])
    if e.startswith("seeds="):
        seeds = int(e[6:])
x = np.fromfile(path, dtype=np.float64).reshape((n, d), order="F")
x = np.ascontiguousarray(x)

def objective(labels):
    tot = 0.0
    for q in np.unique(labels):
        xq = x[labels == q]
        tot += ((xq - xq.mean(axis=0)) ** 2).sum()
    return tot

def best_of(f, reps=reps):
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter(); out = f(); best = min(best, time.perf_counter() - t)
    return best, out

for n_init in n_inits:
    algos = ("lloyd", "elkan") if n_init == 1 else ("lloyd",)
    for algo in algos:
        t, km = best_of(lambda: KMeans(k, algorithm=algo, n_init=n_init, max_iter=100,
                                       random_state=1).fit(x))
        print(f"sklearn_kmeans_{algo} {n_init} {t:.4f} {objective(km.labels_):.6e}", flush=True)
    def srp_kmeans():
        c = SparseRandomProjection(100, random_state=1).fit_transform(x)
        return KMeans(k, algorithm="lloyd", n_init=n_init, max_iter=100, random_state=1).fit(c)
    t, km = best_of(srp_kmeans)
    print(f"sklearn_srp100_kmeans {n_init} {t:.4f} {objective(km.labels_):.6e}", flush=True)
    if seeds > 0:
        objs = []
        for s in range(1, seeds + 1):
            c = SparseRandomProjection(100, random_state=s).fit_transform(x)
            km = KMeans(k, algorithm="lloyd", n_init=n_init, max_iter=100, random_state=s).fit(c)
            objs.append(objective(km.labels_))
        print(f"sklearn_srp100_kmeans_seeds {n_init} NA {np.mean(objs):.6e}", flush=True)
if "nosvd" not in extra:
    t, (u, s, vt) = best_of(lambda: randomized_svd(x, 10, random_state=1))
    print(f"sklearn_randomized_svd 1 {t:.4f} {s[0]:.6e}", flush=True)
