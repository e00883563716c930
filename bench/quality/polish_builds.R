# Two builds of kmreduce side by side on the quality suite: the default call
# kmeans_reduced(x, k, method = "none", n_init = m, seed = s) for m = 3 and
# 10 and seeds 1-3, on the 12 instances of bench/quality/instances.R. For
# a change of the polish (or of anything the default fit runs): the
# objective of build B against build A per fit, and the time.
# Each instance is written once to a temporary file; each build runs it in
# its own Rscript (library first on the path), the builds alternating.
# Prints one row per instance and n_init: seeds where B is lower / equal /
# higher (relative 1e-10), the largest and smallest objective ratio B / A,
# and the median over seeds of each build's elapsed seconds and their ratio.
# Run: Rscript bench/quality/polish_builds.R LIB_A LIB_B [threads [instances]]
#   (threads default 1; instances: numbers such as "4,9,10", default all)
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/quality/polish_builds.R LIB_A LIB_B [threads [instances]]")
libs <- normalizePath(args[1:2])
threads <- if (length(args) >= 3L) as.integer(args[3]) else 1L
only <- if (length(args) >= 4L) as.integer(strsplit(args[4], ",")[[1]])
n_inits <- c(3L, 10L)
seeds <- 1:3
.libPaths(c(libs[1], .libPaths()))
source("bench/common.R")
source("bench/quality/instances.R")

child <- '
suppressPackageStartupMessages(library(kmreduce))
a <- commandArgs(TRUE)
x <- readRDS(a[1]); k <- as.integer(a[2]); threads <- as.integer(a[3])
for (n_init in as.integer(strsplit(a[4], ",")[[1]])) for (s in as.integer(strsplit(a[5], ",")[[1]])) {
  t <- system.time(f <- kmeans_reduced(x, k, method = "none", n_init = n_init, seed = s,
                                       n_threads = threads))[["elapsed"]]
  cat(n_init, s, t, sprintf("%.17g", f$tot.withinss), "\n")
}
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
run <- function(lib, file, k) {
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("--vanilla", script, file, k, threads, paste(n_inits, collapse = ","),
                   paste(seeds, collapse = ",")),
                 env = c(paste0("R_LIBS=", lib), paste0("OMP_NUM_THREADS=", threads)),
                 stdout = TRUE)
  p <- do.call(rbind, lapply(strsplit(trimws(out), " +"), as.numeric))
  data.frame(n_init = p[, 1], seed = p[, 2], time = p[, 3], obj = p[, 4])
}

cat("#", machine_info(), ";", threads, "thread(s); builds A =", libs[1], ", B =", libs[2], "\n\n")
rows <- list()
ids <- if (is.null(only)) seq_along(instances) else only
for (i in ids) {
  inst <- instance_or_skip(i)
  if (is.null(inst)) next
  file <- tempfile(fileext = ".rds")
  saveRDS(inst$x, file)
  first <- if (i %% 2L) 1:2 else 2:1  # alternate which build goes first
  res <- list(NULL, NULL)
  for (b in first) res[[b]] <- run(libs[b], file, inst$k)
  unlink(file)
  for (m in n_inits) {
    a <- res[[1]][res[[1]]$n_init == m, ]
    b <- res[[2]][res[[2]]$n_init == m, ]
    ratio <- b$obj / a$obj
    rows[[length(rows) + 1L]] <- data.frame(
      instance = inst$name, n_init = m,
      lower = sum(ratio < 1 - 1e-10), equal = sum(abs(ratio - 1) <= 1e-10),
      higher = sum(ratio > 1 + 1e-10),
      min_ratio = sprintf("%.7f", min(ratio)), max_ratio = sprintf("%.7f", max(ratio)),
      t_A = median(a$time), t_B = median(b$time),
      time_ratio = round(median(b$time) / median(a$time), 2))
    message(sprintf("%s, n_init %d: objective B / A %s; time %.2f s / %.2f s", inst$name, m,
                    paste(sprintf("%.7f", ratio), collapse = " "), median(b$time), median(a$time)))
  }
}
print(knitr::kable(do.call(rbind, rows), row.names = FALSE))
