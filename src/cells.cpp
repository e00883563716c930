// Glue of data/cells.hpp: a block of a 10x file as read by rhdf5 (values
// integer or double, gene indices integer, offsets double) -> a dgCMatrix of
// cells as rows, written straight into the R vectors of its slots.
#include "glue.h"

#include <kmreduce/data/cells.hpp>
#include <kmreduce/runtime/memory.hpp>

// [[Rcpp::export]]
SEXP cells_to_rows_cpp(SEXP value, SEXP gene, Rcpp::NumericVector ptr, int n_genes,
                       bool log1p_cpm, double first_cell) {
  if (TYPEOF(gene) != INTSXP) throw std::invalid_argument("gene indices must be integers");
  const R_xlen_t nnz = Rf_xlength(gene);
  if (Rf_xlength(value) != nnz) throw std::invalid_argument("one value per gene index");
  if (ptr.size() < 1 || ptr[ptr.size() - 1] != static_cast<double>(nnz))
    throw std::invalid_argument("the offsets must end at the number of values");
  if (TYPEOF(value) != INTSXP && TYPEOF(value) != REALSXP)
    throw std::invalid_argument("values must be numbers");
  const kmreduce::index_t n_cells = ptr.size() - 1;
  kmreduce::stored_values(ptr.begin(), n_cells, n_genes);  // (checked before allocating)
  Rcpp::IntegerVector i(Rcpp::no_init(nnz)), p(Rcpp::no_init(n_genes + 1));
  Rcpp::NumericVector x(Rcpp::no_init(nnz));
  // (fresh, untouched memory: advised for huge pages before the scatter)
  kmreduce::advise_huge_pages(INTEGER(i), static_cast<std::size_t>(nnz) * sizeof(int));
  kmreduce::advise_huge_pages(REAL(x), static_cast<std::size_t>(nnz) * sizeof(double));
  if (TYPEOF(value) == INTSXP) {
    // (NA_integer_ is a negative int: a count < 0 with the normalization;
    // without it, made NA here)
    kmreduce::cells_to_rows(INTEGER(value), INTEGER(gene), ptr.begin(), n_cells, n_genes,
                            log1p_cpm, first_cell,
                            [](int v) { return v == NA_INTEGER ? NA_REAL : static_cast<double>(v); },
                            INTEGER(p), INTEGER(i), REAL(x));
  } else {
    kmreduce::cells_to_rows(REAL(value), INTEGER(gene), ptr.begin(), n_cells, n_genes,
                            log1p_cpm, first_cell, [](double v) { return v; },
                            INTEGER(p), INTEGER(i), REAL(x));
  }
  Rcpp::S4 m("dgCMatrix");
  m.slot("i") = i;
  m.slot("p") = p;
  m.slot("x") = x;
  m.slot("Dim") = Rcpp::IntegerVector::create(static_cast<int>(n_cells), n_genes);
  return m;
}
