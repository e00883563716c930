# Reducers: what a method learns from the data (fit_reducer) and how it maps
# any rows with the same columns to the reduced space (apply_reducer). The
# reducer is stored in fits, so predict() maps new rows exactly as the
# training rows were mapped.
#
# Translation: k-means is translation invariant, but its distances are
# computed as ||x||^2 + ||c||^2 - 2 x.c, which loses every digit on data far
# from the origin. So the reduced rows are shifted to sit around the origin:
# a reducer holds `shift`, a point among its reduced training rows (in each
# column the median of a sample of them, robust_shift_cpp(); a mean would be
# moved away from every row by one far row), and subtracts it from every
# row it maps (reduce_training()). The SVD-based methods decompose the
# centred data (principal components), and "none" runs Lloyd on the rows
# minus such a point (`shift`, in the original space; dense data).

# (`src`: the row source of the training rows)
new_reducer <- function(method, dims, seed, src, ...) {
  structure(list(method = method, dims = as.integer(dims), seed = seed,
                 n_features = n_cols(src), feature_names = col_names(src), ...),
            class = "kmreduce_reducer")
}

# Top right singular vectors, exact (LAPACK) or randomized: FastFrobeniusSVD
# of Lemma 4 of Boutsidis et al. (2015), k + ceil(k / eps + 1) Gaussian
# columns, `power_iters` power iterations.
# Extra test vectors: ceil(k / eps + 1), kept an integer for any eps > 0
# (the SVD uses at most min(n, d) columns anyway).
# eps of the randomized SVD when control$eps is NULL (Boutsidis et al.
# 2015); the cells of a SummarizedExperiment have their own (cell_defaults()).
default_svd_eps <- function() 1 / 3

oversample_for <- function(k, eps) as.integer(min(ceiling(k / eps + 1), 2^30))

# Power iterations of the randomized SVD for rank k of an n x d matrix with
# `oversample` extra test vectors: a given number as it is; "auto": none
# when the k + oversample test vectors span the row or column space (the
# SVD is then exact), otherwise one. With the 3k + 1 extra vectors of eps =
# 1/3 (not the 10 of scikit-learn's rule of 4 or 7), more iterations did not
# lower the k-means objective of "leverage" on gene expression, digits,
# faces and Fashion-MNIST (the exact SVD did no better than none), and one
# lowered "rsvd"'s worst cases (bench/quality/leverage_power.R; its figures
# in bench/RESULTS.md, quality/).
power_iters_for <- function(power_iters, k, oversample, n, d) {
  if (!identical(power_iters, "auto")) return(as.integer(power_iters))
  if (k + oversample >= min(n, d)) 0L else 1L
}

# With center = TRUE, of the centred x - 1 colMeans(x)^T (never formed for
# sparse x: the products subtract the centring term). With observation
# `weights` w, of diag(sqrt(w)) (x - 1 mu^T), mu the weighted column means:
# for whole weights, the right singular vectors of the rows repeated. `x`:
# data or a row source (source_svd() reads its rows).
top_right_vectors <- function(x, k, how, eps, power_iters, seed, n_threads,
                              block_rows = NULL, center = TRUE, weights = NULL) {
  if (is.null(eps)) eps <- default_svd_eps()
  src <- as_row_source(x)
  n <- as.numeric(n_rows(src))
  d <- as.numeric(n_cols(src))
  oversample <- oversample_for(k, eps)
  power_iters <- power_iters_for(power_iters, k, oversample, n, d)
  sv <- source_svd(src, k, how, oversample, power_iters, seed, n_threads, block_rows, center,
                   weights)
  zero_null_directions(sv, n, d)
}

# The singular vectors of singular value 0 (to rounding: at most
# max(n, d) eps sigma_1), when k exceeds the rank of the (centred) data, are
# any basis of a null space: rounding picks them, so they change with the
# data's units. They are set to 0: their reduced coordinate is 0, they add
# nothing to leverage scores, and CSSP takes its columns beyond the rank by
# norm (cssp.hpp).
zero_null_directions <- function(sv, n, d) {
  if (length(sv$d) > 0L && sv$d[1L] > 0) {
    null <- sv$d <= sv$d[1L] * max(n, d) * .Machine$double.eps
    if (any(null)) sv$v[, null] <- 0
  }
  sv
}

# Column means of in-memory data (threaded for dense x; Matrix::colMeans,
# O(nnz), for sparse x); with `weights`, weighted.
column_means <- function(x, n_threads = 1L, weights = NULL) {
  if (!is.null(weights) && methods::is(x, "sparseMatrix")) {
    return(as.numeric(Matrix::crossprod(x, weights)) / sum(weights))
  }
  if (methods::is(x, "sparseMatrix")) unname(Matrix::colMeans(x)) else column_means_cpp(x, n_threads, weights)
}

# Largest dense copy an exact SVD of sparse data may make (4 GB).
max_dense_bytes <- function() 4 * 2^30

selected_features <- function(src, index, scale) {
  names <- col_names(src)
  data.frame(
    index = index,
    name = if (is.null(names)) paste0("V", index) else names[index],
    scale = scale,
    stringsAsFactors = FALSE
  )
}

# The reducer of `method` fitted to the rows of the row source `src`: the
# fit of its registry entry (which gets the source). With observation
# `weights` (one per row), the SVD-based methods decompose the weighted
# centred rows (top_right_vectors()).
fit_reducer <- function(src, method, dims, k, seed, n_threads, control, weights = NULL) {
  info <- method_info(method)
  if (is.null(info)) stop_arg(sprintf("unknown method \"%s\".", method))
  info$fit(src, method = method, dims = dims, k = k, seed = seed, n_threads = n_threads,
           control = control, weights = weights)
}

fit_none <- function(src, method, dims, k, seed, n_threads = 1L, ...) {
  # Lloyd on the rows minus a point among them (dense rows; the zeros of
  # sparse rows stay zeros): none_shift().
  new_reducer("none", n_cols(src), seed, src, shift = none_shift(src, n_threads))
}

fit_fjlt <- function(src, method, dims, k, seed, n_threads, control, ...) {
  # (q from the rows of all sources, so every MPI rank maps with the same
  # matrix)
  q <- fjlt_density(n_rows(src), n_cols(src), control$fjlt_density)
  # P's non-zeros are held while mapping
  check_fjlt_memory(n_local_rows(src), n_cols(src), dims, q)
  new_reducer(method, dims, seed, src, density = q)
}

# Algorithm 1 of Boutsidis et al. (2015); Boutsidis, Mahoney and Drineas
# (2009). Scores from the top-k right singular vectors.
fit_leverage <- function(src, method, dims, k, seed, n_threads, control, weights = NULL) {
  k_svd <- min(k, n_rows(src), n_cols(src))
  sv <- top_right_vectors(src, k_svd, control$svd, control$eps, control$power_iters,
                          seed, n_threads, control$block_rows, weights = weights)
  leverage_reducer(src, sv, k_svd, dims, seed, control)
}

# Two-stage column subset selection (Boutsidis, Mahoney and Drineas 2008)
# with its rank parameter equal to dims.
fit_cssp <- function(src, method, dims, k, seed, n_threads, control, weights = NULL) {
  sv <- top_right_vectors(src, dims, control$svd, control$eps, control$power_iters,
                          seed, n_threads, weights = weights)
  c_keep <- if (is.null(control$c)) 2 * dims * max(1, log(dims)) else control$c
  spectral <- control$residual == "spectral"
  if (spectral) {
    check_memory(8 * 2 * as.numeric(n_cols(src))^2,
                 sprintf("The spectral residual of CSSP (a %s x %s Gram matrix)",
                         format(n_cols(src)), format(n_cols(src))),
                 "Use control = list(residual = \"frobenius\").")
  }
  # (in memory only: the registry's sources)
  res <- cssp_cpp(to_cpp_source(src)$rows, sv$v,
                  list(c = c_keep, repeats = control$repeats, seed = seed, n_threads = n_threads,
                       spectral = spectral,
                       strong_f = if (control$qr == "strong") strong_rrqr_f() else 0),
                  sv$center, weights)
  scores <- res$prob
  names(scores) <- col_names(src)
  new_reducer("cssp", dims, seed, src,
              # (in column order: the pivot order among columns of
              # equal norm is rounding, and k-means on the columns
              # permuted is not bit for bit the same; dims = ncol(x)
              # made the fit depend on the data's units)
              features = selected_features(src, sort(res$index), rep(1, dims)),
              scores = scores, singular_values = sv$d,
              residual = res$residual, residual_norm = control$residual, qr = control$qr,
              # (centred data of norm 0, all rows equal: nothing is left
              # to reproduce, the residual is 0)
              relative_residual = if (res$frob2 > 0) res$residual / res$frob2 else 0)
}

# C = A V_dims: exact SVD (Drineas et al. 1999), or Algorithm 3 of
# Boutsidis et al. (2015) with the randomized FastFrobeniusSVD.
# With control$svd_rows (rsvd), the SVD is that of a uniform sample of the
# rows, read in one pass and held in memory (as Seurat's sketch of cells);
# every row is then projected on its singular vectors by the projection
# pass.
fit_rotation <- function(src, method, dims, k, seed, n_threads, control, weights = NULL) {
  fit_src <- src
  m <- svd_rows_for(control$svd_rows, n_rows(src))
  if (method == "rsvd" && m < n_rows(src)) {
    if (m < dims) {
      stop_arg(sprintf("`control$svd_rows` must be at least `dims` (%d), not %s.", dims,
                       format(m)))
    }
    drawn <- sample_rows(src, m, seed, control$block_rows)
    fit_src <- as_row_source(drawn$rows)
    if (!is.null(weights)) weights <- weights[drawn$index]
  }
  sv <- top_right_vectors(fit_src, dims, if (method == "svd") "exact" else "randomized",
                          control$eps, control$power_iters, seed, n_threads,
                          control$block_rows, weights = weights)
  rotation_reducer(src, method, dims, sv, seed)
}

# The rows the randomized SVD is computed from (control$svd_rows): NULL or
# Inf, all n; a number, at most n.
svd_rows_for <- function(svd_rows, n) {
  if (is.null(svd_rows)) n else min(n, svd_rows)
}

# The m of n rows sample_rows() draws from `seed`, increasing; `stream`:
# the random stream of the seed they come from (another for another use).
sample_index <- function(n, m, seed, stream = 2^32 + 7) {
  sort(order(uniform_box_cpp(n, 0, 1, seed, stream, 1L)[, 1L])[seq_len(m)])
}

# The f of the strong rank-revealing QR (Gu and Eisenstat 1996): every
# entry of A^{-1} B at most 2 in magnitude. Their bounds hold for any f >= 1,
# but the swaps end only for f > 1 (each multiplies |det A| by more than f;
# with f = 1 rounding can make them cycle), and f slightly above 1 costs
# more swaps for little.
strong_rrqr_f <- function() 2

# The FJLT's density q = min(Theta(log^2 n / d), 1) (Ailon and Chazelle
# 2009; Li and Fan 2020, section 2.5.1) for n rows and d columns, d padded to
# a power of two as the Hadamard transform is; Theta's constant is not
# stated: taken as 1, natural logarithm. `given`: control$fjlt_density.
fjlt_density <- function(n, d, given = NULL) {
  if (!is.null(given)) return(given)
  padded <- 2^ceiling(log2(max(d, 1)))
  min(1, log(max(n, 2))^2 / padded)
}

# Algorithm 1 of Boutsidis et al. (2015); Boutsidis, Mahoney and Drineas
# (2009): scores from the top-k right singular vectors sv$v, dims columns
# drawn (or the top ones) and rescaled.
leverage_reducer <- function(src, sv, k_svd, dims, seed, control) {
  scores <- rowSums(sv$v^2) / k_svd
  if (!(sum(scores) > 0)) {
    stop_arg("`x` has no nonzero singular value: leverage scores are undefined (all data are zero).")
  }
  # "sqrt": the variant of the 2020 report, p_i = ||(V_k)_(i)|| / k.
  p <- if (control$scores == "sqrt") sqrt(rowSums(sv$v^2)) / k_svd else scores
  p <- p / sum(p)
  index <- if (control$sampling == "top") {
    order(-p, seq_along(p))[seq_len(min(dims, sum(p > 0)))]
  } else {
    leverage_sample_cpp(p, dims, seed)
  }
  names(scores) <- col_names(src)
  new_reducer("leverage", length(index), seed, src,
              features = selected_features(src, index, 1 / sqrt(length(index) * p[index])),
              scores = scores, singular_values = sv$d)
}

# C = A V_dims (svd, rsvd).
rotation_reducer <- function(src, method, dims, sv, seed) {
  rotation <- sv$v
  dimnames(rotation) <- list(col_names(src), paste0(column_prefix(method), seq_len(dims)))
  new_reducer(method, dims, seed, src, rotation = rotation, singular_values = sv$d)
}

# The rows of x mapped by the reducer, minus reducer$shift: NULL (reducers
# of older versions), none; numeric(0), robust_shift_cpp() of these rows,
# returned as attribute "shift" (see reduce_training()).
# limit > 0: the sparse embedding of dense x also checks the values of x
# (see check_data(values = FALSE)). Rows in memory (on MPI ranks, each
# rank's rows) are mapped at once, else block by block.
apply_reducer <- function(reducer, x, n_threads = 1L, block_rows = NULL, limit = 0) {
  method <- reducer$method
  if (method == "none") return(x)
  src <- if (inherits(x, "row_source")) x else as_row_source(x)
  info <- method_info(method)
  info$memory(n_local_rows(src), reducer)
  if (isTRUE(src$in_memory) || (!is.null(src$mpi) && is.null(src$local))) {
    return(map_rows(reducer, src$data, n_threads, limit, info))
  }
  blocks <- if (is.null(src$local)) src else src$local
  stream_reduce(reducer, blocks, source_block_rows(blocks, block_rows), n_threads)
}

# apply_reducer() of rows in memory (a matrix or dgCMatrix x): the apply of
# the method's registry entry, minus the shift (fitted here when
# reducer$shift is numeric(0)). `info`: the method's registry entry.
map_rows <- function(reducer, x, n_threads, limit, info = method_info(reducer$method)) {
  fit_shift <- length(reducer$shift) == 0L && !is.null(reducer$shift)
  out <- info$apply(reducer, x, n_threads, limit, if (!fit_shift) reducer$shift)
  if (isTRUE(attr(out, "invalid"))) check_values_later(x)
  attr(out, "invalid") <- NULL
  # One dimnames<- (not colnames<- then rownames<-): no second copy.
  dimnames(out) <- list(rownames(x), reduced_names(reducer, info))
  if (fit_shift) shift_in_place(out, n_threads)
  out
}

# Subtracts robust_shift_cpp() of `out`, a matrix its caller made and alone
# holds, from its rows in place, and records it as attribute "shift".
shift_in_place <- function(out, n_threads = 1L) {
  shift <- robust_shift_cpp(out, n_threads)
  subtract_row_in_place_cpp(out, shift)
  set_attr_in_place_cpp(out, "shift", shift)
  invisible(out)
}

# The names of the reduced columns: the selected features' names, or the
# method's prefix and the dimension's number (`info`: its registry entry).
reduced_names <- function(reducer, info = method_info(reducer$method)) {
  if (info$family == "selection") {
    make.unique(reducer$features$name)
  } else {
    paste0(column_prefix(reducer$method, info), seq_len(reducer$dims))
  }
}

# How reduce_source_cpp() (src/reduce.cpp) maps each block of rows: the
# kernel of the method's family (family_apply()) with its arguments, or,
# for a method with an apply of its own, that apply (family "r", called
# back with each block); `shift` (NULL: none), `names` (the reduced
# columns). `options(x)` and `invalid(x)`: the ReduceOptions of a
# projection for the block x, and the error of its values out of range
# (limit > 0), as map_rows() gives them.
reducer_spec <- function(reducer, n_threads, limit = 0) {
  info <- method_info(reducer$method)
  shift <- if (length(reducer$shift)) reducer$shift
  family <- if (identical(info$apply, family_apply(info$family), ignore.environment = TRUE)) {
    info$family
  } else {
    "r"
  }
  spec <- list(family = family, names = reduced_names(reducer), shift = shift,
               n_threads = as.integer(n_threads))
  switch(family,
    projection = {
      spec$options <- function(x) {
        reduce_options(info$cpp, reducer$dims, reducer$seed, n_threads, limit,
                       info$options(reducer, x))
      }
      spec$invalid <- function(x) check_values_later(x)
    },
    selection = {
      spec$index <- reducer$features$index
      spec$scale <- reducer$features$scale
    },
    extraction = spec$rotation <- reducer$rotation,
    r = spec$apply <- function(x) {
      out <- info$apply(reducer, x, n_threads, limit, shift)
      if (isTRUE(attr(out, "invalid"))) check_values_later(x)
      out
    })
  spec
}

# Applies a reducer just fitted to its training rows and fits its shift
# (robust_shift_cpp() of the reduced rows), subtracted, so that k-means sees
# rows around the origin however far x sits from it. list(reducer, reduced).
reduce_training <- function(reducer, x, n_threads = 1L, block_rows = NULL, limit = 0) {
  if (reducer$method == "none") return(list(reducer = reducer, reduced = x))
  reducer$shift <- numeric(0)
  reduced <- apply_reducer(reducer, x, n_threads, block_rows, limit)
  reducer$shift <- attr(reduced, "shift")
  # (in place: `reduced` is new, made by apply_reducer() for this call)
  set_attr_in_place_cpp(reduced, "shift", NULL)
  list(reducer = reducer, reduced = reduced)
}

# As apply_reducer() for the row source `src`, read in blocks: each block
# reduced on its own (the same numbers as in memory: the kernels work row by
# row). With reducer$shift = numeric(0), robust_shift_cpp() of all the
# reduced rows is subtracted and returned as attribute "shift".
stream_reduce <- function(reducer, src, block_rows, n_threads) {
  fit_shift <- length(reducer$shift) == 0L && !is.null(reducer$shift)
  if (fit_shift) reducer$shift <- NULL
  out <- reduce_rows(src, reducer, block_rows, n_threads)
  # Named and shifted in place: `out` is new, this pass's alone (R's own
  # assignments would copy all the reduced rows once more, as the frames
  # that made them still hold them).
  set_attr_in_place_cpp(out, "dimnames", list(row_names(src), colnames(out)))
  if (fit_shift) shift_in_place(out, n_threads)
  out
}

# The top right singular vectors of rows in memory (source_svd()): exact
# (LAPACK) or randomized.
memory_svd <- function(x, k, how, oversample, power_iters, seed, n_threads, center, weights) {
  mu <- if (center) column_means(x, n_threads, weights) else NULL
  n <- as.numeric(nrow(x))
  d <- as.numeric(ncol(x))
  if (how == "exact") {
    if (methods::is(x, "dgCMatrix") && 8 * as.numeric(nrow(x)) * ncol(x) > max_dense_bytes()) {
      stop_arg(sprintf(paste0("`x` is sparse and large (%d x %d): the exact SVD would densify it ",
                              "(%.1f GB). Use the randomized SVD instead (method = \"rsvd\" or ",
                              "control = list(svd = \"randomized\"))."),
                       nrow(x), ncol(x), 8 * as.numeric(nrow(x)) * ncol(x) / 2^30))
    }
    check_exact_svd_memory(n, d)
    sv <- cpp_svd(x, k, mu, weights, n_threads)
  } else {
    check_rsvd_memory(n, d, min(k + oversample, n, d),
                      "Use a projection (for example method = \"sparse_embedding\", O(nnz)) or a smaller k or eps.")
    sv <- cpp_rsvd(cpp_source(rows = x, weights = weights), k, oversample, power_iters, seed,
                   n_threads, mu)
  }
  list(d = sv$d, v = sv$v, center = mu)
}

# The named list src/reduce.cpp reads into its ReduceOptions (reduce_options()
# there): the projection's name, dims, seed, threads, `limit` (> 0: check the
# values of dense x on the way) and the method's own options.
reduce_options <- function(method, dims, seed, n_threads = 1L, limit = 0, more = list()) {
  c(list(method = method, dims = dims, seed = seed, n_threads = n_threads, limit = limit), more)
}

# "auto": the mailman kernel for dense data with at least 64 columns.
sign_algorithm <- function(algorithm, x) {
  if (algorithm != "auto") return(algorithm)
  if (!methods::is(x, "dgCMatrix") && ncol(x) >= 64L) "mailman" else "gemm"
}

# Step 3: the reducer of `method` fitted to the rows (fit_reducer()). Its
# singular values and residual are of the weights as given (those of the
# core's weights times the square root of src$weight_unit, or times it:
# exact, an even power of two).
fit_source_reducer <- function(src, method, dims, k, seed, n_threads, control) {
  reducer <- fit_reducer(src, method, dims, k, seed, n_threads, control, src$weights)
  unit <- weight_unit(src)
  if (unit != 1) {
    if (!is.null(reducer$singular_values)) {
      reducer$singular_values <- reducer$singular_values * sqrt(unit)
    }
    if (!is.null(reducer$residual)) reducer$residual <- reducer$residual * unit
  }
  reducer
}

# Step 4 for the fit: the reduced rows, centred by the column means of all
# the rows; list(reducer, reduced) (reduce_training()). On several MPI
# ranks: minus the shift of all the ranks' reduced rows
# (mpi_reduce_source()).
reduce_source <- function(src, reducer, n_threads, block_rows, limit) {
  # ("none": the rows themselves, which are in memory where "none" runs)
  if (reducer$method == "none") return(list(reducer = reducer, reduced = src$data))
  if (!is.null(src$mpi)) {
    if (src$mpi$size > 1L) return(mpi_reduce_source(src, reducer, n_threads, block_rows))
    # (one rank: the numbers of one process)
    if (!is.null(src$local)) src <- src$local
  }
  reduce_training(reducer, src, n_threads, block_rows, limit)
}

# All the rows of the source mapped by the reducer, read in blocks of
# `block_rows` (stream_reduce()): one C++ pass over the blocks of its
# description (reduce_source_cpp(), src/reduce.cpp; each block mapped by
# the kernels of its apply in memory, the same numbers), into one matrix. A
# source may map the rows as it stores them, without making the blocks (its
# hook reduce_rows, NULL where it does not: source_tenx).
reduce_rows <- function(src, reducer, block_rows, n_threads) {
  if (!is.null(src$hooks$reduce_rows)) {
    out <- src$hooks$reduce_rows(src, reducer, block_rows, n_threads,
                                 method_info(reducer$method)$family, reduced_names(reducer))
    if (!is.null(out)) return(out)
  }
  reduce_source_cpp(to_cpp_source(src, block_rows), reducer_spec(reducer, n_threads))
}

# Column prefix of the reduced data ("D" for methods without one).
column_prefix <- function(method, info = method_info(method)) {
  prefix <- info$prefix
  if (is.null(prefix)) "D" else prefix
}
