# The reduction methods, one entry each: everything the rest of the package
# needs to know about a method (argument checks, its options in `control`,
# how it is fitted and applied, printing, the reduced columns' names,
# dims_path(), the out-of-core and MPI inputs, the docs' method table, the
# tests). ARCHITECTURE.md, "Recipe: add a reduction method", is the recipe.
#
#   label    name printed by print(), summary() and verbose progress
#   family   "none"; "projection" (data-oblivious C = A R, R generated from
#            the seed); "selection" (columns of A, rescaled); "extraction"
#            (C = A V, V from an SVD)
#   prefix   names of the reduced columns (prefix1, prefix2, ...); selections
#            keep the names of their columns
#   default  function(k, d): dims when not given, for k clusters and d columns
#   upper    function(n, d): the largest dims for n rows and d columns (also
#            limited by memory, see max_dims()). A projection maps to at most
#            d dimensions (more would cost more than clustering the data as
#            they are); leverage-score sampling draws dims columns with
#            replacement, as the papers' r, so dims may exceed d there
#   sources  the row-source classes it runs on (R/row_source.R; a source
#            inherits its parent classes'): "source_matrix" (in memory: matrix,
#            data frame, sparse Matrix), "row_source" (every source, read in
#            blocks: a big.matrix), "source_mpi" (mpi_rows())
#   params   the options of `control` it reads, each a param(): its check,
#            its default and its help. The built-in methods' options are
#            declared once each in builtin_params() (an option several
#            methods read is one declaration) and are arguments of
#            kmeans_control(); a registered method's own option (help NULL)
#            is set through a plain list, control = list(name = value)
#   fit      function(x, method, dims, k, seed, n_threads, control, weights):
#            the reducer (new_reducer()); projections: by default none to
#            learn (family_fit())
#   apply    function(reducer, x, n_threads, limit, shift): the mapped
#            rows minus `shift` (NULL: none; see apply_reducer()); by default the
#            family's (family_apply(): project_cpp() for projections, the
#            gather of the selected columns, the product with the rotation)
#   cpp      projections: the name of its policy in the core's list
#            `Projections` (reduce/projections.hpp; projections_cpp()), which
#            project_cpp() dispatches on; `options`: function(reducer, x),
#            the further ReduceOptions of a call (list(); fjlt: its density)
#   memory   function(n, reducer): refuses a mapping of n rows that cannot
#            get its memory (default check_reduced_memory())
#   valid    function(r): NULL, or what is wrong with a stored reducer's
#            own fields (check_reducer() checks those of its family)
#   needs_k  TRUE when fitting needs the number of clusters (reduce_dims())
#   score_label  selections: the name of their feature scores (plots)
#   checks_values  TRUE when its kernel scans the values of dense x on its
#            way (`limit`), so kmeans_reduced() skips its own pass
# A method's colour in the plots that compare methods follows from its place
# in the registry (method_colour(), R/dims_path.R).
builtin_methods <- function() {
  ten_k <- function(k, d) min(d, 10 * k)
  # (leverage-score sampling draws with replacement: 30 k draws came much
  # closer than 10 k to k-means on all features, at the same cost of its
  # SVD; bench/RESULTS.md, quality/, `leverage_power.R`)
  thirty_k <- function(k, d) min(d, 30 * k)
  rank_k <- function(k, d) k
  unbounded <- function(n, d) Inf
  features <- function(n, d) d
  rank <- function(n, d) min(n, d)
  everywhere <- c("source_matrix", "row_source", "source_mpi")
  # (the methods' options: builtin_params(), each declared once there)
  p <- builtin_params()
  list(
    none = method_entry("none (original features)", "none", NULL,
                        function(k, d) d, function(n, d) d, c("source_matrix", "source_mpi"),
                        fit = fit_none, apply = function(reducer, x, ...) x,
                        checks_values = TRUE),
    sign = method_entry("random sign projection", "projection", "S", ten_k, features,
                        everywhere, cpp = "sign",
                        options = function(reducer, x) list(algorithm = sign_algorithm("auto", x))),
    gaussian = method_entry("Gaussian random projection", "projection", "G", ten_k, features,
                            everywhere, cpp = "gaussian"),
    achlioptas = method_entry("Achlioptas sparse random projection", "projection", "A", ten_k,
                              features, everywhere, cpp = "achlioptas"),
    srht = method_entry("subsampled randomized Hadamard transform", "projection", "H", ten_k,
                        features, everywhere, cpp = "srht"),
    sparse_embedding = method_entry("sparse embedding (CountSketch)", "projection", "E", ten_k,
                                    features, everywhere, cpp = "sparse_embedding",
                                    checks_values = TRUE),
    leverage = method_entry("leverage-score feature selection", "selection", NULL, thirty_k,
                            unbounded, everywhere,
                            params = p[c("svd", "eps", "power_iters", "scores", "sampling")],
                            fit = fit_leverage, needs_k = TRUE, score_label = "leverage score"),
    cssp = method_entry("two-stage column subset selection", "selection", NULL, ten_k, rank,
                        "source_matrix",
                        params = p[c("svd", "eps", "power_iters", "c", "repeats", "residual",
                                     "qr")],
                        fit = fit_cssp, score_label = "sampling probability (CSSP)"),
    svd = method_entry("SVD extraction (exact)", "extraction", "SV", rank_k, rank, "source_matrix",
                       fit = fit_rotation),
    rsvd = method_entry("SVD extraction (randomized)", "extraction", "RSV", rank_k, rank,
                        everywhere, params = p[c("eps", "power_iters", "svd_rows")], fit = fit_rotation),
    fjlt = method_entry("fast Johnson-Lindenstrauss transform (FJLT)", "projection", "F", ten_k,
                        features, everywhere,
                        params = p["fjlt_density"],
                        fit = fit_fjlt, cpp = "fjlt",
                        options = function(reducer, x) list(density = reducer$density),
                        memory = function(n, reducer) {
                          check_fjlt_memory(n, reducer$n_features, reducer$dims, reducer$density)
                        },
                        valid = function(r) {
                          if (!(is.numeric(r$density) && length(r$density) == 1L &&
                                !is.na(r$density) && r$density > 0 && r$density <= 1)) {
                            sprintf("`density` must be a number in (0, 1], not %s",
                                    describe(r$density))
                          }
                        })
  )
}

# One registry entry (see the fields above); the family gives the defaults
# of `fit` and `apply`.
method_entry <- function(label, family, prefix, default, upper, sources, params = list(),
                         fit = family_fit(family), apply = family_apply(family), cpp = NULL,
                         options = function(reducer, x) list(),
                         memory = function(n, reducer) check_reduced_memory(n, reducer$dims),
                         valid = function(r) NULL, needs_k = FALSE, score_label = NULL,
                         checks_values = FALSE) {
  list(label = label, family = family, prefix = prefix, default = default, upper = upper,
       sources = sources, params = params, fit = fit, apply = apply, cpp = cpp,
       options = options, memory = memory, valid = valid, needs_k = needs_k,
       score_label = score_label, checks_values = checks_values)
}

# An option of `control` that a method reads: `check`, function(value, arg),
# returns the value checked (or stops naming `arg`); `default`, its value
# when not given; `help`, its text in kmeans_control()'s help (markdown;
# NULL for an option that is not an argument of kmeans_control(), set as
# control = list(name = value)). The k-means options are declared the same
# way (control_options()).
param <- function(check, default = NULL, help = NULL) {
  list(check = check, default = default, help = help)
}

# A param() whose value is one of `choices`.
choice_param <- function(choices, default, help = NULL) {
  param(function(v, arg) check_choice(v, arg, choices), default, help)
}

# The built-in methods' options, each declared once (an option several
# methods read, as the randomized SVD's, is one declaration their entries
# share), in the order of kmeans_control()'s arguments.
builtin_params <- function() {
  eps_help <- r"-(The randomized SVD (`"leverage"`, `"cssp"`,
                  `"rsvd"`) uses `k + ceiling(k / eps + 1)` test vectors (`eps = NULL`,
                  the default, is `1/3`, as Boutsidis et al. 2015; for the cells of a
                  `SummarizedExperiment`, whose SVD is that of a sample held in memory
                  (`svd_rows`), it is `1`: half the test vectors, the same cell types
                  found) and `power_iters` power
                  iterations: a whole number, or `"auto"` (the default): one iteration,
                  or none when the test vectors are at least `min(nrow(x), ncol(x))` (the
                  SVD is then exact without them). With this many test vectors the top
                  singular vectors are already close; more iterations bring the leverage
                  scores closer to the exact ones, which need not lower the k-means
                  objective: for `"leverage"` the number of columns sampled (`dims`)
                  matters more.)-"
  scores_help <- r"-(Variants of `"leverage"`: `scores = "sqrt"` samples
                     by the row norms of `V_k` instead of their squares (Li and Fan 2020),
                     which tames very uneven scores; `sampling = "top"` keeps the `dims`
                     highest scores instead of sampling.)-"
  c_help <- r"-(The randomized phase of `"cssp"` keeps column `j` with
                probability `min(1, c p_j)`; `NULL` (the default):
                `c = 2 dims max(1, log(dims))` (the paper asks for
                \eqn{\Theta(k \log k)}{Theta(k log k)} with no constant). The two phases
                are repeated `repeats` times (default 40), the best kept.)-"
  residual_help <- r"-(`"cssp"`: the norm that picks the best repeat
                       (`"frobenius"`, the default, the norm of the guarantee, or
                       `"spectral"`, as in the paper's experiments) and the deterministic
                       phase (`"pivoted"`: greedy column-pivoted QR, or `"strong"`: strong
                       rank-revealing QR, Gu and Eisenstat 1996, with `f = 2`).)-"
  list(
    svd = choice_param(c("randomized", "exact"), "randomized",
                 r"-(How `"leverage"` and `"cssp"` compute the top right singular
                     vectors: `"randomized"` (the default) or `"exact"` (the exact SVD, see
                     [reduction_methods]).)-"),
    eps = param(function(v, arg) {
      if (is.null(v) || (is.numeric(v) && length(v) == 1L && !is.na(v) && v > 0 && v <= 1)) {
        return(v)
      }
      stop_arg(sprintf("`%s` must be NULL or a number in (0, 1], not %s.", arg, describe(v)))
    }, NULL, eps_help),
    power_iters = param(check_power_iters, "auto", eps_help),
    svd_rows = param(function(v, arg) {
      if (is.null(v) || identical(v, Inf)) v else as.numeric(check_whole(v, arg, 2, Inf))
    }, NULL, r"-(`NULL` (the default: all rows; for the cells of a
                 `SummarizedExperiment`, 20000), `Inf` (all rows) or a whole number `m`:
                 `"rsvd"` computes its SVD from `m` rows drawn uniformly at random (from
                 `seed`), read in one pass and held in memory, then projects every row on
                 its singular vectors. For data read from a file (many cells of a 10x
                 file) this replaces the SVD's passes over all rows by one pass, and an
                 SVD of the sample in memory (Seurat's sketch of cells, Hao et al. 2024).
                 On MPI ranks every rank reads the drawn rows it holds and gets the
                 whole sample: the one process would draw from the stacked rows.)-"),
    scores = choice_param(c("squared", "sqrt"), "squared", scores_help),
    sampling = choice_param(c("random", "top"), "random", scores_help),
    c = param(function(v, arg) {
      if (is.null(v)) v else check_number(v, arg, 0, Inf, open_lower = TRUE)
    }, NULL, c_help),
    repeats = param(function(v, arg) check_whole(v, arg, 1, 10000), 40L, c_help),
    residual = choice_param(c("frobenius", "spectral"), "frobenius", residual_help),
    qr = choice_param(c("pivoted", "strong"), "pivoted", residual_help),
    fjlt_density = param(check_density, NULL,
                         r"-(The probability `q` that an entry of the FJLT's
                             sparse Gaussian matrix is non-zero; `NULL` (the default):
                             `min(1, log(n)^2 / 2^ceiling(log2(d)))`.)-")
  )
}

# Methods registered while the package runs (register_method()), after the
# built-in ones.
registry_env <- new.env(parent = emptyenv())
registry_env$extra <- list()
registry_env$palette <- list()

# Adds (or, with entry = NULL, removes) a method: `entry` from
# method_entry(). Internal: for tests and for extensions built on the
# package's kernels.
register_method <- function(name, entry) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name) ||
      name %in% c("auto", names(builtin_methods()))) {
    stop_arg(sprintf("`name` must be a new method name, not %s.", describe(name)))
  }
  if (!is.null(entry) && !(is.list(entry) && is.function(entry$fit) && is.function(entry$apply) &&
                           entry$family %in% c("projection", "selection", "extraction"))) {
    stop_arg("`entry` must be a method_entry() of a projection, selection or extraction with a fit and an apply.")
  }
  # (its options' defaults pass their own checks unchanged: check_control()
  # checks only the options a call gives)
  for (p in names(entry$params)) {
    o <- entry$params[[p]]
    checked <- tryCatch(o$check(o$default, p), error = function(e) e)
    if (!identical(checked, o$default)) {
      stop_arg(sprintf("`entry` option '%s' has a default its own check %s.", p,
                       if (inherits(checked, "error")) {
                         paste("refuses:", conditionMessage(checked))
                       } else "changes"))
    }
  }
  registry_env$extra[[name]] <- entry
  invisible(name)
}

method_registry <- function() {
  # (the built-in entries made once per session: method_info() reads the
  # registry at every call)
  if (is.null(registry_env$builtin)) registry_env$builtin <- builtin_methods()
  # (made again only when a method was registered since)
  made <- registry_env$made
  if (!is.null(made) && identical(made$extra, registry_env$extra)) return(made$reg)
  reg <- c(registry_env$builtin, registry_env$extra)
  registry_env$made <- list(extra = registry_env$extra, reg = reg)
  reg
}

# Names of the methods of a family and / or a source (all when NULL).
registered_methods <- function(family = NULL, source = NULL) {
  reg <- method_registry()
  keep <- vapply(reg, function(e) {
    (is.null(family) || e$family %in% family) && (is.null(source) || any(source %in% e$sources))
  }, logical(1))
  names(reg)[keep]
}

# The entry of a method (NULL for "auto" or an unknown name).
method_info <- function(method) {
  if (!is.character(method) || length(method) != 1L || is.na(method)) return(NULL)
  method_registry()[[method]]
}

projection_methods <- function() registered_methods("projection")
selection_methods <- function() registered_methods("selection")
extraction_methods <- function() registered_methods("extraction")

# Every option the methods read, each once (the first declaration; a test
# checks that every method declaring an option declares the same check).
method_params <- function() {
  params <- list()
  for (e in method_registry()) {
    for (p in names(e$params)) if (is.null(params[[p]])) params[[p]] <- e$params[[p]]
  }
  params
}

method_label <- function(method) {
  info <- method_info(method)
  if (is.null(info)) method else info$label
}

# The largest and the default dims of a method for n rows and d columns.
method_dims_upper <- function(method, n, d) {
  if (method == "none") return(d)
  min(method_info(method)$upper(n, d), max_dims(n))
}
method_dims_default <- function(method, k, n, d) {
  as.integer(min(method_info(method)$default(k, d), method_dims_upper(method, n, d)))
}

# Most columns a reduced matrix of n rows may have.
max_dims <- function(n) min(.Machine$integer.max, floor(max_reduced_size() / n))

# Largest number of doubles a reduced matrix may have (32 GB).
max_reduced_size <- function() 4e9

# The method table of ?reduction_methods, from the registry (roxygen @eval;
# tests/testthat/test-registry.R checks that the installed help is current).
registry_rd_table <- function() {
  reg <- method_registry()
  code <- function(v) if (length(v) == 0L) "" else paste0("\\code{", v, "}", collapse = ", ")
  rows <- vapply(names(reg), function(m) {
    e <- reg[[m]]
    # (the row-source classes in the words of the help)
    where <- c(source_matrix = "memory", row_source = "big", source_mpi = "mpi")
    sources <- ifelse(e$sources %in% names(where), where[e$sources], e$sources)
    paste(code(sprintf("\"%s\"", m)), e$label, e$family,
          paste(sources, collapse = ", "), code(names(e$params)), sep = " \\tab ")
  }, character(1))
  c("@section Method table:",
    "Every method, from the package's method registry: its family, where it runs",
    "(`\"memory\"`: matrices, data frames and sparse `Matrix` objects; `\"big\"`:",
    "`bigmemory::big.matrix`, `DelayedMatrix` and 10x HDF5 files, read in blocks;",
    "`\"mpi\"`: [mpi_rows()]) and the",
    "options of [kmeans_control()] it reads.",
    "",
    "\\tabular{lllll}{",
    "\\strong{method} \\tab \\strong{what} \\tab \\strong{family} \\tab \\strong{data} \\tab \\strong{options} \\cr",
    paste(rows, collapse = " \\cr\n"),
    "}")
}

reduction_methods <- function() c("auto", names(method_registry()))

# `kmeans_call`: the method of kmeans_reduced(), whose third argument is
# where stats::kmeans() has `iter.max` (and fourth, `dims`, its `nstart`): a
# number there is most likely a kmeans() call written positionally, and the
# error says how to write it.
check_method <- function(method, kmeans_call = FALSE) {
  ok <- reduction_methods()
  if (!is.character(method) || length(method) != 1L || is.na(method) || !(method %in% ok)) {
    hint <- if (kmeans_call && is.numeric(method)) {
      paste0(" The third argument of kmeans_reduced() is `method`, where stats::kmeans() has",
             " `iter.max` (and the fourth `dims`, where it has `nstart`): name them here,",
             " e.g. kmeans_reduced(x, 3, iter.max = 20, nstart = 5).")
    } else ""
    stop_arg(sprintf("`method` must be one of %s, not %s.%s",
                     paste0("\"", ok, "\"", collapse = ", "), describe(method), hint))
  }
  method
}

# "auto": k-means on the data themselves for narrow data (with `k` given:
# at most narrow_columns(k) columns, where the default reduction would keep
# every column), else the sparse embedding (O(nnz)) for sparse data and
# signs for dense.
resolve_method <- function(method, x, k = NULL) {
  if (method != "auto") return(method)
  if (!is.null(k) && ncol(x) <= narrow_columns(k)) return("none")
  if (methods::is(x, "dgCMatrix")) "sparse_embedding" else "sign"
}

# Data with at most this many columns are clustered as they are by
# method = "auto": the projections' default `dims` is min(ncol(x), 10 k), so
# up to 10 k columns a projection would not reduce anything, only add its
# cost and its distortion (a square random sign matrix is no isometry).
narrow_columns <- function(k) 10 * k

# The dimensions dims = "auto" tries: from 2k (k for the SVD methods),
# doubling, to the largest the method allows and at most half of d (beyond,
# a reduction costs about as much as k-means on the data themselves).
auto_dims_schedule <- function(method, k, n, d) {
  upper <- max(1, min(method_dims_upper(method, n, d), floor(d / 2)))
  start <- if (method_info(method)$family == "extraction") k else 2 * k
  start <- max(1, min(start, upper))
  s <- start * 2^(0:60)
  as.integer(unique(c(s[s < upper], upper)))
}

# dims for n rows (of all sources) and d columns.
check_dims <- function(dims, method, k, n, d, auto = FALSE) {
  if (method == "none") return(as.integer(d))
  if (identical(dims, "auto")) {
    if (!auto) stop_arg("`dims = \"auto\"` is for kmeans_reduced(); give a number here.")
    if (is.null(k)) stop_arg("`dims = \"auto\"` needs `k`.")
    return("auto")
  }
  upper <- method_dims_upper(method, n, d)
  if (is.null(dims)) {
    if (is.null(k)) {
      stop_arg(sprintf("`dims` must be given (a whole number in [1, %s]) when `k` is not.",
                       format(upper)))
    }
    return(method_dims_default(method, k, n, d))
  }
  if (is_whole(dims) && dims > d && dims <= .Machine$integer.max &&
      method_info(method)$family == "projection") {
    stop_arg(sprintf(paste0("`dims` must be at most the number of features (%s) for method ",
                            "\"%s\", not %s: a projection to more dimensions than the data have ",
                            "costs more than clustering the data themselves (method = \"none\")."),
                     format(d), method, format(dims)))
  }
  check_whole(dims, "dims", 1, upper)
}

# method = "auto" for this source: rows in memory (on MPI ranks, those of
# each rank) as resolve_method() says (narrow data: "none"); rows read in
# blocks: a projection of the rows as they are read ("sparse_embedding" for
# sparse rows).
auto_method <- function(src, method, k) {
  if (!is.null(src$local)) return(auto_method(src$local, method, k))
  if (isTRUE(src$in_memory) || !is.null(src$mpi)) return(resolve_method(method, src$data, k))
  if (!isTRUE(src$checks_blocks)) return(resolve_method(method, src$data))
  if (method != "auto") return(method)
  if (isTRUE(src$sparse)) "sparse_embedding" else "sign"
}

# Is `method` available for this source (the registry's `sources`)?
check_source_method <- function(src, method, control) {
  if (isTRUE(src$in_memory)) return(method_unavailable(src, method, "is not available; use"))
  if (!is.null(src$local)) {
    ok <- registered_methods(source = "row_source")
    if (!(method %in% ok)) {
      stop_arg(sprintf("`method` \"%s\" is not available on distributed rows read in blocks; use one of %s.",
                       method, paste0("\"", ok, "\"", collapse = ", ")))
    }
  } else if (!is.null(src$mpi)) {
    method_unavailable(src, method, "is not available on distributed rows; use one of")
  } else {
    method_unavailable(src, method, sprintf("needs the whole matrix in memory; %s `x` works with",
                                            describe_source(src)))
  }
  where <- if (!is.null(src$mpi)) describe_source(src) else sprintf("%s `x`", describe_source(src))
  check_exact_svd(method, control, where)
}

method_unavailable <- function(src, method, phrase) {
  ok <- registered_methods(source = class(src))
  if (!(method %in% ok)) {
    stop_arg(sprintf("`method` \"%s\" %s %s.", method, phrase,
                     paste0("\"", ok, "\"", collapse = ", ")))
  }
  invisible(TRUE)
}

check_exact_svd <- function(method, control, where) {
  if (method == "leverage" && control$svd == "exact") {
    stop_arg(sprintf("`control$svd` = \"exact\" needs the whole matrix in memory; use \"randomized\" with %s.",
                     where))
  }
  invisible(TRUE)
}

# The fit of a family's methods when their entry gives none: the
# projections learn nothing (R comes from the seed).
family_fit <- function(family) {
  if (family != "projection") return(NULL)
  function(src, method, dims, k, seed, ...) new_reducer(method, dims, seed, src)
}

# How a family's methods map rows when their entry gives no `apply`:
# projections through project_cpp() (src/reduce.cpp dispatches on the
# entry's `cpp` name), selections gather their columns, extractions
# multiply by their rotation.
family_apply <- function(family) {
  switch(family,
    projection = function(reducer, x, n_threads, limit, shift) {
      info <- method_info(reducer$method)
      project_cpp(x, reduce_options(info$cpp, reducer$dims, reducer$seed, n_threads, limit,
                                    info$options(reducer, x)),
                  shift)
    },
    selection = function(reducer, x, n_threads, limit, shift) {
      gather_columns_cpp(x, reducer$features$index, reducer$features$scale, n_threads, shift)
    },
    extraction = function(reducer, x, n_threads, limit, shift) {
      multiply_cpp(x, reducer$rotation, n_threads, shift)
    },
    NULL)
}

# The method and dims of a kmeans_reduced() fit checked for its source and
# k: "auto" resolved (narrow data: "none", in memory; blocks and MPI rows
# keep their default), the source able to run it; dims = "auto" gives its
# schedule of sizes (NULL otherwise) and dims its largest.
check_fit_method <- function(src, method, dims, k, control) {
  method <- auto_method(src, check_method(method, kmeans_call = TRUE), k)
  check_source_method(src, method, control)
  n <- n_rows(src)
  d <- n_cols(src)
  dims <- check_dims(dims, method, k, n, d, auto = TRUE)
  schedule <- NULL
  if (identical(dims, "auto")) {
    schedule <- auto_dims_schedule(method, k, n, d)
    dims <- max(schedule)
  }
  list(method = method, dims = dims, schedule = schedule)
}
