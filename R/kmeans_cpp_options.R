# The options of the C++ k-means, built here and nowhere else: one named list
# that crosses into C++ and is parsed there once into the core's
# KmeansOptions (kmeans_options() in src/kmeans_glue.h, which names every
# option and its values and refuses unknown names and wrong types). The
# entry points kmeans_cpp() (replicates) and lloyd_cpp() (Lloyd from given
# centres), for every row source, take it. The defaults are those of kmeans_control(), checked by
# check_control() before they get here.

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

# The options of mini-batch k-means (minibatch.hpp) as C++ options.
minibatch_options <- function(control, seed) {
  list(batch_size = as.integer(control$batch_size),
       reassignment_ratio = as.double(control$reassignment_ratio),
       minibatch_seed = as.double(seed))
}

# The options of kmeans_cpp(): n_init replicates, each
# a seeding (as `settings` says, from kmeans_settings(); by default that of
# kmeans_control()) then Lloyd, from the random streams of `seed`; `verbose`
# prints a line per replicate, `limit` > 0 checks the values of dense rows
# while they are packed (see kmeans_cpp()).
kmeans_cpp_options <- function(k, n_init = 1L, iter_max = 100L, tol = 0, seed = 0,
                               n_threads = 1L,
                               settings = kmeans_settings(check_control(NULL), k, n_init),
                               verbose = FALSE, limit = 0) {
  c(list(k = as.integer(k), n_init = as.integer(n_init), iter_max = as.integer(iter_max),
         tol = as.double(tol), seed = as.double(seed), n_threads = as.integer(n_threads),
         verbose = isTRUE(verbose), limit = as.double(limit)),
    settings[setdiff(names(settings), c("centres_polish", "minibatch_seed"))])
}

# The options of lloyd_cpp():
# Lloyd from given centres, or with `settings` (kmeans_settings()) what
# stats::kmeans(algorithm = ) runs from them: MacQueen's updates, or
# Hartigan's moves after Lloyd.
lloyd_cpp_options <- function(iter_max, tol = 0, n_threads = 1L, settings = NULL) {
  out <- list(iter_max = as.integer(iter_max), tol = as.double(tol),
              n_threads = as.integer(n_threads),
              algorithm = if (is.null(settings)) "lloyd" else settings$algorithm,
              polish = if (is.null(settings)) "none" else settings$centres_polish)
  if (identical(out$algorithm, "minibatch")) {
    out <- c(out, list(batch_size = settings$batch_size,
                       reassignment_ratio = settings$reassignment_ratio,
                       seed = settings$minibatch_seed))
  }
  out
}
