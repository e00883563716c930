# The 12 instances of the quality suite (bench/quality/quality_optima.R,
# bench/quality/polish_builds.R): 10 synthetic mixtures with a planted
# partition, Fashion-MNIST (3000 x 784) and USPS digits (8800 x 256).
# `instances` is a list of functions, each returning list(name, x, k, truth)
# (truth NULL for real data). Needs bench/common.R sourced first (the
# loaders of the real data sets).

# Evaluates `expr` with R's generator seeded by `seed`, then puts the caller's
# generator state back (so the script leaves the session's RNG as it was).
with_seed <- function(seed, expr) {
  env <- globalenv()
  old <- if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = env) else assign(".Random.seed", old, envir = env))
  set.seed(seed)
  expr
}

# Instances. Each generator returns list(name, x, k, truth); truth = NULL for
# real data (reference: best objective seen). Synthetic ones are drawn with
# with_seed(), so they are the same in every run.

# Gaussian mixture: centres N(0, centre_sd^2) per coordinate, labels `truth`,
# noise sd `noise` (a scalar, one value per cluster or, with per_coord =
# TRUE, one value per coordinate).
mixture <- function(n, d, k, centre_sd, noise = 1, truth = sample(k, n, TRUE),
                    per_coord = FALSE) {
  force(truth)  # draw the labels first
  centres <- matrix(rnorm(k * d, sd = centre_sd), k, d)
  z <- matrix(rnorm(n * d), n, d)
  z <- if (per_coord) sweep(z, 2L, noise, `*`) else z * rep_len(noise, k)[truth]
  list(x = centres[truth, , drop = FALSE] + z, truth = truth)
}

# Labels with the given cluster sizes, in random order.
labels_of_sizes <- function(sizes) sample(rep(seq_along(sizes), sizes))

# Sizes proportional to `w`, summing to n.
sizes_prop <- function(n, w) {
  s <- round(n * w / sum(w))
  s[which.max(s)] <- s[which.max(s)] + n - sum(s)
  s
}

synthetic <- function(name, k, gen, seed) {
  force(k)
  function() {
    m <- with_seed(seed, gen())
    list(name = name, x = m$x, k = k, truth = m$truth)
  }
}

instances <- list(
  synthetic("1 noisy wide mixture, centre sd 0.5", 20L, seed = 1,
            function() mixture(50000L, 500L, 20L, centre_sd = 0.5)),
  synthetic("2 noisy mixture, centre sd 0.4", 10L, seed = 2,
            function() mixture(10000L, 300L, 10L, centre_sd = 0.4)),
  synthetic("3 noisy mixture, centre sd 0.7", 10L, seed = 3,
            function() mixture(10000L, 300L, 10L, centre_sd = 0.7)),
  synthetic("4 sizes prop. to 2^(0:9)", 10L, seed = 4,
            function() mixture(10000L, 50L, 10L, centre_sd = 1.5,
                               truth = labels_of_sizes(sizes_prop(10000L, 2^(0:9))))),
  synthetic("5 noise sd 0.3 to 3 by cluster", 10L, seed = 5,
            function() mixture(10000L, 50L, 10L, centre_sd = 1.5,
                               noise = seq(0.3, 3, length.out = 10L))),
  synthetic("6 many clusters", 50L, seed = 6,
            function() mixture(20000L, 50L, 50L, centre_sd = 1)),
  synthetic("7 0.5% outliers (sd 20)", 10L, seed = 7, function() {
    n <- 10000L; d <- 50L; k <- 10L
    centres <- matrix(rnorm(k * d, sd = 1.5), k, d)
    truth <- labels_of_sizes(rep(n / k, k))
    noise <- rep(1, n)
    noise[sample(n, 0.005 * n)] <- 20  # outliers keep their generating cluster
    list(x = centres[truth, ] + matrix(rnorm(n * d), n, d) * noise, truth = truth)
  }),
  synthetic("8 low-dim. separated, centres in [0,10]^5", 15L, seed = 8, function() {
    n <- 20000L; d <- 5L; k <- 15L
    centres <- matrix(runif(k * d, 0, 10), k, d)
    truth <- sample(k, n, TRUE)
    list(x = centres[truth, ] + matrix(rnorm(n * d, sd = 0.5), n, d), truth = truth)
  }),
  function() {
    ds <- load_fashion()
    list(name = "9 Fashion-MNIST", x = ds$x, k = 10L, truth = NULL)
  },
  function() {
    ds <- load_usps()
    list(name = "10 USPS digits", x = ds$x, k = 8L, truth = NULL)
  },
  synthetic("11 anisotropic noise, sd U(0.2, 2) per coord.", 8L, seed = 11,
            function() mixture(10000L, 100L, 8L, centre_sd = 1,
                               noise = runif(100L, 0.2, 2), per_coord = TRUE)),
  synthetic("12 overlapping mixture", 10L, seed = 12,
            function() mixture(10000L, 20L, 10L, centre_sd = 1))
)


# Instance i, or NULL (with a message) when its data are not installed.
instance_or_skip <- function(i) {
  tryCatch(instances[[i]](), error = function(e) {
    message(sprintf("instance %d skipped: %s", i, conditionMessage(e)))
    NULL
  })
}
