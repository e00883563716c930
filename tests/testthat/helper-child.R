# Child R processes for tests that may crash, hang or need a signal.

# Starts `code` (a character vector of R lines, run after library(kmreduce))
# in a child Rscript, in the background, with this process's library paths.
# `prefix` is put before the Rscript command in a POSIX shell (for example
# "ulimit -v 2000000;"; the test is skipped on Windows). Returns the paths
# the child uses: `ready` (the child writes its pid there when `code` has
# run its set-up) and `out` (an RDS file with the value of `result`).
start_child <- function(setup, expr, prefix = "") {
  if (nzchar(prefix) && .Platform$OS.type == "windows")
    testthat::skip(paste("needs a POSIX shell:", prefix))
  dir <- tempfile("kmreduce-child")
  dir.create(dir)
  ready <- file.path(dir, "ready")
  out <- file.path(dir, "out")
  script <- file.path(dir, "child.R")
  libs <- .libPaths()
  writeLines(c(
    sprintf(".libPaths(%s)", paste(deparse(libs), collapse = "")),
    sprintf("Sys.setenv(R_LIBS = %s)", deparse(paste(libs, collapse = .Platform$path.sep))),
    "suppressPackageStartupMessages(library(kmreduce))",
    setup,
    sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(ready)),
    "res <- tryCatch({",
    "  value <- local({", expr, "  })",
    "  list(status = 'finished', value = value, at = Sys.time())",
    "}, interrupt = function(e) list(status = 'interrupted', at = Sys.time()),",
    "   error = function(e) list(status = paste('error:', conditionMessage(e)), at = Sys.time()))",
    sprintf("saveRDS(res, %s)", deparse(paste0(out, ".part"))),
    sprintf("file.rename(%s, %s)", deparse(paste0(out, ".part")), deparse(out))
  ), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  log <- file.path(dir, "log")
  if (nzchar(prefix)) {
    system(sprintf("%s %s --vanilla %s >%s 2>&1", prefix, shQuote(rscript), shQuote(script),
                   shQuote(log)), wait = FALSE)
  } else {
    system2(rscript, c("--vanilla", shQuote(script)), stdout = log, stderr = log, wait = FALSE)
  }
  list(dir = dir, ready = ready, out = out)
}

wait_file <- function(path, seconds) {
  t0 <- Sys.time()
  while (!file.exists(path) && difftime(Sys.time(), t0, units = "secs") < seconds) {
    Sys.sleep(0.02)
  }
  file.exists(path)
}

# Waits for the child's result: list(status = "finished" | "interrupted" |
# "error: ..." | "no answer" (killed after `wait` s; it hung or died), value,
# at, log = what it printed).
child_result <- function(ch, wait = 60) {
  ok <- wait_file(ch$out, wait)
  log <- if (file.exists(file.path(ch$dir, "log"))) readLines(file.path(ch$dir, "log")) else ""
  if (!ok) {
    if (file.exists(ch$ready)) {
      pid <- as.integer(readLines(ch$ready))
      # the child's own children (mclapply workers) first, where pkill exists
      if (nzchar(Sys.which("pkill"))) system2("pkill", c("-KILL", "-P", pid), stdout = FALSE, stderr = FALSE)
      tools::pskill(pid, tools::SIGKILL)
    }
    return(list(status = "no answer", log = log))
  }
  res <- readRDS(ch$out)
  res$log <- log
  res
}

# Runs `expr` in a child and returns child_result().
run_child <- function(setup, expr, wait = 60, prefix = "") {
  ch <- start_child(setup, expr, prefix)
  on.exit(unlink(ch$dir, recursive = TRUE), add = TRUE)
  child_result(ch, wait)
}

# Runs `setup`, then `expr`, and sends SIGINT `after` seconds into `expr`.
# Returns the child's status and `latency`, the seconds from the signal to
# the R interrupt condition.
interrupt_child <- function(setup, expr, after = 1, wait = 30) {
  if (.Platform$OS.type == "windows") testthat::skip("sends SIGINT (not on Windows)")
  ch <- start_child(setup, expr)
  on.exit(unlink(ch$dir, recursive = TRUE), add = TRUE)
  if (!wait_file(ch$ready, 120)) return(list(status = "no answer", latency = NA_real_))
  Sys.sleep(0.05)
  pid <- as.integer(readLines(ch$ready))
  Sys.sleep(after)
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  res <- child_result(ch, wait)
  res$latency <- if (is.null(res$at)) NA_real_ else as.numeric(difftime(res$at, sent, units = "secs"))
  res
}

# Long steps for the Ctrl-C test (test-kmreduce_threads.R) and its latency
# benchmark (bench/scale/interrupt.R): name = c(set-up code, the call to interrupt).
interrupt_cases <- function() {
  list(
    gaussian = c("x <- matrix(rnorm(2500 * 10000), 2500)",
                 "reduce_dims(x, 'gaussian', dims = 10000, seed = 1, n_threads = 2)"),
    sign = c("x <- matrix(rnorm(2000 * 16000), 2000)",
             "reduce_dims(x, 'sign', dims = 16000, seed = 1, n_threads = 2)"),
    # (dims = 1000: LAPACK's SVD, on a helper thread; dims = 5 of random
    # data: the products of block Lanczos, then LAPACK's)
    exact_svd = c("x <- matrix(rnorm(2000 * 1200), 2000)",
                  "kmeans_reduced(x, 5, method = 'svd', dims = 1000, seed = 1, n_threads = 1)"),
    exact_svd_lanczos = c("x <- matrix(rnorm(20000 * 2000), 20000)",
                          "kmeans_reduced(x, 5, method = 'svd', seed = 1, n_threads = 1)"),
    lloyd = c("x <- matrix(rnorm(50000 * 100), 50000)",
              "kmeans_reduced(x, 300, method = 'none', n_init = 20, seed = 1, n_threads = 2)"),
    kmeans_parallel = c("x <- matrix(rnorm(100000 * 20), 100000)",
                        paste("kmeans_reduced(x, 2000, method = 'none', n_init = 20, seed = 1,",
                              "n_threads = 2, control = list(seeding = 'k-means||'))")),
    split_merge = c("x <- matrix(rnorm(20000 * 50), 20000)",
                    paste("kmeans_reduced(x, 30, method = 'none', n_init = 2, seed = 1,",
                          "n_threads = 2, control = list(tries = 1000))")),
    cssp = c("x <- matrix(rnorm(3000 * 3000), 3000)",
             "kmeans_reduced(x, 50, method = 'cssp', dims = 500, seed = 1, n_threads = 2)"),
    rsvd = c("x <- matrix(rnorm(5000 * 3000), 5000)",
             "randomized_svd(x, 300, power_iters = 20, seed = 1, n_threads = 2)"),
    bound = c("x <- matrix(rnorm(3000 * 2500), 3000); f <- kmeans_reduced(x, 5, seed = 1)",
              "optimality_bound(f, x, method = 'gram', n_threads = 1)")
  )
}
