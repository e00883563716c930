# normalize = "log1p_cpm" of kmeans_reduced()'s SummarizedExperiment method:
# each cell's counts become log1p(count / library size * 1e6), the library
# size being the sum of the cell's counts over all genes. Applied to rows of
# whole cells (a block of a file, or all cells in memory), so the result is
# the same numbers however the cells are cut into blocks (the library sizes
# are sums of whole numbers: exact in any order). Zeros stay zeros; a cell
# without counts stays all zero.

normalize_choices <- function() c("none", "log1p_cpm")

check_normalize <- function(normalize) {
  check_choice(normalize, "normalize", normalize_choices())
}

# The rows `m` (cells as rows: a dgCMatrix or a double matrix) normalized by
# `how`; `what` names the data in errors ("the assay \"counts\"", "the file
# 'f.h5'") and `first` is the index of the block's first cell.
normalize_rows <- function(m, how, what, first = 1L) {
  if (how == "none") return(m)
  values <- if (methods::is(m, "dgCMatrix")) m@x else m
  if (anyNA(values) || any(values < 0) || any(is.infinite(values))) {
    bad <- which(not_count(values))[1L]
    row <- if (methods::is(m, "dgCMatrix")) m@i[bad] + 1L else (bad - 1L) %% nrow(m) + 1L
    stop_not_counts(how, what, values[bad], first - 1L + row)
  }
  lib <- unname(Matrix::rowSums(m))
  lib[lib == 0] <- 1  # (all zero: stays zero)
  # (the same operations, in the same order, as normalize_columns())
  if (methods::is(m, "dgCMatrix")) {
    m@x <- log1p(m@x / lib[m@i + 1L] * 1e6)
  } else {
    m <- log1p(m / lib * 1e6)
  }
  m
}

# The same for a genes x cells dgCMatrix `m` (a block of a 10x file as
# stored: one compressed column per cell), normalized before it is turned to
# cells as rows: the same numbers as normalize_rows() of those rows (the
# library sizes are summed in the same order, over the genes of each cell).
normalize_columns <- function(m, how, what, first = 1L) {
  if (how == "none" || length(m@x) == 0L) return(m)
  x <- m@x
  if (anyNA(x) || min(x) < 0 || max(x) == Inf) {
    bad <- which(not_count(x))[1L]
    stop_not_counts(how, what, x[bad], first - 1L + findInterval(bad - 1L, m@p))
  }
  lib <- unname(Matrix::colSums(m))
  lib[lib == 0] <- 1
  m@x <- log1p(x / rep.int(lib, diff(m@p)) * 1e6)
  m
}

# Which values are not counts: NA, NaN, negative or infinite.
not_count <- function(v) is.na(v) | v < 0 | is.infinite(v)

# The error for a value that is not a count (`cell`: its cell's number).
stop_not_counts <- function(how, what, value, cell) {
  shown <- if (is.nan(value)) "NaN" else if (is.na(value)) "NA" else format(value)
  stop_arg(sprintf(paste0("`normalize = \"%s\"` needs counts (finite numbers >= 0) but %s has %s ",
                          "at cell %s. Give normalize = \"none\" for data already normalized."),
                   how, what, shown, format(cell)))
}
