// Eigen (through RcppEigen) as a system header: its own warnings (GCC's
// -Wignored-attributes on its SIMD packet types, hundreds of lines per
// translation unit) are not shown; the package's code is compiled with every
// warning it enables. src/Makevars puts this directory first on the include
// path, so that `#include <RcppEigen.h>` (also in the generated
// RcppExports.cpp) comes here and then to the real header.
#pragma GCC system_header
#include_next <RcppEigen.h>
