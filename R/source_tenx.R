# Row source: the cells of a 10x Genomics HDF5 file (the layout Cell Ranger
# writes and HDF5Array::TENxMatrix() reads: in one group, `data`, `indices`
# and `indptr`, genes x cells compressed by cell, and `shape`), read straight
# from the file with rhdf5 in blocks of whole cells, as sparse rows: each
# block is one hyperslab of `data` and of `indices` between two `indptr`
# entries, never densified. It is a source_delayed (R/source_delayed.R):
# normalization, value checks and progress are the same; only the reading
# differs. It is used for a TENxMatrix without delayed operations, with the
# cells as rows: the columns of a SummarizedExperiment's TENxMatrix assay,
# or t(TENxMatrix) given as `x`.
#
# The file is checked when the source is made (datasets, in a named group
# or in the root group, their types and shapes, `indptr` whole numbers from 0
# to the number of values, never decreasing) and
# before each block (size and time of change as when the fit began: a file
# changed during the fit is an error, not a mixed result); each block's
# gene indices are checked before the C++ core reads them.

# The TENxMatrixSeed of x when x is a TENxMatrix without delayed operations
# (`transposed`: t() of one), else NULL.
tenx_seed <- function(x, transposed) {
  s <- seed_under(x, transposed)
  if (!methods::is(s, "TENxMatrixSeed") || !is.null(s@subdata)) return(NULL)
  s
}

# The seed of a DelayedMatrix x (`transposed`: the seed under its t()), or
# NULL when x is not delayed (or not a t() of one when `transposed`).
seed_under <- function(x, transposed) {
  if (!is_delayed(x)) return(NULL)
  s <- x@seed
  if (transposed) {
    if (!methods::is(s, "DelayedAperm") || !identical(as.integer(s@perm), 2:1)) return(NULL)
    s <- s@seed
  }
  s
}

# `cells_first`: x shows the cells as rows (x is t() of the TENxMatrix) or
# as columns (the TENxMatrix itself, a SummarizedExperiment's assay): known
# from the operations that made x (tenx_seed(), tenx_window()), never from
# its shape, which cannot tell a square file from its transpose.
# `window`: NULL (all the file's cells), or list(first, last, cells_first)
# for the cells first..last of the file only (tenx_window(): an MPI rank's
# range), x then showing those cells (as rows when cells_first).
new_source_tenx <- function(x, seed, cells_first, normalize = "none", what = NULL,
                            window = NULL) {
  requireNamespace("rhdf5", quietly = TRUE) || stop_arg(
    "Reading a 10x HDF5 file (a TENxMatrix) needs the rhdf5 package; install it from Bioconductor.")
  file <- seed@filepath
  group <- seed@group
  # cells as rows: the seed's columns, whichever way x shows them
  if (!is.null(window)) cells_first <- window$cells_first
  kind <- cells_file_kind(seed)
  if (is.null(what)) {
    what <- if (is.null(window)) sprintf("the %s '%s'", kind, file) else
      sprintf("the %s '%s' (cells %s..%s)", kind, file, format(window$first), format(window$last))
  }
  src <- new_source_delayed(x, by_columns = !cells_first, normalize = normalize, what = what,
                            class = "source_tenx")
  src$file <- file
  src$group <- group
  src$kind <- kind
  src$stamp <- file_stamp(file)
  if (is.null(window)) {
    src$indptr <- read_tenx_layout(file, group, n_cells = src$n_row, n_genes = src$n_col,
                                   kind = kind)
    src$value_type <- attr(src$indptr, "value_type")
    src$int64 <- attr(src$indptr, "int64")
  } else {
    # (the window's indptr: offsets into the whole file's data and indices;
    # cell numbers in messages are the file's)
    all <- read_tenx_layout(file, group, n_cells = seed@dim[2L], n_genes = src$n_col, kind = kind)
    src$indptr <- all[window$first:(window$last + 1L)]
    src$value_type <- attr(all, "value_type")
    src$int64 <- attr(all, "int64")
    src$cell0 <- window$first - 1L
  }
  src$sparse <- TRUE
  # (blocks of about 2^24 stored values, whole cells: the file's own density)
  src$values_per_row <- max(1, (src$indptr[src$n_row + 1L] - src$indptr[1L]) / src$n_row)
  src$hooks <- list(release = release_tenx, keep_in_memory = keep_tenx_in_memory,
                    read_transient = read_tenx_transient, reduce_rows = reduce_tenx_rows,
                    library_sizes = tenx_library_sizes, kept_sample = tenx_kept_sample)
  # the next block, read while this one is converted (read_block())
  src$ahead <- new.env(parent = emptyenv())
  src
}

# A range of a TENxMatrix's cells: x is `t(tenx)[cells, ]` (transposed) or
# `tenx[, cells]`, with `cells` consecutive and increasing and every gene
# kept, and no other delayed operation. NULL when x is not such a range,
# else list(seed, first, last, cells_first).
tenx_window <- function(x, transposed) {
  s <- seed_under(x, transposed)
  if (!methods::is(s, "DelayedSubset")) return(NULL)
  index <- s@index
  seed <- s@seed
  if (!methods::is(seed, "TENxMatrixSeed") || !is.null(seed@subdata) || length(index) != 2L) {
    return(NULL)
  }
  genes <- index[[1L]]
  if (!is.null(genes) && !identical(as.numeric(genes), as.numeric(seq_len(seed@dim[1L])))) {
    return(NULL)
  }
  cells <- index[[2L]]
  if (is.null(cells)) cells <- seq_len(seed@dim[2L])
  if (length(cells) == 0L || anyNA(cells) ||
      (length(cells) > 1L && any(diff(as.numeric(cells)) != 1))) {
    return(NULL)
  }
  list(seed = seed, first = as.numeric(cells[1L]), last = as.numeric(cells[length(cells)]),
       cells_first = transposed)
}

# A file changed during the fit is an error, not a mixed result.
check_file_stamp <- function(src) {
  if (!identical(file_stamp(src$file), src$stamp)) {
    stop_arg(sprintf("%s changed while it was being read (size or time of change); the fit is abandoned.",
                     file_label(src)))
  }
}

# What messages call the file of the seed `seed`: a 10x file, or an
# AnnData file (an H5ADMatrixSeed: h5ad_rows(), R/source_h5ad.R, or
# HDF5Array::H5ADMatrix()), whose CSR matrices have the 10x layout.
cells_file_kind <- function(seed) {
  if (methods::is(seed, "H5ADMatrixSeed")) ".h5ad file" else "10x file"
}

# "The 10x file 'F'", "The .h5ad file 'F' (matrix \"X\")": the file of the
# source `src` in messages.
file_label <- function(src) {
  kind <- if (is.null(src$kind)) "10x file" else src$kind
  sub("^the", "The", cells_file_label(kind, src$file, sub("^/+", "", src$group)))
}

# "the 10x file 'F'", or of an .h5ad file "the .h5ad file 'F' (matrix
# \"X\")": a file of cells in messages (`matrix`: its group without the
# leading slash).
cells_file_label <- function(kind, file, matrix) {
  sprintf("the %s '%s'%s", kind, file,
          if (identical(kind, ".h5ad file")) sprintf(" (matrix \"%s\")", matrix) else "")
}

file_stamp <- function(file) {
  info <- file.info(file, extra_cols = FALSE)
  c(size = as.numeric(info$size), mtime = as.numeric(info$mtime))
}

# The path of the dataset `name` of the 10x group `group` (as a
# TENxMatrix's seed gives it: "mm10", "/mm10", or "/" for the root group,
# whose datasets are "/data", "/indices", ...).
tenx_dataset <- function(group, name) paste0(tenx_group_path(group), "/", name)

# The group as HDF5 names it without a trailing slash: "/mm10", or "" for
# the root group.
tenx_group_path <- function(group) sub("/+$", "", paste0("/", sub("^/+", "", group)))

# The error for a file that is missing or that HDF5 cannot open: `label`
# names it ("The 10x file 'F' (group \"G\")"). Nothing when it opens.
check_h5_file <- function(file, label) {
  if (!file.exists(file)) stop_arg(sprintf("%s does not exist.", label))
  # (rhdf5 may answer FALSE instead of an error, after HDF5Array has
  # changed its error handling)
  fid <- tryCatch(suppressMessages(rhdf5::H5Fopen(file, flags = "H5F_ACC_RDONLY")),
                  error = function(e) e)
  if (methods::is(fid, "H5IdComponent")) {
    rhdf5::H5Fclose(fid)
    return(invisible(NULL))
  }
  stop_arg(sprintf("%s cannot be read as HDF5 (truncated, damaged or not an HDF5 file): %s", label,
                   if (inherits(fid, "error")) conditionMessage(fid) else "HDF5 cannot open it."))
}

# How the stored values of HDF5 type `dtype` (h5ls()'s name, e.g.
# "H5T_STD_I32LE") are read: list(type = "integer" or "double", int64 =
# whether they are 64-bit integers). R's integers hold signed integers of up
# to 32 bits and unsigned ones of up to 16; wider ones (unsigned 32-bit,
# 64-bit) are read as doubles, as HDF5Array reads 64-bit counts: exactly up
# to 2^53 (read_cells() stops at a count beyond). Floats are doubles.
tenx_value_type <- function(dclass, dtype) {
  if (!grepl("INTEGER", dclass)) return(list(type = "double", int64 = FALSE))
  m <- regmatches(dtype, regexec("^H5T_STD_([IU])(8|16|32|64)(LE|BE)$", dtype))[[1L]]
  # (an integer type of another name: as doubles, every value checked)
  if (length(m) == 0L) return(list(type = "double", int64 = TRUE))
  bits <- as.integer(m[3L])
  fits <- if (m[2L] == "I") bits <= 32L else bits <= 16L
  list(type = if (fits) "integer" else "double", int64 = bits == 64L)
}

# The checked layout of a 10x group: its indptr (n_cells + 1 doubles, whole
# numbers from 0 up to the number of stored values, never decreasing), with
# the type its values are read as (tenx_value_type()) as attribute
# "value_type" and whether they are 64-bit integers as "int64".
# `kind`: what messages call the file; `major`: what the offsets are of
# (the cells of a 10x file, the genes of an .h5ad file's CSC matrix).
read_tenx_layout <- function(file, group, n_cells, n_genes, kind = "10x file", major = "cells") {
  label <- sprintf("The %s '%s' (group \"%s\")", kind, file, group)
  bad <- function(fmt, ...) stop_arg(sprintf(paste0(label, " ", fmt), ...))
  check_h5_file(file, label)
  listing <- tryCatch(rhdf5::h5ls(file, recursive = TRUE, all = TRUE, datasetinfo = TRUE),
                      error = function(e) bad("cannot be read as HDF5: %s", conditionMessage(e)))
  g <- tenx_group_path(group)
  here <- listing[listing$group == (if (nzchar(g)) g else "/"), , drop = FALSE]
  for (name in c("data", "indices", "indptr")) {
    row <- here[here$name == name, , drop = FALSE]
    if (nrow(row) != 1L || row$otype != "H5I_DATASET") bad("has no dataset `%s`.", name)
    if (!grepl("INTEGER|FLOAT", row$dclass)) {
      bad("has a dataset `%s` of class %s; numbers were expected.", name, row$dclass)
    }
  }
  len <- function(name) as.numeric(here$dim[here$name == name])
  nnz <- len("data")
  if (!identical(nnz, len("indices"))) {
    bad("has `data` of length %s but `indices` of length %s.", format(nnz),
        format(len("indices")))
  }
  if (len("indptr") != n_cells + 1) {
    bad("has `indptr` of length %s, not %s (one more than its %s %s).",
        format(len("indptr")), format(n_cells + 1), format(n_cells), major)
  }
  indptr <- tryCatch(as.numeric(rhdf5::h5read(file, tenx_dataset(group, "indptr"),
                                              bit64conversion = "double")),
                     error = function(e) bad("`indptr` cannot be read: %s", conditionMessage(e)))
  wrong <- tenx_indptr_problem(indptr, nnz)
  if (!is.null(wrong)) {
    bad("has an `indptr` that does not run from 0 up to the %s stored values: %s.",
        format(nnz), wrong)
  }
  data <- here[here$name == "data", , drop = FALSE]
  type <- tenx_value_type(data$dclass, data$dtype)
  attr(indptr, "value_type") <- type$type
  attr(indptr, "int64") <- type$int64
  indptr
}

# What is wrong with the offsets `indptr` of a file of `nnz` stored values
# (entry j + 1 the end of cell j's values): NULL when they are whole
# numbers from 0 to nnz, never decreasing, else the first fault, naming the
# entry and its cell. Fractional offsets would be truncated by the readers,
# so a fit would read other values than the file's cells hold.
tenx_indptr_problem <- function(indptr, nnz) {
  entry <- function(j) {
    sprintf("entry %s (%s) is %s", format(j),
            if (j == 1L) "the start of cell 1" else sprintf("the end of cell %s", format(j - 1)),
            format(indptr[j], digits = 15))
  }
  na <- which(is.na(indptr))
  if (length(na)) return(sprintf("%s", entry(na[1L])))
  frac <- which(indptr != floor(indptr) | is.infinite(indptr))
  if (length(frac)) return(sprintf("%s, not a whole number", entry(frac[1L])))
  if (indptr[1L] != 0) return(sprintf("%s, not 0", entry(1L)))
  down <- which(diff(indptr) < 0)
  if (length(down)) {
    return(sprintf("%s, below entry %s (%s)", entry(down[1L] + 1L), format(down[1L]),
                   format(indptr[down[1L]], digits = 15)))
  }
  last <- length(indptr)
  if (indptr[last] != nnz) return(sprintf("%s, not %s", entry(last), format(nnz)))
  NULL
}

read_block.source_tenx <- function(src, first, last) tenx_block(src, first, last, NULL)

# (the block's `i` and `x` view the memory of the source's pool of two
# blocks, src/read_cells.cpp: no new R vectors per block)
read_tenx_transient <- function(src, first, last) {
  if (is.null(src$ahead$pool)) {
    src$ahead$pool <- cells_pool_new()
    holding_memory(src)
  }
  tenx_block(src, first, last, src$ahead$pool)
}

# `pool`: NULL, or the pool the block is converted into.
tenx_block <- function(src, first, last, pool) {
  check_file_stamp(src)
  # (on any error or interrupt, the reading vectors are dropped: a
  # conversion abandoned on its thread may still be reading one of them)
  done <- FALSE
  on.exit(if (!done) clear_cells_buffers(src), add = TRUE)
  work <- src$ahead$job
  src$ahead$job <- NULL
  if (is.null(work) || work$first != first || work$last != last || !identical(work$pool, pool)) {
    raw <- src$ahead$raw
    src$ahead$raw <- NULL
    if (is.null(raw) || raw$first != first || raw$last != last) raw <- read_cells(src, first, last)
    work <- start_conversion(src, raw, pool)
  }
  # the next block of as many cells read while this one is converted
  if (last < src$n_row) {
    next_last <- min(src$n_row, last + (last - first + 1L))
    src$ahead$raw <- read_cells(src, last + 1L, next_last)
  }
  block <- finish_conversion(src, work)
  # (a pass through the pool, the next block kept in memory: its conversion
  # starts now, on its thread, while the caller uses this block, whose
  # memory is the pool's other half. A block read from the file is
  # converted in the next call, while the main thread reads the block
  # after it: both cores busy, as the caller's work then is)
  if (!is.null(pool) && isTRUE(src$ahead$raw$kept)) {
    src$ahead$job <- start_conversion(src, src$ahead$raw, pool)
    src$ahead$raw <- NULL
  }
  done <- TRUE
  finish_block(src, block, first, last, normalized = TRUE)
}

# The conversion of the block `raw` (read_cells()) to cells as rows, and
# normalized, data/cells.hpp (the same numbers as Matrix::t() of the stored
# block and normalize_columns()), started on a thread of its own: what
# finish_conversion() takes.
start_conversion <- function(src, raw, pool) {
  b <- block_normalization(src$normalize, raw$first:raw$last)
  cell1 <- file_cell(src, raw$first)
  job <- tryCatch(cells_to_rows_start(raw$x, raw$i, raw$ptr, src$n_col, b$target,
                                      b$size_factors, cell1, pool, b$transform),
                  error = function(e) stop_tenx_block(src, raw, cell1, conditionMessage(e)))
  list(job = job, raw = raw, cell1 = cell1, first = raw$first, last = raw$last, pool = pool)
}

# The block of a conversion (waits for it), or its error naming the cell.
finish_conversion <- function(src, work) {
  tryCatch(cells_to_rows_finish(work$job), error = function(e) {
    stop_tenx_block(src, work$raw, work$cell1, conditionMessage(e))
  })
}

## The stored layout, without conversion --------------------------------------

# Cells first..last as the file stores them (read_cells()), for the kernels
# that read that layout itself (data/cells.hpp: the product with a
# reducer's rotation, the moments by cluster), with their normalization:
# the one list the C++ side takes (src/stored_cells.h, with_stored_cells()),
# list(x, i, ptr, n_genes, transform, target, size_factors, first_cell), plus `raw`
# for error messages; NULL when the cells are not normalized (the
# converted block's value checks are then needed). These kernels check the
# gene indices and counts as the conversion does and give the numbers of
# the converted block, without its time and memory.
stored_cells <- function(src, first, last) {
  norm <- stored_normalization(src)
  if (is.null(norm)) return(NULL)
  check_file_stamp(src)
  # (a block read ahead or being converted by an earlier pass is dropped: its
  # reading vectors are about to be reused)
  work <- src$ahead$job
  src$ahead$job <- NULL
  src$ahead$raw <- NULL
  if (!is.null(work)) try(cells_to_rows_finish(work$job), silent = TRUE)
  done <- FALSE
  on.exit(if (!done) clear_cells_buffers(src), add = TRUE)
  raw <- read_cells(src, first, last)
  done <- TRUE
  b <- block_normalization(norm, first:last)
  list(x = raw$x, i = raw$i, ptr = raw$ptr, n_genes = src$n_col, transform = b$transform,
       target = b$target, size_factors = b$size_factors, first_cell = file_cell(src, first),
       raw = raw)
}

# The source's normalization when the stored-layout kernels can apply it
# (one with a target: they check the counts as it does), else NULL.
stored_normalization <- function(src) {
  norm <- as_normalization(src$normalize)
  if (!normalizes(norm$how) || isTRUE(norm$check_only) || !isTRUE(norm$target > 0)) return(NULL)
  norm
}

# The error of a stored-layout kernel on the cells `st` (stored_cells()).
stop_stored_cells <- function(src, st, e) {
  stop_tenx_block(src, st$raw, st$first_cell, conditionMessage(e))
}

# Extractions (a rotation: "svd", "rsvd") multiply the stored cells, each
# block's product written straight into the rows of the result; other
# methods map the converted blocks (NULL: reduce_rows() does).
reduce_tenx_rows <- function(src, reducer, block_rows, n_threads, family, names) {
  if (family != "extraction" || is.null(stored_normalization(src))) {
    return(NULL)
  }
  rotation <- cells_multiply_rows_cpp(reducer$rotation)
  # (outside R's heap, src/read_cells.cpp: R's collector does not count it)
  out <- matrix_outside_heap_cpp(n_rows(src), ncol(reducer$rotation))
  set_attr_in_place_cpp(out, "dimnames", list(NULL, names))
  # A block read from the file is multiplied on a thread of its own (with
  # n_threads - 1 threads) while R reads the next one (rhdf5 inflates the
  # file's chunks on R's thread); a kept block, on R's thread. The same
  # numbers either way: the product does not depend on its threads.
  pending <- NULL
  wait <- function() {
    p <- pending
    pending <<- NULL
    tryCatch(cells_multiply_wait_cpp(p$job), error = function(e) stop_stored_cells(src, p$st, e))
    report_progress(src, p$st$raw$first, p$st$raw$last)
  }
  on.exit(if (!is.null(pending)) try(cells_multiply_wait_cpp(pending$job), silent = TRUE),
          add = TRUE)
  # (each block written in place: `out` is this function's own)
  for_row_blocks_index(n_rows(src), block_rows, function(rows) {
    first <- rows[1L]
    last <- rows[length(rows)]
    st <- stored_cells(src, first, last)
    if (!is.null(pending)) wait()
    beside <- n_threads > 1L && !isTRUE(st$raw$kept)
    job <- tryCatch(if (beside) {
      cells_multiply_start_cpp(st, rotation, n_threads - 1L, out, first - 1)
    } else {
      cells_multiply_cpp(st, rotation, n_threads, out, first - 1)
    }, error = function(e) stop_stored_cells(src, st, e))
    if (beside) pending <<- list(st = st, job = job) else report_progress(src, first, last)
  })
  if (!is.null(pending)) wait()
  if (length(reducer$shift)) subtract_row_in_place_cpp(out, reducer$shift)
  out
}

# The statistics' one pass reads the cells as the file stores them, when
# their normalization allows (stored_cells()): `cells` of the description
# (src/sources.h), whose kernel gives the numbers of the converted block.
to_cpp_source.source_tenx <- function(src, block_rows = NULL) {
  cpp <- NextMethod()
  if (!is.null(stored_normalization(src))) {
    cpp$cells <- list(read = function(first, last) {
      st <- stored_cells(src, first, last)
      report_progress(src, first, last)
      st
    }, fail = function(st, msg) stop_stored_cells(src, st, simpleError(msg)))
  }
  cpp
}

# The file's stored values and gene indices kept in memory as the first
# pass reads them (read_cells(); outside R's heap, freed with the source's
# other memory when the fit returns), within `bytes`: all of them when they
# fit, otherwise the file's first blocks, as many as fit (the later passes
# then read only the other blocks from the file).
keep_tenx_in_memory <- function(src, bytes) {
  per_value <- if (identical(src$value_type, "integer")) 8 else 12
  # (decided once, before the first pass)
  if (is.null(src$cache$keep)) {
    src$cache$room <- floor(bytes / per_value)  # (values that may still be kept)
    src$cache$keep <- src$cache$room > 0
  }
  invisible(src)
}

# Cells first..last as read_cells() gives them, from a block the first pass
# kept that holds them all, or NULL.
kept_cells <- function(src, first, last) {
  blocks <- src$cache$blocks
  if (length(blocks) == 0L) return(NULL)
  at <- which(vapply(blocks, function(b) b$first <= first && b$last >= last, logical(1)))
  if (length(at) == 0L) return(NULL)
  b <- blocks[[at[1L]]]
  if (b$first == first && b$last == last) return(c(b, kept = TRUE))
  from <- b$ptr[first - b$first + 1L]
  to <- b$ptr[last - b$first + 2L]
  list(first = first, last = last, x = copy_entries_cpp(b$x, from, to - from),
       i = copy_entries_cpp(b$i, from, to - from),
       ptr = b$ptr[(first - b$first + 1L):(last - b$first + 2L)] - from, kept = TRUE)
}

# The file's number of the source's cell `cell`.
file_cell <- function(src, cell) if (is.null(src$cell0)) cell else src$cell0 + cell

# The error `msg` of a conversion or check of the block `raw` as read
# (read_cells(); cell1: the file's number of its first cell): a value that
# is not a count gets R's own message (normalize_columns() of the stored
# block), a wrong layout stop_tenx_layout()'s.
stop_tenx_block <- function(src, raw, cell1, msg) {
  if (grepl("^count", msg)) {
    used <- seq_len(raw$ptr[length(raw$ptr)])
    stored <- methods::new("dgCMatrix", i = as.integer(raw$i[used]), p = as.integer(raw$ptr),
                           x = as.double(raw$x[used]),
                           Dim = as.integer(c(src$n_col, length(raw$ptr) - 1L)))
    norm <- as_normalization(src$normalize)
    normalize_columns(stored, list(how = norm$how, target = 1, size_factors = NULL),
                      describe_source(src), cell1)
  }
  stop_tenx_layout(src, msg)
}

# The library sizes of the file's cells (source_library_sizes()) from
# their values as read, each block summed and checked without being
# converted; the sampled cells' values and gene indices kept as stored.
tenx_library_sizes <- function(src, sample = NULL) {
  lib <- numeric(n_rows(src))
  parts <- list()
  done <- FALSE
  on.exit(if (!done) clear_cells_buffers(src), add = TRUE)
  for_row_blocks_index(n_rows(src), source_block_rows(src), function(rows) {
    first <- rows[1L]
    last <- rows[length(rows)]
    check_file_stamp(src)
    raw <- read_cells(src, first, last)
    cell1 <- file_cell(src, first)
    lib[rows] <<- tryCatch(cells_library_sizes_cpp(raw$x, raw$ptr, cell1),
                           error = function(e) stop_tenx_block(src, raw, cell1, conditionMessage(e)))
    local <- sample_in_block(sample, rows)
    if (length(local)) {
      parts[[length(parts) + 1L]] <<- cells_take_cpp(raw$x, raw$i, raw$ptr, local)
    }
    report_progress(src, first, last)
  })
  done <- TRUE
  if (!is.null(sample)) src$cache$sample <- list(index = sample$index, stored = parts)
  lib
}

# The kept cells (source_library_sizes()) as rows, normalized: converted
# as a block of a pass converts them (cells_to_rows(): the same numbers).
tenx_kept_sample <- function(src, index) {
  kept <- take_kept_sample(src, index)
  if (is.null(kept)) return(NULL)
  parts <- kept$stored
  ends <- cumsum(vapply(parts, function(p) p$ptr[length(p$ptr)], 0))
  ptr <- c(0, unlist(lapply(seq_along(parts), function(b) {
    p <- parts[[b]]$ptr
    p[-1L] + (if (b > 1L) ends[b - 1L] else 0)
  })))
  # The sample's values and gene indices, and the cells as rows made of them,
  # outside R's heap (src/read_cells.cpp: R's collector neither counts nor runs
  # for them; a full collection costs about half a second with
  # Bioconductor's packages loaded): the rows in a pool of the source's own,
  # valid until the source's memory is released when the fit returns.
  x <- read_buffer_concat_cpp(lapply(parts, `[[`, "x"), src$value_type)
  i <- read_buffer_concat_cpp(lapply(parts, `[[`, "i"), "integer")
  on.exit({
    read_buffer_release(x)
    read_buffer_release(i)
  }, add = TRUE)
  # (a pool for each sample: a pool's third conversion would reuse the
  # first's memory; all of them freed by release_source())
  pool <- cells_pool_new()
  src$ahead$sample_pools <- c(src$ahead$sample_pools, list(pool))
  holding_memory(src)
  b <- block_normalization(src$normalize, index)
  failed <- function(e) {
    # (the message names the cell by its number in the file)
    msg <- conditionMessage(e)
    m <- regmatches(msg, regexec("at cell ([0-9]+)$", msg))[[1L]]
    if (length(m)) {
      msg <- sub("at cell [0-9]+$", paste("at cell", format(file_cell(src, index[as.numeric(m[2L])]))), msg)
    }
    stop_tenx_layout(src, msg)
  }
  job <- tryCatch(cells_to_rows_start(x, i, ptr, src$n_col, b$target, b$size_factors, 1, pool,
                                      b$transform),
                  error = failed)
  tryCatch(cells_to_rows_finish(job), error = failed)
}

# The error for a block whose layout is wrong (`msg`, from data/cells.hpp:
# "gene index G ... at cell C", G from 0, C the file's cell from 1, or
# another fault of the block): names the file, the cell (and its barcode)
# and the gene (and its name) where the source knows them. `why`: what
# follows, after a colon.
stop_tenx_layout <- function(src, msg, why = NULL) {
  m <- regmatches(msg, regexec("gene index ([0-9]+) .*at cell ([0-9]+)$|at cell ([0-9]+)$", msg))[[1L]]
  name_of <- function(names, i) {
    if (length(names) >= i && !is.na(i) && i >= 1 && !is.na(names[i])) sprintf(" \"%s\"", names[i])
    else ""
  }
  if (length(m)) {
    cell <- as.numeric(if (nzchar(m[3L])) m[3L] else m[4L])
    local <- cell - (if (is.null(src$cell0)) 0 else src$cell0)
    barcode <- name_of(src$names[[1L]], local)
    msg <- sub(" at cell [0-9]+$", sprintf(" at cell %s%s", format(cell),
                                          if (nzchar(barcode)) sprintf(" (%s)", trimws(barcode)) else ""),
               msg)
    if (nzchar(m[2L])) {
      gene <- as.numeric(m[2L]) + 1
      msg <- sub("gene index [0-9]+", sprintf("gene index %s (gene %s%s)", m[2L], format(gene),
                                               sub("^ ", ", ", name_of(src$names[[2L]], gene))), msg)
    }
  }
  # ("a gene index ...", "a count ..."; any other fault of the block as
  # read, e.g. its offsets, said as it is)
  said <- if (grepl("^(gene index|count) ", msg)) paste("has a", msg) else
    paste("gave a block that cannot be used:", msg)
  stop_arg(sprintf("%s %s%s.", file_label(src), said,
                   if (is.null(why)) "" else paste0(": ", why)))
}

# Cells first..last as stored: list(first, last, x = values, i = gene
# indices, ptr = offsets from 0), x and i being the first ptr[length(ptr)]
# entries of one of two pairs of vectors that each pass reuses, block after
# block (the other pair holds the block being converted meanwhile): a pass
# over a large file then allocates no new vectors of its size per block, and
# R's garbage collector seldom runs (a full collection costs a second or
# more in a session with Bioconductor's packages loaded).
read_cells <- function(src, first, last) {
  kept <- kept_cells(src, first, last)
  if (!is.null(kept)) return(kept)
  from <- src$indptr[first]
  count <- src$indptr[last + 1L] - from
  c0 <- if (is.null(src$cell0)) 0 else src$cell0  # (cell numbers in messages: the file's)
  failed <- function(e) {
    stop_arg(sprintf("%s could not be read (cells %d..%d): %s",
                     file_label(src), c0 + first, c0 + last, conditionMessage(e)))
  }
  # (a block the source keeps, control$file_cache, is read into vectors of
  # its own, outside R's heap: the cache, without a copy)
  keep <- isTRUE(src$cache$keep)
  if (keep && count > src$cache$room) {
    # (the first block that does not fit ends the kept ones: a prefix of
    # the file is kept, the rest read again by each later pass)
    keep <- FALSE
    src$cache$keep <- FALSE
  }
  pair <- 3L - (if (is.null(src$ahead$pair)) 2L else src$ahead$pair)  # (1, 2, 1, ...)
  if (count == 0) {
    x <- vector(src$value_type, 0L)
    i <- integer(0)
  } else {
    bufs <- if (keep) {
      list(x = read_buffer_new(src$value_type, count), i = read_buffer_new("integer", count))
    } else if (length(src$ahead$buffers) >= pair) {
      src$ahead$buffers[[pair]]
    }
    if (is.null(bufs) || length(bufs$x) < count) {
      if (is.null(src$ahead$buffers)) src$ahead$buffers <- list(NULL, NULL)
      bufs <- cells_buffers(src, last - first + 1L, count)
      src$ahead$buffers[pair] <- list(bufs)
      holding_memory(src)
    }
    # (values wider than R's integers as doubles, as the buffer is: rhdf5's
    # warning that 64-bit integers beyond 2^53 lose digits is the error below)
    x <- tryCatch(withCallingHandlers(
      h5_read_into(src$file, tenx_dataset(src$group, "data"), from, count, bufs$x,
                   bit64conversion = if (src$value_type == "double") "double" else "int"),
      warning = function(w) {
        if (grepl("precision lost", conditionMessage(w))) invokeRestart("muffleWarning")
      }), error = failed)
    # (a 64-bit gene index beyond R's integers reads as NA, which the
    # conversion refuses, naming the file and the cell: rhdf5's warning of
    # the overflow is that error)
    i <- tryCatch(withCallingHandlers(
      h5_read_into(src$file, tenx_dataset(src$group, "indices"), from, count, bufs$i,
                   bit64conversion = "int"),
      warning = function(w) {
        if (grepl("integer overflow", conditionMessage(w))) invokeRestart("muffleWarning")
      }), error = failed)
  }
  got <- length(x) >= count && length(i) >= count
  if (!got || !is.numeric(x) || !is.integer(i)) {
    stop_arg(sprintf("%s gave %s values and %s gene indices for cells %d..%d; expected %s numbers each.",
                     file_label(src), format(length(x)), format(length(i)), c0 + first, c0 + last,
                     format(count)))
  }
  out <- list(first = first, last = last, x = x, i = i, ptr = src$indptr[first:(last + 1L)] - from)
  if (isTRUE(src$int64)) check_exact_counts(src, out, c0)
  if (!keep) {
    src$ahead$pair <- pair
  } else {
    src$cache$blocks[[length(src$cache$blocks) + 1L]] <- out
    src$cache$room <- src$cache$room - count
    holding_memory(src)
    # (the blocks of the first pass only: a later pass reads a block that
    # none of them holds from the file, without keeping a second copy)
    if (last == n_rows(src)) src$cache$keep <- FALSE
  }
  out
}

# Counts stored as 64-bit integers are read as doubles, which hold every
# whole number only up to 2^53: a larger one (2^53 + 1 reads as 2^53) is an
# error naming the cell, never a count changed silently. `raw`: the block
# as read_cells() gives it; c0: the file's number of the source's cell 0.
check_exact_counts <- function(src, raw, c0) {
  count <- raw$ptr[length(raw$ptr)]
  at <- first_beyond_cpp(raw$x, count, 2^53)
  if (at == 0) return(invisible(NULL))
  cell <- c0 + raw$first - 1 + findInterval(at - 1, raw$ptr)
  stop_tenx_layout(src, sprintf("count of 2^53 or more at cell %s", format(cell)),
                   "stored as a 64-bit integer, which R's doubles cannot hold exactly")
}

# A pair of vectors for read_cells(): values of the file's type and gene
# indices, long enough for any block of `cells` consecutive cells of the
# source (and for `count` values).
cells_buffers <- function(src, cells, count) {
  n <- length(src$indptr) - 1L
  cells <- min(cells, n)
  # (the most values of any `cells` consecutive cells, wherever blocks start)
  longest <- max(src$indptr[(cells + 1L):(n + 1L)] - src$indptr[1L:(n + 1L - cells)], count)
  # (outside R's heap, src/read_cells.cpp: R's collector does not count them)
  list(x = read_buffer_new(src$value_type, longest), i = read_buffer_new("integer", longest))
}

# Frees the reading vectors and the pool (hold_sources(),
# R/row_source.R).
release_tenx <- function(src) {
  for (b in src$cache$blocks) {
    if (b$ptr[length(b$ptr)] > 0) {  # (a block without values has no buffers)
      read_buffer_release(b$x)
      read_buffer_release(b$i)
    }
  }
  src$cache$blocks <- NULL
  src$cache$keep <- FALSE
  if (!is.null(src$ahead$pool)) cells_pool_release(src$ahead$pool)
  src$ahead$pool <- NULL
  for (pool in src$ahead$sample_pools) cells_pool_release(pool)
  src$ahead$sample_pools <- NULL
  clear_cells_buffers(src)
}

# Frees the reading vectors (a conversion still reading one keeps its
# memory until it is done).
clear_cells_buffers <- function(src) {
  for (pair in src$ahead$buffers) for (b in pair) read_buffer_release(b)
  src$ahead$buffers <- NULL
  src$ahead$pair <- NULL
  src$ahead$raw <- NULL
  src$ahead$job <- NULL
  invisible(NULL)
}

# rhdf5's H5Dread() asks any(is.na(res)) of every integer vector it has
# read into (its .postProcessDataSet()). For a read buffer the answer is one
# TRUE or FALSE, from a scan in C++: is.na() as R computes it would allocate
# a logical vector of the buffer's length, 2^24 values a block, and set off
# R's collector at each block (a full collection costs about half a second
# with Bioconductor's packages loaded).
# That one answer is all the method gives, and only for a buffer in use: a
# copy (R's arithmetic keeps the class) or a released buffer gets R's own
# is.na().
#' @export
is.na.kmreduce_read_buffer <- function(x) {
  if (read_buffer_live_cpp(x)) return(read_buffer_any_na(x))
  if (length(x) == 0L) return(logical(0))  # (a released buffer holds nothing)
  is.na(unclass(x))
}

# `count` values of the dataset `name` from offset `from` (0-based), read
# into the first entries of `buf` (length >= count), which is changed in
# place: the vector is read_cells()'s own. By the package's own reader where
# it was built with HDF5 (src/tenx_hdf5.cpp: the chunks decompressed on the
# fit's threads, nothing on R's heap) and the dataset is one it reads as
# rhdf5 would; otherwise by rhdf5.
h5_read_into <- function(file, name, from, count, buf, ...) {
  if (isTRUE(held$own_hdf5_reader) &&
      tenx_hdf5_read_cpp(file, name, from, count, buf, reading_threads())) {
    return(buf)
  }
  fid <- rhdf5::H5Fopen(file, flags = "H5F_ACC_RDONLY")
  on.exit(rhdf5::H5Fclose(fid), add = TRUE, after = FALSE)
  did <- rhdf5::H5Dopen(fid, name)
  on.exit(rhdf5::H5Dclose(did), add = TRUE, after = FALSE)
  file_space <- rhdf5::H5Dget_space(did)
  on.exit(rhdf5::H5Sclose(file_space), add = TRUE, after = FALSE)
  rhdf5::H5Sselect_hyperslab(file_space, start = from + 1, count = count)
  memory_space <- rhdf5::H5Screate_simple(count)
  on.exit(rhdf5::H5Sclose(memory_space), add = TRUE, after = FALSE)
  rhdf5::H5Dread(did, file_space, memory_space, buf = buf, ...)
}
