// One translation unit for the k-means glue (see Makevars: a unity build):
// the three files instantiate the core's k-means templates (Lloyd, the
// seedings, the polish, the kernels) on the same row types, so compiled
// together each instance is compiled once, not once per file.
#include "fit_kmeans.cpp"
#include "fit_stats.cpp"
#include "test_hooks.cpp"
