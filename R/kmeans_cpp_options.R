# The options of the C++ k-means, built here and nowhere else: one named list
# that crosses into C++, where the core's table of options
# (kmeans_options.def) checks each one and resolve_options() chooses every
# "auto" for the rows at hand (kmeans_options() in src/kmeans_glue.h). The
# entry points kmeans_cpp() (replicates) and lloyd_cpp() (Lloyd from given
# centres), for every row source, take it.

# The k-means settings of a fit: the options of the checked `control` that
# the core reads (the table's scope "control"), as given ("auto" and NULL
# included), and what follows from the method and from `algorithm`
# (control$algorithm, stats::kmeans()'s names, see algorithm_control()):
# MacQueen's online updates instead of Lloyd ("macqueen"), mini-batch
# k-means instead of the replicates and Lloyd ("minibatch"), Hartigan's
# moves after Lloyd from given centres ("Hartigan-Wong": `centres_polish`);
# `reduced`: the rows are reduced (every method but "none"), where
# polish_starts "auto" is 2.
kmeans_settings <- function(control, method = "none") {
  core <- names(Filter(function(o) o$scope == "control", option_table()))
  out <- control[core]
  names(out) <- core
  out$algorithm <- if (identical(control$algorithm, "MacQueen")) "macqueen" else
    if (identical(control$algorithm, "minibatch")) "minibatch" else "lloyd"
  out$centres_polish <- if (identical(control$algorithm, "Hartigan-Wong")) "hartigan" else "none"
  out$reduced <- method != "none"
  out
}

# The options of kmeans_cpp(): n_init replicates, each a seeding then Lloyd
# (as `settings` says, kmeans_settings(); by default those of
# kmeans_control()), from the random streams of `seed`; `verbose` prints a
# line per replicate, `limit` > 0 checks the values of dense rows while they
# are packed (see kmeans_cpp()).
kmeans_cpp_options <- function(k, n_init = 1L, iter_max = 100L, tol = 0, seed = 0,
                               n_threads = 1L, settings = kmeans_settings(check_control(NULL)),
                               verbose = FALSE, limit = 0) {
  call <- list(k = as.integer(k), n_init = as.integer(n_init), iter_max = as.integer(iter_max),
               tol = as.double(tol), seed = as.double(seed), n_threads = as.integer(n_threads),
               verbose = isTRUE(verbose), limit = as.double(limit))
  c(call, settings[setdiff(names(settings), names(call))])
}

# The options of lloyd_cpp(): Lloyd from given centres, or with `settings`
# (kmeans_settings()) what stats::kmeans(algorithm = ) runs from them:
# MacQueen's updates, Hartigan's moves after Lloyd, or mini-batch k-means
# (its batches and `seed`).
lloyd_cpp_options <- function(iter_max, tol = 0, n_threads = 1L, settings = NULL, seed = 0) {
  out <- list(iter_max = as.integer(iter_max), tol = as.double(tol),
              n_threads = as.integer(n_threads), seed = as.double(seed))
  if (!is.null(settings)) {
    out <- c(out, settings[c("algorithm", "centres_polish", "batch_size", "reassignment_ratio")])
  }
  out
}

# What the core runs with for `n` rows (every "auto" chosen): for messages
# and tests.
kmeans_resolved <- function(k, n_init, n, settings) {
  kmeans_resolved_cpp(kmeans_cpp_options(k, n_init, settings = settings), n)
}
