# The lifetime of the memory a row source holds outside R's heap (the
# interface of row sources: R/row_source.R).

# Memory outside R's heap. A source may hold some while it is read
# (source_tenx: its reading vectors and its pool of blocks), which R's
# collector neither counts nor hurries to free. Each exported function that
# reads sources starts with `hold_sources(); on.exit(leave_sources(), add =
# TRUE)`; a source that takes such memory calls holding_memory(src), and the
# outermost leave_sources() releases it (release_source()) when its function
# returns, also on an error. A released source makes its memory again if it
# is read again.
held <- new.env(parent = emptyenv())
held$depth <- 0L
held$sources <- list()
held$threads <- NULL
# (the package's own reader of 10x files where it was built with HDF5,
# src/tenx_hdf5.cpp; FALSE: rhdf5 reads every block, as tests compare)
held$own_hdf5_reader <- TRUE

hold_sources <- function() {
  held$depth <- held$depth + 1L
  invisible(NULL)
}

leave_sources <- function() {
  held$depth <- max(0L, held$depth - 1L)
  if (held$depth == 0L) {
    sources <- held$sources
    held$sources <- list()
    held$threads <- NULL
    for (src in sources) release_source(src)
  }
  invisible(NULL)
}

# The threads of the outermost exported function that reads sources (its
# checked n_threads), for the work a source does as it is read: the 10x
# reader decompresses a file's chunks on them. One thread when none is set.
use_reading_threads <- function(n_threads) {
  if (is.null(held$threads)) held$threads <- n_threads
  invisible(NULL)
}

reading_threads <- function() if (is.null(held$threads)) 1L else held$threads

holding_memory <- function(src) {
  if (!any(vapply(held$sources, identical, logical(1), src))) {
    held$sources[[length(held$sources) + 1L]] <- src
  }
  invisible(NULL)
}

release_source <- function(src) {
  if (!is.null(src$hooks$release)) src$hooks$release(src)
  invisible(NULL)
}

# A source read from a file in several passes keeps what it reads in memory
# when that takes at most `bytes` (file_cache_budget()), and its later
# passes read from there (source_tenx); elsewhere nothing.
keep_in_memory <- function(src, bytes) {
  if (!is.null(src$hooks$keep_in_memory)) src$hooks$keep_in_memory(src, bytes)
  invisible(src)
}
