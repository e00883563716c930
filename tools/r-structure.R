# The structure targets of the R layer (issue 66, "Structure, part two"):
#   S3 generics      UseMethod() calls in R/*.R (from the parse, not comments)
#   static graph     for each top-level `name <- function` of R/*.R, the
#                    package functions it uses (codetools::findGlobals(): called,
#                    or passed as a value, e.g. lapply(x, helper)); a use of a
#                    function defined in another file is an edge between files.
#                    The circles are the strongly connected components (Tarjan).
#   default call     kmeans_reduced(x, 10, seed = 1) on a dense 5000 x 200
#                    matrix, every closure of the namespace traced: the R files
#                    entered and the calls crossing files (the caller: the
#                    nearest package function up the parent frames; of an S3
#                    method its generic; of a call back from C++ the function
#                    that made the .Call).
# Run from the package root:
#   Rscript tools/r-structure.R [--lib LIB] [--check]
# LIB (default .Rlib) holds the installed package; functions are mapped to
# files by their srcref when it was installed with --with-keep.source, else by
# name from the parse of R/ (so R/ should be the installed sources).
# --check exits 1 unless generics <= 10, largest circle <= 3, files entered
# <= 12 and calls crossing files <= 60.
args <- commandArgs(TRUE)
lib <- if ("--lib" %in% args) args[match("--lib", args) + 1L] else ".Rlib"
targets <- c(generics = 10, circle = 3, files = 12, crossing = 60)

# Top-level function definitions of the files: name, file and the closure
# (evaluated in baseenv(), only to be read), and the number of UseMethod().
parse_r_files <- function(dir = "R") {
  files <- sort(list.files(dir, "\\.[Rr]$", full.names = TRUE))
  defs <- list()
  generics <- 0L
  for (path in files) {
    exprs <- parse(path, keep.source = TRUE)
    pd <- utils::getParseData(exprs)
    generics <- generics + sum(pd$token == "SYMBOL_FUNCTION_CALL" & pd$text == "UseMethod")
    for (e in exprs) {
      if (is.call(e) && length(e) == 3L && as.character(e[[1L]]) %in% c("<-", "=") &&
          is.name(e[[2L]]) && is.call(e[[3L]]) && identical(e[[3L]][[1L]], as.name("function"))) {
        defs[[length(defs) + 1L]] <- list(name = as.character(e[[2L]]), file = basename(path),
                                          fun = eval(e[[3L]], baseenv()))
      }
    }
  }
  names(defs) <- vapply(defs, `[[`, "", "name")
  list(defs = defs, generics = generics, files = basename(files))
}

# The file graph: for each file, the other files whose functions it uses.
file_graph <- function(parsed) {
  file_of <- vapply(parsed$defs, `[[`, "", "file")  # (a name defined twice: the last)
  adj <- setNames(rep(list(character()), length(parsed$files)), parsed$files)
  for (d in parsed$defs) {
    g <- suppressWarnings(codetools::findGlobals(d$fun, merge = FALSE))
    used <- intersect(c(g$functions, g$variables), names(file_of))
    adj[[d$file]] <- union(adj[[d$file]], setdiff(file_of[used], d$file))
  }
  adj
}

# Strongly connected components of a graph given as a named list of successors.
tarjan <- function(adj) {
  nodes <- names(adj)
  index <- low <- setNames(rep(NA_integer_, length(nodes)), nodes)
  on_stack <- setNames(rep(FALSE, length(nodes)), nodes)
  stack <- character()
  counter <- 0L
  comps <- list()
  visit <- function(v) {
    counter <<- counter + 1L
    index[v] <<- low[v] <<- counter
    stack <<- c(v, stack)
    on_stack[v] <<- TRUE
    for (w in adj[[v]]) {
      if (is.na(index[w])) {
        visit(w)
        low[v] <<- min(low[v], low[w])
      } else if (on_stack[w]) {
        low[v] <<- min(low[v], index[w])
      }
    }
    if (low[v] == index[v]) {
      top <- seq_len(match(v, stack))
      comps[[length(comps) + 1L]] <<- stack[top]
      on_stack[stack[top]] <<- FALSE
      stack <<- stack[-top]
    }
  }
  for (v in nodes) if (is.na(index[v])) visit(v)
  comps
}

# The file of a namespace function: its srcref, else its name in the parse.
function_file <- function(fn, name, file_of) {
  src <- utils::getSrcFilename(fn)
  if (length(src) && nzchar(src)) return(basename(src))
  if (name %in% names(file_of)) file_of[[name]] else NA_character_
}

# Traces every closure of the namespace defined in R/, runs `call` and returns
# the file of each call and the crossing edges ("a.R -> b.R", one per call).
# The traced frames still on the call stack are kept in a stack pruned at each
# entry (no exit hooks, which a function's own on.exit() without add = TRUE
# would replace).
trace_call <- function(ns, file_of, call) {
  fns <- ls(ns, all.names = TRUE)
  fns <- fns[vapply(fns, function(n) is.function(f <- get(n, envir = ns)) &&
                      !is.primitive(f) && identical(environment(f), ns), NA)]
  files <- vapply(fns, function(n) function_file(get(n, envir = ns), n, file_of), "")
  files <- files[!is.na(files)]
  log <- new.env()
  log$frames <- list()  # (named by their files, the newest first)
  log$entered <- log$crossing <- character()
  hook <- function(file) {
    me <- parent.frame()
    live <- sys.frames()
    while (length(log$frames) && !any(vapply(live, identical, NA, log$frames[[1L]])))
      log$frames <- log$frames[-1L]
    # The caller: of a method its generic (the newest traced frame); else up
    # the parent frames (where each call was evaluated, so a promise counts for
    # the function that wrote it) to a traced frame; for a call back from C++
    # (no parent frame) the newest traced frame, which entered C++.
    caller <- if (length(log$frames)) names(log$frames)[1L] else NA
    parents <- sys.parents()
    i <- if (exists(".Generic", envir = me, inherits = FALSE)) 0L
         else max(which(vapply(live, identical, NA, me)))
    while (i > 0L && (i <- parents[i]) > 0L) {
      k <- which(vapply(log$frames, identical, NA, live[[i]]))
      if (length(k)) {
        caller <- names(log$frames)[k[1L]]
        break
      }
    }
    if (!is.na(caller) && caller != file) log$crossing <- c(log$crossing, paste(caller, "->", file))
    log$entered <- c(log$entered, file)
    log$frames <- c(setNames(list(me), file), log$frames)
  }
  for (n in names(files)) {
    suppressMessages(trace(n, tracer = as.call(list(hook, files[[n]])), where = ns, print = FALSE))
  }
  on.exit(for (n in names(files)) suppressMessages(untrace(n, where = ns)))
  eval(call, parent.frame())
  list(traced = length(files), entered = log$entered, crossing = log$crossing)
}

report_static <- function(parsed) {
  cat(sprintf("S3 generics in R/: %d\n", parsed$generics))
  adj <- file_graph(parsed)
  comps <- tarjan(adj)
  sizes <- lengths(comps)
  big <- sort(comps[[which.max(sizes)]])
  cat(sprintf("R files: %d, top-level functions: %d, edges between files: %d\n",
              length(adj), length(parsed$defs), sum(lengths(adj))))
  cat(sprintf("largest circle of R files calling each other: %d files\n", max(sizes)))
  if (max(sizes) > 1L) cat(strwrap(paste(big, collapse = " "), indent = 2, exdent = 2), sep = "\n")
  if (sum(sizes > 1L) > 1L) cat(sprintf("  (other circles: sizes %s)\n",
                                        paste(sort(sizes[sizes > 1L], TRUE)[-1L], collapse = ", ")))
  pairs <- unlist(lapply(names(adj), function(a) {
    b <- adj[[a]][vapply(adj[[a]], function(b) a %in% adj[[b]] && a < b, NA)]
    if (length(b)) paste(a, "<->", b)
  }))
  cat(sprintf("pairs of files calling each other directly: %d\n", length(pairs)))
  if (length(pairs)) cat(paste0("  ", pairs), sep = "\n")
  c(generics = parsed$generics, circle = max(sizes))
}

report_dynamic <- function(parsed, lib) {
  if (!file.exists(file.path(lib, "kmreduce", "R", "kmreduce.rdb"))) {
    cat(sprintf("default call: skipped, no installed kmreduce under %s\n", lib))
    return(c(files = NA, crossing = NA))
  }
  .libPaths(c(lib, .libPaths()))
  ns <- loadNamespace("kmreduce", lib.loc = lib)
  set.seed(1)
  x <- matrix(rnorm(5000 * 200), 5000)
  file_of <- vapply(parsed$defs, `[[`, "", "file")
  res <- trace_call(ns, file_of, quote(ns$kmeans_reduced(x, 10, seed = 1)))
  files <- length(unique(res$entered))
  cat(sprintf("default call: enters %d R files, %d calls crossing files\n",
              files, length(res$crossing)))
  cat(sprintf("  (%d namespace closures traced, %d calls to them)\n", res$traced,
              length(res$entered)))
  cat(strwrap(paste(c("files entered:", sort(unique(res$entered))), collapse = " "),
              indent = 2, exdent = 4), sep = "\n")
  top <- utils::head(sort(table(res$crossing), decreasing = TRUE), 10L)
  if (length(top)) {
    cat("top crossing edges:\n")
    cat(sprintf("%6d  %s", as.integer(top), names(top)), sep = "\n")
  }
  c(files = files, crossing = length(res$crossing))
}

parsed <- parse_r_files("R")
if (!length(parsed$files)) stop("no R/*.R under ", normalizePath("."), ": run from the package root")
figures <- c(report_static(parsed), report_dynamic(parsed, lib))
if ("--check" %in% args) {
  fail <- names(targets)[is.na(figures[names(targets)]) | figures[names(targets)] > targets]
  for (f in fail) cat(sprintf("FAIL %s: %s (target <= %d)\n", f,
                              if (is.na(figures[[f]])) "not measured" else figures[[f]], targets[[f]]))
  if (length(fail)) quit(status = 1L)
  cat("all structure targets met\n")
}
