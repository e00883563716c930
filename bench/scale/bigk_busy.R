# Large k on a quiet and on a busy machine: two builds side by side (e.g.
# the build before a change and after it), k-means|| seeding, n_init = 1,
# at 1 and 2 threads, k = 256 on 100000 x 64 and k = 1000 on 200000 x 32
# (the mixtures of bench/scale/bigk.R, seed 1). "busy" runs one busy-loop process
# beside the benchmark for the whole measurement. Each timing is the best
# of 3 runs in a fresh Rscript with one build's library first on the path.
# Prints the times, B / A, and t(2 threads) / t(1 thread).
# Run: Rscript bench/scale/bigk_busy.R LIB_A LIB_B
args <- commandArgs(TRUE)
if (length(args) < 2L) stop("usage: Rscript bench/scale/bigk_busy.R LIB_A LIB_B")
libs <- normalizePath(args[1:2])
source("bench/common.R")
child <- '
suppressPackageStartupMessages(library(kmreduce))
threads <- as.integer(commandArgs(TRUE)[1])
mixture <- function(n, d, k) {
  set.seed(1)
  centres <- matrix(rnorm(k * d, sd = 2), k, d)
  centres[sample(k, n, TRUE), ] + matrix(rnorm(n * d), n, d)
}
out <- c()
for (cs in list(c(1e5, 64, 256), c(2e5, 32, 1000))) {
  x <- mixture(cs[1], cs[2], cs[3])
  f <- function() kmeans_reduced(x, cs[3], method = "none", n_init = 1, seed = 1, iter_max = 300,
                                 n_threads = threads, control = list(seeding = "k-means||"))
  out[paste0("k", cs[3])] <- min(replicate(3, system.time(f())[["elapsed"]]))
}
cat(paste(names(out), out, sep = "=", collapse = " "), "\n")
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
run <- function(lib, threads) {
  line <- system2(file.path(R.home("bin"), "Rscript"), c(script, threads), stdout = TRUE,
                  env = paste0("R_LIBS=", lib, ":", Sys.getenv("R_LIBS")))
  kv <- strsplit(strsplit(trimws(tail(line, 1)), " ")[[1]], "=")
  stats::setNames(as.numeric(vapply(kv, `[`, "", 2)), vapply(kv, `[`, "", 1))
}
cat("#", machine_info(), "\n\n")
rows <- list()
for (state in c("quiet", "busy")) {
  busy <- if (state == "busy") busy_start()
  for (threads in 1:2) {
    for (b in c("A", "B")) {
      t <- run(libs[if (b == "A") 1 else 2], threads)
      rows[[length(rows) + 1L]] <- data.frame(state = state, build = b, threads = threads,
                                              case = names(t), seconds = unname(t))
    }
  }
  if (!is.null(busy)) busy_stop(busy)
}
res <- do.call(rbind, rows)
wide <- reshape(res, idvar = c("state", "threads", "case"), timevar = "build", direction = "wide")
wide$B_over_A <- round(wide$seconds.B / wide$seconds.A, 2)
cat("Builds: A =", libs[1], ", B =", libs[2], "\n")
print(knitr::kable(wide, row.names = FALSE))
sp <- reshape(res, idvar = c("state", "build", "case"), timevar = "threads", direction = "wide")
sp$t2_over_t1 <- round(sp$seconds.2 / sp$seconds.1, 2)
print(knitr::kable(sp, row.names = FALSE))
