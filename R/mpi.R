# kmeans_reduced() on a matrix whose rows are spread over MPI ranks (see
# ?mpi_rows). Every function here is collective: all ranks call it in the
# same order. Communication is pbdMPI's allreduce / allgather of small
# objects (k x dims, k x d, l x l, d x l); the rows never move.

mpi_sum <- function(v) pbdMPI::allreduce(v, op = "sum")

# kmeans_reduced() for a kmreduce_mpi `x` (arguments already checked).
mpi_kmeans_reduced <- function(x, k, method, dims, n_init, iter_max, seed, n_threads,
                               n_reductions, refine, control, verbose, call) {
  t_start <- elapsed()
  xl <- x$x
  if (!is_whole(k) || k < 1 || k > x$n) {
    stop_arg(sprintf("`k` must be a whole number in [1, %d] (the rows of the distributed matrix), not %s.",
                     as.integer(x$n), describe(k)))
  }
  k <- as.integer(k)
  method <- resolve_method(method, xl)
  ok <- registered_methods(source = "mpi")
  if (!(method %in% ok)) {
    stop_arg(sprintf("`method` \"%s\" is not available on distributed rows; use one of %s.",
                     method, paste0("\"", ok, "\"", collapse = ", ")))
  }
  if (n_reductions != 1L) stop_arg("`n_reductions` must be 1 on distributed rows.")
  if (method == "leverage" && control$svd == "exact") {
    stop_arg("`control$svd` = \"exact\" is not available on distributed rows; use \"randomized\".")
  }
  d <- ncol(xl)
  dims <- if (method == "none") d else if (is.null(dims)) {
    method_dims_default(method, k, x$n, d)
  } else {
    check_whole(dims, "dims", 1, method_dims_upper(method, x$n, d))
  }
  # One seed for all ranks: rank 0's.
  seed <- mpi_sum(if (x$rank == 0L) resolve_seed(seed) else 0)

  t0 <- elapsed()
  reducer <- if (method %in% c("leverage", "rsvd")) {
    mpi_fit_svd_reducer(x, method, dims, k, seed, n_threads, control)
  } else {
    fit_reducer(xl, method, dims, k, seed, n_threads, control)
  }
  # Centred reduced rows (see reduce_training()): the global column means.
  # "none" on dense rows: Lloyd on the rows minus their column means.
  if (method != "none" || is.matrix(xl)) {
    raw <- apply_reducer(reducer, xl, n_threads)
    reducer$shift <- mpi_sum(colSums(raw)) / x$n
    reduced <- raw - rep(reducer$shift, each = nrow(raw))
    rm(raw)
  } else {
    reducer$shift <- NULL
    reduced <- xl
  }
  t1 <- elapsed()
  say(verbose && x$rank == 0L, "rank 0 of %d: reduced in %.3f s", x$size, t1 - t0)
  km <- mpi_kmeans_cpp(reduced, k, n_init, iter_max, control$tol, seed, n_threads, mpi_info(x))
  st <- mpi_stats_cpp(xl, km$cluster, k, n_threads, mpi_info(x))
  t2 <- elapsed()
  objective <- sum(st$withinss)
  objective_before <- objective
  assignment_centers <- assignment_shift <- NULL
  if (refine > 0L) {
    # (rows minus their grand mean, as in kmeans_reduced())
    if (is.matrix(xl)) assignment_shift <- unname(colSums(st$centers * st$size) / sum(st$size))
    rk <- mpi_lloyd_cpp(xl, st$centers, refine, 0, n_threads, mpi_info(x), assignment_shift)
    st <- mpi_stats_cpp(xl, rk$cluster, k, n_threads, mpi_info(x))
    km$cluster <- rk$cluster
    objective <- sum(st$withinss)
    assignment_centers <- rk$centers
    dimnames(assignment_centers) <- list(seq_len(k), colnames(xl))
  }
  cluster <- km$cluster
  names(cluster) <- rownames(xl)
  centers <- st$centers
  dimnames(centers) <- list(seq_len(k), colnames(xl))
  reduced_centers <- km$centers
  if (method == "none" && !is.null(reducer$shift)) {
    reduced_centers <- reduced_centers + rep(reducer$shift, each = k)
  }
  dimnames(reduced_centers) <- list(seq_len(k), colnames(reduced))
  if (!km$converged) {
    warning(sprintf("Lloyd did not converge in %d iterations; increase `iter_max`.",
                    iter_max), call. = FALSE)
  }
  structure(list(
    cluster = cluster, centers = centers, totss = st$totss, withinss = st$withinss,
    tot.withinss = objective, betweenss = st$totss - objective, size = st$size,
    iter = km$iter, ifault = if (km$converged) 0L else 2L, method = method,
    dims = reducer$dims, seed = seed, call = call, reducer = reducer,
    reduced_centers = reduced_centers,
    reduced = if (control$keep_reduced && method != "none") reduced else NULL,
    sumsq = st$sumsq, n_reductions = 1L, objectives = objective_before, refine = refine,
    objective_before_refine = objective_before, assignment_centers = assignment_centers,
    assignment_shift = assignment_shift,
    mpi = list(rank = x$rank, size = x$size, n = x$n, offset = x$offset),
    timing = c(reduce = t1 - t0, cluster = t2 - t1, total = elapsed() - t_start)
  ), class = c("kmeans_reduced", "kmeans"))
}

# What the C++ core needs to combine the ranks' work (its Combine, see
# row_source.hpp): an allreduce-sum, this rank, the ranks, the global index
# of this rank's first row and the total number of rows.
mpi_info <- function(x) {
  list(allreduce = mpi_sum, rank = x$rank, size = x$size, offset = x$offset, n = x$n)
}

# Top right singular vectors (randomized_svd_blocks() of rsvd.hpp on every
# rank's rows, centred as top_right_vectors() centres), then the reducer of
# "leverage" or "rsvd".
mpi_fit_svd_reducer <- function(x, method, dims, k, seed, n_threads, control) {
  xl <- x$x
  k_svd <- if (method == "leverage") min(k, x$n, ncol(xl)) else dims
  sv <- mpi_rsvd_cpp(xl, k_svd, oversample_for(k_svd, control$eps), control$power_iters, seed,
                     n_threads, TRUE, mpi_info(x))
  if (method == "rsvd") return(rotation_reducer(xl, "rsvd", dims, sv, seed))
  leverage_reducer(xl, sv, k_svd, dims, seed, control)
}
