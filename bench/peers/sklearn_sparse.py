"""scikit-learn side of bench/speed/newsgroups.R: reads the dgCMatrix slots written
by R (column-compressed), converts to CSR once (not timed) and prints
  sklearn_srp100 seconds
  sklearn_srp100_kmeans seconds objective accuracy
(objective on the ORIGINAL data, as kmreduce reports it; accuracy against
the 20 classes, best one-to-one matching)."""
import sys, os, time
import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.random_projection import SparseRandomProjection

d, n, m, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
p = np.fromfile(os.path.join(d, "p.bin"), dtype=np.int32)
i = np.fromfile(os.path.join(d, "i.bin"), dtype=np.int32)
v = np.fromfile(os.path.join(d, "x.bin"), dtype=np.float64)
x = sp.csc_matrix((v, i, p), shape=(n, m)).tocsr()
truth = np.fromfile(os.path.join(d, "truth.bin"), dtype=np.int32)

def best_of(f, reps):
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter(); out = f(); best = min(best, time.perf_counter() - t)
    return best, out

def accuracy(labels):
    # best one-to-one matching of clusters and classes (Hungarian algorithm)
    from scipy.optimize import linear_sum_assignment
    t = np.zeros((labels.max() + 1, truth.max() + 1))
    np.add.at(t, (labels, truth), 1)
    r, c = linear_sum_assignment(-t)
    return t[r, c].sum() / len(labels)

def objective(labels):
    tot = 0.0
    for q in np.unique(labels):
        xq = x[labels == q]
        mu = np.asarray(xq.mean(axis=0)).ravel()
        tot += xq.multiply(xq).sum() - xq.shape[0] * (mu @ mu)
    return tot

t, _ = best_of(lambda: SparseRandomProjection(100, random_state=1).fit_transform(x), 5)
print(f"sklearn_srp100 {t:.5f}")
def pipeline():
    c = SparseRandomProjection(100, random_state=1).fit_transform(x)
    return KMeans(k, algorithm="lloyd", n_init=1, max_iter=100, random_state=1).fit(c)
t, km = best_of(pipeline, 3)
print(f"sklearn_srp100_kmeans {t:.5f} {objective(km.labels_):.6e} {accuracy(km.labels_):.4f}")
