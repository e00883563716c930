# Child R processes for tests that may crash, hang or need a signal.

# Starts `code` (a character vector of R lines, run after library(kmreduce))
# in a child Rscript, in the background. `prefix` is put before the Rscript
# command in the shell (for example "ulimit -v 2000000;"). Returns the paths
# the child uses: `ready` (the child writes its pid there when `code` has
# run its set-up) and `out` (an RDS file with the value of `result`).
start_child <- function(setup, expr, prefix = "") {
  dir <- tempfile("kmreduce-child")
  dir.create(dir)
  ready <- file.path(dir, "ready")
  out <- file.path(dir, "out")
  script <- file.path(dir, "child.R")
  writeLines(c(
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
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  cmd <- sprintf("%s R_LIBS=%s %s --vanilla %s >%s 2>&1", prefix, shQuote(libs),
                 shQuote(rscript), shQuote(script), shQuote(file.path(dir, "log")))
  system(cmd, wait = FALSE)
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
    if (file.exists(ch$ready)) tools::pskill(as.integer(readLines(ch$ready)), tools::SIGKILL)
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
