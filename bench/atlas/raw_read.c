/* The read bound for a 10x-layout (TENx) HDF5 file: the data and indices
 * datasets read with HDF5's C API in consecutive hyperslabs of `block`
 * elements (what a C++ row source linked to Rhdf5lib would do), into int32
 * buffers (HDF5 converts the int64 indices), with no R in between.
 *
 *   sh bench/atlas/raw_read.sh FILE.h5 [group] [block]   (builds and runs)
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }

static int read_all(hid_t file, const char *name, hsize_t block, long long *sum) {
  hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  hid_t fs = H5Dget_space(ds);
  hsize_t n;
  H5Sget_simple_extent_dims(fs, &n, NULL);
  int *buf = malloc(block * sizeof(int));
  for (hsize_t from = 0; from < n; from += block) {
    hsize_t cnt = (n - from < block) ? n - from : block;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &from, NULL, &cnt, NULL);
    hid_t ms = H5Screate_simple(1, &cnt, NULL);
    if (H5Dread(ds, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) < 0) return -1;
    for (hsize_t i = 0; i < cnt; i++) *sum += buf[i];
    H5Sclose(ms);
  }
  free(buf);
  H5Sclose(fs);
  H5Dclose(ds);
  return (int)(n > 0);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: raw_read FILE [group] [block]\n"); return 2; }
  const char *group = argc > 2 ? argv[2] : "mm10";
  hsize_t block = argc > 3 ? (hsize_t)atof(argv[3]) : (hsize_t)1 << 24;
  char data[256], indices[256];
  snprintf(data, sizeof data, "%s/data", group);
  snprintf(indices, sizeof indices, "%s/indices", group);
  double t0 = now(), c0 = cpu();
  hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 1;
  long long s1 = 0, s2 = 0;
  if (read_all(f, data, block, &s1) < 0 || read_all(f, indices, block, &s2) < 0) return 1;
  hid_t ds = H5Dopen2(f, data, H5P_DEFAULT);
  hid_t fs = H5Dget_space(ds);
  hsize_t n;
  H5Sget_simple_extent_dims(fs, &n, NULL);
  H5Sclose(fs); H5Dclose(ds); H5Fclose(f);
  double t = now() - t0, c = cpu() - c0;
  printf("RESULT raw_c block=%llu seconds=%.3f cpu_s=%.3f nnz=%llu nnz_per_s=%.0f sum_data=%lld\n",
         (unsigned long long)block, t, c, (unsigned long long)n, n / t, s1);
  return 0;
}
