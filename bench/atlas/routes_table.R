# The table of routes.sh from its RESULT, PEAK and MISSING lines:
#
#   Rscript bench/atlas/routes_table.R RESULTS_FILE [mbkmeans_cap_s]
#
# One row per route: time (s, in the route's process from opening the file
# to the labels), CPU s, time / the plain read, peak RSS (GB), WCSS on the
# log1p-size-factor data, ARI against the planted types; then which route
# has the best ARI, the default's time against 3x the read, the fastest
# route within 0.02 ARI of the best, and the front of time against ARI: the
# routes that no other route beats on both (as fast or faster and as high an
# ARI or higher, one of them strictly).
args <- commandArgs(trailingOnly = TRUE)
lines <- readLines(args[[1L]])
cap <- if (length(args) >= 2L) as.numeric(args[[2L]]) else NA
routes <- c("default", "no_cache", "svd_rows_50k", "power0", "dims100", "svd_rows_10k",
            "cpm_embedding", "osca", "mbkmeans")
kv <- function(line) {
  f <- strsplit(trimws(line), " +")[[1L]]
  f <- f[grepl("=", f, fixed = TRUE)]
  stats::setNames(sub("^[^=]*=", "", f), sub("=.*$", "", f))
}
get <- function(prefix, part, key, where = NULL) {
  for (l in grep(paste0("^", prefix, " ", part, " "), lines, value = TRUE)) {
    v <- kv(l)
    if (!is.null(where) && !identical(unname(v[names(where)]), unname(where))) next
    if (!is.na(v[key])) return(v[[key]])
  }
  NA_character_
}
num <- function(x) suppressWarnings(as.numeric(x))
missing_route <- function(r) any(lines == paste("MISSING", r))
read_s <- num(get("RESULT", "read", "seconds"))

row <- function(r) {
  rc <- num(get("PEAK", r, "rc"))
  done <- isTRUE(rc == 0)
  s <- num(get("RESULT", r, "seconds"))
  sc <- function(key) num(get("RESULT", "score", key, where = c(method = r)))
  note <- if (missing_route(r)) "not installed"
          else if (is.na(rc)) "not run"
          else if (rc == 124) sprintf("not finished in %.0f s", cap)
          else if (!done) sprintf("failed (exit %d)", rc)
          else {
            runs <- num(get("PEAK", r, "runs"))
            d <- c(if (!is.na(runs) && runs > 1) sprintf("best of %d", runs),
                   if (!is.na(get("RESULT", r, "method")))
                     sprintf("%s %s dims, %s iterations (reduce %s s, cluster %s s)",
                             get("RESULT", r, "method"), get("RESULT", r, "dims"),
                             get("RESULT", r, "iter"), get("RESULT", r, "reduce_s"),
                             get("RESULT", r, "cluster_s")),
                   if (r == "osca")
                     sprintf("load %s s, norm + HVGs %s s, PCA %s s, kmeans %s s",
                             get("RESULT", r, "load_s"), get("RESULT", r, "norm_hvg_s"),
                             get("RESULT", r, "pca_s"), get("RESULT", r, "kmeans_s")))
            paste(d, collapse = "; ")
          }
  data.frame(route = r, time_s = if (done) s else NA,
             cpu_s = if (done) num(get("RESULT", r, "cpu_s")) else NA,
             time_over_read = if (done) s / read_s else NA,
             peak_gb = num(get("PEAK", r, "peak_rss_kb")) / 1024^2,
             wcss = sc("wcss"), ari = sc("ari"), note = note, stringsAsFactors = FALSE)
}
tab <- do.call(rbind, lapply(routes, row))
read_row <- data.frame(route = "read (rhdf5, plain)", time_s = read_s,
                       cpu_s = num(get("RESULT", "read", "cpu_s")), time_over_read = 1,
                       peak_gb = num(get("PEAK", "read", "peak_rss_kb")) / 1024^2,
                       wcss = NA, ari = NA,
                       note = sprintf("best of runs %s s", get("RESULT", "read", "runs")),
                       stringsAsFactors = FALSE)
planted <- data.frame(route = "planted types", time_s = NA, cpu_s = NA, time_over_read = NA,
                      peak_gb = NA, wcss = num(get("RESULT", "score", "wcss", c(method = "planted"))),
                      ari = num(get("RESULT", "score", "ari", c(method = "planted"))),
                      note = "", stringsAsFactors = FALSE)
all <- rbind(read_row, tab, planted)

cat(sprintf("WCSS on %s data (scale %s), one scoring pass (%s s, library sizes %s s)\n",
            get("RESULT", "score", "normalize"), get("RESULT", "score", "target"),
            get("RESULT", "score", "seconds", c(method = "planted")),
            get("RESULT", "score", "library_pass_s")))
f <- function(x, fmt) ifelse(is.na(x), "-", sprintf(fmt, x))
md <- with(all, paste("|", route, "|", f(time_s, "%.1f"), "|", f(cpu_s, "%.1f"), "|",
                      f(time_over_read, "%.2f"), "|", f(peak_gb, "%.2f"), "|", f(wcss, "%.5e"),
                      "|", f(ari, "%.4f"), "|", note, "|"))
cat("| route | time s | CPU s | time / read | peak RSS GB | WCSS | ARI | note |\n")
cat("|---|---|---|---|---|---|---|---|\n")
cat(md, sep = "\n")

ok <- tab[!is.na(tab$ari) & !is.na(tab$time_s), ]
if (nrow(ok)) {
  best <- ok[which.max(ok$ari), ]
  near <- ok[ok$ari >= best$ari - 0.02, ]
  fast <- near[which.min(near$time_s), ]
  d <- tab[tab$route == "default", ]
  cat(sprintf("\nbest ARI: %s (%.4f)\n", best$route, best$ari))
  if (!is.na(d$time_s)) {
    cat(sprintf("default: %.1f s = %.2fx the read (3x the read = %.1f s: %s by %.1f s)\n",
                d$time_s, d$time_over_read, 3 * read_s,
                if (d$time_over_read <= 3) "under" else "over", abs(d$time_s - 3 * read_s)))
  }
  cat(sprintf("fastest within 0.02 ARI of the best: %s (%.1f s, %.2fx the read, ARI %.4f)\n",
              fast$route, fast$time_s, fast$time_over_read, fast$ari))
  # The front of time against ARI, fastest first.
  beaten <- vapply(seq_len(nrow(ok)), function(i) {
    any(ok$time_s <= ok$time_s[i] & ok$ari >= ok$ari[i] &
        (ok$time_s < ok$time_s[i] | ok$ari > ok$ari[i]))
  }, logical(1))
  front <- ok[!beaten, ]
  front <- front[order(front$time_s), ]
  cat("\nthe front of time against ARI (no route both as fast and as good):\n")
  cat("| route | time s | time / read | ARI | WCSS |\n|---|---|---|---|---|\n")
  cat(sprintf("| %s | %.1f | %.2f | %.4f | %s |", front$route, front$time_s,
              front$time_over_read, front$ari, f(front$wcss, "%.5e")), sep = "\n")
}
