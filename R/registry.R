# The reduction methods, one entry each: everything the rest of the package
# needs to know about a method (argument checks, printing, the reduced
# columns' names, dims_path(), the out-of-core and MPI inputs, the tests).
# Adding a method takes its core header, its branch in the glue
# (src/reduce.cpp) and in fit_reducer() / apply_reducer() (R/reducer.R) when
# its family needs one, and an entry here.
#
#   label    name printed by print(), summary() and verbose progress
#   family   "none"; "projection" (data-oblivious C = A R, R generated from
#            the seed); "selection" (columns of A, rescaled); "extraction"
#            (C = A V, V from an SVD)
#   prefix   names of the reduced columns (prefix1, prefix2, ...); selections
#            keep the names of their columns
#   default  function(k, d): dims when not given, for k clusters and d columns
#   upper    function(n, d): the largest dims for n rows and d columns (also
#            limited by memory, see max_dims()). A projection maps to at most
#            d dimensions (more would cost more than clustering the data as
#            they are); leverage-score sampling draws dims columns with
#            replacement, as the papers' r, so dims may exceed d there
#   colour   its colour in every plot that compares methods (dims_path())
#   sources  the row-source classes it runs on (R/row_source.R; a source
#            inherits its parent classes'): "source_matrix" (in memory: matrix,
#            data frame, sparse Matrix), "row_source" (every source, read in
#            blocks: a big.matrix), "source_mpi" (mpi_rows())
method_registry <- function() {
  ten_k <- function(k, d) min(d, 10 * k)
  # (leverage-score sampling draws with replacement: with 10 k draws it
  # ended 4-5 % above k-means on all features on gene expression and
  # digits, with 30 k 1.3-1.8 %, at the same cost of its SVD)
  thirty_k <- function(k, d) min(d, 30 * k)
  rank_k <- function(k, d) k
  unbounded <- function(n, d) Inf
  features <- function(n, d) d
  rank <- function(n, d) min(n, d)
  everywhere <- c("source_matrix", "row_source", "source_mpi")
  memory <- "source_matrix"
  entry <- function(label, family, prefix, default, upper, sources) {
    list(label = label, family = family, prefix = prefix, default = default,
         upper = upper, sources = sources)
  }
  reg <- list(
    none = entry("none (original features)", "none", NULL,
                 function(k, d) d, function(n, d) d, c(memory, "source_mpi")),
    sign = entry("random sign projection", "projection", "S", ten_k, features, everywhere),
    gaussian = entry("Gaussian random projection", "projection", "G", ten_k, features,
                     everywhere),
    achlioptas = entry("Achlioptas sparse random projection", "projection", "A", ten_k,
                       features, everywhere),
    srht = entry("subsampled randomized Hadamard transform", "projection", "H", ten_k,
                 features, everywhere),
    sparse_embedding = entry("sparse embedding (CountSketch)", "projection", "E", ten_k,
                             features, everywhere),
    leverage = entry("leverage-score feature selection", "selection", NULL, thirty_k, unbounded,
                     everywhere),
    cssp = entry("two-stage column subset selection", "selection", NULL, ten_k, rank, memory),
    svd = entry("SVD extraction (exact)", "extraction", "SV", rank_k, rank, memory),
    rsvd = entry("SVD extraction (randomized)", "extraction", "RSV", rank_k, rank, everywhere),
    fjlt = entry("fast Johnson-Lindenstrauss transform (FJLT)", "projection", "F", ten_k,
                 features, everywhere)
  )
  # Fixed colours: none black, the others Tableau 10 in registry order.
  colours <- c("black", unname(grDevices::palette.colors(10L, "Tableau 10"))[seq_len(length(reg) - 1L)])
  for (i in seq_along(reg)) reg[[i]]$colour <- colours[i]
  reg
}

# Names of the methods of a family and / or a source (all when NULL;
# `source`: the class of a row source, with its parents).
registered_methods <- function(family = NULL, source = NULL) {
  reg <- method_registry()
  keep <- vapply(reg, function(e) {
    (is.null(family) || e$family %in% family) && (is.null(source) || any(source %in% e$sources))
  }, logical(1))
  names(reg)[keep]
}

method_info <- function(method) method_registry()[[method]]

projection_methods <- function() registered_methods("projection")
selection_methods <- function() registered_methods("selection")
extraction_methods <- function() registered_methods("extraction")

method_colour <- function(method) {
  vapply(method, function(m) method_info(m)$colour, character(1), USE.NAMES = FALSE)
}

method_label <- function(method) {
  info <- method_info(method)
  if (is.null(info)) method else info$label
}

# Column prefix of the reduced data ("D" for methods without one).
column_prefix <- function(method) {
  prefix <- method_info(method)$prefix
  if (is.null(prefix)) "D" else prefix
}

# The largest and the default dims of a method for n rows and d columns.
method_dims_upper <- function(method, n, d) {
  if (method == "none") return(d)
  min(method_info(method)$upper(n, d), max_dims(n))
}
method_dims_default <- function(method, k, n, d) {
  as.integer(min(method_info(method)$default(k, d), method_dims_upper(method, n, d)))
}

# Most columns a reduced matrix of n rows may have.
max_dims <- function(n) min(.Machine$integer.max, floor(max_reduced_size() / n))

# Largest number of doubles a reduced matrix may have (32 GB).
max_reduced_size <- function() 4e9
