// One translation unit for the files that parse Armadillo (see Makevars: a
// unity build): the decompositions' glue and the generated exports.
#include "decompositions.cpp"
#include "RcppExports.cpp"
