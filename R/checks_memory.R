# Memory checks: a step that cannot get its memory is refused before it
# allocates, with the figure and what to do instead.

# The randomized SVD of an n x d matrix with l test vectors: the range and
# its basis (n x l, twice, and a copy for LAPACK) and A^T Q (d x l, twice).
check_rsvd_memory <- function(n, d, l, advice) {
  check_memory(8 * l * (3 * n + 2 * d),
               sprintf("The randomized SVD of the %s x %s `x` (%s test vectors)", format(n),
                       format(d), format(l)),
               advice, entries = max(n, d) * l)
}

# The exact SVD of an n x d matrix (svd.hpp), m = min(n, d). Block Lanczos
# needs little (two bases of at most (n + d) x m / 2), but the direct SVD it
# may fall back to, and that large `dims` take at once, needs the most: the
# centred dense copy and Armadillo's own copy (n x d each), U (n x m), V^T
# and V (m x d each), and LAPACK dgesdd's workspace (about 7 m^2 + max(n, d)
# values and 8 m integers).
exact_svd_bytes <- function(n, d) {
  n <- as.numeric(n)
  d <- as.numeric(d)
  m <- min(n, d)
  8 * (2 * n * d + n * m + 2 * m * d + 7 * m^2 + max(n, d)) + 32 * m
}

check_exact_svd_memory <- function(n, d) {
  check_memory(exact_svd_bytes(n, d),
               sprintf("The exact SVD (method = \"svd\", or control$svd = \"exact\") of the %s x %s `x` (a dense copy and LAPACK's workspace)",
                       format(n), format(d)),
               "Use the randomized SVD (method = \"rsvd\", or control = list(svd = \"randomized\")).",
               entries = as.numeric(n) * d)
}

# The FJLT's sparse Gaussian matrix P (dims x 2^ceiling(log2(d)), density
# q): 8 bytes per non-zero when dense (q = 1), 32 while a sparse one is put
# together (its rows, then the flat arrays of values and coordinates); and
# the reduced rows (n x dims).
check_fjlt_memory <- function(n, d, dims, q) {
  padded <- 2^ceiling(log2(d))
  nz <- as.numeric(dims) * padded * q
  check_memory(nz * (if (q >= 1) 8 else 32) + 8 * as.numeric(n) * dims,
               sprintf("The FJLT to %s dimensions (its %s x %s Gaussian matrix of density %s and the reduced rows)",
                       format(dims), format(dims), format(padded), format(q, digits = 3)),
               "Use fewer dimensions (`dims`) or a smaller `control$fjlt_density`.")
}

# The n x dims reduced (or projected) rows.
check_reduced_memory <- function(n, dims) {
  check_memory(8 * as.numeric(n) * dims,
               sprintf("The reduced data (%s rows x %s dimensions)", format(n), format(dims)),
               "Use fewer dimensions (`dims`) or fewer rows at a time.")
}

# Memory this process can still get: the system's MemAvailable (Linux) and
# what the address-space limit (getrlimit(RLIMIT_AS), `ulimit -v`) leaves
# above the address space in use, the smaller; NA when neither is known.
# Attribute "limit": TRUE when the address-space limit is the smaller.
available_memory <- function() {
  system <- NA_real_
  if (file.exists("/proc/meminfo")) {
    line <- tryCatch(grep("^MemAvailable:", readLines("/proc/meminfo", warn = FALSE), value = TRUE),
                     error = function(e) character(0))
    if (length(line) == 1L) system <- as.numeric(gsub("[^0-9]", "", line)) * 1024
  }
  as <- address_space_cpp()
  left <- if (is.finite(as[["limit"]]) && !is.na(as[["used"]])) {
    max(0, as[["limit"]] - as[["used"]])
  } else {
    NA_real_
  }
  out <- min(system, left, na.rm = TRUE)
  if (!is.finite(out)) return(NA_real_)
  structure(out, limit = !is.na(left) && (is.na(system) || left < system))
}

# Refuses a step whose allocations (`bytes`, or a single matrix of more than
# 2^31 - 1 rows or 2^32 - 1 entries for LAPACK) cannot succeed, with the
# figure and what to do instead, before anything is allocated.
check_memory <- function(bytes, what, advice, entries = 0) {
  avail <- available_memory()
  gb <- function(b) sprintf("%.1f GB", b / 2^30)
  if (entries >= 2^32 - 1) {
    stop_arg(sprintf("%s would need a matrix of %.3g entries, more than the 2^32 - 1 that LAPACK can take. %s",
                     what, entries, advice))
  }
  if (!is.na(avail) && bytes > avail) {
    stop_arg(sprintf("%s would need about %s of memory, more than the %s available%s. %s",
                     what, gb(bytes), gb(avail),
                     if (isTRUE(attr(avail, "limit"))) " under this process's address-space limit (ulimit -v)" else "",
                     advice))
  }
  invisible(TRUE)
}

# The bytes a source may keep of a file's stored values (control$file_cache:
# "auto" is a tenth of the memory available now, none when that is not
# known: on a 24 GB machine a file of 300000 cells, 1 GB of counts, is kept
# whole, and of one of 1.3 million, 5.9 GB, the first blocks, about 40 % of
# them; that fit's peak stays under 6 GB: bench/HISTORY.md, "Single-cell
# default: the file cache's first blocks").
file_cache_budget <- function(file_cache) {
  if (!identical(file_cache, "auto")) return(file_cache)
  avail <- available_memory()
  if (is.na(avail)) 0 else as.numeric(avail) / 10
}
