// Eigen (through RcppEigen) as a system header: its own warnings (GCC's
// -Wignored-attributes on its SIMD packet types, hundreds of lines per
// translation unit) are not shown; the package's code is compiled with every
// warning it enables. src/Makevars puts this directory first on the include
// path, so that `#include <RcppEigen.h>` (in the generated RcppExports.cpp)
// and `#include <Eigen/Dense>` (the core's headers, Eigen/Dense here) come
// here and then to the real headers.
#pragma GCC system_header
#include_next <RcppEigen.h>
