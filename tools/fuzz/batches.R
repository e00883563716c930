# The parent side of the R fuzzers (fuzz_tenx.R, fuzz_invariants.R): each
# batch of cases runs in a fresh Rscript, so that a crash kills only its
# batch. The child script is called with
#   from to seed progress out extra
# writes "case N ..." to `progress` before each case, and its results to
# `out` (a list with one element per case, each with its `case` number).

# Runs the cases first..last in batches of `batch`; returns list(all = the
# cases' results, crashes = the progress line of each case that killed its
# child). After a crash the results saved before it are kept and the run
# goes on after the crashing case.
run_batches <- function(script, first, last, batch, seed, extra) {
  rscript <- file.path(R.home("bin"), "Rscript")
  all <- list()
  crashes <- character(0)
  next_case <- first
  while (next_case <= last) {
    to <- min(last, next_case + batch - 1L)
    progress <- tempfile()
    out <- tempfile()
    status <- system2(rscript, c("--vanilla", script, next_case, to, seed, progress, out, extra),
                      stdout = FALSE, stderr = FALSE)
    got <- if (file.exists(out)) readRDS(out) else list()
    all <- c(all, got)
    done <- if (length(got)) got[[length(got)]]$case else next_case - 1L
    if (done >= to) {
      next_case <- to + 1L
    } else {
      p <- if (file.exists(progress)) readLines(progress) else sprintf("case %d", done + 1L)
      at <- as.integer(sub("^case ([0-9]+).*", "\\1", p[1]))
      if (is.na(at) || at <= done) at <- done + 1L
      crashes <- c(crashes, p[1])
      cat(sprintf("%s: the child died (exit status %s)\n", p[1], status))
      next_case <- at + 1L
    }
  }
  list(all = all, crashes = crashes)
}

# The violations of the cases' results (each a `bad` vector named by the
# invariant, and `what`, the case): the invariants broken, named, with the
# case of each; and a line per violation with its message.
violations <- function(all) {
  list(bad = unlist(lapply(all, function(r) {
         if (length(r$bad)) stats::setNames(rep(r$what, length(r$bad)), names(r$bad))
       })),
       details = unlist(lapply(all, function(r) {
         if (length(r$bad)) paste0(r$what, "\n      ", names(r$bad), ": ", r$bad)
       })))
}
