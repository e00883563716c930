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
kmreduce_threads <- function() default_threads()
