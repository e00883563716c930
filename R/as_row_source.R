# Making the row source of an input: the sources as_row_source() tries, in
# order (R/row_source.R describes the sources and their interface). A new
# source: one file with its constructor and methods, and one line in
# row_source_types().

# The sources as_row_source() tries, in order: a test on the object and the
# constructor of its source. The last entry takes everything else as
# in-memory data (whose checks, check_data(), then say what is wrong).
row_source_types <- function() {
  c(registered_sources$types, list(
    list(is = function(x) inherits(x, "row_source"), new = identity),
    # (first, the common case: a plain matrix)
    list(is = function(x) is.matrix(x) && is.null(oldClass(x)), new = new_source_matrix),
    list(is = function(x) inherits(x, "kmreduce_mpi"), new = new_source_mpi),
    list(is = is_big, new = new_source_big),
    list(is = is_h5ad_rows, new = new_source_h5ad_rows),
    list(is = is_delayed, new = new_source_delayed_rows),
    list(is = function(x) isS4(x) && methods::is(x, "sparseMatrix"), new = new_source_sparse),
    list(is = function(x) TRUE, new = new_source_matrix)
  ))
}

# Sources registered at run time (before the package's own; a test's toy
# source): register_row_source(test, constructor).
registered_sources <- new.env(parent = emptyenv())
registered_sources$types <- list()

register_row_source <- function(is, new) {
  registered_sources$types <- c(list(list(is = is, new = new)), registered_sources$types)
  invisible(NULL)
}

# The row source of `x` (a given `weights` already checked).
as_row_source <- function(x, weights = NULL) {
  for (type in row_source_types()) {
    if (isTRUE(type$is(x))) {
      src <- type$new(x)
      if (!is.null(weights)) src$weights <- weights
      return(src)
    }
  }
}
