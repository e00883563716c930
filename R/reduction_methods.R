#' Reduction methods of kmeans_reduced()
#'
#' What each `method` of [kmeans_reduced()] and [reduce_dims()] does, what
#' its paper proves, and how the data flow through it: in memory, out of
#' core and on MPI ranks, near and far from the origin. The tuning options
#' named here (`control$...`) are those of [kmeans_control()].
#'
#' @section Methods:
#' The approximation factors below are the papers': a partition optimal on
#' the reduced data (or within a factor gamma of optimal) is within that
#' factor (times gamma) of optimal on `x`, for the `dims` the theorems state
#' ([dims_for()]; far above the default `10 k`). The k-means run on the
#' reduced rows is a heuristic with no such factor of its own (see
#' [kmeans_control()]); [optimality_bound()] certifies a given result.
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
#'   (the paper has none; the default `"auto"` runs one, see
#'   [kmeans_control()]): a `(2 + eps)`-approximation.
#'
#' `"auto"` is `"none"` for narrow data, at most `10 k` columns (there the
#' projections' default `dims`, `min(ncol(x), 10 k)`, would keep every
#' column: a reduction would only add its cost and its distortion), and
#' otherwise `"sparse_embedding"` for sparse `x` (one pass over the
#' nonzeros) and `"sign"` for dense `x`. `"none"` clusters `x` itself.
#'
#' @eval registry_rd_table()
#'
#' @section Data far from the origin:
#' k-means does not depend on where the data sit, but distances computed as
#' \eqn{\|x\|^2 + \|c\|^2 - 2 x^T c}{||x||^2 + ||c||^2 - 2 x.c} (the fast
#' way) lose every significant digit when the data are far from the origin
#' (coordinates in metres, raw intensities, timestamps). So every step works
#' on rows shifted to sit around the origin: the reduced rows minus the
#' reducer's `shift` (subtracted from every row it maps, in `predict()` too);
#' `"none"` and `refine` run Lloyd on the rows minus a shift of their own
#' (dense `x`). A shift is a point among the rows: in each column the median
#' of at most 256 rows, chosen by their values (so the same whatever the
#' order of the rows), or, for `refine`, of the centres weighted by their
#' clusters' sizes. Not a mean, which one row far from the others (at `1e12`
#' among rows near 0) would move away from all of them, losing the digits
#' the shift is for; such a row ends in a cluster of its own and the others
#' are clustered as without it. The SVD-based methods (`"leverage"`,
#' `"cssp"`, `"svd"`, `"rsvd"`) decompose the centred data (each column
#' minus its mean: principal components; for sparse `x` through products,
#' without densifying). Adding `1e12` to unit-scale data gives the same
#' partition. The centres and statistics are reported in the original
#' coordinates. Sparse `x` is not shifted (its zeros stay zeros); a sparse
#' `x` whose rows sit far from zero against their spread (then nearly all
#' its entries are nonzero) is clustered as a dense matrix. Values are
#' limited to those whose sums of squares over all the rows stay finite
#' doubles (about `1e151` for `1e6` values); larger ones are an error, not
#' `Inf`. Rows far from each other at several scales at once (groups
#' `1e12` apart, each with structure of its own at unit scale) are beyond
#' what one shift can serve: the groups are told apart, but the distances
#' within the groups away from the shift lose their digits.
#'
#' The exact SVD (`"svd"`, `control$svd = "exact"`) gives the top singular
#' vectors to working precision ([svd()]'s to rounding). When their number
#' (`dims`; `k` for `"leverage"`) is small against `min(n, d)`
#' (`8 (dims + 2) <= min(n, d)`), block Lanczos computes
#' them from products with `x` (a sparse `x` stays sparse) and takes seconds
#' on data of tens of thousands of rows and thousands of columns whose top
#' singular values stand out (word counts, images). Otherwise (larger
#' `dims`, or data without such structure, such as noise, where Lanczos does
#' not reach working precision) LAPACK's divide-and-conquer SVD of a dense
#' copy of `x` is computed (a sparse `x` is densified for that step only,
#' at most 4 GB), whose time grows as `n d min(n, d)`: practical up to
#' `min(n, d)` of about 3000 (minutes with the reference BLAS; an optimized
#' BLAS is faster). Either way the memory of that dense copy and LAPACK's
#' workspace, about `8 (3 n d + 9 min(n, d)^2)` bytes, must be available,
#' or the step is refused before it starts; beyond these sizes use `"rsvd"`.
#' All other methods keep a sparse `x` sparse.
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
#' Bioconductor's `DelayedMatrix` objects (an `HDF5Matrix`, a matrix with
#' delayed operations) are read the same way, in blocks realized by
#' DelayedArray. A 10x Genomics HDF5 file (a `TENxMatrix`, given as `t()` of
#' it or as the assay of a `SingleCellExperiment`) is read straight from the
#' file with rhdf5, in blocks of whole cells kept sparse, and can be
#' log-normalized block by block
#' ([kmeans_reduced.SummarizedExperiment()]); its values are checked as
#' they are read (no pass of their own), and a file changed during the fit
#' stops it with an error.
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
#' @section Choosing dims:
#' The number of dimensions of the reduced data. Default
#' `min(ncol(x), 10 * k)`, `min(ncol(x), 30 * k)` for `"leverage"` (its
#' draws with replacement need more columns than a projection for the same
#' objective), and `k` for `"svd"` and `"rsvd"`; at most
#'   `ncol(x)` for the projections and `min(nrow(x), ncol(x))` for `"svd"`,
#'   `"rsvd"` and `"cssp"`. Ignored for `"none"`.
#'
#' `dims = "auto"` chooses it from the data: reductions to `2k`, `4k`,
#' `8k`, ... dimensions (`k`, `2k`, ... for `"svd"` and `"rsvd"`; at most
#' half of `ncol(x)`), each clustered and evaluated on the original data.
#' At each size the `n_init` replicates run afresh on the new reduction
#' (or from `k` given as initial centres), and Lloyd's iterations start
#' once more from the means of the best partition found so far (a warm
#' start, without the polish); the size's result is the better of the two
#' on the original data. It stops when the best objective so far has
#' improved by less than `control$dims_tol` (default 1 %, relative) over the
#' last two doublings (one doubling without a gain does not stop it: on
#' real data the objective can stall for one doubling and fall again at
#' the next), or at the largest size. The fit is the best of all sizes
#' tried, and `fit$dims_auto` lists the steps (`dims`; `objective`, the
#' better of `fresh` and `warm`, `NA` for the first size; `seconds`). Each
#' size costs about a fit at that size; the sizes double, so the whole costs
#' about twice a fit at the last size tried.
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
#' Boutsidis, C., Mahoney, M. W. and Drineas, P. (2009). An improved
#' approximation algorithm for the column subset selection problem. *SODA
#' 2009*; arXiv:0812.4293 (its revised version v2 states the Frobenius
#' bound only).
#' @seealso [kmeans_reduced()], [reduce_dims()], [dims_for()] for the
#'   dimensions the theorems ask for, [kmeans_control()].
#' @name reduction_methods
NULL
