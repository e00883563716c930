# The normalizations of counts (kmeans_reduced()'s SummarizedExperiment
# method, mpi_rows()): each cell's counts x become log1p(x / s * target),
# s the cell's library size (the sum of its counts over all genes) or its
# size factor, applied to rows of whole cells (a block of a file, or all
# cells in memory), so the result is the same numbers however the cells are
# cut into blocks (library sizes are sums of whole numbers: exact in any
# order). Zeros stay zeros; a cell without counts stays all zero.
#
#   log1p_cpm           target 1e6 (counts per million)
#   log1p_cp10k         target 1e4 (Seurat's NormalizeData, scanpy's
#                       normalize_total with target_sum 1e4)
#   log1p_size_factors  scuttle's logNormCounts (natural log): s the
#                       object's sizeFactors() when it has them, else the
#                       library size, and target the mean of s over the
#                       cells fitted, so that x / s * target is x divided
#                       by size factors centred at 1
#
# A fit records what it needs to normalize any new cell alone
# (normalization_record()): for log1p_size_factors, where s came from and
# the target; predict() divides a new cell's counts by its own s of the
# same kind (new_cells_normalization()).

normalize_choices <- function() c("none", "log1p_cpm", "log1p_cp10k", "log1p_size_factors")

# What a SummarizedExperiment's counts get by default.
default_cell_normalization <- function() "log1p_size_factors"

# In words, for messages: `from` "sizeFactors" or "library_sizes" for
# "log1p_size_factors" (where its size factors come from).
describe_normalization <- function(how, from = NULL) {
  switch(how, none = "the values as they are",
         log1p_cpm = "log1p of counts per million",
         log1p_cp10k = "log1p of counts per 10,000",
         log1p_size_factors = if (identical(from, "sizeFactors")) {
           "log1p of counts divided by the size factors of `x` (sizeFactors()) centred at 1, as scuttle's logNormCounts() with the natural log"
         } else {
           "log1p of counts divided by the library sizes centred at 1, i.e. scaled to the mean library size, as scuttle's logNormCounts() with the natural log"
         })
}

check_normalize <- function(normalize) {
  check_choice(normalize, "normalize", normalize_choices())
}

# A normalization as applied: list(how, target, size_factors, from).
# `target`: the total each cell is scaled to (NULL for "log1p_size_factors"
# until the mean size factor is known: complete_normalization());
# `size_factors`: NULL (the cells' library sizes) or one per cell; `from`
# (for "log1p_size_factors"): "sizeFactors" or "library_sizes".
as_normalization <- function(norm) {
  if (is.list(norm)) return(norm)
  list(how = norm, target = switch(norm, none = 0, log1p_cpm = 1e6, log1p_cp10k = 1e4, NULL),
       size_factors = NULL)
}

# The normalization `how` of all the cells of an object, complete:
# `size_factors` (NULL or one per cell) and `library_sizes` (a function
# giving the cells' library sizes, called only when needed: a pass over the
# cells of a file) for "log1p_size_factors". As scuttle's logNormCounts()
# (center.size.factors = TRUE), the size factors are centred at 1: the
# target is their mean, so multiplying them all by a constant changes
# nothing.
complete_normalization <- function(how, size_factors = NULL, library_sizes = NULL) {
  norm <- as_normalization(how)
  if (norm$how != "log1p_size_factors") return(norm)
  if (!is.null(size_factors)) {
    norm$size_factors <- size_factors
    norm$target <- mean(size_factors)
    norm$from <- "sizeFactors"
  } else {
    lib <- library_sizes()
    norm$target <- if (length(lib) && sum(lib) > 0) mean(lib) else 1
    norm$from <- "library_sizes"
  }
  norm
}

# The normalization of new cells (predict()) by the fit's record `input`
# (normalization_record()): the fit's target, and, for
# "log1p_size_factors", each new cell's own size factor of the kind the fit
# used: `size_factors` (the new cells' sizeFactors(), or NULL) for a fit on
# size factors (an error without them), the cells' library sizes for a fit
# on library sizes (their size factors, if any, are not used). A cell is
# then normalized the same alone or with any other cells.
new_cells_normalization <- function(input, size_factors, what) {
  norm <- as_normalization(input$normalize)
  if (norm$how != "log1p_size_factors") return(norm)
  from <- input$size_factors_from
  target <- input$target
  # (a fit recorded before the source of its size factors was: a target
  # only for library sizes, size factors used as they were)
  if (is.null(from)) from <- if (is.null(target)) "sizeFactors" else "library_sizes"
  if (is.null(target)) target <- 1
  if (from == "sizeFactors") {
    if (is.null(size_factors)) {
      stop_arg(sprintf(paste0("`newdata` (%s) must have size factors (sizeFactors()): the fit divided ",
                              "the counts of its cells by their size factors. Give new cells size ",
                              "factors on the scale of the fitted cells' (their mean there was %s)."),
                       what, format(target, digits = 6)))
    }
    return(list(how = norm$how, target = target, size_factors = size_factors, from = from))
  }
  list(how = norm$how, target = target, size_factors = NULL, from = from)
}

# The checked size factors of an object's cells (sizeFactors()), or NULL.
check_size_factors <- function(sf, n_cells, what) {
  if (is.null(sf)) return(NULL)
  if (!is.numeric(sf) || length(sf) != n_cells || anyNA(sf) || any(!is.finite(sf)) ||
      any(sf <= 0)) {
    stop_arg(sprintf("The size factors of %s (sizeFactors()) must be %d finite numbers > 0, not %s.",
                     what, n_cells, describe(sf)))
  }
  as.double(sf)
}

# The rows `m` (cells as rows: a dgCMatrix or a double matrix) normalized by
# `norm` (a choice, or as_normalization()); `what` names the data in errors
# ("the assay \"counts\"", "the file 'f.h5'") and `first` is the index of
# the block's first cell (the size factors' entries are those of its cells).
normalize_rows <- function(m, norm, what, first = 1L) {
  norm <- as_normalization(norm)
  if (norm$how == "none") return(m)
  values <- if (methods::is(m, "dgCMatrix")) m@x else m
  if (anyNA(values) || any(values < 0) || any(is.infinite(values))) {
    bad <- which(not_count(values))[1L]
    row <- if (methods::is(m, "dgCMatrix")) m@i[bad] + 1L else (bad - 1L) %% nrow(m) + 1L
    stop_not_counts(norm$how, what, values[bad], first - 1L + row)
  }
  if (isTRUE(norm$check_only)) return(m)
  lib <- if (is.null(norm$size_factors)) unname(Matrix::rowSums(m)) else
    norm$size_factors[first - 1L + seq_len(nrow(m))]
  # (all the cells in memory: the mean library size, or size factor, is theirs)
  target <- if (!is.null(norm$target)) norm$target else if (sum(lib) > 0) mean(lib) else 1
  lib[lib == 0] <- 1  # (all zero: stays zero)
  # (the same operations, in the same order, as normalize_columns())
  if (methods::is(m, "dgCMatrix")) {
    m@x <- log1p(m@x / lib[m@i + 1L] * target)
  } else {
    m <- log1p(m / lib * target)
  }
  m
}

# The same for a genes x cells dgCMatrix `m` (a block of a 10x file as
# stored: one compressed column per cell), normalized before it is turned to
# cells as rows: the same numbers as normalize_rows() of those rows (the
# library sizes are summed in the same order, over the genes of each cell).
# (It gives R's own message for a value that is not a count.)
normalize_columns <- function(m, norm, what, first = 1L) {
  norm <- as_normalization(norm)
  if (norm$how == "none" || length(m@x) == 0L) return(m)
  x <- m@x
  if (anyNA(x) || min(x) < 0 || max(x) == Inf) {
    bad <- which(not_count(x))[1L]
    stop_not_counts(norm$how, what, x[bad], first - 1L + findInterval(bad - 1L, m@p))
  }
  lib <- if (is.null(norm$size_factors)) unname(Matrix::colSums(m)) else
    norm$size_factors[first - 1L + seq_len(ncol(m))]
  lib[lib == 0] <- 1
  m@x <- log1p(x / rep.int(lib, diff(m@p)) * norm$target)
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

# What a fit records of its normalization beyond its choice (predict()
# applies the same to new cells, new_cells_normalization()): for
# "log1p_size_factors", where the size factors came from ("sizeFactors" or
# "library_sizes") and the target t, the mean size factor (or library
# size) of the cells it was fitted to.
normalization_record <- function(norm) {
  norm <- as_normalization(norm)
  if (norm$how == "log1p_size_factors") {
    list(size_factors_from = norm$from, target = norm$target)
  } else {
    list()
  }
}
