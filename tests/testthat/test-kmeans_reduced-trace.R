# kmeans_reduced(trace = ): one line per iteration with the objective, the
# rows moved and the time; the objective of Lloyd never increases; tracing
# never changes a result; nothing is printed by default outside interactive
# sessions.

trace_case <- function() make_mixture(n = 600, d = 5, k = 4, sd = 1.5, sep = 3, seed = 17)$x

# The numbers of trace lines: replicate, step, objective, moved, seconds.
parse_trace <- function(lines, step = "Lloyd iteration") {
  pattern <- paste0("^kmreduce: (replicate (\\d+)/(\\d+), |polish of start (\\d+), )?", step,
                    " (\\d+): objective ([-0-9.e+]+), (\\d+) rows moved, ([0-9.]+) s$")
  hit <- grepl(pattern, lines)
  m <- regmatches(lines[hit], regexec(pattern, lines[hit]))
  data.frame(replicate = as.integer(vapply(m, `[`, "", 3)),
             step = as.integer(vapply(m, `[`, "", 6)),
             objective = as.numeric(vapply(m, `[`, "", 7)),
             moved = as.numeric(vapply(m, `[`, "", 8)),
             seconds = as.numeric(vapply(m, `[`, "", 9)))
}

strip_fit <- function(f) {
  f$timing <- NULL
  f$call <- NULL
  f
}

test_that("trace = TRUE prints every Lloyd iteration; the objective never increases", {
  x <- trace_case()
  out <- capture.output(fit <- kmeans_reduced(x, 4, method = "none", n_init = 3, seed = 5,
                                              algorithm = "Lloyd", trace = TRUE,
                                              control = list(tol = 0)))
  # the last line: the passes over the rows by stage, as in fit$passes
  expect_identical(out[length(out)],
                   paste0("kmreduce: passes over the data's rows: ",
                          paste(names(fit$passes), fit$passes, collapse = ", ")))
  out <- out[-length(out)]
  tr <- parse_trace(out)
  expect_gt(nrow(tr), 3)
  expect_equal(nrow(tr), length(out))  # every line has the fields
  expect_setequal(unique(tr$replicate), 1:3)
  for (r in 1:3) {
    t <- tr[tr$replicate == r, ]
    expect_identical(t$step, seq_len(nrow(t)))
    # printed to 10 significant digits: non-increasing
    expect_true(all(diff(t$objective) <= 0), info = paste("replicate", r))
    expect_identical(t$moved[1], as.numeric(nrow(x)))  # the first assignment
    expect_identical(t$moved[nrow(t)], 0)               # converged: none moved
    expect_true(all(diff(t$seconds) >= 0))
  }
  # the last objective of the kept replicate is the fit's (the rows minus
  # their column means: the same objective)
  kept <- tr[tr$replicate == which.min(tapply(tr$objective, tr$replicate, min)), ]
  expect_equal(kept$objective[nrow(kept)], fit$tot.withinss, tolerance = 1e-8)
})

test_that("trace reports Hartigan and MacQueen sweeps and split/merge rounds", {
  x <- trace_case()
  out <- capture.output(kmeans_reduced(x, 4, method = "none", n_init = 1, seed = 5,
                                       algorithm = "MacQueen", trace = 1))
  mq <- parse_trace(out, "MacQueen sweep")
  expect_gt(nrow(mq), 0)
  expect_identical(mq$moved[nrow(mq)], 0)
  expect_true(all(diff(mq$objective) <= 1e-9 * mq$objective[1]))
  out <- capture.output(kmeans_reduced(x, 6, method = "none", n_init = 6, seed = 5, trace = 1))
  expect_true(any(grepl("^kmreduce: polish of start 1, split/merge round 1: objective [-0-9.e+]+, (a|no) move kept, [0-9.]+ s$", out)))
  expect_true(any(grepl("Hartigan sweep 1: objective", out)))
  # level 2 adds the Lloyd runs inside the split/merge moves
  out2 <- capture.output(kmeans_reduced(x, 6, method = "none", n_init = 6, seed = 5, trace = 2))
  expect_gt(length(out2), length(out))
  expect_true(any(grepl("^kmreduce: polish of start 1, Lloyd iteration", out2)))
})

test_that("tracing never changes the result", {
  x <- trace_case()
  for (args in list(list(method = "none", n_init = 6),
                    list(method = "sign", dims = 3, n_init = 2, algorithm = "Hartigan-Wong"),
                    list(method = "none", n_init = 2, algorithm = "MacQueen",
                         weights = rep(c(1, 2.5), 300)),
                    list(method = "none", k = x[1:4, ], algorithm = "Hartigan-Wong"))) {
    if (is.null(args$k)) args$k <- 4
    quiet <- do.call(kmeans_reduced, c(list(x, seed = 9), args))
    capture.output(traced <- do.call(kmeans_reduced, c(list(x, seed = 9, trace = 2), args)))
    expect_identical(strip_fit(traced), strip_fit(quiet))
  }
})

test_that("trace = NULL prints nothing outside an interactive session", {
  x <- trace_case()
  expect_silent(kmeans_reduced(x, 4, method = "none", n_init = 2, seed = 1))
  expect_silent(kmeans_reduced(x, 4, method = "none", n_init = 2, seed = 1, trace = FALSE))
})

test_that("the progress line updates in place and is erased", {
  x <- trace_case()
  # the line the default shows in an interactive session, here at once
  msg <- capture.output(type = "message", {
    kmreduce:::set_trace_cpp(0L, TRUE, 2L, 0)
    fit <- kmeans_reduced(x, 4, method = "none", n_init = 2, seed = 1, trace = FALSE)
    kmreduce:::clear_trace_cpp()
  })
  text <- paste(msg, collapse = "\n")
  # (the seconds since set_trace_cpp(): 0 on a quiet machine, more on a busy one)
  expect_match(text, "\rkmreduce: replicate 1/2, Lloyd iteration 1, objective [-0-9.e+]+ \\([0-9]+ s\\)")
  expect_false(grepl("\n", text))  # one line, rewritten
  expect_match(text, "\r *\r$")    # erased at the end
})

test_that("a bad trace is refused by name", {
  x <- trace_case()
  expect_error(kmeans_reduced(x, 2, trace = "yes"),
               "`trace` must be NULL, TRUE, FALSE or a whole number >= 0 \\(the level of detail\\), not \"yes\"")
  expect_error(kmeans_reduced(x, 2, trace = -1), "`trace` must be .*not -1")
  expect_error(kmeans_reduced(x, 2, trace = NA), "`trace` must be .*not NA")
  expect_error(kmeans_reduced(x, 2, trace = c(TRUE, FALSE)), "`trace` must be")
})
