// Glue of data/cells.hpp: a block of a 10x file as read by rhdf5 (values
// integer or double, gene indices integer, offsets double) -> a dgCMatrix of
// cells as rows.
#include "glue.h"

#include <kmreduce/data/cells.hpp>

// [[Rcpp::export]]
SEXP cells_to_rows_cpp(SEXP value, SEXP gene, Rcpp::NumericVector ptr, int n_genes,
                       bool log1p_cpm, double first_cell) {
  if (TYPEOF(gene) != INTSXP) throw std::invalid_argument("gene indices must be integers");
  const R_xlen_t nnz = Rf_xlength(gene);
  if (Rf_xlength(value) != nnz) throw std::invalid_argument("one value per gene index");
  if (ptr.size() < 1 || ptr[ptr.size() - 1] != static_cast<double>(nnz))
    throw std::invalid_argument("the offsets must end at the number of values");
  const kmreduce::index_t n_cells = ptr.size() - 1;
  kmreduce::CellRows r;
  if (TYPEOF(value) == INTSXP) {
    // (NA_integer_ is a negative int: a count < 0 with the normalization;
    // without it, made NA here)
    std::vector<double> v(nnz);
    const int* iv = INTEGER(value);
    for (R_xlen_t t = 0; t < nnz; ++t) v[t] = iv[t] == NA_INTEGER ? NA_REAL : iv[t];
    r = kmreduce::cells_to_rows(v.data(), INTEGER(gene), ptr.begin(), n_cells, n_genes,
                                log1p_cpm, first_cell);
  } else if (TYPEOF(value) == REALSXP) {
    r = kmreduce::cells_to_rows(REAL(value), INTEGER(gene), ptr.begin(), n_cells, n_genes,
                                log1p_cpm, first_cell);
  } else {
    throw std::invalid_argument("values must be numbers");
  }
  Rcpp::S4 m("dgCMatrix");
  m.slot("i") = Rcpp::IntegerVector(r.i.begin(), r.i.end());
  m.slot("p") = Rcpp::IntegerVector(r.p.begin(), r.p.end());
  m.slot("x") = Rcpp::NumericVector(r.x.begin(), r.x.end());
  m.slot("Dim") = Rcpp::IntegerVector::create(static_cast<int>(n_cells), n_genes);
  return m;
}
