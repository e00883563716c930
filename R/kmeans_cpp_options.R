# The options of the C++ k-means, built here and nowhere else: one named list
# that crosses into C++ and is parsed there once into the core's
# KmeansOptions (kmeans_options() in src/kmeans_glue.h, which names every
# option and its values and refuses unknown names and wrong types). The
# entry points kmeans_cpp() (replicates) and lloyd_cpp() (Lloyd from given
# centres), for every row source, take it. The defaults are those of
# kmeans_control() (control_options()), checked by check_control() and their
# "auto" values resolved by kmeans_settings() (R/kmeans_settings.R) before
# they get here.

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
