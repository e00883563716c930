# Hostile-object fuzzer for the R layer: corrupted dgCMatrix slots, tampered
# fits and reducers, unusual types, passed to the exported functions. Each
# batch of cases runs in a child Rscript that notes the case it is about to
# run; a child that dies (segfault, abort, SIGFPE) marks that case a crash and
# the next batch goes on after it. A case ends as "result", "error" (a clean
# R error) or "crash"; errors without a backtick-quoted argument name are
# listed as unclear.
# Run: R_LIBS=.Rlib Rscript tools/fuzz/fuzz_objects.R [cases] [seed]
args <- commandArgs(TRUE)
n_cases <- if (length(args) >= 1L) as.integer(args[1]) else 2000L
seed <- if (length(args) >= 2L) as.integer(args[2]) else 1L
batch <- 200L

child <- '
suppressPackageStartupMessages({library(kmreduce); library(Matrix)})
a <- commandArgs(TRUE)
from <- as.integer(a[1]); to <- as.integer(a[2]); seed <- as.integer(a[3])
progress <- a[4]; out <- a[5]
pdf(NULL)
set.seed(99)
x <- matrix(rnorm(80 * 12), 80)
colnames(x) <- paste0("v", 1:12)
s <- Matrix::rsparsematrix(80, 12, 0.3)
fits <- list(
  sign = kmeans_reduced(x, 3, method = "sign", dims = 4, seed = 1),
  none = kmeans_reduced(x, 3, method = "none", seed = 1),
  lev = kmeans_reduced(x, 3, method = "leverage", dims = 5, seed = 1),
  rsvd = kmeans_reduced(x, 3, method = "rsvd", seed = 1),
  refine = kmeans_reduced(x, 3, method = "gaussian", dims = 4, refine = 2, seed = 1),
  sparse = kmeans_reduced(s, 3, method = "sparse_embedding", dims = 4, seed = 1))
reducers <- list(reduce_dims(x, "srht", dims = 4, seed = 1),
                 fits$sign$reducer, fits$none$reducer)  # with a shift
values <- list(-1L, NA_integer_, 0L, 1L, 79L, 80L, 81L, 12L, 13L, .Machine$integer.max,
               -.Machine$integer.max, NA_real_, Inf, -Inf, NaN, 1e308, 0.5, "a", NULL, TRUE)
what <- character(0)
pick <- function(v) {
  i <- sample.int(length(v), 1L)
  what <<- c(what, if (!is.null(names(v)) && nzchar(names(v)[i])) names(v)[i] else as.character(i))
  v[[i]]
}
corrupt_sparse <- function(m) {
  slot <- sample(c("i", "p", "x", "Dim"), 1L)
  what <<- c(what, paste0("@", slot))
  v <- methods::slot(m, slot)
  how <- sample(c("set", "shorten", "lengthen", "type", "reverse"), 1L)
  v <- switch(how,
    set = { if (length(v)) v[sample.int(length(v), 1L)] <- suppressWarnings(as(pick(values[1:10]), class(v))); v },
    shorten = v[-length(v)],
    lengthen = c(v, v[length(v)]),
    type = as.numeric(v) + 0.5,
    reverse = rev(v))
  tryCatch({ methods::slot(m, slot, check = FALSE) <- v; m }, error = function(e) m)
}
tamper <- function(obj) {
  fields <- names(obj)
  f <- sample(fields, 1L)
  what <<- c(what, f)
  how <- sample(c("null", "value", "shrink", "grow", "nested"), 1L)
  what <<- c(what, how)
  if (how == "null") obj[f] <- list(NULL)
  else if (how == "value") obj[[f]] <- pick(values)
  else if (how == "shrink" && length(obj[[f]]) > 0L) {
    v <- obj[[f]]
    obj[[f]] <- if (is.matrix(v)) v[-1L, , drop = FALSE] else if (is.data.frame(v)) v[-1L, ] else v[-1L]
  } else if (how == "grow" && is.matrix(obj[[f]])) obj[[f]] <- cbind(obj[[f]], 1)
  else if (how == "nested" && is.list(obj$reducer)) {
    g <- sample(names(obj$reducer), 1L)
    what <<- c(what, paste0("reducer$", g))
    obj$reducer[[g]] <- if (runif(1) < 0.3 && length(obj$reducer[[g]]) > 1L) {
      obj$reducer[[g]][-1L]  # one value short (a shift, a rotation...)
    } else {
      pick(values)
    }
  }
  obj
}
odd_inputs <- list(function() new.env(), function() array(1, c(4, 3, 2)), function() data.frame(),
                   function() list(1, 2), function() "x", function() x > 0, function() x[, 0],
                   function() x[0, ], function() { d <- as.data.frame(x); d$v1 <- as.Date("2020-01-01") + 1:80; d },
                   function() x * 1e154, function() cbind(x, NA), function() factor(1:80),
                   function() Matrix::Matrix(x > 0), function() as(s, "TsparseMatrix"))
calls <- list(
  kmeans_reduced = function(d) kmeans_reduced(d, 3, seed = 1, method = sample(c("auto", "none", "sign", "gaussian", "srht",
      "sparse_embedding", "leverage", "cssp", "rsvd", "svd"), 1L), dims = sample(2:6, 1L)),
  sign_project = function(d) sign_project(d, 5, seed = 1),
  randomized_svd = function(d) randomized_svd(d, 2, seed = 1),
  reduce_dims = function(d) reduce_dims(d, "gaussian", dims = 3, seed = 1),
  leverage_scores = function(d) leverage_scores(d, 2, seed = 1),
  kmeans_objective = function(d) kmeans_objective(d, rep_len(1:3, 80)),
  predict = function(d) predict(fits[[sample.int(length(fits), 1L)]], d))
fit_calls <- list(
  function(f) predict(f, x), function(f) predict(f, s), function(f) print(f),
  function(f) summary(f), function(f) plot(f, data = x), function(f) fitted(f),
  function(f) optimality_bound(f, x), function(f) kmreduce::tidy(f), function(f) kmreduce::glance(f),
  function(f) kmreduce::augment(f, data = x))
res <- data.frame(case = integer(0), outcome = character(0), message = character(0), what = character(0))
for (case in from:to) {
  writeLines(as.character(case), progress)
  set.seed(seed * 100003 + case)
  kind <- sample(c("sparse", "fit", "reducer", "odd"), 1L, prob = c(0.4, 0.35, 0.1, 0.15))
  what <- kind
  outcome <- tryCatch({
    run <- function(f, arg) {
      force(f)
      force(arg)
      writeLines(c(case, paste(what, collapse = " ")), progress)  # what is about to run
      f(arg)
    }
    switch(kind,
      sparse = { m <- corrupt_sparse(s); run(pick(calls), m) },
      fit = { f <- tamper(fits[[sample.int(length(fits), 1L)]]); run(pick(fit_calls), f) },
      reducer = run(function(r) predict(r, x), tamper(reducers[[sample.int(length(reducers), 1L)]])),
      odd = { f <- pick(calls); run(f, pick(odd_inputs)()) })
    c("result", "")
  }, error = function(e) c("error", conditionMessage(e)),
     warning = function(w) c("result", ""))
  res[nrow(res) + 1L, ] <- list(case, outcome[1], substr(outcome[2], 1, 200), paste(what, collapse = " "))
}
saveRDS(res, out)
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
rscript <- file.path(R.home("bin"), "Rscript")
all <- list()
crashes <- integer(0)
next_case <- 1L
while (next_case <= n_cases) {
  to <- min(n_cases, next_case + batch - 1L)
  progress <- tempfile()
  out <- tempfile()
  status <- system2(rscript, c("--vanilla", script, next_case, to, seed, progress, out),
                    stdout = FALSE, stderr = FALSE)
  if (file.exists(out)) {
    all[[length(all) + 1L]] <- readRDS(out)
    next_case <- to + 1L
  } else {
    p <- if (file.exists(progress)) readLines(progress) else character(0)
    at <- if (length(p)) as.integer(p[1]) else next_case
    crashes <- c(crashes, at)
    cat(sprintf("case %d (%s): the child died (exit status %s)\n", at,
                if (length(p) > 1L) p[2] else "?", status))
    # Re-run the cases before the crash to keep their outcomes, then skip it.
    if (at > next_case) {
      system2(rscript, c("--vanilla", script, next_case, at - 1L, seed, progress, out),
              stdout = FALSE, stderr = FALSE)
      if (file.exists(out)) all[[length(all) + 1L]] <- readRDS(out)
    }
    next_case <- at + 1L
  }
}
res <- do.call(rbind, all)
unclear <- res[res$outcome == "error" & !grepl("`", res$message), ]
cat(sprintf("\n%d cases (seed %d): %d results, %d clean errors, %d crashes, %d errors without an argument name\n",
            n_cases, seed, sum(res$outcome == "result"), sum(res$outcome == "error"),
            length(crashes), nrow(unclear)))
if (length(crashes)) cat("crashes at cases:", crashes, "\n")
if (nrow(unclear)) {
  cat("\nUnclear errors (first of each):\n")
  u <- unclear[!duplicated(unclear$message), ]
  for (i in seq_len(min(nrow(u), 30L))) {
    cat(sprintf("  case %d (%s): %s\n", u$case[i], u$what[i], u$message[i]))
  }
}
quit(status = if (length(crashes)) 1L else 0L)
