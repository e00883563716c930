# Row source: a sparse Matrix in memory (a dgCMatrix once checked by
# check_data(); one whose columns sit far from zero is made dense there,
# dense_if_far_from_zero()). A source_matrix: the C++ entry points take
# either (glue.h::with_matrix); what differs is that zeros stay zeros.

new_source_sparse <- function(x) {
  new_row_source(x, c("source_sparse", "source_matrix"), in_memory = TRUE, sparse = TRUE)
}

describe_source.source_sparse <- function(src) "a sparse Matrix"
