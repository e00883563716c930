# Checks of a row source's rows, k, centres, weights and method: generics
# whose defaults (methods of "row_source") read rows in blocks; sources
# override them where they check differently (the interface of row sources:
# R/row_source.R).

# check_data() of the source's rows: the checked data, or NULL for data that
# check_data() checks itself (in memory). `big`: whether the caller reads
# rows in blocks. Default: values in blocks (finite, small enough).
check_rows <- function(src, arg, big, block_rows, small) UseMethod("check_rows")
check_rows.row_source <- function(src, arg, big, block_rows, small) {
  if (!big) {
    stop_arg(sprintf(paste0("`%s` is %s; only kmeans_reduced(), reduce_dims(), ",
                            "randomized_svd(), kmeans_objective() and predict() read one ",
                            "in blocks. Give an in-memory matrix here."), arg, describe_source(src)))
  }
  check_big_data(src, arg, source_block_rows(src, block_rows), small)
  src$data
}

# The source of checked rows (kmeans_reduced()): check_data() of the data
# (values = FALSE: checked later by the kernels), a sparse matrix far from
# zero made dense (dense_if_far_from_zero()); a new source only when that
# changed the data (a data frame made a matrix, say).
checked_source <- function(src, block_rows, values) UseMethod("checked_source")
checked_source.row_source <- function(src, block_rows, values) {
  x <- dense_if_far_from_zero(check_data(src$data, "x", big = TRUE, block_rows = block_rows,
                                         values = values, vector_column = TRUE, src = src))
  if (identical(x, src$data)) src else as_row_source(x)
}

# `k` as a number of clusters: a whole number, at most the distinct rows.
# `arg`: the name the user gave it ("k", or "centers" as in stats::kmeans()).
check_source_k <- function(src, k, arg = "k") UseMethod("check_source_k")
check_source_k.row_source <- function(src, k, arg = "k") {
  n_max <- n_rows(src)
  if (!is_whole(k) || k < 1 || k > n_max) {
    stop_arg(sprintf("`%s` must be a whole number in [1, %d] (the number of rows of `x`), not %s.",
                     arg, n_max, describe(k)))
  }
  if (k > 1) {
    has <- big_has_distinct(src, k, source_block_rows(src))
    if (!has) stop_too_few_distinct(k, attr(has, "distinct"), arg)
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
check_source_centers <- function(src, centers, arg = "k") UseMethod("check_source_centers")
check_source_centers.row_source <- function(src, centers, arg = "k") {
  check_centers(centers, src$data, arg)
}

# What kmeans_reduced()'s options need of the source: the observation
# weights (checked, one per row) and control$algorithm. The source holds the
# weights the core uses, the given ones over src$weight_unit (a power of
# two, weights_unit(): 1 unless their sums would leave double precision).
set_weights <- function(src, weights, control) UseMethod("set_weights")
set_weights.row_source <- function(src, weights, control) {
  if (is.null(weights)) return(src)
  weights <- check_weights(weights, n_rows(src))
  unit <- weights_unit(weights)
  src$weights <- if (unit == 1) weights else weights / unit
  src$weight_unit <- unit
  src
}

# method = "auto" for this source (narrow data in memory: "none").
auto_method <- function(src, method, k) UseMethod("auto_method")
auto_method.row_source <- function(src, method, k) resolve_method(method, src$data)

# Is `method` available for this source (the registry's `sources`)?
check_source_method <- function(src, method, control) UseMethod("check_source_method")
check_source_method.row_source <- function(src, method, control) {
  where <- sprintf("%s `x`", describe_source(src))
  method_unavailable(src, method, sprintf("needs the whole matrix in memory; %s works with", where))
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
