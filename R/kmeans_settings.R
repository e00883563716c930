# The k-means settings as run: every "auto" (and NULL) of `control` for
# k-means resolved for one fit, in one place (kmeans_settings()): the
# polish, the polished starts, the seeding (seeding_name()), the rows of the
# sketch (sketch_rows_for()) and the local search steps. The options
# themselves, their defaults and checks are control_options()'s.

# The k-means settings other than k, n_init, iter_max, tol, seed and threads:
# the seeding of the replicates and what follows them (`control` checked, so
# with every default), as C++ options: local search steps after the seeding
# of replicates 2, 4, ... (control$local_search, or enough steps of
# 2 + floor(log(k)) candidates each to draw about k candidates in all;
# local_search.hpp), the seeding by its name ("k-means++" or "k-means||",
# seeding_name(); seeding.hpp) with k-means||'s oversampling and rounds, and
# the polish: "none", "hartigan" or "split_merge" ("auto" is split/merge after
# several replicates and none after one: n_init = 1 is the fast single run).
# `algorithm` (control$algorithm, stats::kmeans()'s names, see
# algorithm_control()): MacQueen's online updates instead of Lloyd
# ("macqueen"); from given centres, "Hartigan-Wong" is Hartigan's moves after
# Lloyd (`centres_polish`, read by lloyd_cpp_options(), not sent to C++);
# mini-batch k-means instead of both ("minibatch", with control$batch_size,
# control$reassignment_ratio and, from given centres, `seed`).
kmeans_settings <- function(control, k, n_init, method = "none", n = Inf, seed = 0) {
  steps <- if (!is.null(control$local_search)) control$local_search else
    ceiling(k / (2 + floor(log(k))))
  polish <- if (identical(control$polish, "auto")) {
    if (n_init > 1L) "split_merge" else "none"
  } else {
    control$polish
  }
  out <- list(local_search = as.integer(steps),
              # (mini-batch k-means seeds on a sample of max(3 batch_size,
              # 3 k) rows: "auto" decides by its size)
              seeding = seeding_name(control, k, if (identical(control$algorithm, "minibatch"))
                min(n, max(3 * control$batch_size, 3 * k)) else n),
              oversampling = as.double(control$oversampling),
              rounds = as.integer(control$rounds),
              polish = polish,
              tries = as.integer(control$tries),
              split_rounds = as.integer(control$split_rounds),
              # "auto": on the data themselves, until the lowest polished result is
              # confirmed ("auto" in C++, kPolishStartsAuto), or every replicate for
              # data so small that a polish costs next to nothing (n k <= 10^4: a
              # few optima, each a discrete jump, where two starts can agree on a
              # poor one); on reduced rows, which are for speed, two starts
              polish_starts = if (!identical(control$polish_starts, "auto")) {
                as.integer(control$polish_starts)
              } else if (method != "none") 2L else if (n * k <= 1e4) as.integer(n_init) else "auto",
              # (C++: < 0 for no bound)
              polish_work = if (is.finite(control$polish_work)) control$polish_work else -1,
              precision = if (identical(control$precision, "single")) "single" else "double",
              sketch_rows = sketch_rows_for(control, k, n, n_init),
              algorithm = if (identical(control$algorithm, "MacQueen")) "macqueen" else
                if (identical(control$algorithm, "minibatch")) "minibatch" else "lloyd",
              centres_polish = if (identical(control$algorithm, "Hartigan-Wong")) "hartigan" else "none")
  # (mini-batch k-means: its batches, and the seed of its random streams
  # from given centres)
  if (identical(control$algorithm, "minibatch")) out <- c(out, minibatch_options(control, seed))
  out
}

# control$seeding as run: "auto" is k-means|| from n k = 10^6 (rows times
# clusters) up, where its few passes over the rows cost less than greedy
# k-means++'s two per centre at the same objective (bench/speed/seeding.R), and
# greedy k-means++ below.
seeding_name <- function(control, k, n) {
  if (!identical(control$seeding, "auto")) return(control$seeding)
  if (as.numeric(n) * k >= 1e6) "k-means||" else "k-means++"
}

# The rows of each sketch the replicates run on (control$sketch_rows; 0:
# all rows, as C++ reads it). "auto": m = max(2000, 100 k), about 100 rows
# per cluster, when the rows are at least 10 m (the three sketches then
# hold under a third of them) and there are several replicates (a single
# one costs less on all rows than three sketches and their lifts). Chosen
# from bench/speed/sketch_size.R and bench/quality/sketch_quality.R; their
# figures are in bench/RESULTS.md (under each script), the design's in
# bench/HISTORY.md ("Replicates on a sketch").
sketch_rows_for <- function(control, k, n, n_init = 2L) {
  m <- control$sketch_rows
  if (identical(m, "auto")) {
    m <- max(2000, 100 * k)
    if (n < 10 * m || n_init < 2L) m <- 0
  }
  if (!is.finite(m) || m >= n) 0 else as.double(m)
}
