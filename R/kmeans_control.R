#' Tuning options of kmeans_reduced()
#'
#' Builds the `control` argument of [kmeans_reduced()], [reduce_dims()],
#' [k_path()] and [dims_path()]: every option with its default, checked
#' when the object is made. The defaults suit most data; change one only
#' for a reason named below. A plain named list of some of these options
#' (`control = list(polish = "none")`) works as well and is checked the same
#' way.
#'
#' @section Replicates, seeding and polish:
#' Each of the `n_init` replicates of [kmeans_reduced()] seeds with greedy
#' k-means++ (2 + floor(log(k)) candidates drawn with probability
#' proportional to the squared distance to the nearest centre, the best
#' kept) or, on tall data at large `k`, k-means|| (see `seeding`), then runs Lloyd's
#' iterations (Hamerly's bounds skip the rows that cannot move). In the even
#' replicates (2, 4, ...) a local search follows the seeding
#' (LocalSearch++, Lattanzi and Sohler 2019): `local_search` times, draw
#' 2 + floor(log(k)) rows by squared distance and swap one of them for a
#' centre when that lowers the cost. It repairs seedings with two seeds in
#' one cluster and none in another, which Lloyd cannot leave.
#'
#' What is proven: plain k-means++ (one candidate per step) is within
#' O(log k) of optimal in expectation (Arthur and Vassilvitskii 2007);
#' greedy k-means++ with `l` candidates per step has no O(log k) guarantee
#' (its factor can be \eqn{\Omega(l \log k)}{Omega(l log k)}, Bhattacharya et
#' al. 2020, and is at most \eqn{O(l^3 \log^3 k)}{O(l^3 log^3 k)}, Grunau et al. 2023).
#' LocalSearch++ after plain k-means++ reaches a constant factor in
#' expectation after O(k log log k) steps (Lattanzi and Sohler 2019), and
#' an O(1 / eps^3) factor with probability 1 - 1/poly(k) after `eps k`
#' steps (Choo et al. 2020); the greedy variant used here (several
#' candidates per step, about `k / log(k)` steps) has no proof of its own.
#' [optimality_bound()] certifies a given result.
#'
#' With `n_init > 1` the best distinct replicates are then polished
#' (`polish`): split/merge moves merge two clusters and cut a third in two
#' through its mean, perpendicular to its first principal direction (PDDP,
#' Boley 1998), which undoes a partition that splits one natural cluster
#' and joins two others; then Hartigan's moves move single rows while that
#' lowers the objective (Hartigan 1975; their fixed points are a subset of
#' Lloyd's, Telgarsky and Vattani 2010). Neither raises the objective. Each
#' split/merge round scores the moves by their exact change of the objective,
#' computes the objective after one assignment for the 20 best in one pass,
#' and runs Lloyd only from those within 2 % of the current objective
#' (at most `tries`), so a round where no move comes close costs one pass.
#' When two replicates ended at the same lowest objective (`polish_starts =
#' "auto"`), that optimum is taken as confirmed and only Hartigan's moves
#' follow. Otherwise the best replicate is polished, then the next ones
#' while the lowest polished result was reached from one start only and the
#' polish has made fewer passes over the rows than `polish_work` times the
#' replicates' Lloyd iterations. Two starts whose split/merge moves end
#' within a relative 1e-6 of the lowest such result confirm it too: the
#' Hartigan's moves that follow differ by a few rows.
#'
#' @section Mini-batch k-means:
#' With `algorithm = "minibatch"` in [kmeans_reduced()] (Sculley 2010, as
#' scikit-learn's `MiniBatchKMeans` runs it), each batch draws `batch_size`
#' distinct rows at random, assigns them to their nearest centres and moves
#' each centre that got rows to `(c v + s) / (v + m)`, where `v` counts the
#' rows (or sums the weights) the centre has had so far and `s` and `m` are
#' the sum and number (or weight) of its new rows: Sculley's updates with
#' learning rate `1 / v`. After every `10 k` rows drawn (or while a centre
#' has had no rows), the centres whose count is below `reassignment_ratio`
#' times the largest count move to random rows of the current batch (at
#' most half the batch) and their counts become the smallest of the others,
#' scikit-learn's rule. It stops after `iter_max` passes over the rows
#' (`iter_max * n / batch_size` batches), or earlier as scikit-learn does:
#' when the exponentially weighted average of the batch objective per row
#' has not reached a new low for 10 batches, or when the squared moves of
#' the centres in one batch sum to at most `tol` times the mean variance of
#' the columns. `tol` here is that threshold, not Lloyd's. The `n_init`
#' seedings run on a sample of `max(3 batch_size, 3 k)` rows (the best on
#' that sample kept), and `seeding = "auto"` decides by the size of that
#' sample.
#'
#' @param tol Lloyd stops when an iteration lowers the objective by less than
#'   this fraction (`0`: only when no label changes). Mini-batch k-means:
#'   see the section above.
#' @param keep_reduced Keep the reduced data in the fit (`fit$reduced`, used
#'   by [plot()]; never kept for `method = "none"`).
#' @param block_rows Rows read at a time from a `bigmemory::big.matrix`;
#'   `NULL` (the default): about 64 MB of rows.
#' @param precision `"double"` or `"single"`. With `"single"` the products of
#'   the rows with the centres (every distance of the seeding, Lloyd and the
#'   polish) come from a float copy of the dense rows, scaled by a power of
#'   two: half the memory and twice the values per SIMD instruction. Norms,
#'   sums and statistics stay in double, and Lloyd ends in double from the
#'   centres found, so the result is a fixed point of Lloyd in double; near
#'   ties the search may end in another local optimum. It pays at large `k`.
#' @param seeding `"k-means++"` (greedy), `"k-means||"`, or `"auto"` (the
#'   default): `"k-means||"` when `nrow(x) * k >= 10^6`, where it is faster
#'   at the same objective, else greedy k-means++. `"k-means||"`
#'   (Bahmani et al. 2012): a uniform first seed, then `rounds` passes that
#'   each sample every row with probability `min(1, l D^2 / phi)`
#'   (`l = oversampling * k`), the candidates weighted by their nearest rows
#'   and reclustered into `k` in memory. It saves passes over the rows, not
#'   arithmetic: it pays on tall data at large `k`. Its O(log k) guarantee
#'   (Bahmani et al. 2012; Rozhon 2020) is for a plain k-means++
#'   reclustering and enough rounds; the greedy reclustering and the paper's
#'   5 rounds used here have no such proof.
#' @param oversampling,rounds `l / k` (default 2) and the number of rounds
#'   (default 5) of `"k-means||"`.
#' @param local_search Local search steps after the seeding of replicates 2,
#'   4, ...; `NULL` (the default): `ceiling(k / (2 + floor(log(k))))`, about
#'   `k` rows tried in all; `0` turns it off (plain greedy k-means++ in every
#'   replicate, as scikit-learn).
#' @param polish What follows the replicates: `"split_merge"` (split/merge
#'   moves, then Hartigan's moves), `"hartigan"` (Hartigan's moves alone),
#'   `"none"`, or `"auto"` (the default): `"split_merge"` when `n_init > 1`,
#'   `"none"` for a single replicate.
#' @param polish_starts How many of the best distinct replicates are
#'   polished, the lowest result kept: a number, or `"auto"` (the default):
#'   Hartigan's moves alone from each distinct replicate when two replicates
#'   reached the lowest objective; otherwise the best, then more while the
#'   lowest polished result was reached from one start only and within
#'   `polish_work`, the others getting Hartigan's moves within that bound;
#'   every replicate when `nrow(x) * k <= 10^4`.
#'   On reduced rows (every `method` but `"none"`) `"auto"` is 2.
#' @param polish_work With `polish_starts = "auto"`: a replicate after the
#'   best is polished only while the polish so far has made fewer passes
#'   over the rows than `polish_work` times the replicates' Lloyd
#'   iterations (default 2; the best replicate is always polished). Lower
#'   values save time where the polish gains little; `Inf` polishes until
#'   the lowest result is confirmed, whatever it costs.
#' @param file_cache For the cells of a 10x HDF5 file: `"auto"` (the
#'   default), a number of bytes, or `0`. The first pass over the file
#'   keeps its stored counts and gene indices in memory, within this many
#'   bytes (`"auto"`: a tenth of the memory available when the fit
#'   starts, leaving room for the fit's own memory): all of them when they
#'   fit, otherwise the file's first blocks, as many as fit. The later
#'   passes (projection, statistics) read the kept blocks from memory and
#'   only the others from the file. The results are the same either way;
#'   `0` reads the file at every pass.
#' @param sketch_rows Where the replicates run: `"auto"` (the default), a
#'   whole number `m`, or `Inf` (every replicate on all rows). With
#'   `m` smaller than the number of rows, the rows are sampled in a few
#'   passes into three (at most `n_init`) independent weighted sketches of
#'   about `m` rows each,
#'   coresets by sensitivity sampling (Feldman and Langberg 2011, in the
#'   practical form of Bachem et al. 2017): a rough solution first (the
#'   candidates of two rounds of k-means||, whatever `rounds` is), then each
#'   row drawn with a probability that
#'   grows with its distance to its candidate and with the share of rows its
#'   candidate has to itself, and weighted by its inverse, so that a small
#'   cluster far from the others is drawn as often as a large one and the
#'   sketch's objective estimates that of all rows for every set of centres.
#'   The `n_init` replicates (seedings, Lloyd) are dealt to the sketches in
#'   turn and polished there; the best of each sketch is lifted to all rows
#'   (each row to its nearest centre, the centres become the means: one
#'   pass), Lloyd runs from it on all rows, and the lowest is polished there
#'   (Bradley and Fayyad 1998): by Hartigan's moves alone when two of these
#'   starts agree within a relative 1e-6, each having had its split/merge
#'   moves on its sketch. `"auto"` is `m = max(2000, 100 k)` when
#'   there are at least `10 m` rows and `n_init > 1`, else all rows. It is not used from given centres,
#'   with `precision = "single"`, for sparse rows clustered as they are, or
#'   on MPI ranks. The fit's `passes` gives the passes over all rows by
#'   stage, `sketch` the kept sketch's size, objective and centres.
#' @param tries,split_rounds Split/merge moves run by Lloyd per round (at
#'   most, default 3) and the most rounds (default 5); rounds stop at the
#'   first without gain, and the moves' Lloyd iterations stop at twice those
#'   of the replicates.
#' @param svd How `"leverage"` and `"cssp"` compute the top right singular
#'   vectors: `"randomized"` (the default) or `"exact"` (the exact SVD, see
#'   [reduction_methods]).
#' @param eps,power_iters The randomized SVD (`"leverage"`, `"cssp"`,
#'   `"rsvd"`) uses `k + ceiling(k / eps + 1)` test vectors (`eps = NULL`,
#'   the default, is `1/3`, as Boutsidis et al. 2015; for the cells of a
#'   `SummarizedExperiment`, whose SVD is that of a sample held in memory
#'   (`svd_rows`), it is `1`: half the test vectors, the same cell types
#'   found) and `power_iters` power
#'   iterations: a whole number, or `"auto"` (the default): one iteration,
#'   or none when the test vectors are at least `min(nrow(x), ncol(x))` (the
#'   SVD is then exact without them). With this many test vectors the top
#'   singular vectors are already close; more iterations bring the leverage
#'   scores closer to the exact ones, which need not lower the k-means
#'   objective: for `"leverage"` the number of columns sampled (`dims`)
#'   matters more.
#' @param svd_rows `NULL` (the default: all rows; for the cells of a
#'   `SummarizedExperiment`, 20000), `Inf` (all rows) or a whole number `m`:
#'   `"rsvd"` computes its SVD from `m` rows drawn uniformly at random (from
#'   `seed`), read in one pass and held in memory, then projects every row on
#'   its singular vectors. For data read from a file (many cells of a 10x
#'   file) this replaces the SVD's passes over all rows by one pass, and an
#'   SVD of the sample in memory (Seurat's sketch of cells, Hao et al. 2024).
#' @param scores,sampling Variants of `"leverage"`: `scores = "sqrt"` samples
#'   by the row norms of `V_k` instead of their squares (Li and Fan 2020),
#'   which tames very uneven scores; `sampling = "top"` keeps the `dims`
#'   highest scores instead of sampling.
#' @param c,repeats The randomized phase of `"cssp"` keeps column `j` with
#'   probability `min(1, c p_j)`; `NULL` (the default):
#'   `c = 2 dims max(1, log(dims))` (the paper asks for
#'   \eqn{\Theta(k \log k)}{Theta(k log k)} with no constant). The two phases
#'   are repeated `repeats` times (default 40), the best kept.
#' @param residual,qr `"cssp"`: the norm that picks the best repeat
#'   (`"frobenius"`, the default, the norm of the guarantee, or
#'   `"spectral"`, as in the paper's experiments) and the deterministic
#'   phase (`"pivoted"`: greedy column-pivoted QR, or `"strong"`: strong
#'   rank-revealing QR, Gu and Eisenstat 1996, with `f = 2`).
#' @param fjlt_density The probability `q` that an entry of the FJLT's
#'   sparse Gaussian matrix is non-zero; `NULL` (the default):
#'   `min(1, log(n)^2 / 2^ceiling(log2(d)))`.
#' @param dims_tol `dims = "auto"` stops when the best objective has
#'   improved by less than this fraction over the last two doublings of the
#'   dimensions (default 1 %; see [reduction_methods]).
#' @param batch_size Rows per batch of mini-batch k-means (`algorithm =
#'   "minibatch"` in [kmeans_reduced()]; at most the number of rows): a whole
#'   number, default 1024, as scikit-learn.
#' @param reassignment_ratio Mini-batch k-means: centres whose count of rows
#'   is below this fraction of the largest count are moved to random rows of
#'   the batch (a number in `[0, 1)`, default 0.01 as scikit-learn; `0`
#'   turns reassignment off).
#' @return An object of class `"kmreduce_control"`: a named list of every
#'   option, checked, with a print method that marks the options changed
#'   from their defaults.
#' @references
#' Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of
#' careful seeding. *SODA*, 1027--1035.
#'
#' Bachem, O., Lucic, M. and Krause, A. (2017). Practical coreset
#' constructions for machine learning. arXiv:1703.06476.
#'
#' Bahmani, B., Moseley, B., Vattani, A., Kumar, R. and Vassilvitskii, S.
#' (2012). Scalable k-means++. *Proceedings of the VLDB Endowment* 5(7),
#' 622--633.
#'
#' Bhattacharya, A., Eube, J., Roglin, H. and Schmidt, M. (2020). Noisy,
#' greedy and not so greedy k-means++. *ESA 2020*.
#'
#' Boley, D. (1998). Principal direction divisive partitioning. *Data Mining
#' and Knowledge Discovery* 2(4), 325--344.
#'
#' Bradley, P. S. and Fayyad, U. M. (1998). Refining initial points for
#' k-means clustering. *ICML 1998*, 91--99.
#'
#' Choo, D., Grunau, C., Portmann, J. and Rozhon, V. (2020). k-means++: few
#' more steps yield constant approximation. *ICML*, 1909--1917.
#'
#' Feldman, D. and Langberg, M. (2011). A unified framework for
#' approximating and clustering data. *STOC 2011*, 569--578.
#'
#' Grunau, C., Ozudogru, A. A., Rozhon, V. and Tetek, J. (2023). A nearly
#' tight analysis of greedy k-means++. *SODA 2023*.
#'
#' Hartigan, J. A. (1975). *Clustering Algorithms*. Wiley, New York.
#'
#' Lattanzi, S. and Sohler, C. (2019). A better k-means++ algorithm via local
#' search. *ICML*, 3662--3671.
#'
#' Rozhon, V. (2020). Simple and sharp analysis of k-means||. *ICML*,
#' 8266--8275.
#'
#' Sculley, D. (2010). Web-scale k-means clustering. *Proceedings of the
#' 19th International Conference on World Wide Web (WWW '10)*, 1177--1178.
#'
#' Telgarsky, M. and Vattani, A. (2010). Hartigan's method: k-means
#' clustering without Voronoi. *AISTATS*, 820--827.
#' @seealso [kmeans_reduced()], [reduction_methods] for the methods these
#'   options tune.
#' @examples
#' ctl <- kmeans_control(polish = "none", seeding = "k-means||")
#' ctl
#' x <- fashion_mnist$x[1:2000, ] / 255
#' fit <- kmeans_reduced(x, 10, n_init = 3, seed = 1, control = ctl)
#' fit$tot.withinss
#' @export
kmeans_control <- function(tol = 1e-6, keep_reduced = TRUE, block_rows = NULL,
                           precision = "double", seeding = "auto", oversampling = 2,
                           rounds = 5L, local_search = NULL, polish = "auto",
                           polish_starts = "auto", polish_work = 2, sketch_rows = "auto",
                           file_cache = "auto",
                           tries = 3L,
                           split_rounds = 5L,
                           svd = "randomized", eps = NULL, power_iters = "auto",
                           svd_rows = NULL,
                           scores = "squared", sampling = "random", c = NULL, repeats = 40L,
                           residual = "frobenius", qr = "pivoted", fjlt_density = NULL,
                           dims_tol = 0.01, batch_size = 1024L, reassignment_ratio = 0.01) {
  given <- mget(names(formals(kmeans_control)), environment())
  structure(check_control(given, prefix = ""), class = "kmreduce_control")
}

# Every option's default: the formals of kmeans_control(), the one place
# they are written; then the options of registered reduction methods that
# have no formal there (method_registry(): their entry's default).
control_defaults <- function() {
  out <- lapply(formals(kmeans_control), eval, baseenv())
  params <- method_params()
  for (p in setdiff(names(params), names(out))) out[p] <- list(params[[p]]$default)
  out
}

#' @export
print.kmreduce_control <- function(x, ...) {
  defaults <- control_defaults()
  shown <- vapply(names(x), function(name) {
    v <- x[[name]]
    if (is.null(v)) "NULL" else if (is.character(v)) paste0("\"", v, "\"") else format(v)
  }, character(1))
  changed <- !vapply(names(x), function(name) identical(x[[name]], defaults[[name]]) ||
                       isTRUE(all.equal(x[[name]], defaults[[name]])), logical(1))
  cat("kmeans_reduced() options", if (any(changed)) " (* changed from the default)", ":\n",
      sep = "")
  lines <- sprintf("  %-*s %s%s", max(nchar(names(x))), names(x), shown,
                   ifelse(changed, "  *", ""))
  cat(lines, sep = "\n")
  invisible(x)
}
