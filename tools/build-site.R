# Builds the pkgdown site into docs/ (make site), offline: the package must be
# installed (make install), the articles are precomputed Markdown.
if (!requireNamespace("pkgdown", quietly = TRUE)) {
  stop("make site needs pkgdown: bash tools/install-deps.sh docs", call. = FALSE)
}
# Packages that ask for the time zone warn when it is unset and the machine
# has no timedatectl.
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
# Offline: no look-up of the package on CRAN or Bioconductor.
options(pkgdown.internet = FALSE)
pkgdown::build_site(".", preview = FALSE, install = FALSE, new_process = FALSE)

# Maths are rendered by KaTeX in the reader's browser from the site's own copy
# (pkgdown/templates/head.html), so that the site works offline: Debian's
# libjs-katex (tools/install-deps.sh docs), or KATEX_DIR pointing to a KaTeX
# distribution (katex.min.js, katex.min.css, fonts/, contrib/auto-render.js).
katex <- Sys.getenv("KATEX_DIR", "/usr/share/javascript/katex")
need <- file.path(katex, c("katex.min.js", "katex.min.css", "fonts", "contrib/auto-render.js"))
if (!all(file.exists(need))) {
  stop("make site needs KaTeX for the formulas: install Debian's libjs-katex, or set ",
       "KATEX_DIR to a KaTeX distribution (missing: ", paste(need[!file.exists(need)], collapse = ", "),
       ")", call. = FALSE)
}
dest <- file.path("docs", "katex")
dir.create(file.path(dest, "contrib"), recursive = TRUE, showWarnings = FALSE)
invisible(file.copy(need[1:2], dest, overwrite = TRUE))
fonts <- file.path(dest, "fonts")
dir.create(fonts, showWarnings = FALSE)
invisible(file.copy(list.files(normalizePath(need[3]), full.names = TRUE), fonts, overwrite = TRUE))
invisible(file.copy(need[4], file.path(dest, "contrib"), overwrite = TRUE))
message("KaTeX copied to ", dest)
