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
  km <- mpi_kmeans(reduced, k, n_init, iter_max, control$tol, seed, n_threads, x$n)
  st <- mpi_stats(xl, km$cluster, k, n_threads, x$n)
  t2 <- elapsed()
  objective <- sum(st$withinss)
  objective_before <- objective
  assignment_centers <- NULL
  if (refine > 0L) {
    rk <- mpi_lloyd(xl, st$centers, refine, 0, n_threads, x$n)
    st <- mpi_stats(xl, rk$cluster, k, n_threads, x$n)
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
    mpi = list(rank = x$rank, size = x$size, n = x$n, offset = x$offset),
    timing = c(reduce = t1 - t0, cluster = t2 - t1, total = elapsed() - t_start)
  ), class = c("kmeans_reduced", "kmeans"))
}

# Statistics of cluster_stats_cpp() from every rank's rows.
mpi_stats <- function(xl, cluster, k, n_threads, n) {
  m <- block_moments_cpp(xl, cluster, k, n_threads)
  tot <- mpi_sum(c(as.vector(m$sums), m$size, m$sumsq))
  d <- ncol(xl)
  sums <- matrix(tot[seq_len(k * d)], k, d)
  size <- tot[k * d + seq_len(k)]
  centers <- sums / ifelse(size > 0, size, 1)
  mean <- colSums(sums) / n
  dv <- block_deviations_cpp(xl, cluster, centers, mean)
  dv_all <- mpi_sum(c(dv$withinss, dv$totss))
  list(centers = centers, withinss = dv_all[seq_len(k)], size = as.integer(size),
       totss = dv_all[k + 1L], sumsq = tot[k * d + k + 1L])
}

# Replicates of k-means++ and Lloyd, as kmeans() in kmeans.hpp.
mpi_kmeans <- function(y, k, n_init, iter_max, tol, seed, n_threads, n) {
  best <- NULL
  h <- rows_handle_cpp(y, n_threads)
  for (t in seq_len(n_init)) {
    centres <- mpi_kmeanspp(y, h, k, seed, t - 1L, n_threads, n)
    res <- mpi_lloyd(y, centres, iter_max, tol, n_threads, n, h)
    if (is.null(best) || res$objective < best$objective * (1 - 1e-10)) best <- res
  }
  best
}

# Index (1-based, global) drawn with probability dist / total over all ranks,
# as draw_weighted() on the stacked vector.
mpi_draw <- function(dist, rng, offset, n) {
  totals <- unlist(pbdMPI::allgather(sum(dist)))
  total <- sum(totals)
  if (!(total > 0)) return(rng_below_cpp(rng, n) + 1)
  u <- rng_uniform_cpp(rng) * total
  rank <- pbdMPI::comm.rank()
  before <- sum(totals[seq_len(rank)])
  cum <- before + cumsum(dist)
  hit <- which(dist > 0 & cum > u)
  found <- if (length(hit) > 0L) offset + hit[1L] else Inf
  g <- pbdMPI::allreduce(found, op = "min")
  if (is.finite(g)) return(g)
  pos <- which(dist > 0)
  pbdMPI::allreduce(if (length(pos) > 0L) offset + max(pos) else 0, op = "max")
}

# Row `g` (global, 1-based) of the distributed y, on every rank.
mpi_row <- function(y, g, offset) {
  local <- g - offset
  row <- if (local >= 1 && local <= nrow(y)) as.numeric(y[local, ]) else numeric(ncol(y))
  mpi_sum(row)
}

mpi_kmeanspp <- function(y, h, k, seed, replicate, n_threads, n) {
  offset <- pbdMPI::comm.rank()
  offset <- sum(unlist(pbdMPI::allgather(nrow(y)))[seq_len(offset)])
  rng <- rng_new_cpp(seed, replicate)
  trials <- 2L + as.integer(floor(log(k)))
  centres <- matrix(0, k, ncol(y))
  first <- rng_below_cpp(rng, n) + 1
  centres[1L, ] <- mpi_row(y, first, offset)
  dist <- as.numeric(dist2_cpp(h, centres[1L, , drop = FALSE], n_threads))
  own <- function(g) { l <- g - offset; if (l >= 1 && l <= nrow(y)) l else NA_integer_ }
  if (!is.na(own(first))) dist[own(first)] <- 0
  for (q in seq_len(k)[-1L]) {
    cand_row <- numeric(trials)
    pts <- matrix(0, trials, ncol(y))
    for (t in seq_len(trials)) {
      cand_row[t] <- mpi_draw(dist, rng, offset, n)
      pts[t, ] <- mpi_row(y, cand_row[t], offset)
    }
    cand <- dist2_cpp(h, pts, n_threads)
    pot_local <- vapply(seq_len(trials), function(t) {
      v <- pmin(dist, cand[, t])
      if (!is.na(own(cand_row[t]))) v[own(cand_row[t])] <- 0
      sum(v)
    }, numeric(1))
    pot <- mpi_sum(pot_local)
    b <- which.min(pot)
    dist <- pmin(dist, cand[, b])
    if (!is.na(own(cand_row[b]))) dist[own(cand_row[b])] <- 0
    centres[q, ] <- pts[b, ]
  }
  centres
}

# Lloyd from given centres (k x dims) on the distributed rows, as lloyd() in
# lloyd.hpp: stops when no label changes or the objective (closed form)
# drops by less than tol; empty clusters take the farthest row; one final
# exact pass.
mpi_lloyd <- function(y, centres, iter_max, tol, n_threads, n,
                      h = rows_handle_cpp(y, n_threads)) {
  k <- nrow(centres)
  d <- ncol(y)
  offset <- sum(unlist(pbdMPI::allgather(nrow(y)))[seq_len(pbdMPI::comm.rank())])
  labels <- integer(nrow(y))
  total <- NA_real_
  prev <- Inf
  converged <- FALSE
  iter <- 0L
  count <- numeric(k)
  reseed <- function(labels, dist, sums, count) {
    for (q in which(count == 0)) {
      ok <- count[labels] > 1
      v <- if (any(ok)) max(dist[ok]) else -1
      r <- if (any(ok)) which(ok & dist == v)[1L] else 0L
      cands <- matrix(unlist(pbdMPI::allgather(c(v, offset + r))), nrow = 2L)
      best_v <- max(cands[1L, ])
      if (best_v < 0) break
      g <- min(cands[2L, cands[1L, ] == best_v])
      row <- mpi_row(y, g, offset)
      local <- g - offset
      old <- mpi_sum(if (local >= 1 && local <= nrow(y)) labels[local] else 0)
      sums[old, ] <- sums[old, ] - row
      sums[q, ] <- row
      count[old] <- count[old] - 1
      count[q] <- 1
      if (local >= 1 && local <= nrow(y)) {
        labels[local] <- q
        dist[local] <- 0
      }
    }
    list(labels = labels, dist = dist, sums = sums, count = count)
  }
  norms_total <- NA_real_
  for (it in seq_len(iter_max)) {
    iter <- it
    nn <- nearest_cpp(h, centres, n_threads)
    changes <- mpi_sum(sum(nn$cluster != labels))
    labels <- nn$cluster
    if (it > 1L && changes == 0) {
      converged <- TRUE
      break
    }
    m <- block_moments_cpp(y, labels, k, n_threads, FALSE)
    tot <- mpi_sum(c(as.vector(m$sums), m$size))
    sums <- matrix(tot[seq_len(k * d)], k, d)
    count <- tot[k * d + seq_len(k)]
    if (it == 1L && tol > 0) {
      norms_total <- mpi_sum(sum(nn$norms))
      total <- norms_total - sum(colSums(sums)^2) / n
    }
    if (any(count == 0)) {
      rs <- reseed(labels, nn$dist, sums, count)
      labels <- rs$labels
      sums <- rs$sums
      count <- rs$count
    }
    keep <- count > 0
    centres[keep, ] <- sums[keep, , drop = FALSE] / count[keep]
    if (tol > 0) {
      grand <- sum(colSums(count * centres)^2)
      obj <- max(0, total - (sum(count * rowSums(centres^2)) - grand / n))
      if (it > 1L && prev - obj <= tol * prev) {
        converged <- TRUE
        break
      }
      prev <- obj
    }
  }
  nn <- nearest_cpp(h, centres, n_threads)
  labels <- nn$cluster
  list(cluster = labels, centers = centres, iter = iter, converged = converged,
       objective = mpi_sum(sum(nn$dist)))
}

# Orthonormal basis of a distributed tall matrix: Cholesky QR twice.
mpi_cholqr <- function(y) {
  for (pass in 1:2) {
    g <- mpi_sum(crossprod(y))
    r <- tryCatch(chol((g + t(g)) / 2), error = function(e) NULL)
    if (is.null(r)) {
      stop_arg("the distributed randomized SVD met a rank-deficient basis (Cholesky QR failed); use a projection method.")
    }
    y <- y %*% backsolve(r, diag(ncol(y)))
  }
  y
}

# Top right singular vectors (randomized, as randomized_svd_cpp) of the
# distributed matrix, then the reducer of "leverage" or "rsvd".
mpi_fit_svd_reducer <- function(x, method, dims, k, seed, n_threads, control) {
  xl <- x$x
  k_svd <- if (method == "leverage") min(k, x$n, ncol(xl)) else dims
  l <- min(k_svd + as.integer(ceiling(k_svd / control$eps + 1)), min(x$n, ncol(xl)))
  # Of the centred matrix (as top_right_vectors()): products minus their
  # centring terms, with the global column means mu.
  mu <- mpi_sum(unname(Matrix::colSums(xl))) / x$n
  n_local <- nrow(xl)
  cross <- function(u) {
    mpi_sum(as.matrix(Matrix::crossprod(xl, u))) - outer(mu, mpi_sum(colSums(u)))
  }
  y <- rsvd_range_cpp(xl, l, seed, n_threads)
  q <- mpi_cholqr(y - rep(drop(rsvd_range_cpp(matrix(mu, 1L), l, seed, 1L)), each = n_local))
  for (it in seq_len(control$power_iters)) {
    v <- qr.Q(qr(cross(q)))
    q <- mpi_cholqr(multiply_cpp(xl, v, n_threads) - rep(drop(mu %*% v), each = n_local))
  }
  s <- svd(cross(q), nu = l, nv = 0)
  sv <- list(d = s$d[seq_len(k_svd)], v = s$u[, seq_len(k_svd), drop = FALSE])
  if (method == "rsvd") return(rotation_reducer(xl, "rsvd", dims, sv, seed))
  leverage_reducer(xl, sv, k_svd, dims, seed, control)
}
