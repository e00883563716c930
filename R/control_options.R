# The options of `control` (kmeans_control(), or a plain list), each declared
# once, as a param() (R/registry.R): its check, its default and its help.
# From this table come kmeans_control()'s arguments and their defaults (its
# formals are set from control_formals(), R/zzz.R), its @param help
# (control_rd_params(), roxygen @eval), control_defaults() and the checks of
# check_control(). The reduction methods' options are their registry
# entries' param()s (builtin_params()), placed here among the k-means ones;
# how "auto" values are resolved for a fit is kmeans_settings()'s concern.

# Every option of kmeans_control(), in the order of its arguments. A check
# is function(value, arg): the value checked and normalised, or stop_arg()
# naming `arg` (R/checks_control.R and R/checks_args.R hold the checks).
# Options that share one help text are documented together (`@param a,b`).
control_options <- function() {
  whole <- function(lower, upper, default, help) {
    param(function(v, arg) check_whole(v, arg, lower, upper), default, help)
  }
  fraction <- function(default, help) {
    param(function(v, arg) check_number(v, arg, 0, 1), default, help)
  }
  rounds_help <- r"-(`l / k` (default 2) and the number of rounds
    (default 5) of `"k-means||"`.)-"
  tries_help <- r"-(Split/merge moves run by Lloyd per round (at
    most, default 3) and the most rounds (default 5); rounds stop at the
    first without gain, and the moves' Lloyd iterations stop at twice those
    of the replicates.)-"
  c(list(
    tol = fraction(1e-6,
      r"-(Lloyd stops when an iteration lowers the objective by less than
      this fraction (`0`: only when no label changes). Mini-batch k-means
      reads it otherwise: see the section "Mini-batch k-means".)-"),
    keep_reduced = param(check_flag, TRUE,
      r"-(Keep the reduced data in the fit (`fit$reduced`, used
      by [plot()]; never kept for `method = "none"`).)-"),
    block_rows = param(function(v, arg) if (is.null(v)) v else check_whole(v, arg, 1), NULL,
      r"-(Rows read at a time from a `bigmemory::big.matrix`;
      `NULL` (the default): about 64 MB of rows.)-"),
    precision = choice_param(c("double", "single"), "double",
      r"-(`"double"` or `"single"`. With `"single"` the products of
      the rows with the centres (every distance of the seeding, Lloyd and the
      polish) come from a float copy of the dense rows, scaled by a power of
      two: half the memory and twice the values per SIMD instruction. Norms,
      sums and statistics stay in double, and Lloyd ends in double from the
      centres found, so the result is a fixed point of Lloyd in double; near
      ties the search may end in another local optimum. It pays at large `k`.
      With `"double"`, only the sampling rounds of `"k-means||"` seeding on
      dense rows take their products from such a float copy, from `k = 64`
      on (see `seeding`).)-"),
    seeding = param(function(v, arg) check_choice(v, arg, c("auto", kmeans_seedings_cpp())),
                    "auto",
      r"-(`"k-means++"` (greedy), `"k-means||"`, or `"auto"` (the
      default): `"k-means||"` when `nrow(x) * k >= 10^6`, where it is faster
      at the same objective, else greedy k-means++. `"k-means||"`
      (Bahmani et al. 2012): a uniform first seed, then `rounds` passes that
      each sample every row with probability `min(1, l D^2 / phi)`
      (`l = oversampling * k`), the candidates weighted by their nearest rows
      and reclustered into `k` in memory. It saves passes over the rows, not
      arithmetic: it pays on tall data at large `k`. Its O(log k) guarantee
      (Bahmani et al. 2012; Rozhon 2020) is for a plain k-means++
      reclustering and enough rounds; the greedy reclustering and the paper's
      5 rounds used here have no such proof. From `k = 64` on, the rounds
      on dense rows compute their distances from a float copy of the rows
      (a copy half the size of the rows, twice the values per SIMD
      instruction): those distances only set the sampling probabilities
      and the candidates' weights, so the draws are nearly always those of
      double precision; the reclustering, the seeds and all that follows
      are in double.)-"),
    oversampling = param(function(v, arg) check_number(v, arg, 0, 1e6, open_lower = TRUE), 2,
                         rounds_help),
    rounds = whole(1, 1000, 5L, rounds_help),
    local_search = param(function(v, arg) if (is.null(v)) v else check_whole(v, arg, 0, 1e6),
                         NULL,
      r"-(Local search steps after the seeding of replicates 2,
      4, ...; `NULL` (the default): `ceiling(k / (2 + floor(log(k))))`, about
      `k` rows tried in all; `0` turns it off (plain greedy k-means++ in every
      replicate, as scikit-learn).)-"),
    polish = choice_param(c("auto", "split_merge", "hartigan", "none"), "auto",
      r"-(What follows the replicates: `"split_merge"` (split/merge
      moves, then Hartigan's moves), `"hartigan"` (Hartigan's moves alone),
      `"none"`, or `"auto"` (the default): `"split_merge"` when `n_init > 1`,
      `"none"` for a single replicate.)-"),
    polish_starts = param(check_polish_starts, "auto",
      r"-(How many of the best distinct replicates are
      polished, the lowest result kept: a number, or `"auto"` (the default):
      Hartigan's moves alone from each distinct replicate when two replicates
      reached the lowest objective; otherwise the best, then more while the
      lowest polished result was reached from one start only and within
      `polish_work`, the others getting Hartigan's moves within that bound;
      every replicate when `nrow(x) * k <= 10^4`.
      On reduced rows (every `method` but `"none"`) `"auto"` is 2.)-"),
    polish_work = param(check_polish_work, 2,
      r"-(With `polish_starts = "auto"`: a replicate after the
      best is polished only while the polish so far has made fewer passes
      over the rows than `polish_work` times the replicates' Lloyd
      iterations (default 2; the best replicate is always polished). Lower
      values save time where the polish gains little; `Inf` polishes until
      the lowest result is confirmed, whatever it costs. It has no effect
      on reduced rows (every `method` but `"none"`, where `polish_starts =
      "auto"` is 2), when `nrow(x) * k <= 10^4` (every replicate is
      polished), or with `polish_starts` given as a number.)-"),
    sketch_rows = param(check_sketch_rows, "auto",
      r"-(Where the replicates run: `"auto"` (the default), a
      whole number `m`, or `Inf` (every replicate on all rows). With
      `m` smaller than the number of rows, the rows are sampled in a few
      passes into three (at most `n_init`) independent weighted sketches of
      about `m` rows each,
      coresets by sensitivity sampling (Feldman and Langberg 2011, in the
      practical form of Bachem et al. 2017): a rough solution first (the
      candidates of two rounds of k-means||, whatever `rounds` is), then each
      row drawn with a probability that
      grows with its distance to its candidate and with the share of rows its
      candidate has to itself, and weighted by its inverse, so that a small
      cluster far from the others is drawn as often as a large one and the
      sketch's objective estimates that of all rows for every set of centres.
      The `n_init` replicates (seedings, Lloyd) are dealt to the sketches in
      turn and polished there; the best of each sketch is lifted to all rows
      (each row to its nearest centre, the centres become the means: one
      pass), Lloyd runs from it on all rows, and the lowest is polished there
      (Bradley and Fayyad 1998): by Hartigan's moves alone when two of these
      starts agree within a relative 1e-6, each having had its split/merge
      moves on its sketch. `"auto"` is `m = max(2000, 100 k)` when
      there are at least `10 m` rows and `n_init > 1`, else all rows. It is not used from given centres,
      with `precision = "single"` or for sparse rows clustered as they are.
      On MPI ranks ([mpi_rows()]) the sketches are those of one process on
      the stacked rows, whole on every rank. The fit's `passes` gives the passes over all rows by
      stage, `sketch` the kept sketch's size, objective and centres.)-"),
    file_cache = param(check_file_cache, "auto",
      r"-(For the cells of a 10x HDF5 file: `"auto"` (the
      default), a number of bytes, or `0`. The first pass over the file
      keeps its stored counts and gene indices in memory, within this many
      bytes (`"auto"`: a tenth of the memory available when the fit
      starts, leaving room for the fit's own memory): all of them when they
      fit, otherwise the file's first blocks, as many as fit. The later
      passes (projection, statistics) read the kept blocks from memory and
      only the others from the file. The results are the same either way;
      `0` reads the file at every pass.)-"),
    tries = whole(1, 1e6, 3L, tries_help),
    split_rounds = whole(1, 1e6, 5L, tries_help)),
    # (svd, eps, power_iters, svd_rows, scores, sampling, c, repeats,
    # residual, qr, fjlt_density)
    builtin_params(),
    list(
      dims_tol = fraction(0.01,
        r"-(`dims = "auto"` stops when the best objective has
        improved by less than this fraction over the last two doublings of the
        dimensions (default 1 %; see [reduction_methods]).)-"),
      batch_size = whole(1, 1e9, 1024L,
        r"-(Rows per batch of mini-batch k-means (`algorithm =
        "minibatch"` in [kmeans_reduced()]; at most the number of rows): a whole
        number, default 1024, as scikit-learn.)-"),
      reassignment_ratio = fraction(0.01,
        r"-(Mini-batch k-means: centres whose count of rows
        is below this fraction of the largest count are reassigned, each next to
        the nearest centre of a random row of the batch, 1 % of the way toward
        the row, so that it takes about half that cluster (a number in `[0, 1)`,
        default 0.01 as scikit-learn; `0` turns reassignment off). scikit-learn
        puts such a centre on the row itself, where in many dimensions it keeps
        that row alone.)-")))
}

# The formals of kmeans_control(): every option with its default.
control_formals <- function() {
  lapply(control_options(), `[[`, "default")
}

# The @param lines of ?kmeans_control (roxygen @eval): each option's help,
# the options that share one text (next to each other) in one @param.
control_rd_params <- function() {
  opts <- control_options()
  help <- vapply(opts, function(o) gsub("\n[ ]+", "\n", o$help), character(1))
  group <- cumsum(c(TRUE, help[-1L] != help[-length(help)]))
  vapply(split(names(opts), group), function(nms) {
    paste0("@param ", paste(nms, collapse = ","), " ", help[[nms[1L]]])
  }, character(1), USE.NAMES = FALSE)
}
