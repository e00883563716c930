# Checking wide data frames: the column-by-column conversion of
# check_data() against the former `x[] <- lapply(...)` then as.matrix()
# (quadratic in the number of columns), and against a matrix of the same
# values (what the rest of the check costs). Best of `reps` runs each; the
# former way is timed up to 40000 columns only (it takes minutes beyond).
# Run: R_LIBS=.Rlib Rscript bench/speed/checks_wide.R [reps]
source("bench/common.R")
reps <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 3L

former <- function(x, arg = "x") {
  x[] <- lapply(seq_along(x), function(j) kmreduce:::plain_numeric(x[[j]], arg, names(x)[j]))
  kmreduce:::check_data(as.matrix(x), arg)
}
best_of <- function(f) {
  t <- Inf
  for (r in seq_len(reps)) t <- min(t, system.time(f())[["elapsed"]])
  t
}
cat(machine_info(), "\n\n")
cat(sprintf("%8s %12s %12s %12s %8s\n", "columns", "matrix (s)", "now (s)", "former (s)", "ratio"))
for (d in c(1e4, 2e4, 4e4, 1e5)) {
  set.seed(1)
  m <- matrix(rnorm(2 * d), 2)
  df <- as.data.frame(m)
  t_m <- best_of(function() kmreduce:::check_data(m, "x"))
  t_now <- best_of(function() kmreduce:::check_data(df, "x"))
  t_old <- if (d <= 4e4) best_of(function() former(df)) else NA_real_
  cat(sprintf("%8d %12.3f %12.3f %12.3f %8.1f\n", as.integer(d), t_m, t_now, t_old, t_old / t_now))
}
