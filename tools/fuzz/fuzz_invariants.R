# Invariant fuzzer of the fits: random data (continuous, on a grid of
# 2^-10, or with many equal values), random settings (dense, sparse or
# big.matrix rows; every method; 1 or 2 threads; double or single
# precision; k-means++ or k-means||; 1 or 3 replicates; refine; Lloyd cut
# short by iter_max = 2 or tol = 0), and for every fit the properties a
# k-means fit must have whatever the settings:
#
#   predict      predict(fit, x) == fit$cluster (the rows as given, dense,
#                sparse), and the labels are nearest to the centres
#                predict() uses, recomputed in R (sum((x - c)^2), ties
#                within rounding allowed)
#   means        fit$centers are the means of their rows; no empty cluster
#   stats        tot.withinss and totss equal the R computation on dense x
#   threads      1 and 2 threads give identical fits
#   scale        x * s (s a power of two, 1e+-10, 1e+-100, 3) gives the same
#                partition, objective * s^2 (when x * s is in the accepted
#                range)
#   offset       x + o (o = 1e4, 1e8, 1e12; grid data, so x + o is exact)
#                gives the same partition, or one of the same objective (a
#                tie between distances broken the other way); reductions at
#                1e12, where the products keep about 4 digits of unit-scale
#                data, may reach another optimum within 1e-3 (counted apart)
#
# Each batch of cases runs in a child Rscript (a crash is pinned to its
# case). Prints the sweep size, the violations by invariant and the first
# cases of each.
# Run: R_LIBS=.Rlib Rscript tools/fuzz/fuzz_invariants.R [cases] [seed] [dir]
# (dir: where the data and settings of cases with a violation are saved,
# readRDS() them to replay; default fuzz-invariants-cases)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "batches.R"))  # run_batches(), violations()
args <- commandArgs(TRUE)
n_cases <- if (length(args) >= 1L) as.integer(args[1]) else 500L
seed <- if (length(args) >= 2L) as.integer(args[2]) else 1L
batch <- 50L

child <- '
suppressPackageStartupMessages({library(kmreduce); library(Matrix)})
has_big <- requireNamespace("bigmemory", quietly = TRUE)
a <- commandArgs(TRUE)
from <- as.integer(a[1]); to <- as.integer(a[2]); seed <- as.integer(a[3])
progress <- a[4]; out <- a[5]; keep <- a[6]
methods_all <- c("none", names(kmreduce:::method_registry()))
methods_all <- unique(setdiff(methods_all, "auto"))
big_methods <- if (has_big) kmreduce:::registered_methods(source = c("source_big", "row_source")) else character(0)

gen_data <- function() {
  n <- sample(c(12, 40, 120, 300), 1L)
  d <- sample(c(1, 2, 5, 12, 40), 1L)
  K <- sample(1:6, 1L)
  sep <- sample(c(1, 3, 10), 1L)
  centres <- matrix(rnorm(K * d, sd = sep), K, d)
  x <- centres[sample(K, n, TRUE), , drop = FALSE] + matrix(rnorm(n * d), n, d)
  kind <- sample(c("continuous", "grid", "ties"), 1L, prob = c(0.55, 0.3, 0.15))
  x <- switch(kind, continuous = x, grid = round(x * 1024) / 1024, ties = round(x))
  list(x = x, kind = kind, sep = sep)
}

# What a fit of rows `x` (dense, as given to the fit) must satisfy.
check_fit <- function(f, xd, given) {
  bad <- character(0)
  add <- function(what, detail) bad[[what]] <<- detail
  n <- nrow(xd); d <- ncol(xd)
  top <- max(abs(xd))
  p <- tryCatch(predict(f, given), error = function(e) paste("error:", conditionMessage(e)))
  if (!identical(unname(p), unname(f$cluster))) add("predict", "predict(fit, x) != cluster")
  if (!is.matrix(given)) {
    p2 <- tryCatch(predict(f, xd), error = function(e) NULL)
    if (!identical(unname(p2), unname(f$cluster))) add("predict", "predict(fit, dense x) != cluster")
  }
  # nearest to the assignment centres, recomputed
  if (!is.null(f$assignment_centers)) {
    S <- xd; C <- f$assignment_centers
  } else if (f$method == "none") {
    S <- xd; C <- f$reduced_centers
  } else {
    S <- f$reduced; C <- f$reduced_centers
  }
  if (!is.null(S)) {
    s <- colMeans(S)
    Sc <- sweep(S, 2L, s); Cc <- sweep(C, 2L, s)
    D <- vapply(seq_len(nrow(Cc)), function(q) rowSums(sweep(Sc, 2L, Cc[q, ])^2), numeric(n))
    D <- matrix(D, n)
    own <- D[cbind(seq_len(n), f$cluster)]
    tol <- 1e-12 * ncol(S) * (rowSums(Sc^2) + max(rowSums(Cc^2))) + 1e-300
    if (any(own > apply(D, 1L, min) + tol)) {
      add("predict", sprintf("%d labels not nearest to the assignment centres", sum(own > apply(D, 1L, min) + tol)))
    }
  }
  used <- sort(unique(f$cluster))
  if (length(used) < length(f$size) || any(f$size == 0)) add("means", "an empty cluster")
  means <- rowsum(xd, f$cluster) / as.vector(table(f$cluster))
  err <- max(abs(f$centers[used, , drop = FALSE] - means))
  if (err > 1e-13 * n * top + 1e-300) add("means", sprintf("centres off the means by %.3g (data up to %.3g)", err, top))
  obj <- sum(vapply(used, function(q) {
    xq <- xd[f$cluster == q, , drop = FALSE]
    sum(sweep(xq, 2L, colMeans(xq))^2)
  }, 1))
  tot <- sum(sweep(xd, 2L, colMeans(xd))^2)
  floor <- 10 * n * d * (1e-15 * top)^2 * n
  if (abs(f$tot.withinss - obj) > 1e-8 * obj + floor) add("stats", sprintf("tot.withinss %.10g vs %.10g", f$tot.withinss, obj))
  if (abs(f$totss - tot) > 1e-8 * tot + floor) add("stats", sprintf("totss %.10g vs %.10g", f$totss, tot))
  bad
}

res <- list()
for (case in from:to) {
  set.seed(seed * 100003 + case)
  dat <- gen_data()
  x <- dat$x
  source <- sample(c("dense", "sparse", "big"), 1L, prob = c(0.55, 0.3, 0.15))
  if (source == "big" && !has_big) source <- "dense"
  method <- sample(if (source == "big") big_methods else methods_all, 1L)
  distinct <- nrow(unique(x))
  k <- sample(seq_len(min(8L, distinct)), 1L)
  dims_max <- switch(kmreduce:::method_info(method)$family %||% "none",
                     extraction = min(dim(x)), selection = min(dim(x)), ncol(x))
  dims <- if (method == "none" || runif(1) < 0.5) NULL else sample(seq_len(max(1L, min(dims_max, 12L))), 1L)
  cfg <- list(method = method, k = k, dims = dims, n_init = sample(c(1L, 3L), 1L),
              refine = sample(c(0L, 0L, 2L), 1L), iter_max = sample(c(100L, 2L), 1L, prob = c(0.8, 0.2)),
              seed = sample.int(1e6, 1L),
              control = list(tol = sample(c(1e-6, 0), 1L),
                             seeding = sample(c("k-means++", "k-means||"), 1L),
                             precision = sample(c("double", "single"), 1L)))
  if (method == "fjlt") cfg$control$fjlt_density <- sample(c(0.3, 1), 1L)
  what <- sprintf("case %d: %s %s rows %d x %d (sep %g), %s k=%d dims=%s n_init=%d refine=%d iter_max=%d tol=%g %s %s",
                  case, source, dat$kind, nrow(x), ncol(x), dat$sep, method, k, format(dims), cfg$n_init,
                  cfg$refine, cfg$iter_max, cfg$control$tol, cfg$control$seeding, cfg$control$precision)
  writeLines(what, progress)
  # (not Matrix(m, sparse = TRUE) nor as(m, "CsparseMatrix"): they take a
  # square matrix of tiny values for a symmetric one, isSymmetric()
  # comparing them absolutely, and keep half of it)
  as_source <- function(m) switch(source, dense = m,
                                  sparse = methods::as(methods::as(m, "generalMatrix"), "CsparseMatrix"),
                                  big = bigmemory::as.big.matrix(m))
  fit <- function(m, threads = 1L) {
    suppressWarnings(kmeans_reduced(as_source(m), cfg$k, method = cfg$method, dims = cfg$dims,
                                    n_init = cfg$n_init, refine = cfg$refine, iter_max = cfg$iter_max,
                                    seed = cfg$seed, n_threads = threads, control = cfg$control))
  }
  bad <- character(0)
  fits <- 0L
  ties <- 0L
  digits <- 0L
  f <- tryCatch(fit(x), error = function(e) e)
  fits <- fits + 1L
  if (inherits(f, "error")) {
    bad[["error"]] <- conditionMessage(f)
  } else {
    bad <- c(bad, check_fit(f, x, as_source(x)))
    f2 <- fit(x, 2L)
    fits <- fits + 1L
    if (!identical(f2$cluster, f$cluster) || !identical(f2$centers, f$centers) ||
        !identical(f2$tot.withinss, f$tot.withinss)) bad[["threads"]] <- "1 and 2 threads differ"
    # (data with equal values have exact ties, which only a power of two
    # keeps exact; so do runs cut short, and single precision, whose float
    # rounding of x * 3 is 1e-7 off that of x)
    exact <- dat$kind != "continuous" || cfg$iter_max < 100L || cfg$control$precision == "single"
    s <- if (exact) 2^sample(-300:300, 1L) else
      sample(c(2^sample(-300:300, 1L), 1e100, 1e-100, 1e10, 1e-10, 3), 1L)
    top <- max(abs(x)) * s
    if (top > 0 && top <= kmreduce:::max_abs_value(length(x)) && top >= kmreduce:::min_abs_value()) {
      fs <- tryCatch(fit(x * s), error = function(e) e)
      fits <- fits + 1L
      if (inherits(fs, "error")) {
        bad[["scale"]] <- sprintf("x * %g: error %s", s, conditionMessage(fs))
      } else {
        if (adjusted_rand_index(fs$cluster, f$cluster) != 1) {
          bad[["scale"]] <- sprintf("x * %g: another partition", s)
        } else if (abs(fs$tot.withinss / s^2 - f$tot.withinss) > 1e-8 * f$tot.withinss + 1e-300) {
          bad[["scale"]] <- sprintf("x * %g: objective %.10g vs %.10g", s, fs$tot.withinss / s^2, f$tot.withinss)
        }
        extra <- check_fit(fs, x * s, as_source(x * s))
        if (length(extra)) bad[["scale"]] <- paste(sprintf("x * %g:", s), paste(names(extra), extra, collapse = "; "))
      }
    }
    if (dat$kind == "grid" && cfg$iter_max == 100L) {
      o <- sample(c(1e4, 1e8, 1e12), 1L)
      fo <- tryCatch(fit(x + o), error = function(e) e)
      fits <- fits + 1L
      if (inherits(fo, "error")) {
        bad[["offset"]] <- sprintf("x + %g: error %s", o, conditionMessage(fo))
      } else {
        # Ties between distances (grid data) may be broken the other way
        # far from the origin: another partition of the same objective is
        # counted apart, not as a violation.
        # The reductions map x + o with products of values near o and
        # subtract the shift after them (the SVD-based ones also centre
        # that way): at o = 1e12 about 4 digits of unit-scale data are left
        # there, and another local optimum within 1e-3 is counted apart too.
        if (adjusted_rand_index(fo$cluster, f$cluster) != 1) {
          lost <- o >= 1e12 && cfg$method != "none" &&
            abs(fo$tot.withinss - f$tot.withinss) <= 1e-3 * f$tot.withinss
          if (lost) {
            digits <- digits + 1L
          } else if (abs(fo$tot.withinss - f$tot.withinss) > 1e-6 * f$tot.withinss) {
            bad[["offset"]] <- sprintf("x + %g: another partition, objective %.10g vs %.10g", o,
                                       fo$tot.withinss, f$tot.withinss)
          } else {
            ties <- ties + 1L
          }
        }
        extra <- check_fit(fo, x + o, as_source(x + o))
        if (length(extra)) bad[["offset"]] <- paste(sprintf("x + %g:", o), paste(names(extra), extra, collapse = "; "))
      }
    }
  }
  if (length(bad)) saveRDS(list(x = x, source = source, cfg = cfg, bad = bad),
                           file.path(keep, sprintf("case-%d-%d.rds", seed, case)))
  res[[length(res) + 1L]] <- list(case = case, what = what, bad = bad, fits = fits, ties = ties,
                                  digits = digits)
}
saveRDS(res, out)
'
child <- paste0("`%||%` <- function(a, b) if (is.null(a)) b else a\n", child)
script <- tempfile(fileext = ".R")
writeLines(child, script)
# The data and settings of every case with a violation, to replay it.
keep <- normalizePath(if (length(args) >= 3L) args[3] else "fuzz-invariants-cases", mustWork = FALSE)
dir.create(keep, showWarnings = FALSE)
t0 <- proc.time()[["elapsed"]]
run <- run_batches(script, 1L, n_cases, batch, seed, keep)
all <- run$all
crashes <- run$crashes
fits <- sum(vapply(all, `[[`, 0L, "fits"))
v <- violations(all)
bad <- v$bad
details <- v$details
cat(sprintf(paste0("%d cases, %d fits (seed %d, %.0f s): %d cases with a violation, %d crashes ",
                   "(apart: %d offsets broke a tie the other way, same objective; %d reductions ",
                   "at an offset of 1e12 reached another optimum within 1e-3)\n"),
            length(all), fits, seed, proc.time()[["elapsed"]] - t0,
            sum(vapply(all, function(r) length(r$bad) > 0L, TRUE)), length(crashes),
            sum(vapply(all, `[[`, 0L, "ties")), sum(vapply(all, `[[`, 0L, "digits"))))
if (length(bad)) {
  cat(sprintf("(data and settings of these cases: %s)\n", keep))
  print(table(names(bad)))
  cat("\nFirst cases of each:\n")
  for (nm in unique(names(bad))) {
    hit <- details[grepl(paste0("\n      ", nm, ":"), details, fixed = TRUE)]
    cat(paste0("  ", utils::head(hit, 4L), collapse = "\n"), "\n")
  }
}
quit(status = if (length(crashes) || length(bad)) 1L else 0L)
