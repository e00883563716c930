// The package's own reader of a 10x file's counts (built when configure
// finds HDF5 1.10.3 or later and zlib; otherwise rhdf5 reads every block):
// the chunks of `data` and `indices` that hold the values from..from+count
// are read as stored (H5Dread_chunk(), on R's thread: HDF5 is called from
// one thread only), then decoded into a read buffer on n_threads threads
// (data/stored_chunks.hpp: deflate and shuffle undone, values converted).
// rhdf5 inflates on one thread, and reads 64-bit gene indices through a
// temporary R vector of 8 bytes a value (128 MB a block, which sets off R's
// collector); here nothing is allocated on R's heap.
//
// Only what this reader gives bit for bit as rhdf5 would is read here: a
// one-dimensional chunked dataset whose filters are deflate and shuffle,
// little-endian integers (1 to 8 bytes) or floats (4 or 8 bytes) into a
// buffer of R's integer or double type, every value representable in it and
// no integer NA. Anything else (another layout or filter, a value out of
// range, a file HDF5 cannot open) answers FALSE, and R reads the block
// through rhdf5, whose messages and conversions then apply.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

#ifdef KMREDUCE_HDF5
#include <hdf5.h>

#include <kmreduce/data/stored_chunks.hpp>
#endif

// Whether this build has the reader.
// [[Rcpp::export]]
bool tenx_hdf5_available_cpp() {
#ifdef KMREDUCE_HDF5
  return true;
#else
  return false;
#endif
}

#ifdef KMREDUCE_HDF5
namespace {

// HDF5's automatic printing of its error stack, off while this reader runs
// (its failures are answered here), then as it was: rhdf5 shares the
// library's settings.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// An HDF5 identifier closed by `close` when it goes out of scope.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

inline bool little_endian_host() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

// The chunks holding values from..from+count, read as stored (HDF5 on this
// thread only), then decoded into dest on n_threads threads. False when a
// chunk was never written (its fill value: rhdf5 reads it) or a value has
// no exact counterpart in Out.
template <class Out>
bool read_range(hid_t ds, const kmreduce::StoredType& t,
               const std::vector<kmreduce::ChunkFilter>& filters, hsize_t chunk_values,
               hsize_t from, hsize_t count, Out* dest, int n_threads) {
  const hsize_t c0 = from / chunk_values, c1 = (from + count - 1) / chunk_values;
  std::vector<kmreduce::StoredChunk> chunks(static_cast<std::size_t>(c1 - c0 + 1));
  // (a chunk stored larger than deflate can make it: a damaged index; rhdf5
  // reads it, or says what is wrong)
  const double chunk_bytes = static_cast<double>(chunk_values) * static_cast<double>(t.size);
  const double most = static_cast<double>(compressBound(static_cast<uLong>(chunk_bytes)));
  for (hsize_t c = c0; c <= c1; ++c) {
    kmreduce::StoredChunk& ch = chunks[static_cast<std::size_t>(c - c0)];
    hsize_t offset = c * chunk_values, bytes = 0;
    if (H5Dget_chunk_storage_size(ds, &offset, &bytes) < 0 || bytes == 0) return false;
    if (static_cast<double>(bytes) > std::max(most, chunk_bytes)) return false;
    ch.bytes.resize(static_cast<std::size_t>(bytes));
    if (H5Dread_chunk(ds, H5P_DEFAULT, &offset, &ch.skipped, ch.bytes.data()) < 0) {
      throw std::runtime_error("a chunk could not be read (HDF5's H5Dread_chunk)");
    }
    ch.first = static_cast<kmreduce::index_t>(offset);
  }
  return kmreduce::decode_chunks(chunks, filters, t, static_cast<kmreduce::index_t>(chunk_values),
                                 static_cast<kmreduce::index_t>(from),
                                 static_cast<kmreduce::index_t>(count), dest, n_threads);
}

}  // namespace
#endif

// Reads `count` values of the dataset `name` of `file`, from offset `from`
// (0-based), into the first entries of `buf` (an integer or double vector
// of length >= count, changed in place: read_cells()' own), decoding the
// chunks on n_threads threads. TRUE when done; FALSE when this reader does
// not handle the dataset (R then reads it through rhdf5). An error when a
// chunk it handles cannot be read or decoded.
// [[Rcpp::export]]
bool tenx_hdf5_read_cpp(std::string file, std::string name, double from, double count,
                        SEXP buf, int n_threads) {
  if (TYPEOF(buf) != INTSXP && TYPEOF(buf) != REALSXP)
    throw std::invalid_argument("tenx_hdf5_read_cpp(): `buf` must be an integer or double vector");
  if (!(from >= 0) || !(count >= 0) || from != std::floor(from) || count != std::floor(count) ||
      from + count > 9007199254740992.0)
    throw std::invalid_argument("tenx_hdf5_read_cpp(): `from` and `count` must be whole numbers >= 0");
  if (count > static_cast<double>(Rf_xlength(buf)))
    throw std::invalid_argument("tenx_hdf5_read_cpp(): `buf` is shorter than `count`");
#ifndef KMREDUCE_HDF5
  (void)file; (void)name; (void)n_threads;
  return false;
#else
  if (count == 0) return true;
  if (!little_endian_host()) return false;
  // (the destination first: nothing of R's may fail once HDF5 is open)
  int* dest_int = TYPEOF(buf) == INTSXP ? INTEGER(buf) : nullptr;
  double* dest_real = TYPEOF(buf) == REALSXP ? REAL(buf) : nullptr;
  // The library loaded must be the one compiled against: HDF5's own check
  // (behind H5F_ACC_RDONLY) aborts the process otherwise, as after an
  // upgrade of a system HDF5 that kept its file name.
  unsigned major = 0, minor = 0, release = 0;
  if (H5get_libversion(&major, &minor, &release) < 0 || major != H5_VERS_MAJOR ||
      minor != H5_VERS_MINOR || release != H5_VERS_RELEASE)
    return false;
  QuietHdf5 quiet;
  Id f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return false;
  Id ds(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return false;
  Id space(H5Dget_space(ds.get()), H5Sclose);
  if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 1) return false;
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  if (from + count > static_cast<double>(n)) return false;
  Id dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
  if (!dcpl.ok() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return false;
  hsize_t chunk_values = 0;
  if (H5Pget_chunk(dcpl.get(), 1, &chunk_values) != 1 || chunk_values == 0 ||
      chunk_values > (hsize_t(1) << 32))
    return false;
  // (partial edge chunks stored unfiltered: rhdf5 reads those)
  unsigned chunk_opts = 0;
  if (H5Pget_chunk_opts(dcpl.get(), &chunk_opts) < 0 || chunk_opts != 0) return false;
  Id type(H5Dget_type(ds.get()), H5Tclose);
  if (!type.ok()) return false;
  kmreduce::StoredType t;
  const H5T_class_t cls = H5Tget_class(type.get());
  t.size = H5Tget_size(type.get());
  if (cls == H5T_INTEGER) {
    if (t.size != 1 && t.size != 2 && t.size != 4 && t.size != 8) return false;
    t.is_signed = H5Tget_sign(type.get()) == H5T_SGN_2;
    // (the native types have no padding or offset; others go to rhdf5)
    if (H5Tget_precision(type.get()) != 8 * t.size || H5Tget_offset(type.get()) != 0) return false;
  } else if (cls == H5T_FLOAT) {
    if (!H5Tequal(type.get(), H5T_IEEE_F32LE) && !H5Tequal(type.get(), H5T_IEEE_F64LE)) return false;
    t.is_float = true;
  } else {
    return false;
  }
  if (t.size > 1 && H5Tget_order(type.get()) != H5T_ORDER_LE) return false;
  std::vector<kmreduce::ChunkFilter> filters;
  const int nf = H5Pget_nfilters(dcpl.get());
  if (nf < 0 || nf > 8) return false;
  for (int k = 0; k < nf; ++k) {
    unsigned flags = 0, cd[8] = {0};
    std::size_t nelem = 8;
    const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(k), &flags, &nelem,
                                           cd, 0, nullptr, nullptr);
    if (id == H5Z_FILTER_DEFLATE) {
      filters.push_back(kmreduce::ChunkFilter::deflate);
    } else if (id == H5Z_FILTER_SHUFFLE && nelem >= 1 && cd[0] == t.size) {
      filters.push_back(kmreduce::ChunkFilter::shuffle);
    } else {
      return false;
    }
  }
  const hsize_t h_from = static_cast<hsize_t>(from), h_count = static_cast<hsize_t>(count);
  return dest_int != nullptr
             ? read_range(ds.get(), t, filters, chunk_values, h_from, h_count, dest_int, n_threads)
             : read_range(ds.get(), t, filters, chunk_values, h_from, h_count, dest_real,
                          n_threads);
#endif
}
