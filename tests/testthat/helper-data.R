# A Gaussian mixture with well separated centres, reproducible without
# touching the caller's RNG state.
make_mixture <- function(n = 300, d = 20, k = 3, sd = 1, sep = 8, seed = 1) {
  withr::with_seed(seed, {
    centres <- matrix(rnorm(k * d, sd = sep), k, d)
    truth <- rep_len(seq_len(k), n)
    x <- centres[truth, , drop = FALSE] + matrix(rnorm(n * d, sd = sd), n, d)
    colnames(x) <- paste0("f", seq_len(d))
    list(x = x, truth = truth, centres = centres)
  })
}

# The k-means objective recomputed in R from scratch.
objective_r <- function(x, cluster) {
  x <- as.matrix(x)
  sum(vapply(unique(cluster), function(q) {
    xq <- x[cluster == q, , drop = FALSE]
    sum(sweep(xq, 2L, colMeans(xq))^2)
  }, numeric(1)))
}

# The lower median of each column (the reducers' shift of at most 256 rows).
lower_medians <- function(m) {
  unname(apply(m, 2L, function(v) sort(v)[(length(v) + 1L) %/% 2L]))
}

# Same partition up to relabelling.
same_partition <- function(a, b) {
  tab <- table(a, b)
  all(rowSums(tab > 0) == 1L) && all(colSums(tab > 0) == 1L)
}

# A sparse matrix with a cluster structure (nonnegative counts).
make_sparse_mixture <- function(n = 200, d = 60, k = 3, seed = 2) {
  withr::with_seed(seed, {
    truth <- rep_len(seq_len(k), n)
    rate <- matrix(0.05, k, d)
    for (q in seq_len(k)) rate[q, sample(d, d %/% (2 * k))] <- 3
    x <- matrix(rpois(n * d, rate[truth, ]), n, d)
    colnames(x) <- paste0("w", seq_len(d))
    list(x = Matrix::Matrix(x, sparse = TRUE), dense = x, truth = truth)
  })
}

# The reduction methods of the registry ("none" aside), and of one family or
# source: tests pick new methods up from there.
all_methods <- setdiff(names(kmreduce:::method_registry()), "none")
methods_of <- function(family = NULL, source = NULL) {
  setdiff(kmreduce:::registered_methods(family, source), "none")
}
