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
  if (anyNA(values) || any(values < 0)) {
    bad <- which(is.na(values) | values < 0)[1L]
    row <- if (methods::is(m, "dgCMatrix")) m@i[bad] + 1L else (bad - 1L) %% nrow(m) + 1L
    stop_arg(sprintf(paste0("`normalize = \"%s\"` needs counts (numbers >= 0) but %s has %s ",
                            "at cell %s. Give normalize = \"none\" for data already normalized."),
                     how, what, if (is.na(values[bad])) "NA" else format(values[bad]),
                     format(first - 1L + row)))
  }
  lib <- Matrix::rowSums(m)
  lib[lib == 0] <- 1  # (all zero: stays zero)
  if (methods::is(m, "dgCMatrix")) {
    m@x <- log1p(m@x / lib[m@i + 1L] * 1e6)
  } else {
    m <- log1p(m / lib * 1e6)
  }
  m
}
