// Glue: validation of R objects before the core reads them, and the scans
// of the input checks (distinct rows, non-finite and largest values).
#include "glue.h"

#include <cstdio>
#include <string>

#if !defined(_WIN32)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include <kmreduce/data/distinct_rows.hpp>
#include <kmreduce/runtime/scan.hpp>

namespace {
std::string slot_type(SEXP s) { return Rf_type2char(TYPEOF(s)); }
}  // namespace

// "" when the slots of a dgCMatrix describe a valid compressed sparse column
// matrix, else what is wrong. O(nnz); reads nothing out of bounds.
// [[Rcpp::export]]
std::string sparse_problem_cpp(SEXP x) {
  SEXP dim = R_do_slot(x, Rf_install("Dim"));
  SEXP p = R_do_slot(x, Rf_install("p"));
  SEXP i = R_do_slot(x, Rf_install("i"));
  SEXP v = R_do_slot(x, Rf_install("x"));
  if (TYPEOF(dim) != INTSXP || XLENGTH(dim) != 2)
    return "its @Dim slot is not two integers";
  const int n = INTEGER(dim)[0], d = INTEGER(dim)[1];
  if (n == NA_INTEGER || d == NA_INTEGER || n < 0 || d < 0)
    return "its @Dim slot has a negative or missing size";
  if (TYPEOF(p) != INTSXP) return "its @p slot is " + slot_type(p) + ", not integer";
  if (TYPEOF(i) != INTSXP) return "its @i slot is " + slot_type(i) + ", not integer";
  if (TYPEOF(v) != REALSXP) return "its @x slot is " + slot_type(v) + ", not double";
  if (XLENGTH(p) != static_cast<R_xlen_t>(d) + 1)
    return "its @p slot has " + std::to_string(XLENGTH(p)) + " entries for " +
           std::to_string(d) + " columns (expected " + std::to_string(d + 1L) + ")";
  const int* pp = INTEGER(p);
  const int* ii = INTEGER(i);
  if (pp[0] != 0) return "its @p slot does not start at 0";
  for (int j = 0; j < d; ++j) {
    if (pp[j + 1] == NA_INTEGER || pp[j + 1] < pp[j])
      return "its @p slot decreases (or is NA) at column " + std::to_string(j + 1);
  }
  const R_xlen_t nnz = pp[d];
  if (XLENGTH(i) != nnz)
    return "its @i slot has " + std::to_string(XLENGTH(i)) + " entries, @p says " +
           std::to_string(nnz);
  if (XLENGTH(v) != nnz)
    return "its @x slot has " + std::to_string(XLENGTH(v)) + " entries, @p says " +
           std::to_string(nnz);
  for (int j = 0; j < d; ++j) {
    for (int t = pp[j]; t < pp[j + 1]; ++t) {
      if (ii[t] == NA_INTEGER || ii[t] < 0 || ii[t] >= n)
        return "its @i slot has row index " +
               (ii[t] == NA_INTEGER ? std::string("NA") : std::to_string(ii[t])) +
               " (0-based) outside [0, " + std::to_string(n - 1) + "] in column " +
               std::to_string(j + 1);
      if (t > pp[j] && ii[t] <= ii[t - 1])
        return "its @i slot is not strictly increasing within column " + std::to_string(j + 1);
    }
  }
  return "";
}

// [[Rcpp::export]]
bool has_distinct_rows_cpp(SEXP x, double k) {
  return glue::with_matrix(x, [&](const auto& a) {
    return kmreduce::has_distinct_rows(a, static_cast<kmreduce::index_t>(k));
  });
}

// [[Rcpp::export]]
double distinct_rows_cpp(SEXP x) {
  return static_cast<double>(glue::with_matrix(
      x, [](const auto& a) { return kmreduce::distinct_rows(a); }));
}

// The distinct row hashes of x, as 16 hexadecimal digits each (R compares
// strings exactly; 64-bit integers have no R type).
// [[Rcpp::export]]
Rcpp::CharacterVector distinct_row_keys_cpp(SEXP x) {
  const std::vector<std::uint64_t> h = glue::with_matrix(
      x, [](const auto& a) { return kmreduce::distinct_row_hashes(a); });
  Rcpp::CharacterVector out(h.size());
  char buf[17];
  for (std::size_t r = 0; r < h.size(); ++r) {
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h[r]));
    out[r] = buf;
  }
  return out;
}

// One pass over the values: number of non-finite ones, the first (1-based),
// and the largest finite magnitude. R's range() would copy the data.
// [[Rcpp::export]]
Rcpp::List scan_values_cpp(SEXP v) {
  const kmreduce::ScanResult s = kmreduce::scan_values(REAL(v), XLENGTH(v));
  return Rcpp::List::create(Rcpp::Named("nonfinite") = static_cast<double>(s.nonfinite),
                            Rcpp::Named("first") = static_cast<double>(s.first + 1),
                            Rcpp::Named("maxabs") = s.maxabs);
}

// The address-space limit of this process (getrlimit(RLIMIT_AS), `ulimit
// -v`; Inf when there is none) and the address space it uses now (bytes;
// NA where /proc/self/statm is not available): what an allocation can still
// get besides the memory the system has (check_memory() in R/checks_args.R).
// [[Rcpp::export]]
Rcpp::NumericVector address_space_cpp() {
  double limit = R_PosInf, used = NA_REAL;
#if !defined(_WIN32)
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limit = static_cast<double>(rl.rlim_cur);
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long pages = 0;
    if (std::fscanf(f, "%lu", &pages) == 1)
      used = static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE));
    std::fclose(f);
  }
#endif
  return Rcpp::NumericVector::create(Rcpp::Named("limit") = limit, Rcpp::Named("used") = used);
}
