# The summary table of target.sh from its RESULT and PEAK lines:
#
#   Rscript bench/atlas/target_table.R RESULTS_FILE [mbkmeans_cap_s]
args <- commandArgs(trailingOnly = TRUE)
lines <- readLines(args[[1L]])
cap <- if (length(args) >= 2L) as.numeric(args[[2L]]) else NA
kv <- function(line) {
  f <- strsplit(trimws(line), " +")[[1L]]
  f <- f[grepl("=", f, fixed = TRUE)]
  stats::setNames(sub("^[^=]*=", "", f), sub("=.*$", "", f))
}
get <- function(prefix, part, key = NULL, where = NULL) {
  for (l in grep(paste0("^", prefix, " ", part, " "), lines, value = TRUE)) {
    v <- kv(l)
    if (!is.na(v["step"])) next            # intermediate lines (mbkmeans' library sizes)
    if (!is.null(where) && !identical(unname(v[names(where)]), unname(where))) next
    if (is.null(key)) return(v)
    if (!is.na(v[key])) return(v[[key]])
  }
  NA_character_
}
num <- function(x) suppressWarnings(as.numeric(x))
peak_gb <- function(part) num(get("PEAK", part, "peak_rss_kb")) / 1024^2
rc <- function(part) num(get("PEAK", part, "rc"))

read_s <- num(get("RESULT", "read", "seconds"))
read_cpu <- num(get("RESULT", "read", "cpu_s"))
row <- function(part, label = part) {
  done <- isTRUE(rc(part) == 0)
  s <- num(get("RESULT", part, "seconds"))
  cpu_s <- num(get("RESULT", part, "cpu_s"))
  sc <- function(key) num(get("RESULT", "score", key, where = c(method = part)))
  data.frame(part = label,
             elapsed_s = if (done) s else NA, cpu_s = if (done) cpu_s else NA,
             peak_rss_gb = peak_gb(part),
             ratio_to_read = if (done) s / read_s else NA,
             wcss = if (part == "read") NA else sc("wcss"),
             ari = if (part == "read") NA else sc("ari"),
             note = if (is.na(rc(part))) "not run"
                    else if (rc(part) == 124) sprintf("not finished in %.0f s", cap)
                    else if (!done) sprintf("failed (exit %d)", rc(part)) else "",
             stringsAsFactors = FALSE)
}
tab <- rbind(row("read"), row("kmreduce"), row("mbkmeans"))
planted <- data.frame(part = "planted types", elapsed_s = NA, cpu_s = NA, peak_rss_gb = NA,
                      ratio_to_read = NA,
                      wcss = num(get("RESULT", "score", "wcss", where = c(method = "planted"))),
                      ari = num(get("RESULT", "score", "ari", where = c(method = "planted"))),
                      note = "", stringsAsFactors = FALSE)
tab <- rbind(tab, planted)
fmt <- tab
fmt$elapsed_s <- formatC(tab$elapsed_s, format = "f", digits = 1)
fmt$cpu_s <- formatC(tab$cpu_s, format = "f", digits = 1)
fmt$peak_rss_gb <- formatC(tab$peak_rss_gb, format = "f", digits = 2)
fmt$ratio_to_read <- formatC(tab$ratio_to_read, format = "f", digits = 2)
fmt$wcss <- formatC(tab$wcss, format = "e", digits = 5)
fmt$ari <- formatC(tab$ari, format = "f", digits = 4)
fmt[] <- lapply(fmt, function(v) ifelse(trimws(v) == "NA", "-", v))
options(width = 200)
cat(sprintf("kmreduce: path=%s dims=%s n_init=%s n_threads=%s iterations=%s (reduce %s s, cluster %s s)\n",
            get("RESULT", "kmreduce", "path"), get("RESULT", "kmreduce", "dims"),
            get("RESULT", "kmreduce", "n_init"), get("RESULT", "kmreduce", "n_threads"),
            get("RESULT", "kmreduce", "iter"), get("RESULT", "kmreduce", "reduce_s"),
            get("RESULT", "kmreduce", "cluster_s")))
print(fmt, row.names = FALSE, right = FALSE)

km <- tab[tab$part == "kmreduce", ]
mb <- tab[tab$part == "mbkmeans", ]
mark <- function(ok) if (is.na(ok)) "unknown" else if (ok) "met" else "NOT met"
mb_done <- !is.na(mb$elapsed_s)
mb_lower <- if (mb_done) mb$elapsed_s else if (isTRUE(rc("mbkmeans") == 124)) cap else NA
cat("\ntargets:\n")
cat(sprintf("  peak RSS of the fit <= 6 GB: %.2f GB: %s\n", km$peak_rss_gb,
            mark(km$peak_rss_gb <= 6)))
cat(sprintf("  fit <= 3x read: %.1f s / %.1f s = %.2fx (CPU %.1f s / %.1f s = %.2fx): %s\n",
            km$elapsed_s, read_s, km$ratio_to_read, km$cpu_s, read_cpu, km$cpu_s / read_cpu,
            mark(km$ratio_to_read <= 3)))
cat(sprintf("  faster than mbkmeans: %.1f s vs %s: %s\n", km$elapsed_s,
            if (mb_done) sprintf("%.1f s", mb$elapsed_s)
            else if (!is.na(mb_lower)) sprintf("> %.0f s (not finished)", mb_lower) else "not run",
            mark(km$elapsed_s < mb_lower)))
cat(sprintf("  lower WCSS than mbkmeans: %s\n",
            if (mb_done) sprintf("%.5e vs %.5e: %s", km$wcss, mb$wcss, mark(km$wcss < mb$wcss))
            else "mbkmeans has no partition: unknown"))
cat(sprintf("  higher ARI than mbkmeans: %s\n",
            if (mb_done) sprintf("%.4f vs %.4f: %s", km$ari, mb$ari, mark(km$ari > mb$ari))
            else "mbkmeans has no partition: unknown"))
