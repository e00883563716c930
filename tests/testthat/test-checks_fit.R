# The checks of a fitted object before C++ reads it (R/checks_fit.R).

test_that("predict() and plot() check the fit before C++ reads it", {
  skip_on_cran()
  res <- run_child(
    c("set.seed(1); x <- matrix(rnorm(600), 100)",
      "fit <- kmeans_reduced(x, 3, method = 'sign', dims = 4, seed = 1)",
      "full <- kmeans_reduced(x, 3, method = 'sign', dims = 4, refine = 2, seed = 1)",
      "lev <- kmeans_reduced(x, 3, method = 'leverage', dims = 4, seed = 1)",
      "tamper <- list(",
      "  empty_centres = function(f) { f$reduced_centers <- f$reduced_centers[0, , drop = FALSE]; f },",
      "  wrong_columns = function(f) { f$reduced_centers <- cbind(f$reduced_centers, 1); f },",
      "  na_centres = function(f) { f$reduced_centers[1, 1] <- NA; f },",
      "  not_matrix = function(f) { f$reduced_centers <- 'a'; f },",
      "  dims = function(f) { f$reducer$dims <- 1e6L; f },",
      "  method = function(f) { f$reducer$method <- 'magic'; f },",
      "  no_reducer = function(f) { f$reducer <- NULL; f },",
      "  n_features = function(f) { f$reducer$n_features <- -1; f })"),
    c("out <- character(0)",
      "for (t in names(tamper)) {",
      "  out[t] <- tryCatch({ predict(tamper[[t]](fit), x); 'no error' }, error = function(e) conditionMessage(e))",
      "  out[paste(t, 'plot')] <- tryCatch({ pdf(NULL); plot(tamper[[t]](fit), data = x); 'no error' },",
      "                                     error = function(e) conditionMessage(e))",
      "}",
      "g <- full; g$assignment_centers <- g$assignment_centers[, 1:2]",
      "out['assignment'] <- tryCatch({ predict(g, x); 'no error' }, error = function(e) conditionMessage(e))",
      "l <- lev; l$reducer$features$index[1] <- 99",
      "out['features'] <- tryCatch({ predict(l, x); 'no error' }, error = function(e) conditionMessage(e))",
      "fj <- kmeans_reduced(x, 3, method = 'fjlt', dims = 4, seed = 1)",
      "for (q in list(0, 2, NA, 'a', NULL, c(0.1, 0.2))) {",
      "  f <- fj; f$reducer['density'] <- list(q)",
      "  out[paste('fjlt density', format(q))] <- tryCatch({ predict(f, x); 'no error' },",
      "                                                   error = function(e) conditionMessage(e))",
      "}",
      "out"))
  expect_identical(res$status, "finished", info = paste(res$log, collapse = "\n"))
  for (nm in names(res$value)) {
    expect_match(res$value[[nm]], "is not a valid kmeans_reduced fit|is not a valid kmreduce reducer",
                 label = nm)
  }
})
