# How fast each long step answers Ctrl-C: SIGINT is sent to a child R process
# 1 s into the call, and the latency is the time from the signal to R's
# interrupt condition in the child. Quiet machine, then with one busy process
# beside it. The cases are those of the Ctrl-C test
# (tests/testthat/helper-child.R). Prints markdown; asserts nothing.
# Run: R_LIBS=.Rlib Rscript bench/scale/interrupt.R [repeats]
source("bench/common.R")
source("tests/testthat/helper-child.R")
repeats <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 3L
cat("Machine:", machine_info(), "\n\n")

latencies <- function(cases) {
  vapply(names(cases), function(nm) {
    lat <- vapply(seq_len(repeats), function(i) {
      res <- interrupt_child(c("set.seed(1)", cases[[nm]][1]), cases[[nm]][2], after = 1)
      if (identical(res$status, "interrupted")) res$latency else NA_real_
    }, numeric(1))
    c(best = min(lat), worst = max(lat))
  }, numeric(2))
}

cases <- interrupt_cases()
quiet <- latencies(cases)
pid <- busy_start()
busy <- tryCatch(latencies(cases), finally = busy_stop(pid))
cat(sprintf("| step | quiet best (s) | quiet worst (s) | busy best (s) | busy worst (s) |\n|---|---|---|---|---|\n"))
for (nm in names(cases)) {
  cat(sprintf("| %s | %.2f | %.2f | %.2f | %.2f |\n", nm, quiet["best", nm], quiet["worst", nm],
              busy["best", nm], busy["worst", nm]))
}
cat(sprintf("\n%d repeats each; NA: the call was not interrupted.\n", repeats))
