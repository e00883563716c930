# Child R processes for tests that may crash, hang or need a signal.

# Starts `code` (a character vector of R lines, run after library(kmreduce))
# in a child Rscript, in the background, with this process's library paths.
# `prefix` is put before the Rscript command in a POSIX shell (for example
# "ulimit -v 2000000;"; the test is skipped on Windows). Returns the paths
# the child uses: `pid` (its process id, written first), `ready` (the child
# writes its pid there when `code` has run its set-up) and `out` (an RDS file
# with the value of `result`).
# loop = TRUE: `expr` runs again and again until an interrupt stops it (see
# interrupt_child()); `misses` is then the file where the child counts the
# interrupts that R answered outside compiled code.
start_child <- function(setup, expr, prefix = "", loop = FALSE) {
  if (nzchar(prefix) && .Platform$OS.type == "windows")
    testthat::skip(paste("needs a POSIX shell:", prefix))
  dir <- tempfile("kmreduce-child")
  dir.create(dir)
  pid <- file.path(dir, "pid")
  ready <- file.path(dir, "ready")
  out <- file.path(dir, "out")
  misses <- file.path(dir, "misses")
  script <- file.path(dir, "child.R")
  libs <- .libPaths()
  run <- if (!loop) {
    c("res <- tryCatch({",
      "  value <- local({", expr, "  })",
      "  list(status = 'finished', value = value, at = Sys.time())",
      "}, interrupt = function(e) list(status = 'interrupted', at = Sys.time()),",
      "   error = function(e) list(status = paste('error:', conditionMessage(e)), at = Sys.time()))")
  } else {
    # One calling handler sees every interrupt, in the call R raised it in.
    # Raised inside a `*_cpp` call whose arguments are all evaluated, it came
    # from within .Call(): compiled code checked for it and answered (Rcpp
    # raises it there), and the runs stop. Raised anywhere else, it is a
    # miss: R took it in R code (the signal came during R code, or during a
    # step without checks and R took it after the step returned; R also
    # checks on entering a `*_cpp` function, before its arguments are
    # evaluated). A miss is counted in `misses` (then the parent signals
    # again) and the run resumes where it was, as if no signal had come;
    # after 50 misses the runs stop too.
    c("name_of <- function(cl) {",
      "  f <- cl[[1L]]",
      "  if (is.name(f) || is.character(f)) as.character(f) else paste(deparse(f, nlines = 1L), collapse = '')",
      "}",
      "runs <- 0L; missed <- character(0); where <- character(0); at <- NULL",
      "res <- tryCatch(withCallingHandlers({",
      "  repeat {",
      "    local({", expr, "    })",
      "    runs <- runs + 1L",
      "  }",
      "}, interrupt = function(e) {",
      "  n <- sys.nframe() - 1L",
      "  calls <- vapply(sys.calls()[seq_len(n)], name_of, '')",
      "  inside <- n >= 1L && grepl('_cpp$', calls[n]) && !any(rlang::env_binding_are_lazy(sys.frame(n)))",
      "  if (!inside) {",
      "    shown <- calls[-seq_len(max(0L, which(calls == 'withCallingHandlers')))]  # (below the runs)",
      "    missed <<- c(missed, paste(c('runs', shown), collapse = ' > '))",
      "    if (length(missed) < 50L) {",
      sprintf("      writeLines(as.character(length(missed)), %s)", deparse(paste0(misses, ".part"))),
      sprintf("      file.rename(%s, %s)", deparse(paste0(misses, ".part")), deparse(misses)),
      "      invokeRestart('resume')",
      "    }",
      "  }",
      "  at <<- Sys.time()",
      "  where <<- if (inside) calls[n] else character(0)",
      "}), interrupt = function(e) list(status = 'interrupted', at = at, compiled = where,",
      "                                 runs = runs, missed = missed),",
      "   error = function(e) list(status = paste('error:', conditionMessage(e)), at = Sys.time()))")
  }
  writeLines(c(
    sprintf(".libPaths(%s)", paste(deparse(libs), collapse = "")),
    sprintf("Sys.setenv(R_LIBS = %s)", deparse(paste(libs, collapse = .Platform$path.sep))),
    sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(pid)),
    "suppressPackageStartupMessages(library(kmreduce))",
    setup,
    sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(ready)),
    run,
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
  list(dir = dir, pid = pid, ready = ready, out = out, misses = misses)
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
child_result <- function(ch, wait = 600) {
  ok <- wait_file(ch$out, wait)
  log <- if (file.exists(file.path(ch$dir, "log"))) readLines(file.path(ch$dir, "log")) else ""
  if (!ok) {
    if (file.exists(ch$pid)) {
      pid <- as.integer(readLines(ch$pid))
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

# Runs `expr` in a child and returns child_result(). `wait` only bounds a
# hang: a child still running after it is killed and the test fails, so it is
# far above what any of these calls takes even on a busy machine (a forked-
# children test once took 260 s there).
run_child <- function(setup, expr, wait = 600, prefix = "") {
  ch <- start_child(setup, expr, prefix)
  on.exit(unlink(ch$dir, recursive = TRUE), add = TRUE)
  child_result(ch, wait)
}

# Runs `setup`, then `expr` again and again until interrupted, and sends
# SIGINT `after` seconds into the first run. So the call is running when the
# signal comes whatever the speed of the machine (a single run may end within
# `after` on a fast one). The test is where the interrupt is raised: inside
# compiled code (a `*_cpp` call) when a step answers Ctrl-C itself; by R
# after the step returned when it does not check. A signal that came during R
# code or a short step without checks is a miss, not a failure: the child
# counts it and resumes, and another SIGINT follows at another point of the
# run (up to 50 in all). Returns the child's status ("interrupted", with
# `compiled` the `*_cpp` call it was raised in, none after 50 misses;
# "no answer": killed after `wait` s without an answer to a signal, a hang),
# `missed` (where R raised the missed ones), `misses`, `runs` (completed
# before) and `latency`, the seconds from the last signal to the R interrupt
# condition (measured, not tested: a busy machine may delay any process).
interrupt_child <- function(setup, expr, after = 1, wait = 300) {
  if (.Platform$OS.type == "windows") testthat::skip("sends SIGINT (not on Windows)")
  ch <- start_child(setup, expr, loop = TRUE)
  on.exit(unlink(ch$dir, recursive = TRUE), add = TRUE)
  if (!wait_file(ch$ready, wait)) {
    return(child_result(ch, 0))  # set-up did not end: killed, "no answer"
  }
  Sys.sleep(0.05)
  pid <- as.integer(readLines(ch$ready))
  misses <- function() {
    n <- if (file.exists(ch$misses)) suppressWarnings(as.integer(readLines(ch$misses))) else 0L
    if (length(n) == 1L && !is.na(n)) n else 0L
  }
  # (the retries land at other points of the runs)
  delays <- after * c(1, 0.37, 0.71, 0.13, 0.53, 0.89, 0.29)
  sent <- NULL
  for (i in seq_len(50L)) {
    Sys.sleep(delays[(i - 1L) %% length(delays) + 1L])
    sent <- Sys.time()
    tools::pskill(pid, tools::SIGINT)
    # the answer, or a miss counted (the child resumed: signal again)
    t0 <- Sys.time()
    while (!file.exists(ch$out) && misses() < i &&
           difftime(Sys.time(), t0, units = "secs") < wait) {
      Sys.sleep(0.02)
    }
    if (file.exists(ch$out) || misses() < i) break
  }
  res <- child_result(ch, 1)
  res$misses <- length(res$missed)
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
