#' k-means on reduced data, evaluated on the original data
#'
#' Reduces the number of features of `x` with a randomized method that has a
#' guarantee for the k-means objective, clusters the reduced rows with Lloyd's
#' algorithm (greedy k-means++ seeding, `n_init` replicates, multi-threaded),
#' and evaluates the partition on the ORIGINAL data: `centers`, `withinss`,
#' `totss` and the other fields of [stats::kmeans()] are all computed in the
#' original feature space.
#'
#' @section Out of core:
#' A `bigmemory::big.matrix` (file-backed or in shared memory) is read in
#' blocks of `control$block_rows` rows and never held whole: memory stays at
#' one block plus O((n + d) * dims). The data-oblivious methods (`"sign"`,
#' `"gaussian"`, `"achlioptas"`, `"srht"`, `"fjlt"`, `"sparse_embedding"`) reduce each
#' block on its own, with exactly the numbers of the in-memory computation,
#' so the same seed gives the same partition; `"leverage"` and `"rsvd"` run
#' the randomized SVD with streamed products (equal to rounding). k-means
#' runs on the reduced rows in memory; the original-space statistics take
#' two more passes and `refine` one pass per iteration (the same Lloyd as in
#' memory, so the same seed gives the same partition). `"none"`, `"cssp"`,
#' `"svd"` and the exact SVD need the whole matrix and are refused.
#'
#' @section Memory and large k:
#' k-means reads the rows many times (once per k-means++ step, once per Lloyd
#' iteration), so dense rows are copied once into tiles its kernels stream;
#' data above 1 GiB are not copied but tiled block by block as they are read
#' (a little slower), so a tall matrix costs its own size plus O(n). Greedy k-means++ takes
#' 2 + log(k) candidates per centre in one pass over the rows, as
#' scikit-learn's; Lloyd skips the rows that cannot change cluster (Hamerly's
#' bounds), so iterations after the first few cost far less than a full pass.
#'
#' @section Distributed rows:
#' An [mpi_rows()] `x` runs the same steps on every MPI rank's rows, with the
#' partial results combined across ranks (see [mpi_rows()]).
#'
#' @section Methods:
#' The approximation factors below are the papers': a partition optimal on
#' the reduced data (or within a factor gamma of optimal) is within that
#' factor (times gamma) of optimal on `x`, for the `dims` the theorems state
#' ([dims_for()]; far above the default `10 k`). The seeding is greedy
#' k-means++ (several candidates per step, the best kept), which has no
#' O(log k) guarantee: plain k-means++ (one candidate per step) is within
#' O(log k) of optimal in expectation (Arthur and Vassilvitskii 2007), but
#' with `l` candidates per step the expected factor can be as large as
#' \eqn{\Omega(l \log k)}{Omega(l log k)} (Bhattacharya et al. 2020) and is at most
#' \eqn{O(l^3 \log^3 k)}{O(l^3 log^3 k)} (Grunau et al. 2023), nearly tight; with the default
#' `l = 2 + floor(log(k))` that is polylogarithmic in `k`, not O(log k).
#' [optimality_bound()] certifies a given result.
#'
#' Data-oblivious projections `C = A R` (`R` is `d x dims`, generated from
#' `seed` in panels, never stored whole):
#' * `"sign"`: entries \eqn{\pm 1/\sqrt{dims}}{+-1/sqrt(dims)} (Algorithm 2 of
#'   Boutsidis et al. 2015): with `dims = O(k / eps^2)` the optimal partition of
#'   `C` is a `(2 + eps)`-approximation on `A`.
#' * `"gaussian"`: entries N(0, 1/dims). `"achlioptas"`: \eqn{\pm\sqrt{3/dims}}{+-sqrt(3/dims)}
#'   with probability 1/6 each, 0 with 2/3 (Achlioptas 2003).
#' * `"srht"`: subsampled randomized Hadamard transform (random signs, fast
#'   Walsh-Hadamard transform with zero padding to `D = 2^ceiling(log2(d))`,
#'   `dims <= D` coordinates sampled without replacement, scaled by
#'   `sqrt(D / dims)`); `O(n D log D)` time.
#' * `"fjlt"`: the fast Johnson-Lindenstrauss transform of Ailon and Chazelle
#'   (2009) as Li and Fan (2020, section 2.5.1) use it, \eqn{\Phi = P H D}{Phi = P H D}:
#'   a diagonal `D` of random signs, the normalised Hadamard matrix `H` of
#'   order `m = 2^ceiling(log2(d))` (zero padding) and a sparse Gaussian
#'   `P` (`dims x m`) whose entries are N(0, 1/q) with probability `q` and
#'   0 otherwise, \eqn{q = \min(\Theta(\log^2 n / m), 1)}{q = min(Theta(log^2(n) / m), 1)};
#'   the papers give no constant for the \eqn{\Theta}{Theta}: we use
#'   `q = min(1, log(n)^2 / m)` (natural logarithm, `n` the number of rows,
#'   all ranks' rows for [mpi_rows()]), or `control$fjlt_density`. Scaled by
#'   `1 / sqrt(dims)`, so squared norms are kept in expectation. Computed
#'   either by the transform of each row and the sparse `P`
#'   (`O(n (m log m + q m dims))`) or by forming `R = D H P^T / sqrt(dims)`
#'   and one matrix product, whichever costs less.
#' * `"sparse_embedding"`: CountSketch, `C = A Q Phi` (Algorithm 1 of Liu, Shen
#'   and Tsang 2017): each column of `A`, with a random sign, is added to one
#'   random column of `C`; `O(nnz(A))` time.
#'
#' Feature selection (the reduced data are columns of `A`; see
#' `fit$reducer$features`):
#' * `"leverage"`: Algorithm 1 of Boutsidis et al. (2015) (Boutsidis, Mahoney
#'   and Drineas 2009): scores \eqn{p_i = \|(V_k)_{(i)}\|^2 / k}{p_i = ||V_k[i, ]||^2 / k}
#'   from the top-`k` right singular vectors (randomized FastFrobeniusSVD of
#'   their Lemma 4, or exact with `control$svd = "exact"`), `dims` columns
#'   drawn with replacement with probabilities `p`, column `i` rescaled by
#'   `1 / sqrt(dims * p_i)`: a `(3 + eps)`-approximation with
#'   `dims = O(k log(k) / eps^2)`. `control$scores = "sqrt"` uses
#'   \eqn{\|(V_k)_{(i)}\|}{||V_k[i, ]||} instead (Li and Fan 2020), which tames very
#'   uneven scores; `control$sampling = "top"` takes the `dims` highest
#'   scores instead of sampling.
#' * `"cssp"`: two-stage column subset selection (Boutsidis, Mahoney and
#'   Drineas 2008, Algorithm 1) with rank parameter `dims`, applied to the
#'   centred data \eqn{\tilde A = A - 1\mu^T}{A~ = A - 1 mu^T} (each column minus its
#'   mean, never formed for sparse `x`): probabilities of their eqn (5) from
#'   the top-`dims` right singular vectors of \eqn{\tilde A}{A~}, a randomized phase
#'   keeping column `j` with probability `min(1, c p_j)` (the paper takes
#'   \eqn{c = \Theta(k \log k)}{c = Theta(k log k)} and states no constant; default
#'   `c = 2 dims max(1, log(dims))`, `control$c`), a deterministic phase
#'   choosing exactly `dims` columns by column-pivoted QR, repeated
#'   `control$repeats` (40) times keeping the columns with the smallest
#'   residual \eqn{\|\tilde A - P_C \tilde A\|_F}{||A~ - P_C A~||_F}, `P_C` the projection on the span
#'   of the chosen centred columns (`fit$reducer$relative_residual` is its
#'   square over \eqn{\|\tilde A\|_F^2}{||A~||_F^2}); with `control$residual = "spectral"` the
#'   repeat is chosen by the spectral norm of that residual instead, as in
#'   the paper's experiments (one `ncol(x) x ncol(x)` Gram matrix, then one
#'   symmetric eigenproblem per repeat). Columns are returned unscaled. The
#'   deterministic phase is by default LAPACK's greedy pivoted QR (as in the
#'   paper's experiments); `control$qr = "strong"` runs a strong
#'   rank-revealing QR (Gu and Eisenstat 1996, Algorithm 4, with `f = 2`:
#'   greedy pivoting, then column swaps until every entry of
#'   \eqn{A_k^{-1} B_k}{A_k^-1 B_k} is at most `f`; `f` must exceed 1, or the swaps can
#'   cycle), which gives the bound
#'   \eqn{\sigma_k(A_k) \ge \sigma_k(M) / \sqrt{1 + f^2 k (c - k)}}{sigma_k(A_k) >= sigma_k(M) / sqrt(1 + f^2 k (c - k))}
#'   the paper's proof takes from Pan (2000) (up to the factor `f`). What is
#'   proven is a Frobenius-norm bound only: with probability at least
#'   \eqn{1 - 10^{-20}}{1 - 1e-20} over the 40 repeats,
#'   \eqn{\|\tilde A - P_C \tilde A\|_F \le O(k\sqrt{\log k})\,\|\tilde A - \tilde A_k\|_F}{||A~ - P_C A~||_F <= O(k sqrt(log k)) ||A~ - A~_k||_F},
#'   \eqn{\tilde A_k}{A~_k} the best rank-`dims` approximation (their Theorem 1, with
#'   `control = list(svd = "exact", qr = "strong")` and the Frobenius
#'   residual choosing the repeat). The conference paper also stated a
#'   spectral-norm bound; it was withdrawn in the revised version
#'   (arXiv:0812.4293v2), so the spectral residual comes without a
#'   guarantee. The default path (randomized `V_k`, greedy QR) is the
#'   paper's experimental setting, without that proof. One departure: when
#'   the randomized phase keeps fewer than `dims` columns (outside the
#'   theorem's event), the most probable others are added (the paper leaves
#'   this case open).
#'
#' Feature extraction:
#' * `"svd"`: `C = A V_dims` with the exact top right singular vectors
#'   (`dims = k` by default: a 2-approximation, Drineas et al. 1999).
#' * `"rsvd"`: Algorithm 3 of Boutsidis et al. (2015), `C = A Z` with `Z` from
#'   the randomized SVD with `k + ceiling(k / eps + 1)` Gaussian test vectors
#'   (`control$eps`, default 1/3) and `control$power_iters` power iterations
#'   (the paper has none; the default `"auto"` runs one, see `control`): a
#'   `(2 + eps)`-approximation.
#'
#' `"auto"` is `"none"` for narrow data, at most `10 k` columns (there the
#' projections' default `dims`, `min(ncol(x), 10 k)`, would keep every
#' column: a reduction would only add its cost and its distortion), and
#' otherwise `"sparse_embedding"` for sparse `x` (one pass over the
#' nonzeros) and `"sign"` for dense `x`. `"none"` clusters `x` itself.
#'
#' @section Data far from the origin:
#' k-means does not depend on where the data sit, but distances computed as
#' \eqn{\|x\|^2 + \|c\|^2 - 2 x^T c}{||x||^2 + ||c||^2 - 2 x.c} (the fast
#' way) lose every significant digit when the data are far from the origin
#' (coordinates in metres, raw intensities, timestamps). So every step works
#' on centred data: the reduced rows are centred (the reducer's `shift`, the
#' column means of the reduced training rows, is subtracted from every row it
#' maps, in `predict()` too); the SVD-based methods (`"leverage"`, `"cssp"`,
#' `"svd"`, `"rsvd"`) decompose the centred data (each column minus its
#' mean: principal components; for sparse `x` through products, without
#' densifying); `"none"` and `refine` run Lloyd on the rows minus their
#' column means (dense `x`). Adding `1e12` to unit-scale data gives the same
#' partition. The centres and statistics are reported in the original
#' coordinates. Sparse `x` is not shifted (its zeros stay zeros); a sparse `x`
#' whose columns sit far from zero against their spread (then nearly all its
#' entries are nonzero) is clustered as a dense matrix.
#'
#' The exact SVD (`"svd"`, `control$svd = "exact"`) is computed by LAPACK on a
#' dense copy of `x` (a sparse `x` is densified for that step only); all other
#' methods keep a sparse `x` sparse.
#'
#' @param x Data: a numeric matrix (a numeric vector is one column), a data
#'   frame of numeric columns, a
#'   sparse `Matrix` (kept as a `dgCMatrix`; other sparse classes are
#'   converted), or a file-backed `bigmemory::big.matrix` (see Out of core).
#'   One row per observation. No `NA`, `NaN` or `Inf`. In an MPI program,
#'   this rank's rows marked by [mpi_rows()].
#' @param k Number of clusters, a whole number between 1 and the number of
#'   distinct rows of `x`; or, as `centers` of [stats::kmeans()], a matrix of
#'   initial centres (one row per cluster, the columns of `x`): they are mapped
#'   by the reduction and Lloyd starts from them (`n_init` is then ignored).
#' @param method Reduction method: `"auto"`, `"none"`, `"sign"`,
#'   `"gaussian"`, `"achlioptas"`, `"srht"`, `"fjlt"`, `"sparse_embedding"`,
#'   `"leverage"`, `"cssp"`, `"svd"` or `"rsvd"` (see Methods).
#' @param dims Number of dimensions of the reduced data. Default
#'   `min(ncol(x), 10 * k)`, and `k` for `"svd"` and `"rsvd"`; at most
#'   `ncol(x)` for the projections and `min(nrow(x), ncol(x))` for `"svd"`,
#'   `"rsvd"` and `"cssp"`. Ignored for `"none"`.
#'
#'   `dims = "auto"` chooses it from the data: reductions to `2k`, `4k`,
#'   `8k`, ... dimensions (`k`, `2k`, ... for `"svd"` and `"rsvd"`; at most
#'   half of `ncol(x)`), each clustered and evaluated on the original data.
#'   At each size the `n_init` replicates run afresh on the new reduction
#'   (or from `k` given as initial centres), and Lloyd's iterations start
#'   once more from the means of the best partition found so far (a warm
#'   start, without the polish); the size's result is the better of the two
#'   on the original data. It stops when
#'   the best objective so far has improved by less than `control$dims_tol`
#'   (default 1%, relative) over the last two doublings (one doubling without
#'   a gain does not stop it: on real data the objective can stall for one
#'   doubling and fall again at the next), or at the largest size. The fit
#'   is the best of all sizes tried, and `fit$dims_auto` lists the steps
#'   (`dims`; `objective`, the better of `fresh` and `warm`, `NA` for the
#'   first size; `seconds`). Each size costs about a fit at that size; the
#'   sizes double, so the whole costs about twice a fit at the last size
#'   tried.
#' @param n_init Number of replicates, each a greedy k-means++ seeding
#'   (2 + floor(log(k)) D^2-sampled candidates per centre, the best kept)
#'   then Lloyd's iterations; the one with the lowest objective on the
#'   reduced data is kept. The replicates mix two seedings: in the even ones
#'   (2, 4, ...) a local search follows k-means++. The local search
#'   (LocalSearch++ of Lattanzi and Sohler 2019) repeats `control$local_search` times
#'   (default `ceiling(k / (2 + floor(log(k))))`, so that about `k` rows are
#'   tried in all): draw 2 + floor(log(k)) rows with probability proportional
#'   to their squared distance to the nearest centre, and replace a centre by
#'   one of them if that lowers the k-means cost, the best such swap. It
#'   repairs what k-means++ does in high dimensions, where the noise flattens
#'   the D^2 weights: two seeds in one cluster and none in another, a local
#'   optimum Lloyd cannot leave. What is proven is for one candidate per
#'   step after plain k-means++: a constant-factor approximation in
#'   expectation after O(k log log k) steps (Lattanzi and Sohler 2019), and
#'   an `O(1 / eps^3)`-approximation with probability `1 - 1/poly(k)` after
#'   `eps k` steps (Choo et al. 2020). Taking the best of several
#'   candidates per step after greedy k-means++, with about `k / log(k)`
#'   steps, is a greedy variant that needs fewer passes over the data; none
#'   of these guarantees is proven for it. It is not in every replicate
#'   because it costs passes over the data and does not help everywhere;
#'   with `n_init = 1` the single replicate is plain greedy k-means++
#'   (`control$local_search` does nothing).
#'
#'   With `n_init > 1`, the best distinct replicates (two or more,
#'   `control$polish_starts`) are then each improved by moves that Lloyd
#'   cannot make (`control$polish`), and the lowest result is kept:
#'   split/merge moves, then Hartigan's single-point moves. A split/merge move merges two clusters
#'   and cuts a third in two through its mean, perpendicular to its first
#'   principal direction (PDDP, Boley 1998). Each round scores the moves by
#'   their exact change of the objective, computes for the 20 best, in one
#'   pass over the rows, the objective after one assignment of the rows to
#'   the move's centres, and tries those less than 2 % above the current
#'   objective, lowest first (`control$tries` of them): Lloyd for 10
#'   iterations on all rows, the two lowest to convergence, and the lowest
#'   objective replaces the partition when it is lower. Rounds repeat while
#'   they improve (at most `control$split_rounds`); a round where no move
#'   comes within 2 % runs no Lloyd at all, and the Lloyd iterations of all
#'   tries together stop at twice those of the replicates. This undoes a
#'   partition that splits one natural cluster and joins two others, which
#'   no Lloyd or single-point move can. Hartigan's moves then move single rows
#'   while that lowers the objective (the change of moving `x` from cluster
#'   `a` to `b` is `n_b / (n_b + 1) ||x - c_b||^2 - n_a / (n_a - 1) ||x - c_a||^2`,
#'   Hartigan 1975): their fixed points are a subset of Lloyd's (Telgarsky
#'   and Vattani 2010), the optimum `stats::kmeans()`'s default algorithm
#'   looks for. Neither move raises the objective. When two replicates
#'   already ended at the lowest objective (`polish_starts = "auto"`), that
#'   optimum is taken as confirmed and only Hartigan's moves follow, from
#'   it: where the replicates agree a polish has little to gain, and where it
#'   gains they rarely do. With `n_init = 1` nothing is added (the fast
#'   single run).
#' @param iter_max Maximum number of Lloyd iterations per replicate.
#' @param centers,nstart,iter.max The names of [stats::kmeans()] for `k`,
#'   `n_init` and `iter_max`, so that a call to `kmeans()` runs unchanged
#'   (`kmeans_reduced(x, centers = 7, nstart = 25, iter.max = 50)`). Give one
#'   name or the other, not both.
#' @param verbose Report progress with [message()]: each stage with its
#'   time, and every k-means++ replicate (Lloyd iterations, objective). Off
#'   by default, when it costs nothing. `verbose` reports the stages (the
#'   reduction, each replicate, the polish, the statistics); `trace` reports
#'   the iterations within them.
#' @param algorithm `NULL` (the default: the package's pipeline described
#'   under `n_init`), or the algorithm of [stats::kmeans()] with its meaning
#'   there, so that a call to `kmeans()` with `algorithm` runs unchanged:
#'   * `"Hartigan-Wong"`: Lloyd's iterations, then Hartigan's single-point
#'     moves (`control$polish = "hartigan"`, also with one replicate): a
#'     partition no single move of a row improves, the local optimum the
#'     Hartigan-Wong algorithm of `stats::kmeans()` looks for (it gets there
#'     by its own sequence of transfers, so from the same centres the two
#'     can stop at different optima).
#'   * `"Lloyd"` and `"Forgy"` (the same algorithm): Lloyd's iterations
#'     alone (no polish).
#'   * `"MacQueen"`: MacQueen's online updates, as `stats::kmeans()` runs
#'     them: the rows are assigned to their nearest centre and the centres
#'     become their means, then the rows are visited in order, each moved to
#'     its nearest centre with both centres updated at once, in sweeps until
#'     one moves no row; Lloyd then confirms the result (its centres become
#'     the exact means). A row alone in its cluster does not leave it. Each
#'     sweep computes the distances of every row one at a time, without the
#'     blocked products of Lloyd, so it is slower per pass.
#'
#'   In all four the seeding stays the package's (greedy k-means++, or
#'   `control$seeding`; `n_init` replicates, where `stats::kmeans()` draws
#'   `nstart` random rows) and no local search follows it
#'   (`control$local_search = 0`); `algorithm` overrides `control$polish`
#'   and `control$local_search`. With initial centres as `k`, the algorithm
#'   runs from them, as in `stats::kmeans()`. `"MacQueen"` is not available
#'   for [mpi_rows()] data.
#' @param trace Progress of the iterations, as `trace` of [stats::kmeans()]:
#'   `TRUE` (or 1) prints one line per Lloyd iteration, Hartigan or MacQueen
#'   sweep and split/merge round, with the replicate or polished start, the
#'   objective of the clustered (reduced) rows after it, the rows that
#'   changed cluster and the seconds since the call began; 2 also prints the
#'   Lloyd runs inside the split/merge moves; `FALSE` (or 0) prints nothing.
#'   The default `NULL` shows, in an interactive session (not while knitr
#'   renders a document, not with `verbose = TRUE`), one progress line that
#'   updates in place once a fit has run for a few seconds and is erased at
#'   the end; nothing in batch use. Tracing never changes the result.
#' @param weights `NULL` (every row counts once), or observation weights:
#'   one positive finite number per row of `x`, as scikit-learn's
#'   `sample_weight` (a row of weight 3 counts as three copies of it; rows
#'   of weight 0 are refused: leave them out). Every step is then weighted:
#'   the objective is \eqn{\sum_i w_i \|x_i - c_{(i)}\|^2}{sum_i w_i ||x_i - c(i)||^2}
#'   and the centres are weighted means; k-means++ draws its first seed
#'   with probability proportional to \eqn{w}{w} and its candidates to
#'   \eqn{w D^2}{w D^2} (k-means|| samples a row with probability
#'   `min(1, l w D^2 / phi)` and weights each candidate by the weights of
#'   the rows nearest to it); the local search, Lloyd, split/merge and
#'   Hartigan's moves minimise the weighted objective (moving row `x` of
#'   weight `w` from cluster `a` to `b` changes it by
#'   `W_b w / (W_b + w) ||x - c_b||^2 - W_a w / (W_a - w) ||x - c_a||^2`, `W`
#'   the clusters' sums of weights). The SVD-based methods (`"leverage"`,
#'   `"cssp"`, `"svd"`, `"rsvd"`) decompose
#'   \eqn{W^{1/2} (A - 1 \mu_w^T)}{W^(1/2) (A - 1 mu_w^T)} with
#'   \eqn{\mu_w}{mu_w} the weighted column means; the data-oblivious
#'   projections map rows as without weights, centred by the weighted means.
#'   `withinss`, `tot.withinss`, `totss`, `betweenss` and `sumsq` are the
#'   weighted sums; `size` still counts rows, and `weight` holds each
#'   cluster's sum of weights. With whole weights and greedy k-means++, the
#'   fit is that of `x` with every row repeated `w` times (the same draws,
#'   up to rounding), except where Hartigan's moves (in the polish, and with
#'   `algorithm = "Hartigan-Wong"`) move rows: they move a row with all its
#'   weight, where on repeated rows each copy moves alone, so the two can
#'   stop at different nearby optima. Weights multiplied by a constant pose
#'   the same problem, but may give other random draws. [predict()]
#'   is unchanged: the nearest centre. A `big.matrix` `x` takes weights (one
#'   per row); [mpi_rows()] data do not.
#' @param seed `NULL` or a whole number. With a number, results are
#'   reproducible and R's random number generator is neither used nor changed.
#'   With `NULL`, one integer is drawn from R's generator (so [set.seed()]
#'   makes the call reproducible). The seed used is returned.
#' @param n_threads Number of threads, or `NULL` for the default of
#'   [kmreduce_threads()]: `getOption("kmreduce.threads")`, else
#'   `OMP_NUM_THREADS`, else every available core (1 in a forked child such
#'   as a [parallel::mclapply()] worker), never more than `OMP_THREAD_LIMIT`
#'   or the available cores (a larger number is lowered, with a message).
#'   Results are identical for every number of threads. Idle threads sleep
#'   rather than spin, so a busy machine slows kmreduce down no more than one
#'   thread would be, and every long step can be interrupted.
#' @param n_reductions Number of independent reductions (each with its own
#'   seed derived from `seed`), each followed by k-means; the partition with
#'   the lowest objective on the original data is kept. The papers repeat
#'   randomized reductions this way to boost the probability of success.
#' @param refine Number of Lloyd iterations on the ORIGINAL data started from
#'   the centres (original-space means) of the reduced solution; `0` (the
#'   default) keeps the papers' algorithms. Each iteration is one pass over
#'   `x`; the objective never increases. With `refine > 0`, rows (and
#'   `predict()`) are assigned to the nearest centre in the original space.
#'   When the reduction merges rows so that the reduced data have fewer than
#'   `k` distinct rows, a warning says so and at least one iteration is run:
#'   merged rows cannot be told apart by their reduced centres.
#' @param control A named list of tuning parameters:
#'   * `tol` (default `1e-6`): Lloyd also stops when the objective decreases
#'     by less than this fraction in one iteration (`0`: only when no label
#'     changes).
#'   * `keep_reduced` (default `TRUE`): keep the reduced data in the result
#'     (used by [plot()]; not kept for `"none"`).
#'   * `svd` (`"randomized"` or `"exact"`): how `"leverage"` and `"cssp"`
#'     compute the top right singular vectors.
#'   * `eps` (default 1/3) and `power_iters` (default `"auto"`): the
#'     randomized SVD uses `k + ceiling(k / eps + 1)` test vectors and that
#'     many power iterations (`"leverage"`, `"cssp"`, `"rsvd"`). `"auto"` is
#'     one iteration, or none when the test vectors are at least
#'     `min(nrow(x), ncol(x))` (the SVD is then exact without them). With
#'     this many test vectors the top singular vectors are already close;
#'     more iterations bring the leverage scores closer to the exact ones,
#'     which need not lower the k-means objective: for `"leverage"` the
#'     number of columns sampled (`dims`) matters more.
#'   * `scores` (`"squared"` or `"sqrt"`) and `sampling` (`"random"` or
#'     `"top"`): variants of `"leverage"`.
#'   * `c` (default `2 dims max(1, log(dims))`) and `repeats` (default 40):
#'     the randomized phase and the repetitions of `"cssp"`; `residual`
#'     (`"frobenius"` or `"spectral"`): the norm that picks the best repeat;
#'     `qr` (`"pivoted"` or `"strong"`): its deterministic phase, greedy
#'     pivoted QR or strong rank-revealing QR (see Methods).
#'   * `block_rows` (default: about 64 MB of rows): rows read at a time from
#'     a `big.matrix` `x`.
#'   * `dims_tol` (default 0.01): the relative tolerance of the stopping
#'     rule of `dims = "auto"` (see `dims`).
#'   * `fjlt_density` (default `NULL`: `min(1, log(n)^2 / 2^ceiling(log2(d)))`): the
#'     probability `q` that an entry of the FJLT's `P` is non-zero.
#'   * `local_search` (default `NULL`: `ceiling(k / (2 + floor(log(k))))`):
#'     local search steps after the k-means++ seeding of replicates 2, 4, ...
#'     (see `n_init`); `0` turns it off (plain greedy k-means++ in every
#'     replicate, as scikit-learn).
#'   * `seeding` (`"k-means++"`, the default, or `"k-means||"`): how each
#'     replicate seeds. `"k-means||"` (Bahmani et al. 2012) is for tall data,
#'     where greedy k-means++'s two passes over the rows per centre dominate:
#'     it draws the first seed uniformly, then in each of `control$rounds`
#'     rounds (default 5) samples every row independently with probability
#'     `min(1, l D^2 / phi)` (`l = control$oversampling * k`, default `2k`;
#'     `D^2` the squared distance to the nearest candidate, `phi` their sum),
#'     one pass per round; the candidates, weighted by the rows nearest to
#'     them, are then clustered into `k` in memory (greedy weighted k-means++,
#'     then weighted Lloyd; the best of up to 10 such runs, as many as cost at
#'     most about a tenth of the rounds). With `l` of order `k` and `O(log psi)` rounds
#'     (`psi` the cost after the first seed) the seeding is an
#'     `O(log k)`-approximation in expectation when the candidates are
#'     reclustered by plain k-means++ (Bahmani et al. 2012; Rozhon 2020);
#'     the greedy reclustering used here has no such proof (see Methods),
#'     and the default 5 rounds are those of the paper's experiments, for
#'     which the bound is proven only when `psi` is small enough. It computes about `10 k` distances per
#'     row (greedy k-means++: `k (2 + log k)`), so it saves passes over the
#'     data, not arithmetic: it pays on tall data and at large `k`, while
#'     greedy k-means++ can end lower on noisy data with many replicates.
#'     The local search of the even replicates follows either seeding.
#'   * `oversampling` (default 2) and `rounds` (default 5): `l / k` and the
#'     rounds of `"k-means||"`.
#'   * `polish` (`"auto"`, `"split_merge"`, `"hartigan"` or `"none"`): what
#'     follows the replicates (see `n_init`): split/merge moves then
#'     Hartigan's moves, Hartigan's moves alone, or nothing. `"auto"` (the
#'     default) is `"split_merge"` when `n_init > 1` and `"none"` with one
#'     replicate.
#'   * `tries` (default 3) and `split_rounds` (default 5): split/merge
#'     moves tried per round (at most), and the most rounds.
#'   * `polish_starts` (`"auto"`, the default, or a number): how many of
#'     the best distinct replicates are polished, the lowest result kept.
#'     `"auto"`: when two replicates reached the lowest objective, only
#'     Hartigan's moves from each distinct replicate; otherwise it polishes
#'     the two best, then the next ones in increasing
#'     objective while the lowest polished result has been reached from one
#'     start only, up to all distinct replicates: where the polished starts
#'     agree (separated clusters) it costs two polishes, where many optima
#'     lie close together it polishes more, and the replicates not
#'     polished get Hartigan's moves. On data so small that a polish costs
#'     next to nothing (`nrow(x) * k <= 10^4`) `"auto"` polishes every
#'     replicate. A number polishes exactly that
#'     many (2 is the faster setting) and keeps the labels of that many
#'     replicates in memory; `"auto"` keeps those of all distinct
#'     replicates. On reduced rows (every `method` but `"none"`) `"auto"` is
#'     2: there the reduction is for speed, and the near-equal optima differ
#'     by less than the reduction distorts; `polish_starts = n_init`
#'     polishes every replicate.
#'   * `precision` (`"double"`, the default, or `"single"`): with
#'     `"single"` the products of the rows with the centres, from which the
#'     seeding, Lloyd's assignments and the polish take every distance, are
#'     computed from a float copy of the rows (dense rows: the reduced rows,
#'     or `x` itself with `method = "none"`; sparse rows stay in double):
#'     half the memory of the double copy the row-wise steps otherwise
#'     keep, and twice the values per SIMD instruction. The rows are
#'     scaled by a power of two so that data of any magnitude keep float's
#'     24 bits relative to their largest value; a product is then accurate
#'     to about `2 (d + 2) 2^-24` of the rows' and centres' norms.
#'     Row norms, cluster sums and all statistics stay in double, and Lloyd
#'     then runs in double from the centres the search found, so the
#'     result is a fixed point of Lloyd in double as with `"double"`, with
#'     the same guarantees; the search itself may take other paths near
#'     ties and end in another local optimum. It pays where the products
#'     dominate (large `k`, with `seeding = "k-means||"`); on tall data with
#'     small `k` the final Lloyd iterations in double are extra. Its copy of
#'     the rows takes half the bytes.
#' @return An object of class `c("kmeans_reduced", "kmeans")`: a list with
#'   the components of [stats::kmeans()], all in the original feature space,
#'   \item{cluster}{integer vector of the cluster (1 to `k`) of each row.}
#'   \item{centers}{`k x ncol(x)` matrix of cluster means of the original data.}
#'   \item{totss}{total sum of squares about the grand mean.}
#'   \item{withinss}{within-cluster sums of squares, one per cluster.}
#'   \item{tot.withinss}{`sum(withinss)`: the k-means objective.}
#'   \item{betweenss}{`totss - tot.withinss`.}
#'   \item{size}{number of rows in each cluster.}
#'   \item{weight}{with `weights`: each cluster's sum of weights (the
#'     statistics above are then weighted).}
#'   \item{iter}{Lloyd iterations of the kept replicate (with those after
#'     its split/merge and Hartigan moves).}
#'   \item{ifault}{0, or 2 if Lloyd did not converge in `iter_max` iterations.}
#'
#'   and also
#'   \item{method, dims, seed, call}{the method and dimension used, the seed
#'     used and the call.}
#'   \item{reducer}{the fitted reduction (class `"kmreduce_reducer"`): the
#'     seed of a projection, the selected columns (`features`: index, name,
#'     scale factor) and leverage `scores`, or the SVD `rotation`.}
#'   \item{reduced_centers}{`k x dims` centres in the reduced space: every row
#'     is assigned to the nearest of them.}
#'   \item{reduced}{the reduced data (`nrow(x) x dims`, centred: the
#'     reducer's `shift` subtracted), or `NULL`.}
#'   \item{sumsq}{\eqn{\|A\|_F^2}{||A||_F^2}, the sum of squares of `x`
#'     (the papers report the objective divided by it).}
#'   \item{n_reductions, objectives}{the number of reductions and the
#'     objective (on the original data) of each.}
#'   \item{refine, objective_before_refine, assignment_centers, assignment_shift}{the
#'     refining iterations, the objective before them and, when `refine > 0`,
#'     the original-space centres rows are assigned to and the shift of the
#'     rows in those distances (their grand mean; see Data far from the origin).}
#'   \item{timing}{elapsed seconds: `reduce`, `cluster`, `total`.}
#' @references
#' Boutsidis, C., Zouzias, A., Mahoney, M. W. and Drineas, P. (2015).
#' Randomized dimensionality reduction for k-means clustering.
#' *IEEE Transactions on Information Theory* 61(2), 1045--1062.
#' arXiv:1110.2897.
#'
#' Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009). Unsupervised feature
#' selection for the k-means clustering problem. *NIPS 22*, 153--161.
#'
#' Drineas, P., Frieze, A., Kannan, R., Vempala, S. and Vinay, V. (1999).
#' Clustering in large graphs and matrices. *SODA*, 291--299.
#'
#' Boutsidis, C., Mahoney, M. W. and Drineas, P. (2008). Unsupervised feature
#' selection for principal components analysis. *KDD*, 61--69.
#'
#' Liu, W., Shen, X. and Tsang, I. (2017). Sparse embedded k-means
#' clustering. *NIPS 30*, 3319--3327.
#'
#' Achlioptas, D. (2003). Database-friendly random projections:
#' Johnson-Lindenstrauss with binary coins. *JCSS* 66(4), 671--687.
#'
#' Tropp, J. A. (2011). Improved analysis of the subsampled randomized Hadamard
#' transform. *Advances in Adaptive Data Analysis* 3, 115--126.
#'
#' Li, Y. and Fan, Z. (2020). Dimensionality reduction for k-means
#' (report, in Chinese).
#'
#' Gu, M. and Eisenstat, S. C. (1996). Efficient algorithms for computing a
#' strong rank-revealing QR factorization. *SIAM Journal on Scientific
#' Computing* 17(4), 848--869.
#'
#' Pan, C.-T. (2000). On the existence and computation of rank-revealing LU
#' factorizations. *Linear Algebra and its Applications* 316, 199--222.
#'
#' Ailon, N. and Chazelle, B. (2009). The fast Johnson-Lindenstrauss transform
#' and approximate nearest neighbors. *SIAM Journal on Computing* 39(1),
#' 302--322.
#'
#' Lattanzi, S. and Sohler, C. (2019). A better k-means++ algorithm via local
#' search. *ICML*, 3662--3671.
#'
#' Choo, D., Grunau, C., Portmann, J. and Rozhon, V. (2020). k-means++: few
#' more steps yield constant approximation. *ICML*, 1909--1917.
#'
#' Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of
#' careful seeding. *SODA*, 1027--1035.
#'
#' Bhattacharya, A., Eube, J., Roglin, H. and Schmidt, M. (2020). Noisy,
#' greedy and not so greedy k-means++. *ESA 2020*.
#'
#' Grunau, C., Ozudogru, A. A., Rozhon, V. and Tetek, J. (2023). A nearly
#' tight analysis of greedy k-means++. *SODA 2023*.
#'
#' Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009). An improved
#' approximation algorithm for the column subset selection problem. *SODA
#' 2009*; arXiv:0812.4293 (its revised version v2 states the Frobenius
#' bound only).
#'
#' Bahmani, B., Moseley, B., Vattani, A., Kumar, R. and Vassilvitskii, S.
#' (2012). Scalable k-means++. *Proceedings of the VLDB Endowment* 5(7),
#' 622--633.
#'
#' Rozhon, V. (2020). Simple and sharp analysis of k-means||. *ICML*,
#' 8266--8275.
#'
#' Hartigan, J. A. (1975). *Clustering Algorithms*. Wiley, New York.
#'
#' Telgarsky, M. and Vattani, A. (2010). Hartigan's method: k-means
#' clustering without Voronoi. *AISTATS*, 820--827.
#'
#' Boley, D. (1998). Principal direction divisive partitioning. *Data Mining
#' and Knowledge Discovery* 2(4), 325--344.
#'
#' Ueda, N., Nakano, R., Ghahramani, Z. and Hinton, G. E. (2000). SMEM
#' algorithm for mixture models. *Neural Computation* 12(9), 2109--2128.
#' @seealso [reduce_dims()] for the reduction alone, [stats::kmeans()],
#'   [predict.kmeans_reduced()],
#'   [summary.kmeans_reduced()], [plot.kmeans_reduced()].
#' @examples
#' x <- fashion_mnist$x / 255
#' fit <- kmeans_reduced(x, k = 10, method = "sign", dims = 50, n_init = 3,
#'                       seed = 1)
#' fit
#' summary(fit)
#' table(fit$cluster, fashion_mnist$label)
#'
#' # Observation weights: a row of weight 2 counts as two copies of it
#' w <- rep(c(1, 2), length.out = nrow(x))
#' fw <- kmeans_reduced(x, 10, method = "sign", dims = 50, n_init = 3, seed = 1,
#'                      weights = w)
#' fw$weight
#'
#' # stats::kmeans()'s algorithm and trace, from the same initial centres
#' x2 <- x[1:500, ]
#' fl <- kmeans_reduced(x2, x2[1:4, ], method = "none", algorithm = "Lloyd",
#'                      trace = TRUE)
#' @export
kmeans_reduced <- function(x, k, method = "auto", dims = NULL, n_init = 10L,
                           iter_max = 100L, seed = NULL, n_threads = NULL,
                           n_reductions = 1L, refine = 0L, control = list(),
                           verbose = FALSE, weights = NULL, algorithm = NULL, trace = NULL,
                           centers, nstart, iter.max) {
  call <- match.call()
  t_start <- elapsed()
  # On MPI ranks the checks run on every rank first; the ranks then agree
  # (mpi_agree()) that all passed with the same arguments before any
  # collective step, so a user error stops every rank with the same message
  # instead of leaving the others waiting.
  on_ranks <- inherits(x, "kmreduce_mpi")
  seed_arg <- seed
  failed <- mpi_try(on_ranks, {
  # The argument names of stats::kmeans(), as aliases.
  if (missing(k) && missing(centers)) {
    stop_arg("`k` (or `centers`, as in stats::kmeans()) must be given.")
  }
  k <- kmeans_alias(if (!missing(k)) k, if (!missing(centers)) centers, !missing(k),
                    !missing(centers), "k", "centers")
  n_init <- kmeans_alias(n_init, if (!missing(nstart)) nstart, !missing(n_init),
                         !missing(nstart), "n_init", "nstart")
  iter_max <- kmeans_alias(iter_max, if (!missing(iter.max)) iter.max, !missing(iter_max),
                           !missing(iter.max), "iter_max", "iter.max")
  control <- check_control(control)
  control <- algorithm_control(control, check_algorithm(algorithm))
  trace <- check_trace(trace)
  # The sparse embedding and k-means on the data itself check the values of
  # a dense matrix while they read it: no pass of its own.
  fused <- is.matrix(x) && is.null(oldClass(x)) && is.double(x) && is.numeric(k) && !is.matrix(k) &&
    is.character(method) && length(method) == 1L &&
    method %in% c("none", "sparse_embedding")
  # (the rows of an MPI rank were checked by mpi_rows())
  if (!inherits(x, "kmreduce_mpi")) {
    x <- check_data(x, "x", big = TRUE, block_rows = control$block_rows, values = !fused,
                    vector_column = TRUE)
    # (a sparse x far from zero is dense in all but name: see there)
    x <- dense_if_far_from_zero(x)
  }
  src <- row_source(x)
  if (!is.null(weights)) {
    if (src$kind == "mpi") {
      stop_arg(paste0("`weights` are not supported on distributed rows (mpi_rows()); ",
                      "give NULL, or cluster the rows in one process."))
    }
    src$weights <- check_weights(weights, src$n)
  }
  if (src$kind == "mpi" && identical(control$algorithm, "MacQueen")) {
    stop_arg("`algorithm` \"MacQueen\" (online updates, row after row) is not available on distributed rows; use \"Lloyd\" or \"Hartigan-Wong\".")
  }
  # Labels, norms, distances and bounds: a few numbers per row.
  check_memory(64 * as.numeric(nrow(src$data)),
               sprintf("Clustering the %s rows of `x`", format(nrow(src$data))),
               "Cluster a sample of the rows, then assign the rest with predict().")
  method <- check_method(method)
  centers0 <- NULL
  if (inherits(k, "Matrix")) k <- as.matrix(k)  # sparse initial centres
  if (is.matrix(k) || is.data.frame(k)) {
    if (src$kind == "mpi") stop_arg("`k` must be a number of clusters on distributed rows, not initial centres.")
    centers0 <- check_centers(k, x)
    k <- nrow(centers0)
  } else {
    k <- check_k(k, x)
  }
  # (narrow data: "none", in memory; blocks and MPI rows keep their default)
  method <- resolve_method(method, src$data, if (src$kind == "memory") k)
  check_source_method(method, src, control)
  dims <- check_dims(dims, method, k, src$n, src$d, auto = TRUE)
  auto <- identical(dims, "auto")
  if (auto) {
    schedule <- auto_dims_schedule(method, k, src$n, src$d)
    dims <- max(schedule)
  }
  # The reduced rows (for "none" on dense data: the packed copy) and k-means.
  check_memory(8 * as.numeric(nrow(src$data)) * (dims + 8),
               sprintf("k-means on the %s x %s reduced data", format(nrow(src$data)), format(dims)),
               "Use fewer dimensions (`dims`), or cluster a sample of the rows and assign the rest with predict().")
  n_init <- check_whole(n_init, "n_init", 1, 1e6)
  iter_max <- check_whole(iter_max, "iter_max", 1, 1e8)
  n_threads <- check_n_threads(n_threads)
  n_reductions <- check_whole(n_reductions, "n_reductions", 1, 1e4)
  if (auto && n_reductions > 1L) {
    stop_arg("`dims = \"auto\"` chooses one reduction: use it with n_reductions = 1.")
  }
  refine <- check_whole(refine, "refine", 0, 1e6)
  seed <- resolve_seed(seed)
  verbose <- check_flag(verbose, "verbose")
  })
  if (on_ranks) {
    mpi_agree(x, failed, "kmeans_reduced()", if (is.null(failed)) {
      c(list(k = k, method = method, dims = dims, n_init = n_init, iter_max = iter_max,
             n_reductions = n_reductions, refine = refine,
             seed = if (is.null(seed_arg)) "NULL (drawn on rank 0)" else seed_arg,
             trace = if (is.null(trace)) "NULL" else trace),
        stats::setNames(control, paste0("control$", names(control))))
    })
    # One seed for all MPI ranks: rank 0's.
    seed <- mpi_sum(if (src$mpi$rank == 0L) seed else 0)
    verbose <- verbose && src$mpi$rank == 0L
  }
  # trace: each iteration printed (a level), or by default a progress line
  # for a long fit in an interactive session (not in knitr, not with verbose)
  level <- if (is.null(trace)) 0L else trace
  line <- is.null(trace) && !verbose && interactive() && !isTRUE(getOption("knitr.in.progress"))
  if (on_ranks && src$mpi$rank != 0L) {
    level <- 0L
    line <- FALSE
  }
  if (level > 0L || line) {
    set_trace_cpp(level, line, if (is.null(centers0)) n_init else 0L)
    on.exit(clear_trace_cpp(), add = TRUE)
  }

  if (auto) {
    return(auto_dims_fit(src, x, method, schedule, k, centers0, n_init, iter_max, seed,
                         n_threads, control, verbose, refine, call, t_start))
  }
  best <- NULL
  objectives <- numeric(n_reductions)
  t_reduce <- t_cluster <- 0
  for (r in seq_len(n_reductions)) {
    # Repetition r uses its own seed (the given one for a single reduction).
    seed_r <- if (n_reductions == 1L) seed else derive_seed_cpp(seed, r)
    t0 <- elapsed()
    say(verbose, "reducing %s x %d: %s to %d dimensions%s", format(src$n), src$d,
        method_label(method), dims,
        if (n_reductions > 1L) sprintf(" (reduction %d of %d)", r, n_reductions) else "")
    limit <- if (fused && r == 1L) max_abs_value(as.numeric(nrow(x)) * ncol(x)) else 0
    fitted <- reduce_source(fit_source_reducer(src, method, dims, k, seed_r, n_threads, control),
                            src, n_threads, control$block_rows,
                            if (method == "sparse_embedding") limit else 0)
    t_reduce <- t_reduce + (elapsed() - t0)
    say(verbose, "  done in %.3f s", elapsed() - t0)
    run <- cluster_reduced(src, x, fitted$reducer, fitted$reduced, k, centers0, n_init, iter_max,
                           seed_r, n_threads, control, verbose,
                           if (method == "none") limit else 0)
    objectives[r] <- run$objective
    t_cluster <- t_cluster + run$time
    if (is.null(best) || objectives[r] < best$objective) best <- run
  }
  finish_fit(best, src, refine, n_threads, control, verbose, seed, call, n_reductions,
             objectives, t_reduce, t_cluster, t_start, iter_max)
}

# dims = "auto": reductions of growing size (the schedule), each clustered
# and evaluated on the original data. Each size runs its own replicates (the
# n_init k-means++ seedings, or the given centres, on the new reduction:
# "fresh") and Lloyd from the best partition so far (its means there,
# "warm"); the better of the two on the original data is the size's result.
# It stops when the best objective has improved by less than
# control$dims_tol (relative) over the last two doublings (auto_dims_done()),
# and the fit is the best of all, with the steps in fit$dims_auto.
auto_dims_fit <- function(src, x, method, schedule, k, centers0, n_init, iter_max, seed,
                          n_threads, control, verbose, refine, call, t_start) {
  steps <- data.frame(dims = integer(0), objective = numeric(0), fresh = numeric(0),
                      warm = numeric(0), seconds = numeric(0))
  best <- NULL
  bests <- numeric(0)
  t_reduce <- t_cluster <- 0
  for (dims in schedule) {
    t0 <- elapsed()
    fitted <- reduce_source(fit_source_reducer(src, method, dims, k, seed, n_threads, control),
                            src, n_threads, control$block_rows, 0)
    t_reduce <- t_reduce + (elapsed() - t0)
    cluster <- function(start, n) {
      suppressWarnings(cluster_reduced(src, x, fitted$reducer, fitted$reduced, k, start, n,
                                       iter_max, seed, n_threads, control, FALSE, 0))
    }
    fresh <- cluster(centers0, n_init)
    # (the warm run: Lloyd alone, as kmeans_reduced(x, centres, n_init = 1))
    warm <- if (!is.null(best)) cluster(start_centres(best$st), 1L)
    run <- if (!is.null(warm) && warm$objective < fresh$objective) warm else fresh
    t_cluster <- t_cluster + fresh$time + if (is.null(warm)) 0 else warm$time
    steps[nrow(steps) + 1L, ] <- list(dims, run$objective, fresh$objective,
                                      if (is.null(warm)) NA_real_ else warm$objective,
                                      elapsed() - t0)
    say(verbose, "dims = \"auto\": %d dimensions, objective %.7g (fresh %.7g, warm %s; %.3f s)",
        dims, run$objective, fresh$objective,
        if (is.null(warm)) "-" else sprintf("%.7g", warm$objective), elapsed() - t0)
    if (is.null(best) || run$objective < best$objective) best <- run
    bests <- c(bests, best$objective)
    if (auto_dims_done(bests, control$dims_tol)) break
  }
  if (best$collapsed) warn_collapsed(best$reducer$dims, k)
  fit <- finish_fit(best, src, refine, n_threads, control, verbose, seed, call, 1L,
                    best$objective, t_reduce, t_cluster, t_start, iter_max)
  fit$dims_auto <- steps
  fit
}

# The stopping rule of dims = "auto": `bests`, the best objective after each
# size so far. Done when the best improved by less than `tol` (relative) over
# the last two doublings (a quadrupling of dims). One doubling is not
# enough: on real data the objective often stalls for one doubling (two
# sizes agreeing within 1 %) and falls again at the next, and a fresh run at
# one size can end far above the best of a smaller one.
auto_dims_done <- function(bests, tol) {
  i <- length(bests)
  i >= 3L && bests[i] >= bests[i - 2L] * (1 - tol)
}

# The reduction merged rows: finish_fit() refines on the original data.
warn_collapsed <- function(dims, k) {
  warning(sprintf(paste0("The reduced data (%d dimensions) have fewer than k = %d distinct rows: ",
                         "the reduction merged rows that the original data tell apart, so the ",
                         "partition is refined on the original data (refine = 1 at least). ",
                         "Increase `dims` or choose another method."), dims, k),
          call. = FALSE)
}

# The seeding of the replicates and what follows them, as the C++ side
# takes it (`control` checked, so with every default): local search steps
# after each seeding (control$local_search, or enough steps of
# 2 + floor(log(k)) candidates each to draw about k candidates in all;
# local_search.hpp), greedy k-means++ (0) or k-means|| (1) with its
# oversampling and rounds (kmeans_parallel.hpp), and the polish: none (0),
# Hartigan (1) or split/merge (2); "auto" is split/merge after several
# replicates and none after one (n_init = 1 is the fast single run).
# `algorithm` (stats::kmeans()'s names) as the package's controls: no local
# search after the k-means++ seeding, and Hartigan's moves after Lloyd
# ("Hartigan-Wong"), nothing ("Lloyd", "Forgy") or MacQueen's online updates
# instead of Lloyd ("MacQueen", control$algorithm read by source_kmeans()).
# NULL: the package's own pipeline, unchanged.
algorithm_control <- function(control, algorithm) {
  if (is.null(algorithm)) return(control)
  control$polish <- if (algorithm == "Hartigan-Wong") "hartigan" else "none"
  control$local_search <- 0L
  control$algorithm <- algorithm
  control
}

seeding_of <- function(control, k, n_init, method = "none", n = Inf) {
  steps <- if (!is.null(control$local_search)) control$local_search else
    ceiling(k / (2 + floor(log(k))))
  polish <- if (identical(control$polish, "auto")) {
    if (n_init > 1L) "split_merge" else "none"
  } else {
    control$polish
  }
  list(local_search = as.integer(steps),
       seeding = if (identical(control$seeding, "k-means||")) 1L else 0L,
       oversampling = as.double(control$oversampling),
       rounds = as.integer(control$rounds),
       polish = match(polish, c("none", "hartigan", "split_merge")) - 1L,
       tries = as.integer(control$tries),
       split_rounds = as.integer(control$split_rounds),
       # "auto": on the data themselves, until the lowest polished result is
       # confirmed (0, kPolishStartsAuto), or every replicate for data so
       # small that a polish costs next to nothing (n k <= 10^4: a few
       # optima, each a discrete jump, where two starts can agree on a poor
       # one); on reduced rows, which are for speed, two starts
       polish_starts = if (!identical(control$polish_starts, "auto")) {
         as.integer(control$polish_starts)
       } else if (method != "none") 2L else if (n * k <= 1e4) as.integer(n_init) else 0L,
       single = identical(control$precision, "single"),
       algorithm = if (is.null(control$algorithm)) "" else control$algorithm)
}

# k-means on the reduced rows of one reduction and the statistics of its
# partition on the original rows (kmeans_reduced(), k_path()).
cluster_reduced <- function(src, x, reducer, reduced, k, centers0, n_init, iter_max, seed,
                            n_threads, control, verbose, limit) {
  t1 <- elapsed()
  method <- reducer$method
  # "none": Lloyd on the rows minus their column means (dense x).
  shift <- if (method == "none") reducer$shift
  # (on distributed rows each rank sees only its own reduced rows)
  collapsed <- src$kind != "mpi" && method != "none" && k > 1L &&
    !has_distinct_rows_cpp(reduced, k)
  if (collapsed) warn_collapsed(ncol(reduced), k)
  say(verbose, "  k-means on %s x %d, k = %d%s", format(src$n), ncol(reduced), k,
      if (is.null(centers0)) sprintf(", %d %s replicate%s", n_init, control$seeding,
                                     if (n_init == 1L) "" else "s") else
        " from the given centres")
  start <- if (!is.null(centers0)) as.matrix(apply_reducer(reducer, centers0, n_threads))
  km <- source_kmeans(src, reduced, k, start, n_init, iter_max, control$tol, seed,
                      n_threads, verbose, limit, shift,
                      seeding_of(control, k, n_init, method, as.numeric(src$n)))
  if (isTRUE(km$invalid)) check_values_later(x)
  if (verbose && isTRUE(km$polish_starts > 0L)) {
    say(verbose, paste0("  split/merge and Hartigan moves from the %d best replicate%s: objective %.7g -> %.7g ",
                        "(%d split/merge moves tried; kept: %d round%s, then %d rows moved by Hartigan's moves)"),
        km$polish_starts, if (km$polish_starts > 1L) "s" else "", min(km$objectives), km$objective,
        km$split_tries, km$split_accepted, if (km$split_accepted == 1L) "" else "s",
        as.integer(km$hartigan_moves))
  }
  # Lloyd ran on x itself and stopped with its centres the cluster means:
  # the statistics need one pass, not two.
  st <- source_stats(src, km$cluster, k, n_threads, control$block_rows,
                     if (method == "none" && isTRUE(km$means)) km$centers)
  say(verbose, "  clustered in %.3f s; objective on the original data %.7g",
      elapsed() - t1, sum(st$withinss))
  list(objective = sum(st$withinss), reducer = reducer, reduced = reduced, km = km, st = st,
       seed = seed, collapsed = collapsed, time = elapsed() - t1)
}

# The kmeans_reduced object of the chosen run: refine on the original data
# if asked (or if the reduction merged rows), then assemble.
finish_fit <- function(best, src, refine, n_threads, control, verbose, seed, call, n_reductions,
                       objectives, t_reduce, t_cluster, t_start, iter_max) {
  km <- best$km
  st <- best$st
  k <- length(st$size)
  method <- best$reducer$method
  objective <- best$objective
  assignment_centers <- assignment_shift <- NULL
  # Rows merged by the reduction cannot be told apart by nearest reduced
  # centre (predict() would not give back the labels): assign them in the
  # original space, where they are distinct.
  if (best$collapsed) refine <- max(refine, 1L)
  if (refine > 0L) {
    # Lloyd on the original data from the reduced solution's centres, with
    # the rows minus their grand mean (dense rows; see fit_reducer()).
    t0 <- elapsed()
    if (!methods::is(src$data, "sparseMatrix")) {
      size <- if (is.null(st$weight)) st$size else st$weight
      assignment_shift <- unname(colSums(st$centers * size) / sum(size))
    }
    rk <- source_lloyd(src, start_centres(st), refine, n_threads, control$block_rows,
                       assignment_shift)
    st <- source_stats(src, rk$cluster, k, n_threads, control$block_rows)
    km$cluster <- rk$cluster
    objective <- sum(st$withinss)
    assignment_centers <- rk$centers
    dimnames(assignment_centers) <- list(seq_len(k), colnames(src$data))
    t_cluster <- t_cluster + (elapsed() - t0)
    say(verbose, "refined with %d Lloyd iterations on the original data in %.3f s: objective %.7g -> %.7g",
        rk$iter, elapsed() - t0, best$objective, objective)
  }
  cluster <- km$cluster
  # (only when there are names: setting none would copy the labels)
  if (!is.null(rownames(src$data))) names(cluster) <- rownames(src$data)
  centers <- st$centers
  dimnames(centers) <- list(seq_len(k), colnames(src$data))
  reduced_centers <- km$centers
  dimnames(reduced_centers) <- list(seq_len(k), colnames(best$reduced))
  if (!km$converged) {
    warning(sprintf("Lloyd did not converge in %d iterations; increase `iter_max`.",
                    iter_max), call. = FALSE)
  }
  structure(c(list(
    cluster = cluster,
    centers = centers,
    totss = st$totss,
    withinss = st$withinss,
    tot.withinss = objective,
    betweenss = st$totss - objective,
    size = st$size),
    # (with weights: each cluster's sum of weights)
    if (!is.null(st$weight)) list(weight = st$weight),
    list(iter = km$iter,
    ifault = if (km$converged) 0L else 2L,
    method = method,
    dims = best$reducer$dims,
    seed = seed,
    call = call,
    reducer = best$reducer,
    reduced_centers = reduced_centers,
    reduced = if (control$keep_reduced && method != "none") best$reduced else NULL,
    sumsq = st$sumsq,
    n_reductions = n_reductions,
    objectives = objectives,
    refine = refine,
    objective_before_refine = best$objective,
    assignment_centers = assignment_centers,
    assignment_shift = assignment_shift),
    if (src$kind == "mpi") {
      list(mpi = unclass(src$mpi)[c("rank", "size", "n", "offset")])
    },
    list(timing = c(reduce = t_reduce, cluster = t_cluster, total = elapsed() - t_start))
  ), class = c("kmeans_reduced", "kmeans"))
}

# Lloyd's start from a partition's statistics: its means, and for an empty
# cluster (rows merged by a reduction) the grand mean instead of the
# statistics' 0, which sits wherever the origin is; Lloyd then re-seeds it
# with the farthest row, whatever the data's offset.
start_centres <- function(st) {
  start <- st$centers
  empty <- st$size == 0
  if (any(empty)) {
    start[empty, ] <- rep(colSums(st$centers * st$size) / sum(st$size), each = sum(empty))
  }
  start
}

elapsed <- function() proc.time()[["elapsed"]]

# `ours`, or the value given under the stats::kmeans() name (`theirs`);
# both given: an error naming them.
kmeans_alias <- function(ours, theirs, has_ours, has_theirs, our_name, their_name) {
  if (!has_theirs) return(ours)
  if (has_ours) {
    stop_arg(sprintf("Give `%s` or `%s` (its name in stats::kmeans()), not both.",
                     our_name, their_name))
  }
  theirs
}

# Progress messages of verbose = TRUE (suppressMessages() silences them).
say <- function(verbose, fmt, ...) {
  if (verbose) message("kmreduce: ", sprintf(fmt, ...))
}
