# Argument checks: scalars, the threads a call uses (default_threads()) and
# the memory it will take (check_memory()). Every check runs before any C++
# code and fails with an error that names the argument, says what was
# expected and what was given.

stop_arg <- function(...) stop(..., call. = FALSE)

# A short description of a value for error messages.
describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (is.data.frame(x)) return(sprintf("a data frame with %d columns", ncol(x)))
  if (is.list(x)) return(sprintf("a list of length %d", length(x)))
  if (is.factor(x)) return(sprintf("a factor of length %d", length(x)))
  if (is.environment(x)) return("an environment")
  if (is.matrix(x)) return(sprintf("a %s matrix of %d x %d", typeof(x), nrow(x), ncol(x)))
  if (is.array(x)) {
    return(sprintf("a %d-dimensional %s array (%s)", length(dim(x)), typeof(x),
                   paste(dim(x), collapse = " x ")))
  }
  if (isS4(x)) return(sprintf("an object of class %s", class(x)[1L]))
  if (!is.null(oldClass(x))) {
    return(sprintf("an object of class %s%s", class(x)[1L],
                   if (length(x) == 1L && is.atomic(x)) paste0(" (", format(x), ")") else ""))
  }
  if (length(x) == 0L) return(sprintf("an empty %s vector", typeof(x)))
  if (length(x) > 1L) return(sprintf("a %s vector of length %d", typeof(x), length(x)))
  if (is.character(x)) return(sprintf("\"%s\"", x))
  format(x, digits = 15)
}

is_whole <- function(x) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) && x == round(x)
}

# A single whole number in [lower, upper]; returned as integer when it fits.
check_whole <- function(x, arg, lower = 1, upper = .Machine$integer.max) {
  if (!is_whole(x) || x < lower || x > upper) {
    range <- if (is.finite(upper)) sprintf("in [%s, %s]", format(lower), format(upper))
             else sprintf(">= %s", format(lower))
    stop_arg(sprintf("`%s` must be a whole number %s, not %s.", arg, range, describe(x)))
  }
  if (abs(x) <= .Machine$integer.max) as.integer(x) else x
}

# `algorithm`: NULL (the package's pipeline), one of the four names of
# stats::kmeans() (partial matching as match.arg(); its whole default vector
# is its first name), or "minibatch" (mini-batch k-means, not a stats name).
check_algorithm <- function(algorithm) {
  if (is.null(algorithm)) return(NULL)
  stats_names <- c("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")
  choices <- c(stats_names, "minibatch")
  if (identical(algorithm, stats_names)) return(choices[1L])
  hit <- if (is.character(algorithm) && length(algorithm) == 1L && !is.na(algorithm) &&
             nzchar(algorithm)) pmatch(algorithm, choices) else NA_integer_
  if (is.na(hit)) {
    stop_arg(sprintf("`algorithm` must be NULL (the package's default), one of %s (as in stats::kmeans()) or \"minibatch\", not %s.",
                     paste0("\"", stats_names, "\"", collapse = ", "), describe(algorithm)))
  }
  choices[hit]
}

# `trace`: NULL (the default: a progress line for long interactive fits),
# TRUE / FALSE, or a whole number >= 0 (the level of detail).
check_trace <- function(trace) {
  if (is.null(trace)) return(NULL)
  if (is.logical(trace) && length(trace) == 1L && !is.na(trace)) return(as.integer(trace))
  if (is_whole(trace) && trace >= 0) return(as.integer(min(trace, 10)))
  stop_arg(sprintf("`trace` must be NULL, TRUE, FALSE or a whole number >= 0 (the level of detail), not %s.",
                   describe(trace)))
}

check_seed <- function(seed) {
  if (is.null(seed)) return(NULL)
  if (!is_whole(seed) || abs(seed) > 2^53) {
    stop_arg(sprintf("`seed` must be NULL or a single whole number, not %s. Seeds are whole numbers with |seed| <= 2^53.",
                     describe(seed)))
  }
  as.numeric(seed)
}

# The seed used: the one given, or one integer drawn from R's RNG (so that
# set.seed() makes a NULL seed reproducible). A given seed never touches R's RNG.
resolve_seed <- function(seed) {
  seed <- check_seed(seed)
  if (is.null(seed)) seed <- as.numeric(sample.int(.Machine$integer.max, 1L))
  seed
}

# "auto", or a whole number in [lower, upper] (as an integer).
check_auto_whole <- function(x, arg, lower, upper) {
  if (identical(x, "auto")) return(x)
  if (!is_whole(x) || x < lower || x > upper) {
    stop_arg(sprintf("`%s` must be \"auto\" or a whole number in [%s, %s], not %s.",
                     arg, format(lower), format(upper), describe(x)))
  }
  as.integer(x)
}

# Power iterations of a randomized SVD: "auto" (power_iters_for()) or a
# whole number in [0, 100].
check_power_iters <- function(x, arg) check_auto_whole(x, arg, 0, 100)

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop_arg(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, describe(x)))
  }
  x
}

# No argument beyond the named ones (a method's `...`): a misspelt name is an
# error, not ignored.
check_dots_empty <- function(..., fun) {
  n <- ...length()
  if (n == 0L) return(invisible(TRUE))
  nms <- names(list(...))
  shown <- if (is.null(nms)) rep("", n) else nms
  shown <- ifelse(nzchar(shown), paste0("`", shown, "`"), "an unnamed argument")
  stop_arg(sprintf("%s() has no argument %s; see ?%s for its arguments.", fun,
                   paste(unique(shown), collapse = ", "), fun))
}

check_choice <- function(value, arg, choices) {
  if (!is.character(value) || length(value) != 1L || is.na(value) || !(value %in% choices)) {
    stop_arg(sprintf("`%s` must be one of %s, not %s.", arg,
                     paste0("\"", choices, "\"", collapse = ", "), describe(value)))
  }
  value
}

is_finite_matrix <- function(m, ncol = NULL) {
  is.matrix(m) && is.numeric(m) && nrow(m) >= 1L && (is.null(ncol) || ncol(m) == ncol) &&
    all(is.finite(m))
}

is_finite_vector <- function(v, len) {
  is.numeric(v) && is.null(dim(v)) && length(v) == len && all(is.finite(v))
}

# A single number in [lower, upper) (open_lower: in (lower, upper)).
check_number <- function(v, arg, lower, upper, open_lower = FALSE) {
  ok <- is.numeric(v) && length(v) == 1L && !is.na(v) &&
    (if (open_lower) v > lower else v >= lower) && v < upper
  if (!ok) {
    stop_arg(sprintf("`%s` must be a number in %s%s, %s), not %s.", arg,
                     if (open_lower) "(" else "[", format(lower), format(upper), describe(v)))
  }
  v
}

# NULL or a probability in (0, 1] (the FJLT's density).
check_density <- function(v, arg) {
  if (!is.null(v) && !(is.numeric(v) && length(v) == 1L && !is.na(v) && v > 0 && v <= 1)) {
    stop_arg(sprintf("`%s` must be NULL or a number in (0, 1], not %s.", arg, describe(v)))
  }
  v
}

# Seconds since an arbitrary start (timings and progress).
elapsed <- function() proc.time()[["elapsed"]]

# The randomized SVD of an n x d matrix with l test vectors: the range and
# its basis (n x l, twice, and a copy for LAPACK) and A^T Q (d x l, twice).
check_rsvd_memory <- function(n, d, l, advice) {
  check_memory(8 * l * (3 * n + 2 * d),
               sprintf("The randomized SVD of the %s x %s `x` (%s test vectors)", format(n),
                       format(d), format(l)),
               advice, entries = max(n, d) * l)
}

# The exact SVD of an n x d matrix (svd.hpp), m = min(n, d). Block Lanczos
# needs little (two bases of at most (n + d) x m / 2), but the direct SVD it
# may fall back to, and that large `dims` take at once, needs the most: the
# centred dense copy and Armadillo's own copy (n x d each), U (n x m), V^T
# and V (m x d each), and LAPACK dgesdd's workspace (about 7 m^2 + max(n, d)
# values and 8 m integers).
exact_svd_bytes <- function(n, d) {
  n <- as.numeric(n)
  d <- as.numeric(d)
  m <- min(n, d)
  8 * (2 * n * d + n * m + 2 * m * d + 7 * m^2 + max(n, d)) + 32 * m
}

check_exact_svd_memory <- function(n, d) {
  check_memory(exact_svd_bytes(n, d),
               sprintf("The exact SVD (method = \"svd\", or control$svd = \"exact\") of the %s x %s `x` (a dense copy and LAPACK's workspace)",
                       format(n), format(d)),
               "Use the randomized SVD (method = \"rsvd\", or control = list(svd = \"randomized\")).",
               entries = as.numeric(n) * d)
}

# The FJLT's sparse Gaussian matrix P (dims x 2^ceiling(log2(d)), density
# q): 8 bytes per non-zero when dense (q = 1), 32 while a sparse one is put
# together (its rows, then the flat arrays of values and coordinates); and
# the reduced rows (n x dims).
check_fjlt_memory <- function(n, d, dims, q) {
  padded <- 2^ceiling(log2(d))
  nz <- as.numeric(dims) * padded * q
  check_memory(nz * (if (q >= 1) 8 else 32) + 8 * as.numeric(n) * dims,
               sprintf("The FJLT to %s dimensions (its %s x %s Gaussian matrix of density %s and the reduced rows)",
                       format(dims), format(dims), format(padded), format(q, digits = 3)),
               "Use fewer dimensions (`dims`) or a smaller `control$fjlt_density`.")
}

# The n x dims reduced (or projected) rows.
check_reduced_memory <- function(n, dims) {
  check_memory(8 * as.numeric(n) * dims,
               sprintf("The reduced data (%s rows x %s dimensions)", format(n), format(dims)),
               "Use fewer dimensions (`dims`) or fewer rows at a time.")
}

# Memory this process can still get: the system's MemAvailable (Linux) and
# what the address-space limit (getrlimit(RLIMIT_AS), `ulimit -v`) leaves
# above the address space in use, the smaller; NA when neither is known.
# Attribute "limit": TRUE when the address-space limit is the smaller.
available_memory <- function() {
  system <- NA_real_
  if (file.exists("/proc/meminfo")) {
    line <- tryCatch(grep("^MemAvailable:", readLines("/proc/meminfo", warn = FALSE), value = TRUE),
                     error = function(e) character(0))
    if (length(line) == 1L) system <- as.numeric(gsub("[^0-9]", "", line)) * 1024
  }
  as <- address_space_cpp()
  left <- if (is.finite(as[["limit"]]) && !is.na(as[["used"]])) {
    max(0, as[["limit"]] - as[["used"]])
  } else {
    NA_real_
  }
  out <- min(system, left, na.rm = TRUE)
  if (!is.finite(out)) return(NA_real_)
  structure(out, limit = !is.na(left) && (is.na(system) || left < system))
}

# Refuses a step whose allocations (`bytes`, or a single matrix of more than
# 2^31 - 1 rows or 2^32 - 1 entries for LAPACK) cannot succeed, with the
# figure and what to do instead, before anything is allocated.
check_memory <- function(bytes, what, advice, entries = 0) {
  avail <- available_memory()
  gb <- function(b) sprintf("%.1f GB", b / 2^30)
  if (entries >= 2^32 - 1) {
    stop_arg(sprintf("%s would need a matrix of %.3g entries, more than the 2^32 - 1 that LAPACK can take. %s",
                     what, entries, advice))
  }
  if (!is.na(avail) && bytes > avail) {
    stop_arg(sprintf("%s would need about %s of memory, more than the %s available%s. %s",
                     what, gb(bytes), gb(avail),
                     if (isTRUE(attr(avail, "limit"))) " under this process's address-space limit (ulimit -v)" else "",
                     advice))
  }
  invisible(TRUE)
}

# The bytes a source may keep of a file's stored values (control$file_cache:
# "auto" is a tenth of the memory available now, none when that is not
# known: on a 24 GB machine a file of 300000 cells, 1 GB of counts, is kept
# whole, and of one of 1.3 million, 5.9 GB, the first blocks, about 40 % of
# them; that fit's peak stays under 6 GB: bench/HISTORY.md, "Single-cell
# default: the file cache's first blocks").
file_cache_budget <- function(file_cache) {
  if (!identical(file_cache, "auto")) return(file_cache)
  avail <- available_memory()
  if (is.na(avail)) 0 else as.numeric(avail) / 10
}

# The n_threads argument of every function: NULL, the default of
# kmreduce_threads(). A number above the available cores is lowered to them,
# with a message (never an error or a crash).
check_n_threads <- function(n_threads) {
  if (is.null(n_threads)) return(as.integer(default_threads()))
  n <- check_whole(n_threads, "n_threads", 1, Inf)
  cores <- available_cores()
  if (n > cores) {
    message(sprintf("`n_threads` = %s is more than the %d core%s available; using %d.",
                    format(n), cores, if (cores == 1L) "" else "s", cores))
    n <- cores
  }
  as.integer(n)
}

# Cores this process may use: CPU affinity (Linux), the control group's CPU
# quota (cgroup v2 cpu.max or v1 cfs quota), OMP_THREAD_LIMIT, and 2 under
# R CMD check.
available_cores <- function(info = threads_info_cpp()) {
  n <- if (!is.na(info$affinity) && info$affinity > 0L) info$affinity else info$hardware
  if (is.na(n) || n < 1L) n <- 1L
  quota <- cgroup_cpu_quota()
  if (!is.na(quota)) n <- min(n, max(1L, ceiling(quota)))
  limit <- suppressWarnings(as.integer(Sys.getenv("OMP_THREAD_LIMIT")))
  if (!is.na(limit) && limit >= 1L) n <- min(n, limit)
  chk <- tolower(Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  if (nzchar(chk) && chk != "false") n <- min(n, 2L)
  as.integer(n)
}

cgroup_cpu_quota <- function() {
  read1 <- function(path) {
    if (!file.exists(path)) return(NULL)
    tryCatch(readLines(path, n = 1L, warn = FALSE), error = function(e) NULL)
  }
  v2 <- read1("/sys/fs/cgroup/cpu.max")
  if (length(v2) == 1L) {
    parts <- strsplit(v2, " ")[[1]]
    q <- suppressWarnings(as.numeric(parts))
    if (length(q) == 2L && !is.na(q[1]) && !is.na(q[2]) && q[2] > 0) return(q[1] / q[2])
    return(NA_real_)
  }
  q <- suppressWarnings(as.numeric(read1("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")))
  p <- suppressWarnings(as.numeric(read1("/sys/fs/cgroup/cpu/cpu.cfs_period_us")))
  if (length(q) == 1L && length(p) == 1L && !is.na(q) && !is.na(p) && q > 0 && p > 0) {
    return(q / p)
  }
  NA_real_
}

# The threads a call uses unless given (kmreduce_threads(), documented there).
default_threads <- function() {
  info <- threads_info_cpp()
  cores <- available_cores(info)
  opt <- getOption("kmreduce.threads")
  # OMP_NUM_THREADS may list one number per nesting level: the first counts.
  env <- suppressWarnings(as.integer(strsplit(Sys.getenv("OMP_NUM_THREADS"), ",")[[1]][1]))
  if (!is.null(opt)) {
    n <- check_whole(opt, "options(kmreduce.threads)", 1, Inf)
    source <- "options(kmreduce.threads)"
  } else if (isTRUE(info$forked_child)) {
    n <- 1L
    source <- "forked child"
  } else if (!is.na(env) && env >= 1L) {
    n <- env
    source <- "OMP_NUM_THREADS"
  } else {
    n <- cores
    source <- "available cores"
  }
  n <- as.integer(min(n, cores))
  structure(n, source = source, cores = cores)
}

# The scalar arguments of kmeans_reduced() checked, in one list (`arg`: the
# names the user gave k, n_init and iter_max under, stats::kmeans()'s or
# ours); the seed resolved (resolve_seed()).
check_fit_args <- function(n_init, iter_max, n_threads, n_reductions, refine, seed, verbose,
                           trace, algorithm, arg) {
  list(algorithm = check_algorithm(algorithm), trace = check_trace(trace),
       n_init = check_whole(n_init, arg[["n_init"]], 1, 1e6),
       iter_max = check_whole(iter_max, arg[["iter_max"]], 1, 1e8),
       n_threads = check_n_threads(n_threads),
       n_reductions = check_whole(n_reductions, "n_reductions", 1, 1e4),
       refine = check_whole(refine, "refine", 0, 1e6), seed = resolve_seed(seed),
       verbose = check_flag(verbose, "verbose"))
}
