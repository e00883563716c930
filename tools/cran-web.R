# R CMD check --as-cran reads CRAN's package table (web/packages/packages.rds)
# to tell whether a suggested package that is not installed is orphaned. Where
# the configured repository serves packages but not that table (a mirror of
# src/contrib only, no network), the check stops with an error. This prints
# the URL to give as R_CRAN_WEB: the repository's own when its table can be
# read, otherwise a local folder (argument 1) holding an empty table, which
# says only that no package is known to be orphaned.
args <- commandArgs(TRUE)
source("tools/repos.R")
cran <- tools:::CRAN_baseurl_for_web_area()
ok <- tryCatch({
  con <- gzcon(url(sprintf("%s/web/packages/packages.rds", cran), open = "rb"))
  on.exit(close(con))
  is.data.frame(as.data.frame(readRDS(con)))
}, error = function(e) FALSE, warning = function(w) FALSE)
if (isTRUE(ok)) {
  cat(cran)
} else {
  dir <- file.path(normalizePath(args[1L], mustWork = FALSE), "web", "packages")
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  saveRDS(data.frame(Package = character(0), Maintainer = character(0)),
          file.path(dir, "packages.rds"))
  cat(paste0("file://", normalizePath(args[1L])))
}
