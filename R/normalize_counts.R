# The normalizations of counts (kmeans_reduced()'s SummarizedExperiment
# method, mpi_rows(), predict() of new cells): one list,
# normalization_registry(), one entry each, holding all the package knows
# of a normalization. Each count x of a cell becomes f(x, s, t) by the
# entry's transform, one function of the C++ core for every reader of cells
# (cells in memory, DelayedMatrix blocks, 10x files, MPI ranks, new cells):
# data/normalization.hpp, through normalize_rows() and normalize_columns()
# here and the 10x conversion (cells_to_rows_cpp()). s is the cell's scale
# (its size factor, or its library size: the sum of its counts over all
# genes), t the target. Blocks of whole cells give the same numbers however
# the cells are cut into blocks (library sizes are sums of whole numbers:
# exact in any order). Zeros stay zeros; a cell without counts stays all
# zero. ARCHITECTURE.md, "Recipe: add a normalization", is the recipe.
#
# An entry (normalization_entry()):
#   describe      function(from): the normalization in words, for messages;
#                 `from`: where the cells' scales came from, "sizeFactors"
#                 or "library_sizes"
#   transform     the name of its transform of a block in the core's list
#                 (cell_transforms_cpp()): "identity" (the values as they
#                 are, not checked) or "log1p_scaled" (log1p(x / s * t))
#   target        t: a number, or NULL: the mean scale of the cells fitted
#                 (their scales centred at 1, as scuttle centres size
#                 factors), completed by complete_normalization()
#   size_factors  TRUE: s is the object's sizeFactors() when it has them,
#                 else the library size; FALSE: the library size
#   record        function(norm): what a fit records of the normalization as
#                 applied, beyond its name (normalization_record())
#   new_cells     function(input, size_factors, what): the normalization of
#                 new cells (predict()) from the fit's record `input`, also
#                 of fits saved by older versions; `size_factors`: a
#                 function giving the new cells' sizeFactors() or NULL
#                 (new_cells_normalization())
#
#   none                the values as they are
#   log1p_cpm           target 1e6 (counts per million)
#   log1p_cp10k         target 1e4 (Seurat's NormalizeData, scanpy's
#                       normalize_total with target_sum 1e4)
#   log1p_size_factors  scuttle's logNormCounts (natural log): s the
#                       object's sizeFactors() when it has them, else the
#                       library size, and t the mean of s over the cells
#                       fitted, so that x / s * t is x divided by size
#                       factors centred at 1; the fit records where s came
#                       from and t, and predict() divides a new cell's
#                       counts by its own s of the same kind

builtin_normalizations <- function() {
  list(
    none = normalization_entry(function(from = NULL) "the values as they are", "identity",
                               target = 0),
    log1p_cpm = normalization_entry(function(from = NULL) "log1p of counts per million",
                                    "log1p_scaled", target = 1e6),
    log1p_cp10k = normalization_entry(function(from = NULL) "log1p of counts per 10,000",
                                      "log1p_scaled", target = 1e4),
    log1p_size_factors = normalization_entry(function(from = NULL) {
      if (identical(from, "sizeFactors")) {
        "log1p of counts divided by the size factors of `x` (sizeFactors()) centred at 1, as scuttle's logNormCounts() with the natural log"
      } else {
        "log1p of counts divided by the library sizes centred at 1, i.e. scaled to the mean library size, as scuttle's logNormCounts() with the natural log"
      }
    }, "log1p_scaled", target = NULL, size_factors = TRUE)
  )
}

# One entry (see the fields above): what a fit records and how predict()
# reads it back follow from `target` and `size_factors` by default.
normalization_entry <- function(describe, transform, target = NULL, size_factors = FALSE,
                                record = record_scales, new_cells = new_cells_scales) {
  list(describe = describe, transform = transform, target = target,
       size_factors = size_factors, record = record, new_cells = new_cells)
}

# Normalizations registered while the package runs (register_normalization()),
# after the built-in ones.
normalization_env <- new.env(parent = emptyenv())
normalization_env$extra <- list()

# Adds (or, with entry = NULL, removes) a normalization: `entry` from
# normalization_entry(). Internal: for tests and extensions.
register_normalization <- function(name, entry) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name) ||
      name %in% names(builtin_normalizations())) {
    stop_arg(sprintf("`name` must be a new normalization name, not %s.", describe(name)))
  }
  if (!is.null(entry) && !valid_normalization_entry(entry)) {
    stop_arg(paste0("`entry` must be a normalization_entry() with a transform of the core's ",
                    "list (cell_transforms_cpp()) and a target NULL or a number >= 0."))
  }
  normalization_env$extra[[name]] <- entry
  invisible(name)
}

valid_normalization_entry <- function(entry) {
  is.list(entry) && is.function(entry$describe) && is.function(entry$record) &&
    is.function(entry$new_cells) && is.character(entry$transform) &&
    length(entry$transform) == 1L && entry$transform %in% cell_transforms_cpp() &&
    (is.null(entry$target) || (is.numeric(entry$target) && length(entry$target) == 1L &&
                                 isTRUE(entry$target >= 0) && is.finite(entry$target))) &&
    (isTRUE(entry$size_factors) || isFALSE(entry$size_factors))
}

normalization_registry <- function() {
  # (the built-in entries made once per session: every step reads them)
  if (is.null(normalization_env$builtin)) normalization_env$builtin <- builtin_normalizations()
  c(normalization_env$builtin, normalization_env$extra)
}

# The entry of the normalization `how` (a name already checked).
normalization_info <- function(how) {
  entry <- normalization_registry()[[how]]
  if (is.null(entry)) stop_arg(sprintf("No normalization is called %s.", describe(how)))
  entry
}

normalize_choices <- function() names(normalization_registry())

# What a SummarizedExperiment's counts get by default.
default_cell_normalization <- function() "log1p_size_factors"

check_normalize <- function(normalize) {
  check_choice(normalize, "normalize", normalize_choices())
}

# Whether `how` changes the values (a transform other than the identity).
normalizes <- function(how) !identical(normalization_info(how)$transform, "identity")

# Whether `how` needs the scales of all the cells before it normalizes any
# (their size factors, or a target completed from them), beyond each cell's
# own counts.
needs_cell_scales <- function(how) {
  entry <- normalization_info(how)
  isTRUE(entry$size_factors) || is.null(entry$target)
}

# Whether `how` takes an object's sizeFactors() as its cells' scales.
uses_size_factors <- function(how) isTRUE(normalization_info(how)$size_factors)

# In words, for messages: `from` "sizeFactors" or "library_sizes" (where
# its cells' scales come from).
describe_normalization <- function(how, from = NULL) normalization_info(how)$describe(from)

# The message on the default normalization of cells: `subject` (what is
# normalized, with its verb), the normalization `how` and where its scales
# came from.
default_normalization_message <- function(subject, how, from, caller = "kmeans_reduced()") {
  sprintf(paste0("%s: %s normalized with normalize = \"%s\" (%s); ",
                 "give normalize = \"none\" to cluster the values as they are."),
          caller, subject, how, describe_normalization(how, from))
}

# A normalization as applied: list(how, target, size_factors, from).
# `target`: the total each cell is scaled to (NULL when the entry completes
# it from the cells: complete_normalization()); `size_factors`: NULL (the
# cells' library sizes) or one per cell; `from` (an entry with size
# factors, once complete): "sizeFactors" or "library_sizes". (A check of
# the counts alone: list(how, target = 0, check_only = TRUE).)
as_normalization <- function(norm) {
  if (is.list(norm)) return(norm)
  list(how = norm, target = normalization_info(norm)$target, size_factors = NULL)
}

# The normalization `how` of all the cells of an object, complete:
# `size_factors` (NULL or one per cell: the object's sizeFactors(), for an
# entry that takes them) and `library_sizes` (a function giving the cells'
# library sizes, called only when needed: a pass over the cells of a
# file). As scuttle's logNormCounts() (center.size.factors = TRUE), a
# target left to the cells is the mean of their scales, so multiplying
# them all by a constant changes nothing.
complete_normalization <- function(how, size_factors = NULL, library_sizes = NULL) {
  norm <- as_normalization(how)
  entry <- normalization_info(norm$how)
  if (!needs_cell_scales(norm$how)) return(norm)
  centred <- is.null(entry$target)
  if (isTRUE(entry$size_factors) && !is.null(size_factors)) {
    norm$size_factors <- size_factors
    if (centred) norm$target <- mean(size_factors)
    norm$from <- "sizeFactors"
  } else {
    if (centred) {
      lib <- library_sizes()
      norm$target <- if (length(lib) && sum(lib) > 0) mean(lib) else 1
    }
    norm$from <- "library_sizes"
  }
  norm
}

# What a fit records of its normalization `norm` (as applied) beyond its
# name, for predict() to apply the same to new cells: the entry's record.
normalization_record <- function(norm) {
  norm <- as_normalization(norm)
  normalization_info(norm$how)$record(norm)
}

# The default record: where the scales came from ("sizeFactors" or
# "library_sizes") for an entry with size factors, and a target completed
# from the cells fitted (their mean size factor or library size).
record_scales <- function(norm) {
  entry <- normalization_info(norm$how)
  out <- list()
  if (isTRUE(entry$size_factors)) out <- c(out, list(size_factors_from = norm$from))
  if (is.null(entry$target)) out <- c(out, list(target = norm$target))
  out
}

# The normalization of new cells (predict()) by the fit's record `input`
# (normalization_record()): the entry's new_cells(). `size_factors`: a
# function giving the new cells' sizeFactors() (or NULL); `what` names them
# in messages.
new_cells_normalization <- function(input, size_factors, what) {
  normalization_info(input$normalize)$new_cells(input, size_factors, what)
}

# The default: the fit's target, and, for an entry with size factors, each
# new cell's own scale of the kind the fit used: its size factor for a fit
# on size factors (an error without them), its library size for a fit on
# library sizes (its size factor, if any, is not used). A cell is then
# normalized the same alone or with any other cells.
new_cells_scales <- function(input, size_factors, what) {
  norm <- as_normalization(input$normalize)
  entry <- normalization_info(norm$how)
  if (!needs_cell_scales(norm$how)) return(norm)
  # (the new cells' size factors read, and checked, unless the fit used
  # library sizes)
  sf <- if (isTRUE(entry$size_factors) && !identical(input$size_factors_from, "library_sizes")) {
    size_factors()
  }
  from <- if (isTRUE(entry$size_factors)) input$size_factors_from else "library_sizes"
  target <- if (is.null(entry$target)) input$target else entry$target
  # (a fit recorded before the source of its size factors was: a target
  # only for library sizes, size factors used as they were)
  if (is.null(from)) from <- if (is.null(target)) "sizeFactors" else "library_sizes"
  if (is.null(target)) target <- 1
  if (from == "sizeFactors") {
    if (is.null(sf)) {
      stop_arg(sprintf(paste0("`newdata` (%s) must have size factors (sizeFactors()): the fit divided ",
                              "the counts of its cells by their size factors. Give new cells size ",
                              "factors on the scale of the fitted cells' (their mean there was %s)."),
                       what, format(target, digits = 6)))
    }
    return(list(how = norm$how, target = target, size_factors = sf, from = from))
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

## The transform of a block: the core's ------------------------------------

# The normalization `norm` (as applied) of a block of cells (`cells`: their
# numbers among all the cells, which its size factors are of) as the core
# takes it: list(transform, target, size_factors), target 0 for the
# identity.
block_normalization <- function(norm, cells) {
  norm <- as_normalization(norm)
  transform <- normalization_info(norm$how)$transform
  list(transform = transform, target = if (transform == "identity") 0 else norm$target,
       size_factors = if (!is.null(norm$size_factors)) norm$size_factors[cells])
}

# The target of `norm`, completed from the cells of a block holding all the
# cells fitted when the entry leaves it to them: the mean of their size
# factors (`cells`: their numbers) or of their library sizes
# (`library_sizes()`).
with_block_target <- function(norm, cells, library_sizes) {
  if (!is.null(norm$target)) return(norm)
  lib <- if (is.null(norm$size_factors)) library_sizes() else norm$size_factors[cells]
  norm$target <- if (sum(lib) > 0) mean(lib) else 1
  norm
}

# The rows `m` (cells as rows: a dgCMatrix or a double matrix) normalized by
# `norm` (a choice, or as_normalization()); `what` names the data in errors
# ("the assay \"counts\"", "the file 'f.h5'") and `first` is the index of
# the block's first cell (the size factors' entries are those of its cells).
normalize_rows <- function(m, norm, what, first = 1L) {
  norm <- as_normalization(norm)
  if (!normalizes(norm$how)) return(m)
  sparse <- methods::is(m, "dgCMatrix")
  if (!sparse && !is.double(m)) storage.mode(m) <- "double"
  check_counts(if (sparse) m@x else m, norm$how, what, function(bad) {
    first - 1L + if (sparse) m@i[bad] + 1L else (bad - 1L) %% nrow(m) + 1L
  })
  if (isTRUE(norm$check_only)) return(m)
  cells <- first - 1L + seq_len(nrow(m))
  norm <- with_block_target(norm, cells, function() unname(Matrix::rowSums(m)))
  b <- block_normalization(norm, cells)
  normalize_cells_cpp(m, TRUE, b$transform, b$target, b$size_factors, first)
}

# The same for a genes x cells dgCMatrix `m` (a block of a 10x file as
# stored: one compressed column per cell), normalized before it is turned to
# cells as rows: the same numbers as normalize_rows() of those rows (the
# library sizes are summed in the same order, over the genes of each cell).
# (It gives R's own message for a value that is not a count.)
normalize_columns <- function(m, norm, what, first = 1L) {
  norm <- as_normalization(norm)
  if (!normalizes(norm$how) || length(m@x) == 0L) return(m)
  check_counts(m@x, norm$how, what, function(bad) first - 1L + findInterval(bad - 1L, m@p))
  if (isTRUE(norm$check_only)) return(m)
  cells <- first - 1L + seq_len(ncol(m))
  norm <- with_block_target(norm, cells, function() unname(Matrix::colSums(m)))
  b <- block_normalization(norm, cells)
  normalize_cells_cpp(m, FALSE, b$transform, b$target, b$size_factors, first)
}

# The error for the first value of `values` that is not a count (NA, NaN,
# negative or infinite), if any: `cell_of(position)` gives its cell's
# number.
check_counts <- function(values, how, what, cell_of) {
  bad <- first_non_count_cpp(values)
  if (bad == 0) return(invisible(NULL))
  # (a position as which() gives it: an integer below 2^31)
  if (bad <= .Machine$integer.max) bad <- as.integer(bad)
  stop_not_counts(how, what, values[bad], cell_of(bad))
}

# The error for a value that is not a count (`cell`: its cell's number).
stop_not_counts <- function(how, what, value, cell) {
  shown <- if (is.nan(value)) "NaN" else if (is.na(value)) "NA" else format(value)
  stop_arg(sprintf(paste0("`normalize = \"%s\"` needs counts (finite numbers >= 0) but %s has %s ",
                          "at cell %s. Give normalize = \"none\" for data already normalized."),
                   how, what, shown, format(cell)))
}
