# Quality of the local optima of k-means: the objective (total within-cluster
# sum of squares) reached by
#   kmreduce_none  kmeans_reduced(x, k, method = "none", n_init = 10, seed = s)
#                  (mixed replicates, then split/merge and Hartigan moves)
#   none_plain     the same without the local search in replicates 2, 4, ...
#                  and without the polish (control = list(local_search = 0,
#                  polish = "none"): greedy k-means++ and Lloyd only)
#   none_nopolish  the default without the polish (control = list(polish =
#                  "none"))
#   stats_kmeans   stats::kmeans(x, k, nstart = 10, iter.max = 100) after
#                  set.seed(s) (Hartigan-Wong; its warnings are muffled and
#                  counted in `stats_warn`)
#   sklearn        scikit-learn KMeans(n_clusters = k, n_init = 10,
#                  algorithm = "lloyd", random_state = s) (greedy k-means++),
#                  `inertia_`, through bench/peers/sklearn_optima.py
#   sign_refine,   kmeans_reduced(x, k, method = m, refine = 20, n_init = 10,
#   rsvd_refine    seed = s), m = "sign", "rsvd" (objective on the original data)
# for seeds 1:3 on 12 instances: 10 synthetic mixtures with a planted
# partition, Fashion-MNIST (3000 x 784) and USPS digits (8800 x 256).
#
# Each entry is the median over the seeds of objective / reference, where the
# reference is the objective of the planted partition (kmeans_objective(x,
# truth); a ratio below 1 means the solver found a better partition than the
# planted one) or, for the real data sets, the best objective of any run of
# any solver on that instance. `none_ok` is TRUE when kmreduce_none is no
# worse than the better of stats_kmeans and sklearn (relative tolerance 1e-6).
# The t_* columns are median elapsed seconds.
#
# Run from the package root (about 10 minutes on one core):
#   R_LIBS=.Rlib Rscript bench/quality/quality_optima.R [threads [instances]]
#   (instances: their numbers, e.g. "9,10"; default all)
#   R_LIBS=.Rlib taskset -c 0 Rscript bench/quality/quality_optima.R   # pinned
# `threads` (default 1) is used by kmreduce and by scikit-learn (OpenMP and
# BLAS); stats::kmeans is single-threaded. Needs knitr, RnavGraphImageData
# (USPS; bench/peers/install-peers.sh) and, for the sklearn column, Debian's
# python3-sklearn; a missing peer is skipped with a message.
# Prints markdown to stdout (progress goes to stderr) and writes the same to
# bench/quality/quality_optima.md.
source("bench/common.R")

threads <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 1L
only <- if (length(commandArgs(TRUE)) > 1L) {
  as.integer(strsplit(commandArgs(TRUE)[2], ",")[[1]])
}
options(kmreduce.threads = threads)
# Read by the OpenMP and BLAS libraries of the Python child processes.
Sys.setenv(OMP_NUM_THREADS = threads, OPENBLAS_NUM_THREADS = threads)

seeds <- 1:3
n_init <- 10L
refine <- 20L
out_file <- "bench/quality/quality_optima.md"

# ---------------------------------------------------------------------------
# Helpers

# Runs one solver; returns list(obj, time, warn). A failure gives NA (and a
# message) instead of stopping the whole benchmark.
run_solver <- function(label, f) {
  warn <- character()
  res <- tryCatch({
    t <- system.time(fit <- withCallingHandlers(f(), warning = function(w) {
      warn <<- c(warn, conditionMessage(w))
      invokeRestart("muffleWarning")
    }))[["elapsed"]]
    list(obj = fit$tot.withinss, time = t)
  }, error = function(e) {
    message(sprintf("  %s failed: %s", label, conditionMessage(e)))
    list(obj = NA_real_, time = NA_real_)
  })
  c(res, list(warn = unique(warn)))
}

# scikit-learn through bench/peers/sklearn_optima.py: the matrix goes through a
# temporary binary file (n, d, then the values; float64, column-major).
python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else Sys.which("python3")
has_sklearn <- nzchar(python) &&
  suppressWarnings(system2(python, c("-c", shQuote("import sklearn")),
                           stdout = FALSE, stderr = FALSE)) == 0L
if (!has_sklearn) {
  message("scikit-learn not found (python3 -c 'import sklearn' failed): the sklearn column is skipped.")
}

run_sklearn <- function(x, k) {
  none <- data.frame(seed = seeds, time = NA_real_, obj = NA_real_)
  if (!has_sklearn) return(none)
  f <- tempfile(fileext = ".f64")
  on.exit(unlink(f))
  con <- file(f, "wb")
  writeBin(as.double(dim(x)), con, endian = "little")
  writeBin(as.vector(x), con, endian = "little")
  close(con)
  lines <- suppressWarnings(system2(python, c("bench/peers/sklearn_optima.py", f, k, seeds), stdout = TRUE))
  if (!is.null(attr(lines, "status")) || length(lines) != length(seeds)) {
    message("  sklearn failed: ", paste(lines, collapse = " | "))
    return(none)
  }
  p <- do.call(rbind, lapply(strsplit(lines, " "), as.numeric))
  data.frame(seed = p[, 1], time = p[, 2], obj = p[, 3])
}

source("bench/quality/instances.R")  # instances, with_seed()

# ---------------------------------------------------------------------------
# One instance: every solver for every seed.
run_instance <- function(inst) {
  x <- inst$x
  k <- inst$k
  solvers <- list(
    kmreduce_none = function(s) kmeans_reduced(x, k, method = "none", n_init = n_init, seed = s),
    none_plain = function(s) kmeans_reduced(x, k, method = "none", n_init = n_init, seed = s,
                                            control = list(local_search = 0, polish = "none")),
    none_nopolish = function(s) kmeans_reduced(x, k, method = "none", n_init = n_init, seed = s,
                                               control = list(polish = "none")),
    stats_kmeans = function(s) with_seed(s, stats::kmeans(x, k, nstart = n_init, iter.max = 100L)),
    sign_refine = function(s) kmeans_reduced(x, k, method = "sign", refine = refine,
                                             n_init = n_init, seed = s),
    rsvd_refine = function(s) kmeans_reduced(x, k, method = "rsvd", refine = refine,
                                             n_init = n_init, seed = s)
  )
  obj <- tm <- list()
  warns <- character()
  n_warned <- 0L
  for (nm in names(solvers)) {
    runs <- lapply(seeds, function(s) run_solver(sprintf("%s (seed %d)", nm, s),
                                                 function() solvers[[nm]](s)))
    obj[[nm]] <- vapply(runs, `[[`, 0, "obj")
    tm[[nm]] <- vapply(runs, `[[`, 0, "time")
    w <- lapply(runs, `[[`, "warn")
    if (nm == "stats_kmeans") {
      n_warned <- sum(lengths(w) > 0L)
      warns <- unique(unlist(w))
    } else if (length(unlist(w))) {
      message(sprintf("  %s warned: %s", nm, paste(unique(unlist(w)), collapse = "; ")))
    }
    message(sprintf("  %-13s %s s", nm, paste(format(tm[[nm]], nsmall = 2), collapse = " ")))
  }
  sk <- run_sklearn(x, k)
  obj$sklearn <- sk$obj
  tm$sklearn <- sk$time
  message(sprintf("  %-13s %s s", "sklearn", paste(format(sk$time, nsmall = 2), collapse = " ")))

  planted <- !is.null(inst$truth)
  ref <- if (planted) kmeans_objective(x, inst$truth) else min(unlist(obj), na.rm = TRUE)
  med <- function(v) stats::median(v / ref)
  r <- vapply(obj, med, 0)
  data.frame(
    instance = inst$name, n = nrow(x), d = ncol(x), k = k,
    kmreduce_none = r[["kmreduce_none"]], none_plain = r[["none_plain"]],
    none_nopolish = r[["none_nopolish"]],
    stats_kmeans = r[["stats_kmeans"]],
    sklearn = r[["sklearn"]], sign_refine = r[["sign_refine"]], rsvd_refine = r[["rsvd_refine"]],
    none_ok = r[["kmreduce_none"]] <= min(r[["stats_kmeans"]], r[["sklearn"]], na.rm = TRUE) * (1 + 1e-6),
    reference = if (planted) "planted" else "best seen",
    t_none = stats::median(tm$kmreduce_none), t_plain = stats::median(tm$none_plain),
    t_nopolish = stats::median(tm$none_nopolish),
    t_stats = stats::median(tm$stats_kmeans),
    t_sklearn = stats::median(tm$sklearn),
    stats_warn = n_warned, warnings = paste(warns, collapse = "; "),
    stringsAsFactors = FALSE)
}

# ---------------------------------------------------------------------------
# Main

header <- c(
  "## Quality of k-means local optima",
  "",
  sprintf("Machine: %s; %d thread(s); `n_init = %d`; seeds %s; refine = %d.",
          machine_info(), threads, n_init, paste(seeds, collapse = ", "), refine),
  sprintf("kmreduce %s; scikit-learn %s.", utils::packageVersion("kmreduce"),
          if (has_sklearn) paste(system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")),
                                         stdout = TRUE), collapse = "") else "not available"),
  "")
cat(header, sep = "\n")

t_all <- system.time({
  rows <- list()
  for (gen in instances) {
    inst <- tryCatch(gen(), error = function(e) {
      message("instance skipped: ", conditionMessage(e))
      NULL
    })
    if (is.null(inst)) next
    if (!is.null(only) && !(as.integer(sub(" .*", "", inst$name)) %in% only)) next
    message(sprintf("%s (%d x %d, k = %d)", inst$name, nrow(inst$x), ncol(inst$x), inst$k))
    rows[[length(rows) + 1L]] <- run_instance(inst)
    rm(inst)
    invisible(gc())
  }
  res <- do.call(rbind, rows)
})[["elapsed"]]

ratio_cols <- c("kmreduce_none", "none_plain", "none_nopolish", "stats_kmeans", "sklearn", "sign_refine",
                "rsvd_refine")
time_cols <- c("t_none", "t_plain", "t_nopolish", "t_stats", "t_sklearn")
shown <- res[, c("instance", "n", "d", "k", ratio_cols, "none_ok", "reference", time_cols, "stats_warn")]
for (cl in ratio_cols) shown[[cl]] <- sprintf("%.6f", shown[[cl]])
for (cl in time_cols) shown[[cl]] <- sprintf("%.2f", shown[[cl]])
tab <- knitr::kable(shown, format = "pipe", row.names = FALSE)

warned <- res[res$stats_warn > 0L, ]
notes <- c(
  "",
  "Entries: median over the seeds of objective / reference (reference: the planted",
  "partition's objective, or for real data the best objective of any run on the instance).",
  "`none_ok`: kmreduce_none <= min(stats_kmeans, sklearn) * (1 + 1e-6). t_*: median seconds",
  "(t_plain: none_plain, t_nopolish: none_nopolish).",
  "`stats_warn`: seeds (of 3) where stats::kmeans warned (muffled):",
  if (nrow(warned)) sprintf("- %s: %s", warned$instance, warned$warnings) else "- none",
  "",
  sprintf("Total time: %.0f s.", t_all))
cat(tab, notes, sep = "\n")
writeLines(c(header, tab, notes), out_file)
message("Written ", out_file)
