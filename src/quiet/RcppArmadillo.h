// Armadillo (through RcppArmadillo) as a system header, as RcppEigen.h here.
#pragma GCC system_header
#include_next <RcppArmadillo.h>
