#' Number of threads kmreduce uses by default
#'
#' Every function with an `n_threads` argument uses this many threads when
#' `n_threads = NULL` (the default). The number is chosen as R packages
#' usually do:
#'
#' 1. `getOption("kmreduce.threads")`, when set (for example
#'    `options(kmreduce.threads = 4)` in a script or `.Rprofile`);
#' 2. otherwise the environment variable `OMP_NUM_THREADS`, when set;
#' 3. otherwise every core available to R (the cores of its CPU affinity
#'    mask and of its control group's CPU quota, where the system has them).
#'
#' The result never exceeds `OMP_THREAD_LIMIT` (when set), the available
#' cores, or 2 under `R CMD check` (`_R_CHECK_LIMIT_CORES_`). In a process
#' made by `fork()` (the workers of [parallel::mclapply()] or
#' `future::multicore`) the default is 1 thread, so that several workers do
#' not compete for the same cores; an explicit `n_threads` is still honoured
#' there (the child starts a fresh thread pool).
#'
#' An explicit `n_threads` above the available cores is lowered to them, with
#' a message. Results are identical for every number of threads.
#'
#' @details Threads come from a pool of kmreduce's own: idle threads sleep
#'   instead of spinning, work is handed out in small blocks so that a thread
#'   slowed down by other programs on the machine takes fewer of them, and
#'   every long step can be interrupted (Ctrl-C, Esc in RStudio).
#' @section Processor instructions:
#' The distance and product kernels use AVX-512 or AVX2 with FMA where the
#' processor and the operating system support them, chosen when they are
#' first needed; elsewhere (older x86 processors, ARM) portable kernels.
#' Results do not depend on the number of threads, but may differ in the last
#' bits between these instruction sets. The environment variable
#' `KMREDUCE_SIMD` (`"portable"`, `"avx2"` or `"avx512"`), set before the
#' package first computes, lowers the level, for example to compare with the
#' portable kernels; it never raises it above what the machine supports.
#' @return The number of threads (an integer), with attribute `"source"`
#'   saying which rule chose it and `"cores"` the number of cores available.
#' @examples
#' kmreduce_threads()
#' old <- options(kmreduce.threads = 1)
#' kmreduce_threads()
#' options(old)
#' @export
kmreduce_threads <- function() {
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

# The n_threads argument of every function: NULL, the default of
# kmreduce_threads(). A number above the available cores is lowered to them,
# with a message (never an error or a crash).
check_n_threads <- function(n_threads) {
  if (is.null(n_threads)) return(as.integer(kmreduce_threads()))
  n <- check_whole(n_threads, "n_threads", 1, Inf)
  cores <- available_cores()
  if (n > cores) {
    message(sprintf("`n_threads` = %s is more than the %d core%s available; using %d.",
                    format(n), cores, if (cores == 1L) "" else "s", cores))
    n <- cores
  }
  as.integer(n)
}
