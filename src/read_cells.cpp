// Glue of data/cells.hpp: a block of a 10x file as read by rhdf5 (values
// integer or double, gene indices integer, offsets double) -> a dgCMatrix of
// cells as rows, written straight into the R vectors of its slots. And the
// glue of data/normalization.hpp (at the end): the one transform of the
// normalizations, for cells in memory (normalize_cells_cpp()) and for the
// blocks of a file (its normalization, block_normalization()).
//
// The block's values and gene indices may be the first entries of longer
// vectors (R reads each block into the same two vectors, so that a pass
// allocates no new ones per block): the last offset says how many.
//
// The conversion can run on a thread of its own while R reads the next
// block from the file (cells_to_rows_start(), then cells_to_rows_finish()):
// the vectors are allocated and checked here, on R's thread; the worker
// only reads and writes their memory (no R API), and the job (an external
// pointer) keeps them alive and joins its thread before it is freed, also
// when R abandons it after an error.
//
// A pass over a file converts block after block into a pool of two blocks'
// memory (cells_pool_new()) instead of new R vectors: the slots `i` and `x`
// of its dgCMatrix are then ALTREP vectors viewing that memory, valid until
// the block after next is converted into the same place. R's collector never
// sees these hundreds of megabytes per block come and go, and so seldom
// runs: in a session with Bioconductor's packages loaded a full collection
// costs a second or more, and a pass that allocated each block's vectors ran
// several per block. A view used after its memory was reused is an R error
// (never other data); duplicating or serializing a view copies its values.
#include "glue.h"
#include "stored_cells.h"

#include <R_ext/Altrep.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <kmreduce/data/block_pool.hpp>
#include <kmreduce/data/cells.hpp>
#include <kmreduce/data/normalization.hpp>
#include <kmreduce/runtime/background.hpp>
#include <kmreduce/runtime/memory.hpp>

namespace {

R_altrep_class_t cells_int_class, cells_real_class;

// A view: data1 the pool (an external pointer to a kmreduce::BlockPool,
// data/block_pool.hpp: the pool lives as long as any view of it), data2
// c(slot, generation, length).
kmreduce::BlockMemory* view_memory(SEXP x, bool error) {
  SEXP pool_ptr = R_altrep_data1(x);
  const double* info = REAL(R_altrep_data2(x));
  const kmreduce::BlockPool* pool = static_cast<kmreduce::BlockPool*>(R_ExternalPtrAddr(pool_ptr));
  kmreduce::BlockMemory* m =
      pool == nullptr ? nullptr : pool->current(static_cast<int>(info[0]), info[1]);
  if (m == nullptr) {
    if (error) {
      Rf_error("kmreduce: a block of a 10x file was used after its memory was reused for "
               "a later block (an internal error; please report it)");
    }
    return nullptr;
  }
  return m;
}
R_xlen_t view_length(SEXP x) { return static_cast<R_xlen_t>(REAL(R_altrep_data2(x))[2]); }
void* view_int_dataptr(SEXP x, Rboolean) { return view_memory(x, true)->i.get(); }
void* view_real_dataptr(SEXP x, Rboolean) { return view_memory(x, true)->x.get(); }
const void* view_int_or_null(SEXP x) {
  kmreduce::BlockMemory* m = view_memory(x, false);
  return m == nullptr ? nullptr : m->i.get();
}
const void* view_real_or_null(SEXP x) {
  kmreduce::BlockMemory* m = view_memory(x, false);
  return m == nullptr ? nullptr : m->x.get();
}
int view_int_elt(SEXP x, R_xlen_t k) { return view_memory(x, true)->i[k]; }
double view_real_elt(SEXP x, R_xlen_t k) { return view_memory(x, true)->x[k]; }
Rboolean view_inspect(SEXP x, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" kmreduce view of a converted 10x block (%s)\n",
          view_memory(x, false) == nullptr ? "stale" : "current");
  return TRUE;
}

// A vector rhdf5 reads blocks into (H5Dread(buf =)), block after block:
// memory of its own, outside R's heap, freed with the vector or when
// released (read_buffer_release(), at the end of a fit: R's collector does
// not know its size, so would not hurry to free it); a conversion reading it
// holds it until done.
struct ReadMemory {
  kmreduce::AlignedArray<int> i;
  kmreduce::AlignedArray<double> x;
};
struct ReadBuffer {
  std::shared_ptr<ReadMemory> memory;
  R_xlen_t n = 0;
};

R_altrep_class_t buffer_int_class, buffer_real_class;

ReadBuffer* buffer_of(SEXP v) {
  ReadBuffer* b = static_cast<ReadBuffer*>(R_ExternalPtrAddr(R_altrep_data1(v)));
  if (b == nullptr) Rf_error("kmreduce: a freed read buffer (an internal error)");
  return b;
}
ReadMemory* buffer_memory(SEXP v) {
  ReadBuffer* b = buffer_of(v);
  if (!b->memory) Rf_error("kmreduce: a released read buffer (an internal error)");
  return b->memory.get();
}
bool is_read_buffer(SEXP v) {
  return R_altrep_inherits(v, buffer_int_class) || R_altrep_inherits(v, buffer_real_class);
}
// The memory of the read buffers among `vs`, for a job to hold while its
// worker reads it (R may release the buffers meanwhile).
std::vector<std::shared_ptr<ReadMemory>> read_memory_of(std::initializer_list<SEXP> vs) {
  std::vector<std::shared_ptr<ReadMemory>> out;
  for (SEXP v : vs) {
    if (is_read_buffer(v)) out.push_back(buffer_of(v)->memory);
  }
  return out;
}
R_xlen_t buffer_length(SEXP v) {
  const ReadBuffer* b = buffer_of(v);
  return b->memory ? b->n : 0;
}
void* buffer_int_dataptr(SEXP v, Rboolean) { return buffer_memory(v)->i.get(); }
void* buffer_real_dataptr(SEXP v, Rboolean) { return buffer_memory(v)->x.get(); }
const void* buffer_int_or_null(SEXP v) {
  const ReadBuffer* b = buffer_of(v);
  return b->memory ? b->memory->i.get() : nullptr;
}
const void* buffer_real_or_null(SEXP v) {
  const ReadBuffer* b = buffer_of(v);
  return b->memory ? b->memory->x.get() : nullptr;
}
int buffer_int_elt(SEXP v, R_xlen_t k) { return buffer_memory(v)->i[k]; }
double buffer_real_elt(SEXP v, R_xlen_t k) { return buffer_memory(v)->x[k]; }
Rboolean buffer_inspect(SEXP, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" kmreduce read buffer\n");
  return TRUE;
}

SEXP new_view(R_altrep_class_t cls, SEXP pool, int slot, double generation, R_xlen_t n) {
  Rcpp::NumericVector info = Rcpp::NumericVector::create(slot, generation,
                                                         static_cast<double>(n));
  return R_new_altrep(cls, pool, info);
}

struct CellsJob {
  int n_cells = 0, n_genes = 0;
  R_xlen_t nnz = 0;
  int slot = -1;  // the pool's memory written (-1: R vectors in `keep`)
  double generation = 0;
  std::shared_ptr<kmreduce::BlockMemory> memory;  // (kept while the worker may write it)
  std::vector<std::shared_ptr<ReadMemory>> reading;  // (and what it reads)
  Rcpp::List keep;  // inputs and outputs (also protected by the external pointer)
  kmreduce::BackgroundTask task;  // (declared last: joined before the rest is freed)
};

SEXP cells_job(SEXP value, SEXP gene, const Rcpp::NumericVector& ptr, int n_genes,
               const std::string& transform, double target, SEXP size_factors,
               double first_cell, bool in_thread, SEXP pool_ptr) {
  const R_xlen_t nnz = checked_block(value, gene, ptr, n_genes, transform, target, size_factors);
  const kmreduce::index_t n_cells = ptr.size() - 1;
  Rcpp::IntegerVector p(Rcpp::no_init(n_genes + 1));
  std::unique_ptr<CellsJob> owned(new CellsJob());
  CellsJob* job = owned.get();
  job->n_cells = static_cast<int>(n_cells);
  job->n_genes = n_genes;
  job->nnz = nnz;
  int* io;
  double* xo;
  Rcpp::RObject i, x;
  if (pool_ptr != R_NilValue) {
    kmreduce::BlockPool* pool = static_cast<kmreduce::BlockPool*>(R_ExternalPtrAddr(pool_ptr));
    if (pool == nullptr) throw std::invalid_argument("a freed pool of blocks");
    kmreduce::BlockPool::Block block = pool->next(static_cast<kmreduce::index_t>(nnz));
    job->slot = block.slot;
    job->generation = block.generation;
    job->memory = std::move(block.memory);
    kmreduce::BlockMemory* m = job->memory.get();
    io = m->i.get();
    xo = m->x.get();
    i = R_NilValue;
    x = R_NilValue;
  } else {
    Rcpp::IntegerVector iv(Rcpp::no_init(nnz));
    Rcpp::NumericVector xv(Rcpp::no_init(nnz));
    // (fresh, untouched memory: advised for huge pages before the scatter)
    kmreduce::advise_huge_pages(INTEGER(iv), static_cast<std::size_t>(nnz) * sizeof(int));
    kmreduce::advise_huge_pages(REAL(xv), static_cast<std::size_t>(nnz) * sizeof(double));
    io = INTEGER(iv);
    xo = REAL(xv);
    i = iv;
    x = xv;
  }
  job->reading = read_memory_of({value, gene});
  job->keep = Rcpp::List::create(Rcpp::Named("value") = value, Rcpp::Named("gene") = gene,
                                 Rcpp::Named("ptr") = ptr, Rcpp::Named("i") = i,
                                 Rcpp::Named("p") = p, Rcpp::Named("x") = x,
                                 Rcpp::Named("pool") = pool_ptr,
                                 Rcpp::Named("size_factors") = size_factors);
  Rcpp::XPtr<CellsJob> handle(owned.release(), true, R_NilValue, job->keep);
  const IntAsDouble int_as_double;
  const bool ints = TYPEOF(value) == INTSXP;
  const int* iv = ints ? INTEGER(value) : nullptr;
  const double* dv = ints ? nullptr : REAL(value);
  const int* g = INTEGER(gene);
  // (the size factors, if any, kept alive by the job's `keep`)
  const kmreduce::CellNormalization norm =
      block_normalization(transform, target, size_factors, n_cells);
  const double* pp = ptr.begin();
  int* po = INTEGER(p);
  auto run = [=]() {
    if (ints) {
      // (NA_integer_ is a negative int: a count < 0 with the
      // normalization; without it, made NA here)
      kmreduce::cells_to_rows(iv, g, pp, n_cells, n_genes, norm, first_cell, int_as_double, po,
                              io, xo);
    } else {
      kmreduce::cells_to_rows(dv, g, pp, n_cells, n_genes, norm, first_cell,
                              [](double v) { return v; }, po, io, xo);
    }
  };
  if (in_thread) {
    job->task.start(run);
  } else {
    job->task.run_here(run);
  }
  return handle;
}

}  // namespace

// An integer and a double ALTREP class with the same kind of methods.
struct AltrepMethods {
  R_altrep_Length_method_t length;
  R_altrep_Inspect_method_t inspect;
  R_altvec_Dataptr_method_t int_dataptr, real_dataptr;
  R_altvec_Dataptr_or_null_method_t int_or_null, real_or_null;
  R_altinteger_Elt_method_t int_elt;
  R_altreal_Elt_method_t real_elt;
};

static void make_classes(const std::string& name, DllInfo* dll, const AltrepMethods& m,
                  R_altrep_class_t* int_class, R_altrep_class_t* real_class) {
  *int_class = R_make_altinteger_class((name + "_int").c_str(), "kmreduce", dll);
  *real_class = R_make_altreal_class((name + "_real").c_str(), "kmreduce", dll);
  for (R_altrep_class_t cls : {*int_class, *real_class}) {
    R_set_altrep_Length_method(cls, m.length);
    R_set_altrep_Inspect_method(cls, m.inspect);
  }
  R_set_altvec_Dataptr_method(*int_class, m.int_dataptr);
  R_set_altvec_Dataptr_or_null_method(*int_class, m.int_or_null);
  R_set_altinteger_Elt_method(*int_class, m.int_elt);
  R_set_altvec_Dataptr_method(*real_class, m.real_dataptr);
  R_set_altvec_Dataptr_or_null_method(*real_class, m.real_or_null);
  R_set_altreal_Elt_method(*real_class, m.real_elt);
}

// [[Rcpp::init]]
void kmreduce_init_cells(DllInfo* dll) {
  make_classes("kmreduce_cells", dll,
               {view_length, view_inspect, view_int_dataptr, view_real_dataptr,
                view_int_or_null, view_real_or_null, view_int_elt, view_real_elt},
               &cells_int_class, &cells_real_class);
  make_classes("kmreduce_buffer", dll,
               {buffer_length, buffer_inspect, buffer_int_dataptr, buffer_real_dataptr,
                buffer_int_or_null, buffer_real_or_null, buffer_int_elt, buffer_real_elt},
               &buffer_int_class, &buffer_real_class);
}

// n zeros (integers or doubles) in memory outside R's heap, as an ALTREP
// vector of the reading vectors' class (no class attribute): the memory is
// freed when the vector is.
static SEXP zeros_outside_heap(bool ints, R_xlen_t n) {
  const std::size_t len = static_cast<std::size_t>(std::max<R_xlen_t>(n, 1));
  Rcpp::XPtr<ReadBuffer> b(new ReadBuffer(), true);
  b->n = n;
  b->memory = std::make_shared<ReadMemory>();
  if (ints) {
    b->memory->i = kmreduce::aligned_array<int>(len, false);
    std::fill(b->memory->i.get(), b->memory->i.get() + len, 0);
    return R_new_altrep(buffer_int_class, b, R_NilValue);
  }
  b->memory->x = kmreduce::aligned_array<double>(len, false);
  std::fill(b->memory->x.get(), b->memory->x.get() + len, 0.0);
  return R_new_altrep(buffer_real_class, b, R_NilValue);
}

// A vector of n zeros ("integer" or "double") for rhdf5 to read blocks
// into: its memory is outside R's heap (R's collector neither counts nor
// moves it), freed when the vector is. Not advised for huge pages: a pass
// reading a 10x file into such memory spent more system time with them
// (written sequentially, it gains little from them; bench/HISTORY.md,
// "Single-cell default from a 10x file: three passes, or one").
// [[Rcpp::export]]
SEXP read_buffer_new(std::string type, double n) {
  if (!(n >= 0) || n > 2147483647.0) throw std::invalid_argument("a read buffer's length");
  if (type != "integer" && type != "double") throw std::invalid_argument("a read buffer's type");
  // (the class: is.na() answers for the whole buffer, R/source_tenx.R)
  Rcpp::RObject out(zeros_outside_heap(type == "integer", static_cast<R_xlen_t>(n)));
  out.attr("class") = "kmreduce_read_buffer";
  return out;
}

// The vectors of `parts` (all integer or all double) one after the other,
// in a read buffer of that type (outside R's heap).
// [[Rcpp::export]]
SEXP read_buffer_concat_cpp(Rcpp::List parts, std::string type) {
  const bool ints = type == "integer";
  const int want = ints ? INTSXP : REALSXP;
  double total = 0.0;
  for (R_xlen_t b = 0; b < parts.size(); ++b) {
    const SEXP p = parts[b];
    if (TYPEOF(p) != want) throw std::invalid_argument("read_buffer_concat_cpp(): parts of one type");
    total += static_cast<double>(Rf_xlength(p));
  }
  Rcpp::RObject out(read_buffer_new(type, total));
  R_xlen_t at = 0;
  for (R_xlen_t b = 0; b < parts.size(); ++b) {
    const SEXP p = parts[b];
    const R_xlen_t len = Rf_xlength(p);
    if (ints) {
      std::copy(INTEGER(p), INTEGER(p) + len, INTEGER(out) + at);
    } else {
      std::copy(REAL(p), REAL(p) + len, REAL(out) + at);
    }
    at += len;
  }
  return out;
}

// Bytes of matrices made outside R's heap since this package last asked for
// a collection (matrix_outside_heap_cpp()).
static double outside_heap_since_gc = 0.0;

// An n x d matrix of zeros whose memory is outside R's heap (the vector of
// a read buffer, without its class): the rows reduced from a 10x file are
// written into it block by block. R's collector does not count its size:
// 300000 x 150 doubles on R's heap set off a full collection, about half a
// second with Bioconductor's packages loaded. Freed when the matrix is; R
// copies it like any matrix when it is changed or saved. Since R does not
// see that memory, a matrix the user dropped waits for a collection to
// reach it: once such matrices made since the last one pass 1 GiB, a
// collection runs first (once per GiB of reduced rows).
// [[Rcpp::export]]
SEXP matrix_outside_heap_cpp(double n, double d) {
  if (!(n >= 0) || !(d >= 0) || n > 2147483647.0 || d > 2147483647.0 || n * d > 4503599627370496.0)
    throw std::invalid_argument("a matrix outside R's heap: its dimensions");
  const double bytes = 8.0 * n * d;
  if (outside_heap_since_gc + bytes > 1073741824.0) {
    R_gc();
    outside_heap_since_gc = 0.0;
  }
  outside_heap_since_gc += bytes;
  Rcpp::RObject out(zeros_outside_heap(false, static_cast<R_xlen_t>(n * d)));
  out.attr("dim") = Rcpp::IntegerVector::create(static_cast<int>(n), static_cast<int>(d));
  return out;
}

// Whether `v` is a read buffer whose memory is not released.
// [[Rcpp::export]]
bool read_buffer_live_cpp(SEXP v) {
  return is_read_buffer(v) && static_cast<bool>(buffer_of(v)->memory);
}

// Whether a read buffer holds an NA (or NaN) among its first length()
// values.
// [[Rcpp::export]]
bool read_buffer_any_na(SEXP buffer) {
  if (!is_read_buffer(buffer)) throw std::invalid_argument("not a read buffer");
  const R_xlen_t n = Rf_xlength(buffer);
  if (TYPEOF(buffer) == INTSXP) {
    const int* v = INTEGER(buffer);
    return std::any_of(v, v + n, [](int u) { return u == NA_INTEGER; });
  }
  const double* v = REAL(buffer);
  return std::any_of(v, v + n, [](double u) { return std::isnan(u); });
}

// The position (from 1) of the first of the first `count` values of the
// double vector `v` (a read buffer or not) whose magnitude is `limit` or
// more, or 0: a scan without R's temporary vectors of the block's length.
// [[Rcpp::export]]
double first_beyond_cpp(SEXP v, double count, double limit) {
  if (TYPEOF(v) != REALSXP) throw std::invalid_argument("first_beyond_cpp(): a double vector");
  if (!(count >= 0) || count > static_cast<double>(Rf_xlength(v)))
    throw std::invalid_argument("first_beyond_cpp(): `count` within the vector");
  const double* p = REAL(v);
  const R_xlen_t n = static_cast<R_xlen_t>(count);
  for (R_xlen_t t = 0; t < n; ++t)
    if (std::fabs(p[t]) >= limit) return static_cast<double>(t + 1);
  return 0.0;
}

// Frees a read buffer's memory (once no conversion reads it): its length is
// 0 from now on.
// [[Rcpp::export]]
void read_buffer_release(SEXP buffer) {
  if (!is_read_buffer(buffer)) throw std::invalid_argument("not a read buffer");
  buffer_of(buffer)->memory.reset();
}

// Frees a pool's memory (once no conversion writes it): views of it are
// stale from now on.
// [[Rcpp::export]]
void cells_pool_release(SEXP pool) {
  kmreduce::BlockPool* p = static_cast<kmreduce::BlockPool*>(R_ExternalPtrAddr(pool));
  if (p == nullptr) return;
  p->release();
}

// A pool of two blocks' memory for a pass's conversions.
// [[Rcpp::export]]
SEXP cells_pool_new() {
  Rcpp::XPtr<kmreduce::BlockPool> pool(new kmreduce::BlockPool(), true);
  return pool;
}

// Starts converting a block on a thread of its own: an external pointer
// for cells_to_rows_finish(). `pool`: NULL (the dgCMatrix gets vectors of
// its own) or cells_pool_new() (its slots view the pool's memory).
// `target`, `size_factors`, `transform`: the normalization
// (block_normalization(); target 0 and NULL: none).
// [[Rcpp::export]]
SEXP cells_to_rows_start(SEXP value, SEXP gene, Rcpp::NumericVector ptr, int n_genes,
                         double target, SEXP size_factors, double first_cell, SEXP pool,
                         std::string transform = "log1p_scaled") {
  if (pool != R_NilValue && TYPEOF(pool) != EXTPTRSXP)
    throw std::invalid_argument("`pool` must be NULL or a pool of blocks");
  return cells_job(value, gene, ptr, n_genes, transform, target, size_factors, first_cell, true,
                   pool);
}

// The dgCMatrix of a conversion (waits for it); its error, if it failed.
// [[Rcpp::export]]
SEXP cells_to_rows_finish(SEXP handle) {
  Rcpp::XPtr<CellsJob> job(handle);
  if (job.get() == nullptr) throw std::invalid_argument("a conversion already taken");
  job->task.join("a conversion");
  job->memory.reset();  // (the worker is done with them)
  job->reading.clear();
  job->task.rethrow();
  Rcpp::S4 m("dgCMatrix");
  if (job->slot >= 0) {
    SEXP pool = job->keep["pool"];
    Rcpp::RObject i = new_view(cells_int_class, pool, job->slot, job->generation, job->nnz);
    Rcpp::RObject x = new_view(cells_real_class, pool, job->slot, job->generation, job->nnz);
    m.slot("i") = i;
    m.slot("x") = x;
  } else {
    m.slot("i") = job->keep["i"];
    m.slot("x") = job->keep["x"];
  }
  m.slot("p") = job->keep["p"];
  m.slot("Dim") = Rcpp::IntegerVector::create(job->n_cells, job->n_genes);
  return m;
}

// The same, on R's thread.
// [[Rcpp::export]]
SEXP cells_to_rows_cpp(SEXP value, SEXP gene, Rcpp::NumericVector ptr, int n_genes,
                       double target, SEXP size_factors, double first_cell,
                       std::string transform = "log1p_scaled") {
  const Rcpp::RObject job = cells_job(value, gene, ptr, n_genes, transform, target, size_factors,
                                      first_cell, false, R_NilValue);
  return cells_to_rows_finish(job);
}

// The library sizes of the cells of a block as read (cell_library_sizes():
// the counts checked), without converting it.
// [[Rcpp::export]]
Rcpp::NumericVector cells_library_sizes_cpp(SEXP value, Rcpp::NumericVector ptr,
                                            double first_cell) {
  if (ptr.size() < 1) throw std::invalid_argument("a block of cells has no offsets");
  const kmreduce::index_t n_cells = ptr.size() - 1;
  const double nnz = ptr[n_cells];
  if (!(TYPEOF(value) == INTSXP || TYPEOF(value) == REALSXP) || !(nnz <= Rf_xlength(value)))
    throw std::invalid_argument("a block's values must be numbers, one per offset");
  Rcpp::NumericVector lib(n_cells);
  if (TYPEOF(value) == INTSXP) {
    kmreduce::cell_library_sizes(INTEGER(value), ptr.begin(), n_cells, first_cell, IntAsDouble(),
                                 lib.begin());
  } else {
    kmreduce::cell_library_sizes(REAL(value), ptr.begin(), n_cells, first_cell,
                                 [](double v) { return v; }, lib.begin());
  }
  return lib;
}

// B (genes x m) as cells_multiply_cpp() reads it, for all the blocks of a
// pass: its rows padded with zeros (cells_multiply_rows()), one column each.
// [[Rcpp::export]]
Rcpp::NumericMatrix cells_multiply_rows_cpp(Rcpp::NumericMatrix b) {
  const std::vector<double> bt = kmreduce::cells_multiply_rows(&b[0], b.nrow(), b.ncol());
  Rcpp::NumericMatrix out(static_cast<int>(kmreduce::cells_multiply_width(b.ncol())), b.nrow());
  std::copy(bt.begin(), bt.end(), out.begin());
  out.attr("columns") = b.ncol();
  return out;
}

namespace {
// The columns of B given as cells_multiply_rows_cpp(B).
int product_columns(const Rcpp::NumericMatrix& rows) {
  const Rcpp::RObject columns = rows.attr("columns");
  if (columns.isNULL() || Rf_length(columns) != 1) throw std::invalid_argument("rows of B expected");
  return Rcpp::as<int>(columns);
}
// Checks that a block of n_cells cells and n_genes genes times B (m
// columns) fits, and when `into` is given, rows row0 + 1.. of it.
void check_product(const Rcpp::NumericMatrix& rows, int m, kmreduce::index_t n_cells,
                   kmreduce::index_t n_genes, SEXP into, double row0) {
  if (rows.ncol() != n_genes || m < 0 || rows.nrow() != kmreduce::cells_multiply_width(m))
    throw std::invalid_argument("non-conformable product");
  if (into != R_NilValue &&
      (TYPEOF(into) != REALSXP || !Rf_isMatrix(into) || Rf_ncols(into) != m || !(row0 >= 0) ||
       row0 + static_cast<double>(n_cells) > static_cast<double>(Rf_nrows(into))))
    throw std::invalid_argument("`into` must be a double matrix with room for the block");
}
}  // namespace

// The product of the block `cells` (with_stored_cells()) by B, given as
// cells_multiply_rows_cpp(B), into rows row0 + 1.. of `into` (checked), or
// into a new matrix when `into` is NULL: checked and set up here, on R's
// thread, then handed to run() as a task that reads the block and B and
// writes the matrix (no R API). Returns that matrix.
template <class Run>
SEXP multiply_with(const Rcpp::List& cells, const Rcpp::NumericMatrix& rows, int n_threads,
                   SEXP into, double row0, Run run) {
  const int m = product_columns(rows);
  Rcpp::RObject out;
  with_stored_cells(cells, [&](const auto& c) {
    const kmreduce::index_t n_cells = c.n_cells();
    check_product(rows, m, n_cells, c.n_genes(), into, row0);
    double* at;
    kmreduce::index_t ld;
    if (into == R_NilValue) {
      out = Rcpp::NumericMatrix(static_cast<int>(n_cells), m);
      at = REAL(out);
      ld = n_cells;
    } else {
      out = into;
      ld = Rf_nrows(into);
      at = REAL(into) + static_cast<R_xlen_t>(row0);
    }
    const double* b = &rows[0];
    const auto block = c;  // (pointers into vectors its caller keeps)
    run([block, b, m, at, ld, n_threads]() {
      kmreduce::cells_multiply(block, b, m, at, ld, n_threads);
    });
  });
  return out;
}

// The cells of a block as read (`cells`: with_stored_cells()), normalized
// as cells_to_rows_cpp() normalizes them, times B, given as
// cells_multiply_rows_cpp(B): the product multiply_cpp() gives for the
// converted block, without converting it (cells_multiply()). Written into
// rows row0 + 1.. of `into`, in place, when given (a matrix its caller made
// and alone holds: no block-sized result per block), else returned.
// [[Rcpp::export]]
SEXP cells_multiply_cpp(Rcpp::List cells, Rcpp::NumericMatrix rows, int n_threads,
                        SEXP into = R_NilValue, double row0 = 0) {
  return multiply_with(cells, rows, n_threads, into, row0, [](const auto& task) { task(); });
}

// A product of cells_multiply_cpp() on a thread of its own, while R reads
// the next block from the file (cells_multiply_start_cpp(), then
// cells_multiply_wait_cpp()): checked here, on R's thread; the worker reads
// the block and B and writes rows of `into` (no R API), and the job (an
// external pointer) keeps them alive and joins its thread before it is
// freed, also when R abandons it after an error (as a conversion's job).
namespace {
struct ProductJob {
  std::vector<std::shared_ptr<ReadMemory>> reading;  // (what the worker reads)
  Rcpp::List keep;  // the block, B and `into`
  kmreduce::BackgroundTask task;  // (declared last: joined before the rest is freed)
};
}  // namespace

// [[Rcpp::export]]
SEXP cells_multiply_start_cpp(Rcpp::List cells, Rcpp::NumericMatrix rows, int n_threads,
                              SEXP into, double row0) {
  if (into == R_NilValue) throw std::invalid_argument("`into` must be a double matrix");
  std::unique_ptr<ProductJob> owned(new ProductJob());
  ProductJob* job = owned.get();
  job->keep = Rcpp::List::create(cells, rows, into);
  Rcpp::XPtr<ProductJob> handle(owned.release(), true, R_NilValue, job->keep);
  multiply_with(cells, rows, n_threads, into, row0, [&](const auto& task) {
    job->reading = read_memory_of({SEXP(cells["x"]), SEXP(cells["i"])});
    job->task.start(task);
  });
  return handle;
}

// Waits for the product started by cells_multiply_start_cpp(); its error,
// if it failed.
// [[Rcpp::export]]
void cells_multiply_wait_cpp(SEXP handle) {
  Rcpp::XPtr<ProductJob> job(handle);
  if (job.get() == nullptr) throw std::invalid_argument("a product already freed");
  job->task.join("a product");
  job->reading.clear();
  job->task.rethrow();
}

// Some cells of a block as read (`cells`: local numbers from 1,
// increasing): list(x, i, ptr) in the block's layout, x of the block's type.
// [[Rcpp::export]]
Rcpp::List cells_take_cpp(SEXP value, SEXP gene, Rcpp::NumericVector ptr,
                          Rcpp::IntegerVector cells) {
  if (ptr.size() < 1) throw std::invalid_argument("a block of cells has no offsets");
  const kmreduce::index_t n_cells = ptr.size() - 1;
  const double nnz = ptr[n_cells];
  if (!(TYPEOF(value) == INTSXP || TYPEOF(value) == REALSXP) || TYPEOF(gene) != INTSXP ||
      !(nnz <= Rf_xlength(value)) || !(nnz <= Rf_xlength(gene)))
    throw std::invalid_argument("a block's values and gene indices must be numbers, one per offset");
  std::vector<int> local(cells.size());
  double count = 0;
  for (R_xlen_t u = 0; u < cells.size(); ++u) {
    const int c = cells[u] - 1;  // (1- to 0-based)
    if (cells[u] == NA_INTEGER || c < 0 || c >= n_cells)
      throw std::invalid_argument("cells to take must be within the block");
    local[u] = c;
    count += ptr[c + 1] - ptr[c];
  }
  const R_xlen_t n = static_cast<R_xlen_t>(count);
  Rcpp::NumericVector ptr_out(cells.size() + 1);
  Rcpp::IntegerVector i_out(n);
  Rcpp::RObject x_out(Rf_allocVector(TYPEOF(value), n));
  if (TYPEOF(value) == INTSXP) {
    kmreduce::take_cells(INTEGER(value), INTEGER(gene), ptr.begin(), n_cells, local.data(),
                         static_cast<kmreduce::index_t>(local.size()), INTEGER(x_out),
                         i_out.begin(), ptr_out.begin());
  } else {
    kmreduce::take_cells(REAL(value), INTEGER(gene), ptr.begin(), n_cells, local.data(),
                         static_cast<kmreduce::index_t>(local.size()), REAL(x_out),
                         i_out.begin(), ptr_out.begin());
  }
  Rcpp::List out = Rcpp::List::create(Rcpp::Named("x") = x_out, Rcpp::Named("i") = i_out,
                                      Rcpp::Named("ptr") = ptr_out);
  return out;
}

// Entries from..from+n-1 (from 0) of an integer or double vector (a read
// buffer) copied into an R vector of their own.
// [[Rcpp::export]]
SEXP copy_entries_cpp(SEXP v, double from, double n) {
  if (!(TYPEOF(v) == INTSXP || TYPEOF(v) == REALSXP) || !(from >= 0) || !(n >= 0) ||
      from + n > static_cast<double>(Rf_xlength(v)))
    throw std::invalid_argument("copy_entries_cpp(): a numeric vector and a range within it");
  const bool ints = TYPEOF(v) == INTSXP;
  const R_xlen_t a = static_cast<R_xlen_t>(from), len = static_cast<R_xlen_t>(n);
  Rcpp::RObject out(Rf_allocVector(TYPEOF(v), len));
  if (len > 0) {
    if (ints) {
      const int* src = INTEGER(v);
      std::copy(src + a, src + a + len, INTEGER(out));
    } else {
      const double* src = REAL(v);
      std::copy(src + a, src + a + len, REAL(out));
    }
  }
  return out;
}

// The normalization of cells in memory (data/normalization.hpp): rows of a
// double matrix or a dgCMatrix, or the columns of a dgCMatrix (a block of a
// 10x file as stored), as R/normalize_counts.R gives them.

namespace {
// The cells of `m` (its view `a`) normalized by `norm`: a copy of `m` with
// the normalized values (a double matrix: its cells are its rows).
SEXP normalized_cells(SEXP m, const kmreduce::DenseMatrix& a, bool,
                      const kmreduce::CellNormalization& norm, double first_cell) {
  Rcpp::RObject out(Rf_allocVector(REALSXP, Rf_xlength(m)));
  DUPLICATE_ATTRIB(out, m);  // (dim, dimnames and any other)
  kmreduce::normalize_dense_rows(a.x, a.n, a.d, norm, first_cell, REAL(out));
  return out;
}
// (a dgCMatrix: its cells are its rows or its columns; only its `x` is new)
SEXP normalized_cells(SEXP m, const kmreduce::SparseMatrix& a, bool cells_as_rows,
                      const kmreduce::CellNormalization& norm, double first_cell) {
  if (Rf_xlength(R_do_slot(m, Rf_install("x"))) != a.nnz() || a.p[0] != 0)
    throw std::invalid_argument("malformed dgCMatrix");
  Rcpp::NumericVector x(Rcpp::no_init(a.nnz()));
  if (cells_as_rows) {
    kmreduce::normalize_sparse_rows(a.p, a.i, a.x, a.n, a.d, norm, first_cell, x.begin());
  } else {
    kmreduce::normalize_sparse_columns(a.p, a.x, a.d, norm, first_cell, x.begin());
  }
  Rcpp::RObject out(Rf_shallow_duplicate(m));
  R_do_slot_assign(out, Rf_install("x"), x);
  return out;
}
}  // namespace

// The names of the core's transforms of counts, in its order.
// [[Rcpp::export]]
Rcpp::CharacterVector cell_transforms_cpp() {
  return Rcpp::wrap(kmreduce::cell_transform_names());
}

// The position (from 1) of the first value of the double or integer vector
// `v` that is not a count (NA, NaN, negative or infinite), or 0: one pass,
// without R's temporary vectors.
// [[Rcpp::export]]
double first_non_count_cpp(SEXP v) {
  const R_xlen_t n = Rf_xlength(v);
  if (TYPEOF(v) == INTSXP) {
    const int* p = INTEGER(v);
    for (R_xlen_t t = 0; t < n; ++t)
      if (p[t] == NA_INTEGER || p[t] < 0) return static_cast<double>(t + 1);
    return 0.0;
  }
  if (TYPEOF(v) != REALSXP) throw std::invalid_argument("first_non_count_cpp(): a numeric vector");
  return static_cast<double>(kmreduce::first_non_count(REAL(v), n) + 1);
}

// The cells of `m` normalized (a new object of the same class and
// attributes): its rows (`cells_as_rows`; a double matrix or a dgCMatrix)
// or its columns (a dgCMatrix), by the transform named `transform` with
// `target` (0: none) and `size_factors` (NULL or one per cell):
// block_normalization(). `first_cell`: the number of its first cell (for
// messages; R checks the counts first).
// [[Rcpp::export]]
SEXP normalize_cells_cpp(SEXP m, bool cells_as_rows, std::string transform, double target,
                         SEXP size_factors, double first_cell) {
  if (!cells_as_rows && !Rf_inherits(m, "dgCMatrix"))
    throw std::invalid_argument("cells as columns must be a dgCMatrix");
  return glue::with_matrix(m, [&](const auto& a) -> SEXP {
    const kmreduce::CellNormalization norm =
        block_normalization(transform, target, size_factors, cells_as_rows ? a.n : a.d);
    return normalized_cells(m, a, cells_as_rows, norm, first_cell);
  });
}
