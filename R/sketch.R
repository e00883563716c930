# The replicates on a sketch of the rows (control$sketch_rows; the sketch
# itself is inst/include/kmreduce/cluster/sketch.hpp, its use kmeans.hpp):
# its size, and the passes over the rows by stage that the fit reports.

# The rows of each sketch the replicates run on (control$sketch_rows; 0:
# all rows, as C++ reads it). "auto": m = max(2000, 100 k), about 100 rows
# per cluster, when the rows are at least 10 m (the three sketches then
# hold under a third of them) and there are several replicates (a single
# one costs less on all rows than three sketches and their lifts). Chosen
# from bench/speed/sketch_size.R and bench/quality/sketch_quality.R; their
# figures are in bench/RESULTS.md ("Replicates on a sketch").
sketch_rows_for <- function(control, k, n, n_init = 2L) {
  m <- control$sketch_rows
  if (identical(m, "auto")) {
    m <- max(2000, 100 * k)
    if (n < 10 * m || n_init < 2L) m <- 0
  }
  if (!is.finite(m) || m >= n) 0 else as.double(m)
}

# The passes of k-means over the clustered rows by stage (C++: sketch,
# replicates, lift, lloyd, polish; from given centres Lloyd alone), and the
# statistics' pass over the original rows.
kmeans_passes <- function(km) {
  p <- km$passes
  if (is.null(p)) p <- c(sketch = 0, replicates = 0, lift = 0, lloyd = km$iter, polish = 0)
  c(p, statistics = 1)
}

# One line of the passes by stage, for trace and verbose.
passes_line <- function(passes, method) {
  sprintf("passes over the %s rows: %s", if (method == "none") "data's" else "reduced",
          paste(sprintf("%s %g", names(passes), passes), collapse = ", "))
}

