# Checks of a row source's rows, k, centres, weights and method. Plain
# functions: what differs between sources is what they can do (R/row_source.R:
# rows in memory, rows on MPI ranks, values checked as each block is read),
# not their class.

# check_data() of the source's rows: the checked data, or NULL for data that
# check_data() checks itself (in memory). `big`: whether the caller reads
# rows in blocks. Rows read in blocks: their values in one pass (finite,
# small enough), unless the source checks each block as it reads it.
check_rows <- function(src, arg, big, block_rows, small) {
  if (on_ranks(src)) {
    stop_arg(sprintf(paste0("`%s` is a set of distributed rows (mpi_rows()); only kmeans_reduced() ",
                            "takes them. Give this function a matrix, data frame%s."), arg,
                     if (is.null(src$local)) {
                       sprintf(" or sparse Matrix in memory (for example `%s$x`, this rank's rows)", arg)
                     } else ", sparse Matrix or out-of-core matrix instead"))
  }
  if (in_memory(src)) return(NULL)
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
  if (on_ranks(src)) return(src)
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
    what <- if (on_ranks(src)) "the rows of the distributed matrix" else if (isTRUE(src$checks_blocks)) {
      sprintf("the number of rows of `x`, %s", describe_source(src))
    } else "the number of rows of `x`"
    n_text <- if (on_ranks(src)) format(n_max) else as.character(as.integer(n_max))
    stop_arg(sprintf("`%s` must be a whole number in [1, %s] (%s), not %s.", arg, n_text, what,
                     describe(k)))
  }
  if (k > 1 && !on_ranks(src) && !isTRUE(src$checks_blocks)) {
    if (in_memory(src)) {
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

# The error for k above the number of distinct rows (the same for every
# source).
stop_too_few_distinct <- function(k, distinct, arg = "k") {
  stop_arg(sprintf("`%s` must be a whole number in [1, %d] (the number of distinct rows of `x`), not %s.",
                   arg, as.integer(distinct), describe(k)))
}

# `k` given as initial centres (a matrix): checked against the rows.
check_source_centers <- function(src, centers, arg = "k") {
  if (on_ranks(src)) {
    stop_arg(sprintf("`%s` must be a number of clusters on distributed rows, not initial centres.", arg))
  }
  check_centers(centers, n_rows(src), n_cols(src), arg)
}

# What kmeans_reduced()'s options need of the source: the observation
# weights (checked, one per row) and control$algorithm. The source holds the
# weights the core uses, the given ones over src$weight_unit (a power of
# two, weights_unit(): 1 unless their sums would leave double precision).
set_weights <- function(src, weights, control) {
  if (on_ranks(src)) return(check_ranks_options(src, weights, control))
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

# method = "auto" for this source: rows in memory (on MPI ranks, those of
# each rank) as resolve_method() says (narrow data: "none"); rows read in
# blocks: a projection of the rows as they are read ("sparse_embedding" for
# sparse rows).
auto_method <- function(src, method, k) {
  if (!is.null(src$local)) return(auto_method(src$local, method, k))
  if (in_memory(src) || on_ranks(src)) return(resolve_method(method, src$data, k))
  if (!isTRUE(src$checks_blocks)) return(resolve_method(method, src$data))
  if (method != "auto") return(method)
  if (sparse_rows(src)) "sparse_embedding" else "sign"
}

# Is `method` available for this source (the registry's `sources`)?
check_source_method <- function(src, method, control) {
  if (in_memory(src)) return(method_unavailable(src, method, "is not available; use"))
  if (!is.null(src$local)) {
    ok <- registered_methods(source = "row_source")
    if (!(method %in% ok)) {
      stop_arg(sprintf("`method` \"%s\" is not available on distributed rows read in blocks; use one of %s.",
                       method, paste0("\"", ok, "\"", collapse = ", ")))
    }
  } else if (on_ranks(src)) {
    method_unavailable(src, method, "is not available on distributed rows; use one of")
  } else {
    method_unavailable(src, method, sprintf("needs the whole matrix in memory; %s `x` works with",
                                            describe_source(src)))
  }
  where <- if (on_ranks(src)) describe_source(src) else sprintf("%s `x`", describe_source(src))
  check_exact_svd(method, control, where)
}

method_unavailable <- function(src, method, phrase) {
  ok <- registered_methods(source = class(src))
  if (!(method %in% ok)) {
    stop_arg(sprintf("`method` \"%s\" %s %s.", method, phrase,
                     paste0("\"", ok, "\"", collapse = ", ")))
  }
  invisible(TRUE)
}

check_exact_svd <- function(method, control, where) {
  if (method == "leverage" && control$svd == "exact") {
    stop_arg(sprintf("`control$svd` = \"exact\" needs the whole matrix in memory; use \"randomized\" with %s.",
                     where))
  }
  invisible(TRUE)
}
