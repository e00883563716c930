# Does ARCHITECTURE.md name only things that exist? Every backticked token
# that looks like a name is looked up in the package's sources:
#   a path (R/x.R, src/, inst/include/..., tools/..., a bare file.hpp)
#                          the file or folder exists (from the root, the
#                          core's headers or bench/; a bare name: somewhere
#                          under inst/include, src, R, tools, tests or bench;
#                          a pattern R/checks_*.R: some file matches; an
#                          output listed in .gitignore, e.g. docs/; a
#                          placeholder R/source_<name>.R is skipped)
#   file::name             the file exists and defines or mentions name
#   name()                 an R function defined in R/ (`name <- function`),
#                          a C++ function, struct or class defined in the core
#                          or the glue, or a function of base R or of a
#                          package the package uses
#   a name with _ or ::    appears as a word in the sources (R, C++, tools,
#                          tests, Makefile)
# Words without those marks (`x`, `none`, `dims`) and expressions (with a
# space, $, operators) are not checked.
# Run from the repository root: Rscript tools/check-architecture.R
# Prints the names it could not find and exits 1 when there are any.
args <- commandArgs(TRUE)
root <- if (length(args)) args[1] else "."
doc <- file.path(root, "ARCHITECTURE.md")
if (!file.exists(doc)) stop("no ARCHITECTURE.md under ", normalizePath(root))
text <- readLines(doc, warn = FALSE)
# (code blocks are examples, not names)
fence <- cumsum(grepl("^```", text)) %% 2 == 1
tokens <- unique(unlist(regmatches(text[!fence], gregexpr("`[^`\n]+`", text[!fence]))))
tokens <- gsub("^`|`$", "", tokens)

files_under <- function(dirs, pattern) {
  dirs <- file.path(root, dirs)
  unlist(lapply(dirs[dir.exists(dirs)], list.files, pattern = pattern, recursive = TRUE,
                full.names = TRUE))
}
r_files <- files_under(c("R", "tests", "tools", "bench"), "\\.[Rr]$")
cpp_files <- files_under(c("src", "inst/include", "tools"), "\\.(h|hpp|cpp)$")
other <- file.path(root, c("Makefile", "DESCRIPTION", "NAMESPACE", "src/Makevars.in", "src/Makevars.win", "configure"))
all_files <- c(r_files, cpp_files, files_under(c("tools", ".ci"), "\\.sh$|^run$"),
               other[file.exists(other)])
read_all <- function(f) vapply(f, function(p) paste(readLines(p, warn = FALSE), collapse = "\n"),
                               character(1))
src_text <- read_all(all_files)
r_text <- read_all(r_files)
cpp_text <- read_all(cpp_files)
esc <- function(s) gsub("([.\\\\|()\\[\\]{}^$*+?])", "\\\\\\1", s, perl = TRUE)
mentions <- function(name, text = src_text) {
  # (a macro may be defined on the command line: -DNAME)
  any(grepl(sprintf("((?<![A-Za-z0-9_])|(?<=-D))%s(?![A-Za-z0-9_])", esc(name)), text, perl = TRUE))
}
defines <- function(name) {
  r_def <- sprintf("(?m)^\\s*%s\\s*<-\\s*function", esc(name))
  cpp_def <- sprintf(paste0("(?m)(^|[\\s*&>:])%s\\s*(\\([^;{]*\\)\\s*(const\\s*)?(noexcept\\s*)?",
                            "(->[^{;]*)?\\{|\\([^;{]*$)|(struct|class|using|enum)\\s+%s\\b|",
                            "#define\\s+%s\\b"), esc(name), esc(name), esc(name))
  any(grepl(r_def, r_text, perl = TRUE)) || any(grepl(cpp_def, cpp_text, perl = TRUE))
}
r_function <- function(name) {
  pkgs <- c("base", "stats", "utils", "graphics", "grDevices", "methods", "tools", "parallel",
            "Matrix", "Rcpp", "testthat", "bigmemory", "pbdMPI", "generics")
  any(vapply(pkgs, function(p) {
    requireNamespace(p, quietly = TRUE) && exists(name, envir = asNamespace(p), inherits = FALSE)
  }, logical(1)))
}
path_like <- function(t) grepl("/", t) || grepl("\\.(hpp|cpp|h|R|Rmd|md|sh|yml)$", t)
find_path <- function(t) {
  # a pattern (`R/checks_*.R`): some file matches it
  if (grepl("*", t, fixed = TRUE)) return(length(Sys.glob(file.path(root, t))) > 0L)
  # an output the build writes (a line of .gitignore, e.g. `docs/`)
  ignore <- file.path(root, ".gitignore")
  if (file.exists(ignore) && t %in% readLines(ignore, warn = FALSE)) return(TRUE)
  # a path from the root, or within the core's headers or bench/
  if (grepl("/", t)) {
    return(any(file.exists(file.path(root, c("", "inst/include/kmreduce", "bench"), t))))
  }
  length(files_under(c("inst/include", "src", "R", "tools", "tests", "bench", "vignettes"),
                     sprintf("^%s$", esc(t)))) > 0 || file.exists(file.path(root, t))
}

problems <- character()
for (t in tokens) {
  # (a placeholder: `R/source_<name>.R`)
  if (grepl("<[a-z_]+>", t)) next
  if (grepl("::", t) && path_like(sub("::.*$", "", t))) {
    # file::name
    f <- sub("::.*$", "", t); name <- sub("\\(.*$", "", sub("^.*::", "", t))
    hits <- if (grepl("/", f)) file.path(root, f) else
      files_under(c("inst/include", "src"), sprintf("^%s$", esc(f)))
    hits <- hits[file.exists(hits)]
    if (!length(hits) || !any(grepl(sprintf("\\b%s\\b", esc(name)), read_all(hits), perl = TRUE)))
      problems <- c(problems, t)
  } else if (path_like(t) && !grepl("[ ()$]", t)) {
    if (!find_path(t)) problems <- c(problems, t)
  } else if (grepl("^[A-Za-z_.][A-Za-z0-9_.:]*\\(\\)$", t)) {
    name <- sub("\\(\\)$", "", sub("^.*::", "", t))
    if (!defines(name) && !r_function(name)) problems <- c(problems, t)
  } else if (grepl("^[A-Za-z_][A-Za-z0-9_.:]*$", t) && grepl("_|::", t)) {
    name <- sub("^.*::", "", t)
    if (!mentions(name) && !r_function(name)) problems <- c(problems, t)
  }
}
cat(sprintf("ARCHITECTURE.md: %d backticked tokens, %d names not found in the sources\n",
            length(tokens), length(problems)))
if (length(problems)) {
  cat(paste0("  `", problems, "`\n"), sep = "")
  quit(status = 1L)
}
