# The README's comparison ("How it compares"): the calls a user writes,
# side by side in one run, on
#   * Fashion-MNIST, all 70000 images (Debian dataset-fashion-mnist) / 255
#   * a Gaussian mixture, 20000 x 2000, 10 centres, noise sd 3
# with k = 10:
#   * kmreduce: the default call kmeans_reduced(x, 10, seed = 1) (method
#     "auto", which is "sign" to 100 dimensions on both, 10 starts), and the
#     same with method = "none" and method = "sparse_embedding";
#   * stats::kmeans(x, 10) as a user calls it (Hartigan-Wong, 1 start,
#     iter.max = 10), after set.seed(1);
#   * scikit-learn KMeans(n_clusters=10, n_init=10, random_state=1), with
#     every other parameter its default, on x and after
#     SparseRandomProjection(n_components=100, random_state=1)
#     (../peers/sklearn_compare.py);
#   * the top 10 singular vectors: kmreduce's randomized_svd(x, 10, seed = 1)
#     against rsvd::rsvd(x, k = 10), irlba::irlba(x, nv = 10) and
#     scikit-learn's randomized_svd(x, 10, random_state=1).
# Seconds are the best of `reps` runs (elapsed); the objective is
# tot.withinss on the original data. Each call is printed as it was run
# (the R calls are deparsed from the expressions evaluated).
#
# Run from the repository root after `make install` and
# `bash bench/peers/install-peers.sh`:
#   OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 R_LIBS=.Rlib Rscript bench/speed/speed.R 2 3 [write]
# (threads, reps; `quick` instead of `write` checks the script on 3000 rows
# of each set in seconds). It prints a markdown block; with `write` it also replaces
# the block between the markers "<!-- speed.R begin -->" and
# "<!-- speed.R end -->" of bench/RESULTS.md, which `make readme` copies
# into the README (README.Rmd reads it): RESULTS.md and the README then
# quote this run and nothing else. The thread counts of OpenBLAS and OpenMP
# are read when the libraries load, hence the environment variables.
source("bench/common.R")
args <- commandArgs(TRUE)
threads <- if (length(args) >= 1L) as.integer(args[1]) else 2L
reps <- if (length(args) >= 2L) as.integer(args[2]) else 3L
write <- "write" %in% args
quick <- "quick" %in% args  # (a check of the script: 3000 rows of each set, not for RESULTS)
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)  # for Python
options(kmreduce.threads = threads)  # what the default call's n_threads = NULL uses
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
results_file <- "bench/RESULTS.md"
begin_marker <- "<!-- speed.R begin -->"
end_marker <- "<!-- speed.R end -->"

mixture <- function() {
  n <- 20000L; d <- 2000L; k <- 10L
  set.seed(1)
  centres <- matrix(rnorm(k * d), k, d)
  truth <- sample(k, n, TRUE)
  list(name = "mixture, 20000 x 2000",
       x = centres[truth, ] + matrix(rnorm(n * d, sd = 3), n, d))
}
fashion <- function() {
  f <- load_fashion_full()
  list(name = "Fashion-MNIST, 70000 x 784", x = f$x)
}

# The R calls of the table, evaluated with `x` bound to each data set.
kmreduce_calls <- list(
  default = quote(kmeans_reduced(x, 10, seed = 1)),
  none = quote(kmeans_reduced(x, 10, method = "none", seed = 1)),
  sparse = quote(kmeans_reduced(x, 10, method = "sparse_embedding", seed = 1)))
stats_call <- quote(kmeans(x, 10))
svd_calls <- list(
  kmreduce = quote(randomized_svd(x, 10, seed = 1)),
  rsvd = quote(rsvd::rsvd(x, k = 10)),
  irlba = quote(irlba::irlba(x, nv = 10)))
show <- function(e) paste(deparse(e, width.cutoff = 500L), collapse = " ")

run_dataset <- function(ds) {
  x <- ds$x
  env <- new.env()
  env$x <- x
  out <- list()
  for (nm in names(kmreduce_calls)) {
    r <- best_of(function() eval(kmreduce_calls[[nm]], env), reps)
    out[[nm]] <- list(t = r$t, value = r$out$tot.withinss, method = r$out$method, dims = r$out$dims)
  }
  warn <- character()
  r <- best_of(function() {
    set.seed(1)
    withCallingHandlers(eval(stats_call, env), warning = function(w) {
      warn <<- unique(c(warn, conditionMessage(w)))
      invokeRestart("muffleWarning")
    })
  }, reps)
  out$stats <- list(t = r$t, value = r$out$tot.withinss, warn = warn, iter = r$out$iter)
  for (nm in names(svd_calls)) {
    r <- best_of(function() eval(svd_calls[[nm]], env), reps)
    out[[paste0("svd_", nm)]] <- list(t = r$t, value = r$out$d[1])
  }
  f <- tempfile(fileext = ".bin")
  writeBin(as.vector(x), f)
  py <- system2(python, c("bench/peers/sklearn_compare.py", f, nrow(x), ncol(x), 10L, reps),
                stdout = TRUE)
  unlink(f)
  for (line in py) {
    if (startsWith(line, "#")) {
      out$sklearn_info <- sub("^#\\s*", "", line)
      next
    }
    p <- strsplit(line, " ")[[1]]
    out[[paste0("sklearn_", p[1])]] <- list(t = as.numeric(p[2]), value = as.numeric(p[3]))
  }
  out
}

fmt_s <- function(t) if (t < 10) sprintf("%.2f s", t) else sprintf("%.1f s", t)
fmt_obj <- function(v) sub("e\\+?0*", "e", sprintf("%.4e", v))
fmt_ratio <- function(r) if (r < 10) sprintf("%.2fx", r) else sprintf("%.1fx", r)
fmt_pct <- function(a, b) {
  v <- round(100 * (a / b - 1), 1)
  if (v == 0) "the same to 0.1 %" else sprintf("%+.1f %%", v)
}

read_load <- function() tryCatch(paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = ", "),
                                 error = function(e) "unknown")
load_start <- read_load()
sets <- list(fashion(), mixture())
if (quick) sets <- lapply(sets, function(s) { s$x <- s$x[1:3000, ]; s })
res <- lapply(sets, run_dataset)
names(res) <- vapply(sets, `[[`, "", "name")
sk <- res[[1]]$sklearn_info
if (is.null(sk)) sk <- "scikit-learn (version unknown)"
sk_version <- sub("^scikit-learn ([0-9.]+).*", "\\1", sk)

cell <- function(nm) vapply(res, function(r) sprintf("%s, %s", fmt_s(r[[nm]]$t), fmt_obj(r[[nm]]$value)), "")
resolved <- function(nm) {
  m <- unique(vapply(res, function(r) sprintf("`\"%s\"`, %d dims", r[[nm]]$method, r[[nm]]$dims), ""))
  paste(m, collapse = " / ")
}
row <- function(label, cells) sprintf("| %s | %s |", label, paste(cells, collapse = " | "))
stats_note <- unique(unlist(lapply(res, function(r) r$stats$warn)))

# (the commit, and whether the package's sources differ from it; the
# installed build in .Rlib must be of these sources)
git <- function(...) tryCatch(system2("git", c(...), stdout = TRUE, stderr = FALSE),
                              error = function(e) character(), warning = function(w) character())
commit <- git("rev-parse", "--short=7", "HEAD")
if (!length(commit)) commit <- "unknown"
if (length(git("status", "--porcelain", "--", "R", "src", "inst", "DESCRIPTION"))) {
  commit <- paste(commit, "with uncommitted changes to the package")
}
block <- c(
  sprintf(paste0("%s, commit %s, `OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d R_LIBS=.Rlib ",
                 "Rscript bench/speed/speed.R %d %d`: %s; %d threads (`n_threads` of kmreduce, ",
                 "OpenMP and OpenBLAS threads of the others); %s; load average (1, 5, 15 min) %s at the start, %s at the end. ",
                 "Seconds are the best of %d runs, all in one run of the script; the objective ",
                 "is `tot.withinss` on the original data, `k = 10`."),
          format(Sys.Date()), commit[1], threads, threads, threads, reps, machine_info(), threads,
          sk, load_start, read_load(), reps),
  "",
  row("call", names(res)),
  row(rep("---", 1L), rep("---", length(res))),
  row(sprintf("`%s`, the default (method `\"auto\"`: %s, 10 starts)",
              show(kmreduce_calls$default), resolved("default")), cell("default")),
  row(sprintf("`%s` (k-means on every column, 10 starts)", show(kmreduce_calls$none)), cell("none")),
  row(sprintf("`%s` (%s, 10 starts)", show(kmreduce_calls$sparse), resolved("sparse")), cell("sparse")),
  row(sprintf("scikit-learn %s `KMeans(n_clusters=10, n_init=10, random_state=1)` (k-means++, `max_iter=300`, `tol=1e-4`, lloyd)",
              sk_version), cell("sklearn_kmeans")),
  row("scikit-learn `SparseRandomProjection(n_components=100, random_state=1)`, then that `KMeans`",
      cell("sklearn_srp100_kmeans")),
  row(sprintf("`set.seed(1); %s` (stats: Hartigan-Wong, 1 start, `iter.max = 10`)%s", show(stats_call),
              if (length(stats_note)) "*" else ""), cell("stats")),
  if (length(stats_note)) c("", sprintf("\\* `kmeans()` warned: %s",
                                        paste(sprintf("\"%s\"", stats_note), collapse = "; "))),
  "",
  row("top 10 singular vectors", names(res)),
  row("---", rep("---", length(res))),
  row(sprintf("`%s`", show(svd_calls$kmreduce)),
      vapply(res, function(r) fmt_s(r$svd_kmreduce$t), "")),
  row(sprintf("`%s`", show(svd_calls$rsvd)), vapply(res, function(r) fmt_s(r$svd_rsvd$t), "")),
  row(sprintf("`%s`", show(svd_calls$irlba)), vapply(res, function(r) fmt_s(r$svd_irlba$t), "")),
  row("scikit-learn `randomized_svd(x, 10, random_state=1)`",
      vapply(res, function(r) fmt_s(r$sklearn_randomized_svd$t), "")),
  "")
# Ratios, from the times above (before rounding): time of the other call /
# time of kmreduce's, so above 1 means kmreduce is faster.
ratio <- function(other, mine) {
  paste(vapply(names(res), function(n) {
    r <- res[[n]]
    sprintf("%s on %s (objective %s)", fmt_ratio(r[[other]]$t / r[[mine]]$t), sub(",.*", "", n),
            fmt_pct(r[[mine]]$value, r[[other]]$value))
  }, ""), collapse = ", ")
}
svd_ratio <- paste(vapply(names(res), function(n) {
  r <- res[[n]]
  fastest <- min(r$svd_rsvd$t, r$svd_irlba$t, r$sklearn_randomized_svd$t)
  sprintf("%s on %s", fmt_ratio(fastest / r$svd_kmreduce$t), sub(",.*", "", n))
}, ""), collapse = ", ")
block <- c(block,
  "Time ratios (the other call's seconds over kmreduce's: above 1, kmreduce is faster) and kmreduce's objective against the other's:",
  "",
  sprintf("- The default call against scikit-learn's `KMeans`: %s.", ratio("sklearn_kmeans", "default")),
  sprintf("- `method = \"none\"` against scikit-learn's `KMeans`: %s.", ratio("sklearn_kmeans", "none")),
  sprintf("- `method = \"sparse_embedding\"` against `SparseRandomProjection` + `KMeans`: %s.",
          ratio("sklearn_srp100_kmeans", "sparse")),
  sprintf("- The default call against `kmeans(x, 10)`: %s.", ratio("stats", "default")),
  sprintf("- `randomized_svd()` against the fastest of rsvd, irlba and scikit-learn: %s (above 1: faster).",
          svd_ratio))

cat(begin_marker, block, end_marker, sep = "\n")
if (write && !quick) {
  lines <- readLines(results_file, encoding = "UTF-8")
  b <- which(lines == begin_marker)
  e <- which(lines == end_marker)
  if (length(b) != 1L || length(e) != 1L || e < b) {
    stop(results_file, " must hold one block between \"", begin_marker, "\" and \"", end_marker, "\"")
  }
  lines <- c(lines[seq_len(b)], block, lines[e:length(lines)])
  writeLines(lines, results_file, useBytes = TRUE)
  message("speed.R: the block of ", results_file, " replaced; run `make readme` to update the README.")
}
