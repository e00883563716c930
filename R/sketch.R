# The replicates on a sketch of the rows (control$sketch_rows; the sketch
# itself is inst/include/kmreduce/cluster/sketch.hpp, its use kmeans.hpp;
# its size as run is resolve_options() of kmeans_options.hpp): the passes
# over the rows by stage that the fit reports.

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

