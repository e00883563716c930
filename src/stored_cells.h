// Glue of data/cells.hpp shared by the files that read a block of a 10x
// file as stored (read_cells.cpp: conversion and products; fit_stats.cpp:
// the statistics' one pass): the block's checks, its normalization
// (data/normalization.hpp) and its StoredCells view.
#ifndef KMREDUCE_STORED_CELLS_H
#define KMREDUCE_STORED_CELLS_H

#include "glue.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <kmreduce/data/cells.hpp>
#include <kmreduce/data/normalization.hpp>

namespace {

// An integer count as a double, NA_integer_ as NA (NaN): a count that is
// missing, not a negative one. Made on R's thread (it holds R's NA), used
// on any.
struct IntAsDouble {
  double na = NA_REAL;
  double operator()(int v) const { return v == NA_INTEGER ? na : static_cast<double>(v); }
};

// The normalization of a block of n_cells cells as R gives it: the name of
// its transform (data/normalization.hpp), its target (0: none, whatever the
// transform) and its size factors (NULL or one double per cell), checked.
inline kmreduce::CellNormalization block_normalization(const std::string& transform,
                                                       double target, SEXP size_factors,
                                                       R_xlen_t n_cells) {
  if (!(target >= 0) || !std::isfinite(target))
    throw std::invalid_argument("the normalization's target must be a finite number >= 0");
  if (size_factors != R_NilValue &&
      (TYPEOF(size_factors) != REALSXP || Rf_xlength(size_factors) != n_cells))
    throw std::invalid_argument("size factors must be one double per cell");
  const kmreduce::CellTransform f = kmreduce::cell_transform(transform);
  if (target == 0 || f == kmreduce::CellTransform::identity) return kmreduce::CellNormalization();
  return kmreduce::CellNormalization(f, target,
                                     size_factors == R_NilValue ? nullptr : REAL(size_factors));
}

// Checks a block as read (values, gene indices, offsets) and its
// normalization's arguments (block_normalization()) before any core code
// reads them: its number of stored values.
inline R_xlen_t checked_block(SEXP value, SEXP gene, const Rcpp::NumericVector& ptr, int n_genes,
                              const std::string& transform, double target, SEXP size_factors) {
  if (TYPEOF(gene) != INTSXP) throw std::invalid_argument("gene indices must be integers");
  if (TYPEOF(value) != INTSXP && TYPEOF(value) != REALSXP)
    throw std::invalid_argument("values must be numbers");
  if (ptr.size() < 1) throw std::invalid_argument("no offsets");
  block_normalization(transform, target, size_factors, ptr.size() - 1);
  const double last = ptr[ptr.size() - 1];
  if (!(last >= 0) || last > static_cast<double>(Rf_xlength(gene)) ||
      last > static_cast<double>(Rf_xlength(value)))
    throw std::invalid_argument("the offsets must end within the values and gene indices");
  kmreduce::stored_values(ptr.begin(), ptr.size() - 1, n_genes);
  return static_cast<R_xlen_t>(last);
}

// Calls f(cells) with the StoredCells (data/cells.hpp) of a block as read,
// given as one list (stored_cells() in R/source_tenx.R): x (the values,
// integer or double), i (gene indices), ptr (offsets), n_genes, its
// normalization (transform, by default "log1p_scaled"; target; size_factors,
// NULL or one per cell: block_normalization()), first_cell; checked first
// (checked_block()).
template <class F>
void with_stored_cells(const Rcpp::List& block, F f) {
  for (const char* name : {"x", "i", "ptr", "n_genes", "target", "size_factors", "first_cell"})
    if (!block.containsElementNamed(name))
      throw std::invalid_argument(std::string("a block of stored cells without `") + name + "`");
  const SEXP value = block["x"], gene = block["i"], size_factors = block["size_factors"];
  if (TYPEOF(VECTOR_ELT(block, block.findName("ptr"))) != REALSXP)
    throw std::invalid_argument("offsets must be doubles");
  const Rcpp::NumericVector ptr = block["ptr"];
  const int n_genes = Rcpp::as<int>(block["n_genes"]);
  const double target = Rcpp::as<double>(block["target"]);
  const double first_cell = Rcpp::as<double>(block["first_cell"]);
  const std::string transform = block.containsElementNamed("transform") ?
      Rcpp::as<std::string>(block["transform"]) : std::string("log1p_scaled");
  checked_block(value, gene, ptr, n_genes, transform, target, size_factors);
  const kmreduce::index_t n_cells = ptr.size() - 1;
  const kmreduce::CellNormalization norm =
      block_normalization(transform, target, size_factors, n_cells);
  if (TYPEOF(value) == INTSXP) {
    f(kmreduce::StoredCells<int, int, IntAsDouble>(INTEGER(value), INTEGER(gene), ptr.begin(),
                                                   n_cells, n_genes, norm, first_cell,
                                                   IntAsDouble()));
  } else {
    auto same = [](double v) { return v; };
    f(kmreduce::StoredCells<double, int, decltype(same)>(REAL(value), INTEGER(gene), ptr.begin(),
                                                         n_cells, n_genes, norm, first_cell,
                                                         same));
  }
}

}  // namespace

#endif  // KMREDUCE_STORED_CELLS_H
