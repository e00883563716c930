// Glue of data/cells.hpp: a block of a 10x file as read by rhdf5 (values
// integer or double, gene indices integer, offsets double) -> a dgCMatrix of
// cells as rows, written straight into the R vectors of its slots.
//
// The conversion can run on a thread of its own while R reads the next
// block from the file (cells_to_rows_start(), then cells_to_rows_finish()):
// the vectors are allocated and checked here, on R's thread; the worker
// only reads and writes their memory (no R API), and the job (an external
// pointer) keeps them alive and joins its thread before it is freed, also
// when R abandons it after an error.
#include "glue.h"

#include <exception>
#include <thread>
#ifndef _WIN32
#include <unistd.h>
#endif

#include <kmreduce/data/cells.hpp>
#include <kmreduce/runtime/memory.hpp>

namespace {

inline long process_id() {
#ifndef _WIN32
  return static_cast<long>(getpid());
#else
  return 0;
#endif
}

struct CellsJob {
  int n_cells = 0, n_genes = 0;
  long pid = process_id();  // the process that started the worker
  std::thread worker;
  std::exception_ptr error;
  Rcpp::List keep;  // inputs and outputs (also protected by the external pointer)
  ~CellsJob() {
    if (!worker.joinable()) return;
    // A job abandoned by an error and collected in a forked child (mclapply)
    // has no worker there: it is let go, never waited for.
    if (process_id() == pid) {
      worker.join();
    } else {
      worker.detach();
    }
  }
};

SEXP cells_job(SEXP value, SEXP gene, const Rcpp::NumericVector& ptr, int n_genes,
               bool log1p_cpm, double first_cell, bool in_thread) {
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
  CellsJob* job = new CellsJob();
  job->n_cells = static_cast<int>(n_cells);
  job->n_genes = n_genes;
  job->keep = Rcpp::List::create(Rcpp::Named("value") = value, Rcpp::Named("gene") = gene,
                                 Rcpp::Named("ptr") = ptr, Rcpp::Named("i") = i,
                                 Rcpp::Named("p") = p, Rcpp::Named("x") = x);
  Rcpp::XPtr<CellsJob> handle(job, true, R_NilValue, job->keep);
  const double na = NA_REAL;
  const bool ints = TYPEOF(value) == INTSXP;
  const int* iv = ints ? INTEGER(value) : nullptr;
  const double* dv = ints ? nullptr : REAL(value);
  const int* g = INTEGER(gene);
  const double* pp = ptr.begin();
  int* po = INTEGER(p);
  int* io = INTEGER(i);
  double* xo = REAL(x);
  auto run = [=]() {
    try {
      if (ints) {
        // (NA_integer_ is a negative int: a count < 0 with the
        // normalization; without it, made NA here)
        kmreduce::cells_to_rows(iv, g, pp, n_cells, n_genes, log1p_cpm, first_cell,
                                [na](int v) { return v == NA_INTEGER ? na : static_cast<double>(v); },
                                po, io, xo);
      } else {
        kmreduce::cells_to_rows(dv, g, pp, n_cells, n_genes, log1p_cpm, first_cell,
                                [](double v) { return v; }, po, io, xo);
      }
    } catch (...) {
      job->error = std::current_exception();
    }
  };
  if (in_thread) {
    job->worker = std::thread(run);
  } else {
    run();
  }
  return handle;
}

}  // namespace

// Starts converting a block on a thread of its own: an external pointer
// for cells_to_rows_finish().
// [[Rcpp::export]]
SEXP cells_to_rows_start(SEXP value, SEXP gene, Rcpp::NumericVector ptr, int n_genes,
                         bool log1p_cpm, double first_cell) {
  return cells_job(value, gene, ptr, n_genes, log1p_cpm, first_cell, true);
}

// The dgCMatrix of a conversion (waits for it); its error, if it failed.
// [[Rcpp::export]]
SEXP cells_to_rows_finish(SEXP handle) {
  Rcpp::XPtr<CellsJob> job(handle);
  if (job.get() == nullptr) throw std::invalid_argument("a conversion already taken");
  if (job->worker.joinable()) {
    if (process_id() != job->pid)
      throw std::runtime_error("a conversion started in another process (before a fork)");
    job->worker.join();
  }
  if (job->error) std::rethrow_exception(job->error);
  Rcpp::S4 m("dgCMatrix");
  m.slot("i") = job->keep["i"];
  m.slot("p") = job->keep["p"];
  m.slot("x") = job->keep["x"];
  m.slot("Dim") = Rcpp::IntegerVector::create(job->n_cells, job->n_genes);
  return m;
}

// The same, on R's thread.
// [[Rcpp::export]]
SEXP cells_to_rows_cpp(SEXP value, SEXP gene, Rcpp::NumericVector ptr, int n_genes,
                       bool log1p_cpm, double first_cell) {
  const Rcpp::RObject job = cells_job(value, gene, ptr, n_genes, log1p_cpm, first_cell, false);
  return cells_to_rows_finish(job);
}
