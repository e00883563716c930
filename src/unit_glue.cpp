// One translation unit for the rest of the glue (see Makevars: a unity
// build): R's, Rcpp's and Eigen's headers parsed once, not once per file.
#include "reduce.cpp"
#include "read_cells.cpp"
#include "checks.cpp"
#include "choose_k.cpp"
#include "threads.cpp"
#include "trace_printer.cpp"
#include "tenx_hdf5.cpp"
