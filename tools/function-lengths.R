# How long are the package's functions? Lists the longest functions of the
# R code (R/) and of the C++ (inst/include/kmreduce/ and src/), in lines,
# longest first, and the number over the limit.
#   R: every top-level `name <- function(...)` of a file, from its first
#      line to its last (a function defined inside another counts as part of
#      it).
#   C++: every function body defined at namespace or class scope (free
#      functions, member functions, `operator()`), from the line of its
#      declarator (the line after a `template <...>` line) to its closing
#      brace; lambdas and local classes count as part of their function.
#      Comments, strings and preprocessor lines are ignored, not macro bodies
#      (a macro is not a function).
# Run from the repository root:
#   Rscript tools/function-lengths.R [N (10)] [LIMIT (100)] [--check] [--cpp | --r]
# prints the N longest of each language (--cpp, --r: of that one only); with
# --check exits 1 when a function shown exceeds LIMIT lines.
args <- commandArgs(TRUE)
flags <- c("--check", "--cpp", "--r")
check <- "--check" %in% args
langs <- c(R = !("--cpp" %in% args) || "--r" %in% args,
           `C++` = !("--r" %in% args) || "--cpp" %in% args)
nums <- suppressWarnings(as.integer(args[!args %in% flags]))
top <- if (length(nums) >= 1 && !is.na(nums[1])) nums[1] else 10L
limit <- if (length(nums) >= 2 && !is.na(nums[2])) nums[2] else 100L
if (!dir.exists("R") || !dir.exists("inst/include/kmreduce"))
  stop("run from the repository root", call. = FALSE)

# R: the top-level assignments of a function in each file.
r_lengths <- function(file) {
  exprs <- parse(file, keep.source = TRUE)
  refs <- attr(exprs, "srcref")
  out <- list()
  for (i in seq_along(exprs)) {
    e <- exprs[[i]]
    if (!is.call(e) || length(e) != 3 ||
        !(identical(e[[1]], as.name("<-")) || identical(e[[1]], as.name("=")))) next
    if (!is.call(e[[3]]) || !identical(e[[3]][[1]], as.name("function"))) next
    out[[length(out) + 1]] <- data.frame(
      file = file, name = paste(deparse(e[[2]]), collapse = ""), line = refs[[i]][1],
      lines = refs[[i]][3] - refs[[i]][1] + 1L)
  }
  do.call(rbind, out)
}

# C++: blank out comments, string and character literals, and preprocessor
# lines (with their continuations), keeping every newline, so that only code
# braces remain and positions keep their line numbers.
strip_cpp <- function(text) {
  pat <- "//[^\n]*|/\\*[\\s\\S]*?\\*/|\"(?:\\\\.|[^\"\\\\\n])*\"|'(?:\\\\.|[^'\\\\\n])*'"
  m <- gregexpr(pat, text, perl = TRUE)
  regmatches(text, m) <- lapply(regmatches(text, m), function(s) gsub("[^\n]", " ", s))
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  pre <- grepl("^\\s*#", lines)
  cont <- grepl("\\\\\\s*$", lines)
  for (i in seq_along(lines)[-1]) if (pre[i - 1] && cont[i - 1]) pre[i] <- TRUE
  lines[pre] <- ""
  paste(lines, collapse = "\n")
}

# A declaration's text without its `template <...>` prefixes (nested <>).
drop_template <- function(h) {
  repeat {
    m <- regexpr("^\\s*template\\s*<", h, perl = TRUE)
    if (m < 0) return(h)
    chars <- strsplit(h, "")[[1]]
    i <- m + attr(m, "match.length") - 1L
    depth <- 0L
    for (j in i:length(chars)) {
      if (chars[j] == "<") depth <- depth + 1L
      if (chars[j] == ">") depth <- depth - 1L
      if (depth == 0L) break
    }
    h <- substring(h, j + 1L)
  }
}

count_char <- function(s, ch) lengths(regmatches(s, gregexpr(ch, s, fixed = TRUE)))

# The name of the function a declaration header defines (`operator()` kept):
# the identifier before the first "(" that opens a parameter list (not one
# of an attribute or of a template argument).
function_name <- function(h) {
  h <- gsub("\\s+", " ", h)
  op <- regmatches(h, regexpr("operator\\s*\\(\\s*\\)|operator\\s*[^ (]+", h))
  if (length(op)) return(gsub("\\s", "", op))
  h <- gsub("__attribute__\\s*\\(\\(.*?\\)\\)", " ", h, perl = TRUE)
  m <- regmatches(h, regexpr("[A-Za-z_~][A-Za-z0-9_:~]*(?=\\s*\\()", h, perl = TRUE))
  if (length(m)) m else "?"
}

cpp_lengths <- function(file) {
  text <- strip_cpp(paste(readLines(file, warn = FALSE), collapse = "\n"))
  line_at <- cumsum(strsplit(text, "")[[1]] == "\n") + 1L
  pos <- gregexpr("[{};]", text)[[1]]
  if (pos[1] < 0) return(NULL)
  marks <- substring(text, pos, pos)
  stack <- list()  # scopes: list(kind, name, start line)
  start <- 1L      # where the current declaration began
  out <- list()
  scope_kind <- function() if (length(stack)) stack[[length(stack)]]$kind else "namespace"
  for (i in seq_along(pos)) {
    p <- pos[i]
    kind <- scope_kind()
    header <- substring(text, start, p - 1L)
    if (marks[i] == ";") {
      if (kind %in% c("namespace", "class")) start <- p + 1L
      next
    }
    if (marks[i] == "}") {
      if (!length(stack)) stop(file, ": unbalanced braces", call. = FALSE)
      top_scope <- stack[[length(stack)]]
      stack[[length(stack)]] <- NULL
      if (top_scope$kind == "function") {
        out[[length(out) + 1]] <- data.frame(
          file = file, name = top_scope$name, line = top_scope$line,
          lines = line_at[p] - top_scope$line + 1L)
      }
      if (top_scope$kind != "init") start <- p + 1L
      next
    }
    # an opening brace
    if (!kind %in% c("namespace", "class")) {
      stack[[length(stack) + 1]] <- list(kind = "block")
      next
    }
    h <- drop_template(header)
    trimmed <- sub("\\s+$", "", h)
    open_parens <- count_char(h, "(") > count_char(h, ")")
    ctor_init <- kind == "class" && grepl("\\)\\s*(noexcept\\s*)?:[^:]", h, perl = TRUE) &&
      grepl("[A-Za-z0-9_]$", trimmed)
    new <- if (open_parens || ctor_init || grepl("=\\s*$", trimmed)) {
      list(kind = "init")
    } else if (grepl("^\\s*(namespace\\b|extern\\s*$|inline\\s+namespace\\b)", h, perl = TRUE)) {
      list(kind = "namespace")
    } else if (grepl("^\\s*([A-Za-z_]+\\s+)*(struct|class|union|enum)\\b", h, perl = TRUE) &&
               !grepl("\\)\\s*(const\\s*)?(noexcept\\s*)?(override\\s*)?$", trimmed)) {
      list(kind = "class", name = sub("^.*?\\b(?:struct|class|union|enum)\\s+(?:class\\s+)?([A-Za-z_][A-Za-z0-9_]*).*$", "\\1", gsub("\\s+", " ", h), perl = TRUE))
    } else if (grepl("(", h, fixed = TRUE)) {
      owner <- Filter(function(s) s$kind == "class", stack)
      name <- function_name(h)
      if (length(owner)) name <- paste0(owner[[length(owner)]]$name, "::", name)
      list(kind = "function", name = name)
    } else {
      list(kind = "block")
    }
    if (new$kind == "function") {
      # the line of the declarator: the first non-blank after the template
      skipped <- nchar(header) - nchar(h)
      new$line <- line_at[start + skipped + regexpr("\\S", h) - 1L]
    }
    stack[[length(stack) + 1]] <- new
    if (new$kind != "init") start <- p + 1L
  }
  if (length(stack)) stop(file, ": unbalanced braces", call. = FALSE)
  do.call(rbind, out)
}

r_files <- list.files("R", pattern = "\\.[Rr]$", full.names = TRUE)
cpp_files <- c(list.files("inst/include/kmreduce", pattern = "\\.(hpp|h)$", recursive = TRUE,
                          full.names = TRUE),
               list.files("src", pattern = "\\.(cpp|h)$", recursive = FALSE, full.names = TRUE))
cpp_files <- setdiff(cpp_files, "src/RcppExports.cpp")  # generated
tables <- list(R = function() do.call(rbind, lapply(r_files, r_lengths)),
               `C++` = function() do.call(rbind, lapply(cpp_files, cpp_lengths)))
over <- 0L
for (lang in names(tables)[langs]) {
  t <- tables[[lang]]()
  t <- t[order(-t$lines, t$file, t$line), ]
  n_over <- sum(t$lines > limit)
  over <- over + n_over
  cat(sprintf("%s: %d functions, %d over %d lines; the %d longest:\n", lang, nrow(t), n_over,
              limit, min(top, nrow(t))))
  shown <- head(t, top)
  cat(sprintf("  %4d  %s (%s:%d)\n", shown$lines, shown$name, shown$file, shown$line), sep = "")
}
if (check && over > 0L) quit(status = 1L)
