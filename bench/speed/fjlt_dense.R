# The FJLT with a dense Gaussian matrix P (control$fjlt_density = 1, dims
# 1500 on 65536 columns, 60 rows), two builds side by side: the time of the
# reduction at 1 and 2 threads (best of `rounds`, builds alternating), and
# how long a Ctrl-C (SIGINT sent 0.5 s into the call) takes to return to R
# (the worst of `rounds`). Each run is a fresh Rscript with one build's
# library first on the path.
# Run: Rscript bench/speed/fjlt_dense.R LIB_A LIB_B [rounds]
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/speed/fjlt_dense.R LIB_A LIB_B [rounds]")
libs <- normalizePath(args[1:2])
rounds <- if (length(args) >= 3L) as.integer(args[3]) else 3L
child <- '
suppressPackageStartupMessages(library(kmreduce))
a <- commandArgs(TRUE)
set.seed(1)
x <- matrix(rnorm(60 * 65536), 60)
run <- function(th) reduce_dims(x, "fjlt", dims = 1500, seed = 1, n_threads = th,
                                control = list(fjlt_density = 1))
if (a[1] == "time") {
  cat(sprintf("t1=%.3f t2=%.3f\n", system.time(run(1L))[["elapsed"]],
              system.time(run(2L))[["elapsed"]]))
} else {
  writeLines(as.character(Sys.getpid()), a[2])
  r <- tryCatch({ run(2L); "finished" }, interrupt = function(e) "interrupted")
  writeLines(c(r, format(as.numeric(Sys.time()), digits = 15)), a[3])
}
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
rscript <- file.path(R.home("bin"), "Rscript")
time_run <- function(lib) {
  out <- system2(rscript, c(script, "time"), stdout = TRUE, env = paste0("R_LIBS=", lib))
  v <- regmatches(out, gregexpr("[0-9.]+", out))[[1]]
  as.numeric(v[c(2, 4)])
}
latency <- function(lib) {
  pid_file <- tempfile()
  done <- tempfile()
  system2(rscript, c(script, "interrupt", pid_file, done), wait = FALSE,
          env = paste0("R_LIBS=", lib))
  while (!file.exists(pid_file)) Sys.sleep(0.01)
  Sys.sleep(0.5)   # (the pid is written once x is drawn)
  sent <- as.numeric(Sys.time())
  tools::pskill(as.integer(readLines(pid_file)), tools::SIGINT)
  while (!file.exists(done) || length(readLines(done)) < 2L) Sys.sleep(0.01)
  r <- readLines(done)
  c(status = r[1], seconds = as.numeric(r[2]) - sent)
}
res <- list()
for (i in seq_len(rounds)) {
  for (j in if (i %% 2L) 1:2 else 2:1) {
    res[[length(res) + 1L]] <- data.frame(build = j, t1 = time_run(libs[j])[1],
                                          t2 = time_run(libs[j])[2],
                                          interrupt = as.numeric(latency(libs[j])[["seconds"]]))
  }
}
res <- do.call(rbind, res)
cat(sprintf("%-40s %10s %10s %22s\n", "build", "1 thread", "2 threads", "SIGINT to R (worst)"))
for (j in 1:2) {
  r <- res[res$build == j, ]
  cat(sprintf("%-40s %9.2fs %9.2fs %21.2fs\n", libs[j], min(r$t1), min(r$t2), max(r$interrupt)))
}
