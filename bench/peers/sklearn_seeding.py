"""scikit-learn side of bench/speed/seeding.R.

Usage: python3 bench/peers/sklearn_seeding.py DATA K N_INIT REPS

DATA: two float64 values (n, d) then the n x d matrix, float64, column-major,
little-endian. Fits KMeans(K, init="k-means++", n_init=N_INIT,
algorithm="lloyd", random_state=1) REPS times; prints "seconds objective"
(best time, the inertia of the last fit).
"""
import sys
import time

import numpy as np
from sklearn.cluster import KMeans

a = np.fromfile(sys.argv[1], dtype="<f8")
n, d = int(a[0]), int(a[1])
x = np.ascontiguousarray(a[2:].reshape((n, d), order="F"))
del a
k, n_init, reps = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
best = float("inf")
for _ in range(reps):
    t = time.perf_counter()
    km = KMeans(n_clusters=k, init="k-means++", n_init=n_init, algorithm="lloyd",
                random_state=1).fit(x)
    best = min(best, time.perf_counter() - t)
print(f"{best:.4f} {km.inertia_:.10e}", flush=True)
