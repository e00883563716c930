// Rcpp as a system header, as RcppEigen.h here (under -Wextra its routine
// registration casts warn in every translation unit).
#pragma GCC system_header
#include_next <Rcpp.h>
