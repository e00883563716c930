"""scikit-learn side of bench/quality/quality_optima.R.

Usage: python3 bench/peers/sklearn_optima.py DATA K SEED [SEED ...]

DATA is the binary file written by quality_optima.R: two float64 values
(n, d) followed by the n x d matrix as float64 in column-major order, all
little-endian. For each seed, fits KMeans(n_clusters=K, n_init=10,
algorithm="lloyd", random_state=SEED) (greedy k-means++ seeding,
scikit-learn's defaults otherwise: max_iter=300, tol=1e-4) and prints one line:

    seed seconds inertia n_iter

where seconds is the elapsed time of fit() and inertia is `inertia_` (the
k-means objective: within-cluster sum of squares). Thread counts follow
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS, which the R script sets.
"""
import sys
import time

import numpy as np
from sklearn.cluster import KMeans


def read_matrix(path):
    a = np.fromfile(path, dtype="<f8")
    n, d = int(a[0]), int(a[1])
    if a.size != 2 + n * d:
        sys.exit(f"{path}: expected {2 + n * d} values, found {a.size}")
    # Column-major on disk; KMeans wants C order (it would copy otherwise
    # inside the timed fit()).
    return np.ascontiguousarray(a[2:].reshape((n, d), order="F"))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    x = read_matrix(sys.argv[1])
    k = int(sys.argv[2])
    for seed in (int(s) for s in sys.argv[3:]):
        t0 = time.perf_counter()
        km = KMeans(n_clusters=k, n_init=10, algorithm="lloyd",
                    random_state=seed).fit(x)
        seconds = time.perf_counter() - t0
        print(f"{seed} {seconds:.4f} {km.inertia_:.10e} {km.n_iter_}", flush=True)


if __name__ == "__main__":
    main()
