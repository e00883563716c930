"""scikit-learn side of bench/bigk.R.

Usage: python3 bench/sklearn_bigk.py DATA K SEED

DATA: two float64 values (n, d) then the n x d matrix, float64, column-major,
little-endian (written by bench/bigk.R). Fits KMeans(K, n_init=1,
random_state=SEED) with algorithm "lloyd" and "elkan" (greedy k-means++,
max_iter=300, tol=1e-4) and prints one line per fit:

    algorithm seconds inertia n_iter
"""
import sys
import time

import numpy as np
from sklearn.cluster import KMeans

a = np.fromfile(sys.argv[1], dtype="<f8")
n, d = int(a[0]), int(a[1])
x = np.ascontiguousarray(a[2:].reshape((n, d), order="F"))
del a
k, seed = int(sys.argv[2]), int(sys.argv[3])
for algo in ("lloyd", "elkan"):
    t = time.perf_counter()
    km = KMeans(n_clusters=k, n_init=1, algorithm=algo, random_state=seed).fit(x)
    print(f"{algo} {time.perf_counter() - t:.4f} {km.inertia_:.8e} {km.n_iter_}", flush=True)
