"""scikit-learn and FAISS side of bench/scale/bigk.R.

Usage: python3 bench/peers/sklearn_bigk.py DATA K SEEDS THREADS

DATA: two float64 values (n, d) then the n x d matrix, float64, column-major,
little-endian (written by bench/scale/bigk.R). SEEDS: how many seeds (1, 2, ...).
Fits KMeans(K, n_init=1, random_state=seed, max_iter=300, tol=1e-4; greedy
k-means++) with algorithm "elkan" for every seed and "lloyd" for seed 1;
and, when the faiss module is installed, faiss.Kmeans (float32, niter=50,
k-means++ is not FAISS's: it seeds by random rows) for seed 1, its objective
computed in float64 on the data. Prints one line per fit:

    algorithm seed seconds objective n_iter

The BLAS numpy uses is the one the dynamic loader finds (bench/scale/bigk.R
points it at OpenBLAS when Debian's is installed).
"""
import sys
import time

import numpy as np
from sklearn.cluster import KMeans

a = np.fromfile(sys.argv[1], dtype="<f8")
n, d = int(a[0]), int(a[1])
x = np.ascontiguousarray(a[2:].reshape((n, d), order="F"))
del a
k, seeds, threads = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
runs = [("elkan", s) for s in range(1, seeds + 1)] + [("lloyd", 1)]
for algo, seed in runs:
    t = time.perf_counter()
    km = KMeans(n_clusters=k, n_init=1, algorithm=algo, random_state=seed).fit(x)
    print(f"{algo} {seed} {time.perf_counter() - t:.4f} {km.inertia_:.8e} {km.n_iter_}", flush=True)

try:
    import faiss
except ImportError:
    faiss = None
if faiss is not None:
    faiss.omp_set_num_threads(threads)
    x32 = x.astype(np.float32)
    t = time.perf_counter()
    km = faiss.Kmeans(d, k, niter=50, seed=1, verbose=False)
    km.train(x32)
    _, lab = km.index.search(x32, 1)
    elapsed = time.perf_counter() - t
    c = km.centroids.astype(np.float64)
    obj = float(((x - c[lab[:, 0]]) ** 2).sum())
    print(f"faiss 1 {elapsed:.4f} {obj:.8e} 50", flush=True)
