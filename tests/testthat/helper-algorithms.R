# Brute-force references for the tests of the C++ algorithms (test-seeding.R,
# test-hartigan.R, test-polish.R).
# Squared distances of every row to every centre, by definition.
brute_dist2 <- function(x, centres) {
  outer(seq_len(nrow(x)), seq_len(nrow(centres)),
        Vectorize(function(i, q) sum((x[i, ] - centres[q, ])^2)))
}

# Brute force for Hartigan's moves: the objective of a labelling, and every
# single-row move's change, each computed from scratch.
objective_of <- function(x, cl) {
  sum(vapply(split(seq_len(nrow(x)), cl), function(i) {
    sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2)
  }, 0))
}
best_single_move <- function(x, cl, k) {
  base <- objective_of(x, cl)
  best <- 0
  for (r in seq_len(nrow(x))) {
    if (sum(cl == cl[r]) < 2) next
    for (q in setdiff(seq_len(k), cl[r])) {
      cl2 <- cl
      cl2[r] <- q
      best <- min(best, objective_of(x, cl2) - base)
    }
  }
  best
}
