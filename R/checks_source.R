# Checks of a row source's rows, k, centres, weights and method. Plain
# functions: what differs between sources is what they can do (R/row_source.R:
# rows in memory, rows on MPI ranks, values checked as each block is read),
# not their class. On MPI ranks every rank runs the checks and all agree
# before a collective step (try_checks(), agree_ranks()).

# check_data() of the source's rows: the checked data, or NULL for data that
# check_data() checks itself (in memory). `big`: whether the caller reads
# rows in blocks. Rows read in blocks: their values in one pass (finite,
# small enough), unless the source checks each block as it reads it.
check_rows <- function(src, arg, big, block_rows, small) {
  if (!is.null(src$mpi)) {
    stop_arg(sprintf(paste0("`%s` is a set of distributed rows (mpi_rows()); only kmeans_reduced() ",
                            "takes them. Give this function a matrix, data frame%s."), arg,
                     if (is.null(src$local)) {
                       sprintf(" or sparse Matrix in memory (for example `%s$x`, this rank's rows)", arg)
                     } else ", sparse Matrix or out-of-core matrix instead"))
  }
  if (isTRUE(src$in_memory)) return(NULL)
  if (!big) {
    stop_arg(sprintf(paste0("`%s` is %s; only kmeans_reduced(), reduce_dims(), ",
                            "randomized_svd(), kmeans_objective() and predict() read one ",
                            "in blocks. Give an in-memory matrix here."), arg, describe_source(src)))
  }
  if (!isTRUE(src$checks_blocks)) check_big_data(src, arg, source_block_rows(src, block_rows), small)
  src$data
}

# The source of checked rows (kmeans_reduced()): in memory, check_data() of
# the data (values = FALSE: checked later by the kernels), a sparse matrix
# far from zero made dense (dense_if_far_from_zero()); a new source only
# when that changed the data (a data frame made a matrix, say). Rows on MPI
# ranks were checked by mpi_rows(); rows read in blocks are checked as they
# are read (shapes here).
checked_source <- function(src, block_rows, values) {
  if (!is.null(src$mpi)) return(src)
  if (isTRUE(src$checks_blocks)) {
    if (n_rows(src) == 0L || n_cols(src) == 0L) {
      stop_arg(sprintf("`x` (%s) must have at least one row and one column, not %d x %d.",
                       describe_source(src), n_rows(src), n_cols(src)))
    }
    return(src)
  }
  x <- dense_if_far_from_zero(check_data(src$data, "x", big = TRUE, block_rows = block_rows,
                                         values = values, vector_column = TRUE, src = src))
  if (identical(x, src$data)) src else as_row_source(x)
}

# `k` as a number of clusters: a whole number, at most the distinct rows.
# `arg`: the name the user gave it ("k", or "centers" as in stats::kmeans()).
# Rows on MPI ranks, or checked block by block as they are read: the number
# of rows here; too few distinct rows show in the reduced rows
# (reduced_collapsed()), instead of a pass before every fit.
check_source_k <- function(src, k, arg = "k") {
  n_max <- n_rows(src)
  if (!is_whole(k) || k < 1 || k > n_max) {
    what <- if (!is.null(src$mpi)) "the rows of the distributed matrix" else if (isTRUE(src$checks_blocks)) {
      sprintf("the number of rows of `x`, %s", describe_source(src))
    } else "the number of rows of `x`"
    n_text <- if (!is.null(src$mpi)) format(n_max) else as.character(as.integer(n_max))
    stop_arg(sprintf("`%s` must be a whole number in [1, %s] (%s), not %s.", arg, n_text, what,
                     describe(k)))
  }
  if (k > 1 && is.null(src$mpi) && !isTRUE(src$checks_blocks)) {
    if (isTRUE(src$in_memory)) {
      if (!has_distinct_rows_cpp(src$data, k)) {
        distinct <- distinct_rows_cpp(src$data)
        if (k > distinct) stop_too_few_distinct(k, distinct, arg)
      }
    } else {
      has <- big_has_distinct(src, k, source_block_rows(src))
      if (!has) stop_too_few_distinct(k, attr(has, "distinct"), arg)
    }
  }
  as.integer(k)
}

# `k` given as initial centres (a matrix): checked against the rows.
check_source_centers <- function(src, centers, arg = "k") {
  if (!is.null(src$mpi)) {
    stop_arg(sprintf("`%s` must be a number of clusters on distributed rows, not initial centres.", arg))
  }
  check_centers(centers, n_rows(src), n_cols(src), arg)
}

# What kmeans_reduced()'s options need of the source: the observation
# weights (checked, one per row) and control$algorithm. The source holds the
# weights the core uses, the given ones over src$weight_unit (a power of
# two, weights_unit(): 1 unless their sums would leave double precision).
set_weights <- function(src, weights, control) {
  if (!is.null(src$mpi)) return(check_ranks_options(src, weights, control))
  if (is.null(weights)) return(src)
  weights <- check_weights(weights, n_rows(src))
  unit <- weights_unit(weights)
  src$weights <- if (unit == 1) weights else weights / unit
  src$weight_unit <- unit
  src
}

# (rows on MPI ranks: no weights, no algorithm that moves row after row)
check_ranks_options <- function(src, weights, control) {
  if (!is.null(weights)) {
    stop_arg(paste0("`weights` are not supported on distributed rows (mpi_rows()); ",
                    "give NULL, or cluster the rows in one process."))
  }
  if (identical(control$algorithm, "MacQueen")) {
    stop_arg("`algorithm` \"MacQueen\" (online updates, row after row) is not available on distributed rows; use \"Lloyd\" or \"Hartigan-Wong\".")
  }
  if (identical(control$algorithm, "minibatch")) {
    stop_arg("`algorithm` \"minibatch\" (batches drawn from all the rows) is not available on distributed rows; use \"Lloyd\" or \"Hartigan-Wong\".")
  }
  src
}

# Data for the algorithms: a double matrix or a dgCMatrix, checked.
# values = FALSE skips the scan for NA/Inf and huge values of a dense double
# matrix: the caller has a kernel that checks them on its way (kmeans_cpp(),
# project_cpp() with `limit`) and calls check_values_later() on failure.
# vector_column = TRUE: a plain numeric vector is one feature (one column),
# as stats::kmeans() takes it.
# small = FALSE: values of any size (rows to assign, initial centres; see
# check_finite_values()). `src`: the row source of `x` when the caller has
# it already (as_row_source() once per call).
check_data <- function(x, arg = "x", big = FALSE, block_rows = NULL, values = TRUE,
                       vector_column = FALSE, small = TRUE, src = NULL) {
  if (vector_column && is.numeric(x) && is.null(dim(x)) && is.null(oldClass(x)) &&
      length(x) > 0L) {
    x <- matrix(as.double(x), ncol = 1L, dimnames = list(names(x), NULL))
  }
  # (rows not in memory check themselves, see check_rows())
  if (is.null(src) || !identical(src$data, x)) src <- as_row_source(x)
  checked <- check_rows(src, arg, big, block_rows, small)
  if (!is.null(checked)) return(checked)
  if (is.data.frame(x)) {
    if (ncol(x) == 0L || nrow(x) == 0L) {
      stop_arg(sprintf("`%s` must have at least one row and one column, not a data frame of %d x %d.",
                       arg, nrow(x), ncol(x)))
    }
    x <- data_frame_matrix(x, arg)
  } else if (is.matrix(x) && !is.null(oldClass(x)) && !identical(oldClass(x), "matrix")) {
    x <- matrix(plain_numeric(x, arg, NULL), nrow(x), ncol(x), dimnames = dimnames(x))
  }
  if (inherits(x, "Matrix")) {
    if (!methods::is(x, "dMatrix") && !methods::is(x, "lMatrix") && !methods::is(x, "nMatrix")) {
      stop_arg(sprintf("`%s` must be a numeric Matrix, not %s.", arg, describe(x)))
    }
    if (methods::is(x, "sparseMatrix")) {
      if (!methods::is(x, "dgCMatrix")) {
        valid <- tryCatch(methods::validObject(x), error = function(e) conditionMessage(e))
        if (is.character(valid)) {
          stop_arg(sprintf("`%s` is not a valid %s: %s", arg, class(x)[1L], valid))
        }
        x <- methods::as(methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix")
      }
    } else {
      x <- as.matrix(x)
    }
  }
  if (methods::is(x, "dgCMatrix")) {
    check_sparse_slots(x, arg)
    if (nrow(x) == 0L || ncol(x) == 0L) {
      stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                       arg, nrow(x), ncol(x)))
    }
    check_finite_values(x@x, arg, function(t) {
      col <- findInterval(t - 1L, x@p, left.open = FALSE, rightmost.closed = FALSE)
      sprintf("at row %d, column %d", x@i[t] + 1L, col)
    }, as.numeric(nrow(x)) * ncol(x), small)
    return(x)
  }
  if (!is.matrix(x) || !(is.numeric(x))) {
    if (is_se(x)) {
      stop_arg(sprintf(paste0("`%s` must be a numeric matrix, data frame or dgCMatrix here, not %s. ",
                              "kmeans_reduced(), k_path() and predict() take it; elsewhere give the cells as rows in memory, ",
                              "e.g. t(as.matrix(assay(x, \"logcounts\")))."), arg, describe(x)))
    }
    stop_arg(sprintf("`%s` must be a numeric matrix, data frame or dgCMatrix, not %s.",
                     arg, describe(x)))
  }
  if (nrow(x) == 0L || ncol(x) == 0L) {
    stop_arg(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                     arg, nrow(x), ncol(x)))
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!values) return(x)
  n <- nrow(x)
  check_finite_values(x, arg, function(t) {
    sprintf("at row %d, column %d", (t - 1L) %% n + 1L, (t - 1L) %/% n + 1L)
  }, as.numeric(n) * ncol(x), small)
  x
}

# A kernel found a non-finite or too large value in `x` (checked with
# values = FALSE): the scan of check_data() finds and reports it.
check_values_later <- function(x, arg = "x") {
  check_data(x, arg)
  stop_arg(sprintf("`%s` has values that cannot be clustered (not finite or too large).", arg))
}

check_k <- function(k, x) {
  check_source_k(as_row_source(x), k)
}

# Initial centres given as `k` for rows n x d: a numeric matrix with d
# columns and at most n rows. `arg`: the name the user gave them ("k", or
# "centers" as in stats::kmeans()).
check_centers <- function(centers, n, d, arg = "k") {
  centers <- check_data(centers, arg, small = FALSE)
  if (methods::is(centers, "dgCMatrix")) centers <- as.matrix(centers)
  if (ncol(centers) != d) {
    stop_arg(sprintf("`%s` given as a matrix of initial centres must have %d columns (as `x`), not %d.",
                     arg, d, ncol(centers)))
  }
  if (nrow(centers) > n) {
    stop_arg(sprintf("`%s` given as a matrix of initial centres must have at most %d rows (the rows of `x`), not %d.",
                     arg, n, nrow(centers)))
  }
  centers
}

# New data for predict()/plot(): checked like `x`, with the columns of the
# data the model was fitted to (matched by name when both have names).
check_newdata <- function(newdata, reducer, arg = "newdata") {
  # A plain numeric vector: one row of the fit's features, or (one feature)
  # one value per row.
  if (is.numeric(newdata) && is.null(dim(newdata)) && is.null(oldClass(newdata)) &&
      length(newdata) > 0L) {
    newdata <- if (identical(as.numeric(reducer$n_features), 1)) {
      matrix(as.double(newdata), ncol = 1L, dimnames = list(names(newdata), reducer$feature_names))
    } else {
      matrix(as.double(newdata), nrow = 1L, dimnames = list(NULL, names(newdata)))
    }
  }
  newdata <- check_data(newdata, arg, small = FALSE)
  index <- newdata_columns(colnames(newdata), ncol(newdata), reducer, arg)
  if (!is.null(index)) newdata <- newdata[, index, drop = FALSE]
  newdata
}

# Runs the argument checks `expr`: on MPI ranks an error is returned for
# agree_ranks(), elsewhere raised at once (mpi_try()).
try_checks <- function(src, expr) {
  if (!is.null(src$mpi)) return(mpi_try(TRUE, expr))
  force(expr)
  NULL
}

# After the checks: every rank agrees they passed with the same `args` (a
# function giving the named list, mpi_agree()); returns the seed every
# process uses (on ranks, rank 0's).
agree_ranks <- function(src, failed, args, seed, seed_arg) {
  if (is.null(src$mpi)) return(seed)
  mpi_agree(src$mpi, failed, "kmeans_reduced()", if (is.null(failed)) args())
  mpi_sum(if (src$mpi$rank == 0L) seed else 0)
}

# Does this process report (verbose, trace)?
is_lead <- function(src) is.null(src$mpi) || src$mpi$rank == 0L
