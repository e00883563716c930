# Fuzzer of the 10x-file, SummarizedExperiment and block-source paths
# (R/source_tenx.R, R/source_delayed.R, R/kmeans_reduced_se.R). Each case:
# a small genes x cells counts matrix (5-200 of each, square in a good share
# of cases) of planted types, some all-zero cells, sometimes many duplicate
# cells (few distinct cells; some copies scaled by 2 or 3, distinct counts
# that log1p-CPM makes equal), written as a 10x HDF5 file (random value and
# index types), then sometimes corrupted:
#
#   dup       a gene index stored twice within a cell (an error naming the
#             file, the gene and its name, the cell and its barcode)
#   outside   a gene index outside the genes (an error naming the file and
#             the cell)
#   unsorted  the gene indices of some cells out of order (valid: the same
#             result as sorted)
#   nan, inf, neg
#             a NaN, Inf or negative value (with normalize = "log1p_cpm" the
#             error "needs counts ... has V at cell C"; without, NaN and Inf
#             a clean error naming the file, a negative value valid)
#   wide      a few counts beyond R's integers, below 2^53 (2^31 + 1, 3e9,
#             2^40 + 7, 2^53 - 1), stored as 64-bit (or unsigned 32-bit)
#             integers (valid: read exactly, as doubles)
#   beyond    a count of 2^53 or more stored as a 64-bit integer (an error
#             naming the file and the cell: a double cannot hold it exactly)
#   frac      `indptr` stored as doubles with a fractional offset
#   down      `indptr` decreasing at one cell
#             (both the error of the layout check naming the file, the group
#             and the first wrong entry, whatever the blocks)
#
# and clustered by one way in: t(TENxMatrix) as x ("tenx_t"), a
# SingleCellExperiment with the TENxMatrix as its counts ("sce_tenx"), a
# DelayedArray of the dense cells-as-rows matrix ("delayed"), the cells in
# memory as a dgCMatrix ("memory"), and, for the block and
# SummarizedExperiment paths that are not a file, a DelayedArray of the
# sparse cells as rows ("delayed_sparse"), a SingleCellExperiment whose
# counts are a DelayedArray ("sce_delayed") or a dgCMatrix ("sce_memory");
# The file's datasets are in a named group or in the root group ("/").
# With a random k (1 to beyond the distinct cells), method
# (sparse_embedding, sign, gaussian, rsvd), dims, block_rows, n_init, 1 or
# 2 threads, and normalize ("none" or "log1p_cpm", SingleCellExperiment
# ways only). (The layout corruptions need a file: the other ways get the
# value ones only.)
#
# Invariants of a valid case (D: the distinct cells of the data as
# clustered, after normalization; n the cells):
#
#   k_distinct   k > D (k <= n): the error "`k` must be a whole number in
#                [1, D] (the number of distinct rows of `x`), not k." with
#                that D, the very message of the cells in memory; k > n:
#                "[1, n] (the number of rows of `x`..."
#   fit_error    k <= D: a fit, not an error
#   no_empty     all(fit$size > 0), every label used (for `wide` counts,
#                whose squared distances can lose the differences of small
#                counts, only when the same cells in memory have no empty
#                cluster either; otherwise counted apart, not a violation of
#                the readers)
#   means        fit$centers are the means of their cells
#   names        names(fit$cluster) the barcodes, colnames(fit$centers) the
#                gene names
#   memory       labels identical to those of the same cells in memory
#                (dgCMatrix, normalized in R; for the dense DelayedArray the
#                dense matrix), same arguments and seed
#   predict      predict(fit, cells in memory) == fit$cluster (and, for the
#                SingleCellExperiment ways, predict(fit, sce)); for `wide`
#                counts, only when the fit of the cells in memory is its own
#                predict() (otherwise counted apart)
#
# and of an invalid case:
#
#   invalid      a clean R error with the expected message (naming the file
#                for the file ways), not a result
#
# Each batch of cases runs in a child Rscript that records the case it is
# about to run and saves the outcomes after each case: a child that dies
# marks that case a crash and the run goes on after it. A case ends as
# "result", "error" (a clean R error) or "crash". Prints a summary, the
# violations by invariant and the first cases of each. A case is replayed
# alone by giving its number as `first` with 1 case.
# Run: R_LIBS=.Rlib Rscript tools/fuzz/fuzz_tenx.R [cases] [seed] [first]
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "batches.R"))  # run_batches(), violations()
args <- commandArgs(TRUE)
n_cases <- if (length(args) >= 1L) as.integer(args[1]) else 300L
seed <- if (length(args) >= 2L) as.integer(args[2]) else 1L
first_case <- if (length(args) >= 3L) as.integer(args[3]) else 1L
batch <- 40L

child <- '
suppressPackageStartupMessages({
  library(kmreduce); library(Matrix)
  library(SingleCellExperiment); library(HDF5Array); library(rhdf5); library(DelayedArray)
})
a <- commandArgs(TRUE)
from <- as.integer(a[1]); to <- as.integer(a[2]); seed <- as.integer(a[3])
progress <- a[4]; out <- a[5]; dir <- a[6]

# A 10x file as Cell Ranger 2 writes it (tests/testthat/helper-hdf5.R,
# write_tenx()), from the stored vectors themselves (so they can be
# corrupted) and with the value type chosen.
# group "/": the datasets in the root group.
write_tenx_raw <- function(file, group, x, i, p, dims, barcodes, genes, value_type, index_type,
                           indptr_type = "H5T_STD_I64LE") {
  rhdf5::h5createFile(file)
  root <- group == "/"
  if (!root) rhdf5::h5createGroup(file, group)
  path <- function(name) if (root) paste0("/", name) else paste0(group, "/", name)
  ds <- function(name, value, type) {
    rhdf5::h5createDataset(file, path(name), dims = length(value), H5type = type,
                           chunk = max(1L, min(length(value), 4096L)), level = 4)
    rhdf5::h5write(value, file, path(name))
  }
  # (an empty dataset: HDF5 warns about its chunks)
  suppressWarnings({
    ds("data", if (value_type != "H5T_STD_I32LE") as.double(x) else x, value_type)
    ds("indices", as.numeric(i), index_type)
    ds("indptr", as.numeric(p), indptr_type)
  })
  rhdf5::h5write(as.integer(dims), file, path("shape"))
  rhdf5::h5write(barcodes, file, path("barcodes"))
  rhdf5::h5write(genes, file, path("genes"))
  rhdf5::h5write(genes, file, path("gene_names"))
  rhdf5::h5closeAll()
}
# (helper-hdf5.R, tenx_matrix(): rhdf5 2.42 with HDF5Array 1.26 leaves its
# error handling changed after TENxMatrix(), which breaks the next call)
tenx_matrix <- function(file, group) {
  rhdf5::h5errorHandling("normal")
  HDF5Array::TENxMatrix(file, group)
}

# Counts of planted types, genes x cells (a dgCMatrix of whole numbers).
gen_counts <- function() {
  n_cells <- sample(c(5:30, 5:80, 5:200), 1L)
  square <- runif(1) < 0.35
  n_genes <- if (square) n_cells else sample(c(5:30, 5:80, 5:200), 1L)
  n_types <- sample(1:5, 1L)
  base <- stats::rgamma(n_genes, 0.4, 1)
  mu <- vapply(seq_len(n_types), function(t) {
    b <- base
    up <- sample(n_genes, max(1L, n_genes %/% 8))
    b[up] <- b[up] * 6 + 0.5
    b
  }, numeric(n_genes))
  few <- runif(1) < 0.4
  if (few) {
    # a handful of profiles, each cell a copy of one (some scaled copies)
    n_prof <- sample(1:6, 1L)
    prof <- matrix(stats::rpois(n_genes * n_prof, mu[, sample(n_types, n_prof, TRUE)] * 2),
                   n_genes, n_prof)
    pick <- sample(n_prof, n_cells, TRUE)
    times <- if (runif(1) < 0.5) sample(c(1, 1, 2, 3), n_cells, TRUE) else rep(1, n_cells)
    counts <- prof[, pick, drop = FALSE] * rep(times, each = n_genes)
  } else {
    type <- sample(n_types, n_cells, TRUE)
    lib <- stats::rlnorm(n_cells, 0, 0.4)
    counts <- matrix(stats::rpois(n_genes * n_cells, mu[, type] * rep(lib, each = n_genes)),
                     n_genes, n_cells)
  }
  zeros <- if (runif(1) < 0.5) sample(0:max(1L, n_cells %/% 5), 1L) else 0L
  if (zeros) counts[, sample(n_cells, zeros)] <- 0
  m <- methods::as(methods::as(counts * 1, "generalMatrix"), "CsparseMatrix")
  bc <- vapply(seq_len(n_cells),
               function(j) paste(sample(c("A", "C", "G", "T"), 10, TRUE), collapse = ""), "")
  bc <- make.unique(paste0(bc, "-1"))
  genes <- make.unique(paste0(sample(c("Gm", "Rpl", "Cd", "Actb", "Xist"), n_genes, TRUE),
                              seq_len(n_genes)))
  dimnames(m) <- list(genes, bc)
  list(m = m, few = few, zeros = zeros, square = square)
}

# Cells of m with at least `at_least` stored values.
cells_with <- function(m, at_least) which(diff(m@p) >= at_least)
# One of them at random (sample(c, 1) of a single number c draws from 1:c).
one_of <- function(v) v[sample.int(length(v), 1L)]

# A corruption of the stored vectors st (x, i, p of the genes x cells
# matrix) and, for values, of m itself. Returns list(st, m, info).
corrupt <- function(kind, st, m, index_type, value_type) {
  n_genes <- nrow(m)
  info <- list(kind = kind)
  if (kind == "dup") {
    cell <- one_of(cells_with(m, 2L))
    pos <- m@p[cell] + sort(sample(diff(m@p)[cell], 2L))
    st$i[pos[2]] <- st$i[pos[1]]
    info$cell <- cell; info$gene <- st$i[pos[1]]
  } else if (kind == "outside") {
    cell <- one_of(cells_with(m, 1L))
    pos <- m@p[cell] + sample(diff(m@p)[cell], 1L)
    bad <- c(n_genes, n_genes + sample(1:100, 1L), 2^31 - 1,
             if (!grepl("_U", index_type)) -1, if (grepl("64", index_type)) 2^33 + 5)
    st$i[pos] <- bad[sample.int(length(bad), 1L)]
    info$cell <- cell; info$index <- st$i[pos]
  } else if (kind == "unsorted") {
    cand <- cells_with(m, 2L)
    cells <- cand[sample.int(length(cand), sample(seq_along(cand), 1L))]
    for (cell in cells) {
      pos <- (m@p[cell] + 1L):m@p[cell + 1L]
      o <- sample(pos)
      st$i[pos] <- st$i[o]
      st$x[pos] <- st$x[o]
    }
    info$cells <- length(cells)
  } else if (kind %in% c("wide", "beyond")) {
    cands <- cells_with(m, 1L)
    cells <- if (kind == "beyond") one_of(cands) else
      cands[sample.int(length(cands), min(length(cands), sample(1:3, 1L)))]
    big <- if (kind == "beyond") {
      c(2^53, 2^60, 2^62, if (grepl("_U64", value_type)) c(2^63, 2^64 - 2^11))
    } else {
      c(2^31 + 1, 3e9, if (grepl("64", value_type)) c(2^40 + 7, 2^53 - 1))
    }
    for (cell in cells) {
      pos <- m@p[cell] + sample(diff(m@p)[cell], 1L)
      st$x[pos] <- big[sample.int(length(big), 1L)]
      m@x[pos] <- st$x[pos]
    }
    info$cell <- if (kind == "beyond") cells else NULL
    info$cells <- if (kind == "wide") length(cells) else NULL
    info$value <- if (kind == "beyond") m@x[pos] else NULL
  } else if (kind %in% c("frac", "down")) {
    # entry j (2..n) of indptr, the end of cell j - 1
    j <- one_of(2:ncol(m))
    p <- as.numeric(st$p)
    if (kind == "frac") {
      p[j] <- p[j] + sample(c(0.5, 0.25, 1e-6), 1L)
      info$entry <- j
    } else {
      p[j] <- p[j + 1L] + sample(1:3, 1L)  # (entry j + 1 below entry j)
      info$entry <- j + 1L
    }
    st$p <- p
    info$indptr <- p
    info$cell <- NULL
  } else {
    cell <- one_of(cells_with(m, 1L))
    pos <- m@p[cell] + sample(diff(m@p)[cell], 1L)
    v <- switch(kind, nan = NaN, inf = sample(c(Inf, Inf, -Inf), 1L),
                neg = sample(c(-1, -3, if (grepl("IEEE", value_type)) -0.5), 1L))
    st$x[pos] <- v
    m@x[pos] <- v
    info$cell <- cell; info$value <- v
  }
  list(st = st, m = m, info = info)
}

# The cells of m as rows (dgCMatrix), log1p-CPM normalized as the package
# documents when `normalize`.
as_rows <- function(m, normalize) {
  rows <- methods::as(Matrix::t(m), "CsparseMatrix")
  if (normalize == "log1p_cpm") {
    lib <- Matrix::rowSums(rows)
    lib[lib == 0] <- 1
    rows@x <- log1p(rows@x / lib[rows@i + 1L] * 1e6)
  }
  rows
}

shown_value <- function(v) if (is.nan(v)) "NaN" else format(v)

one_case <- function(case) {
  set.seed(seed * 100003 + case)
  g <- gen_counts()
  m <- g$m
  n_cells <- ncol(m); n_genes <- nrow(m)
  way <- sample(c("tenx_t", "sce_tenx", "delayed", "memory", "sce_delayed", "sce_memory",
                  "delayed_sparse"), 1L, prob = c(0.3, 0.3, 0.12, 0.08, 0.08, 0.06, 0.06))
  file_way <- way %in% c("tenx_t", "sce_tenx")
  sce_way <- grepl("^sce", way)
  normalize <- if (sce_way && runif(1) < 0.5) "log1p_cpm" else "none"
  kinds <- c("none", if (file_way) c("dup", "outside", "unsorted", "beyond", "frac", "down"),
             "nan", "inf", "neg", "wide")
  kind <- if (runif(1) < 0.45) sample(setdiff(kinds, "none"), 1L) else "none"
  if (kind %in% c("frac", "down") && ncol(m) < 2L) kind <- "none"
  if (kind == "dup" && !length(cells_with(m, 2L))) kind <- "none"
  if (kind == "unsorted" && !length(cells_with(m, 2L))) kind <- "none"
  if (kind %in% c("outside", "nan", "inf", "neg", "wide", "beyond") &&
      !length(cells_with(m, 1L))) {
    kind <- "none"
  }
  value_type <- if (kind %in% c("nan", "inf")) sample(c("H5T_IEEE_F64LE", "H5T_IEEE_F32LE"), 1L) else
    if (kind == "neg") sample(c("H5T_IEEE_F64LE", "H5T_IEEE_F32LE", "H5T_STD_I32LE"), 1L) else
      if (kind == "wide") sample(c("H5T_STD_I64LE", "H5T_STD_U64LE", "H5T_STD_U32LE"), 1L) else
        if (kind == "beyond") sample(c("H5T_STD_I64LE", "H5T_STD_U64LE"), 1L) else
          sample(c("H5T_STD_I32LE", "H5T_STD_U32LE", "H5T_STD_I64LE", "H5T_STD_U64LE",
                   "H5T_IEEE_F64LE", "H5T_IEEE_F32LE"), 1L)
  index_type <- sample(c("H5T_STD_I32LE", "H5T_STD_I64LE", "H5T_STD_U32LE", "H5T_STD_U64LE"), 1L)
  indptr_type <- if (kind == "frac") "H5T_IEEE_F64LE" else
    sample(c("H5T_STD_I64LE", "H5T_STD_I64LE", "H5T_STD_I32LE", "H5T_STD_U64LE", "H5T_IEEE_F64LE"), 1L)
  group <- sample(c("mm10", "hg19", "GRCh38", "/"), 1L, prob = c(0.25, 0.2, 0.2, 0.35))
  st <- list(x = m@x, i = m@i, p = m@p)
  info <- list(kind = "none")
  if (kind != "none") {
    cr <- corrupt(kind, st, m, index_type, value_type)
    st <- cr$st; m <- cr$m; info <- cr$info
  }
  # what is clustered, and its distinct cells
  valid <- kind %in% c("none", "unsorted", "wide") || (kind == "neg" && normalize == "none")
  rows <- as_rows(m, normalize)
  distinct <- if (valid) nrow(unique(as.matrix(rows))) else NA_integer_
  k_top <- if (valid) distinct else max(1L, nrow(unique(as.matrix(as_rows(g$m, normalize)))) - 1L)
  # (valid: beyond the distinct cells in a good share, at them, or small)
  r <- runif(1)
  k <- if (valid && r < 0.3) distinct + sample(1:3, 1L) else if (valid && r < 0.45) distinct else
    sample(seq_len(min(k_top, 10L)), 1L)
  method <- sample(c("sparse_embedding", "sign", "gaussian", "rsvd"), 1L)
  upper <- kmreduce:::method_dims_upper(method, n_cells, n_genes)
  dims <- sample(seq_len(max(1L, min(upper, if (method == "rsvd") 5L else 12L))), 1L)
  block_rows <- if (runif(1) < 0.3) NULL else sample(seq_len(n_cells + 3L), 1L)
  # (rsvd with the settings the SummarizedExperiment method gives cells, so
  # that every way runs the same SVD)
  cfg <- list(k = k, method = method, dims = dims, n_init = sample(1:2, 1L),
              seed = sample.int(1e6, 1L), n_threads = sample(1:2, 1L),
              control = c(list(block_rows = block_rows),
                          if (method == "rsvd") list(svd_rows = 20000, eps = 1)))
  where <- if (!is.null(info[["cell"]])) sprintf(" at cell %d", info[["cell"]]) else
    if (!is.null(info[["cells"]])) sprintf(" (%d cells)", info[["cells"]]) else ""
  if (!is.null(info[["entry"]])) where <- sprintf(" at indptr entry %d", info[["entry"]])
  what <- sprintf(paste0("case %d: %d genes x %d cells%s (%s%s), %s, group %s, %s %s indptr %s, %s%s, normalize %s, ",
                         "k=%d (D=%s) %s dims=%d n_init=%d threads=%d block_rows=%s"),
                  case, n_genes, n_cells, if (g$square) " square" else "",
                  if (g$few) "few profiles" else "types",
                  if (g$zeros) sprintf(", %d zero cells", g$zeros) else "",
                  way, group, sub("H5T_(STD|IEEE)_", "", value_type), sub("H5T_STD_", "", index_type),
                  sub("H5T_(STD|IEEE)_", "", indptr_type),
                  if (kind == "none") "no corruption" else kind, where,
                  normalize, k, format(distinct), method, dims, cfg$n_init, cfg$n_threads,
                  format(block_rows))
  writeLines(what, progress)
  file <- NULL
  if (file_way) {
    file <- file.path(dir, sprintf("case-%d-%d.h5", seed, case))
    unlink(file)
    write_tenx_raw(file, group, st$x, st$i, st$p, dim(m), colnames(m), rownames(m),
                   value_type, index_type, indptr_type)
  }
  on.exit(if (!is.null(file)) unlink(file), add = TRUE)
  x <- switch(way,
    tenx_t = t(tenx_matrix(file, group)),
    sce_tenx = SingleCellExperiment(list(counts = tenx_matrix(file, group))),
    delayed = DelayedArray(as.matrix(as_rows(m, "none"))),
    delayed_sparse = DelayedArray(as_rows(m, "none")),
    memory = as_rows(m, "none"),
    sce_delayed = SingleCellExperiment(list(counts = DelayedArray(m))),
    sce_memory = SingleCellExperiment(list(counts = m)))
  tenx_seed <- if (file_way) {
    if (way == "tenx_t") x@seed@seed else SummarizedExperiment::assay(x, withDimnames = FALSE)@seed
  }
  shown_file <- if (file_way) tenx_seed@filepath
  warned <- character(0)
  fit_with <- function(data, extra = list()) {
    withCallingHandlers(
      do.call(kmeans_reduced, c(list(data), cfg, extra)),
      warning = function(w) {
        warned <<- c(warned, conditionMessage(w))
        invokeRestart("muffleWarning")
      })
  }
  # (t(TENxMatrix) is clustered as cells, normalized by default: here its
  # counts as they are, as the other ways that are not a SummarizedExperiment)
  extra <- if (sce_way) list(normalize = normalize) else
    if (way == "tenx_t") list(normalize = "none") else list()
  fit <- tryCatch(fit_with(x, extra), error = function(e) e)
  outcome <- if (inherits(fit, "error")) "error" else "result"
  msg <- if (inherits(fit, "error")) conditionMessage(fit) else ""
  bad <- character(0)
  add <- function(name, detail) bad[[name]] <<- detail
  mem_diff <- NA
  wide_empty <- FALSE
  wide_predict <- FALSE
  if (!valid) {
    cell <- info[["cell"]]
    bc <- colnames(m)[cell]
    want <- switch(kind,
      dup = sprintf("The 10x file \'%s\' has a gene index %d (gene %d, \\"%s\\") stored twice at cell %d (\\"%s\\").",
                    shown_file, info$gene, info$gene + 1L, rownames(m)[info$gene + 1L], cell, bc),
      outside = sprintf("The 10x file \'%s\' has a gene index outside 0..%d at cell %d (\\"%s\\").",
                        shown_file, n_genes - 1L, cell, bc),
      beyond = sprintf(paste0("The 10x file \'%s\' has a count of 2^53 or more at cell %d (\\"%s\\"): ",
                              "stored as a 64-bit integer, which R\'s doubles cannot hold exactly."),
                       shown_file, cell, bc),
      frac = ,
      down = {
        j <- info$entry
        p <- info$indptr
        sprintf("The 10x file \'%s\' (group \\"%s\\") has an `indptr` that does not run from 0 up to the %d stored values: entry %d (the end of cell %d) is %s, %s.",
                shown_file, tenx_seed@group, length(st$x), j, j - 1L, format(p[j], digits = 15),
                if (kind == "frac") "not a whole number" else
                  sprintf("below entry %d (%s)", j - 1L, format(p[j - 1L], digits = 15)))
      },
      NULL)
    if (kind %in% c("nan", "inf", "neg") && normalize == "log1p_cpm") {
      want <- sprintf("`normalize = \\"log1p_cpm\\"` needs counts (finite numbers >= 0) but the assay \\"counts\\"%s has %s at cell %d.",
                      if (file_way) sprintf(" (the 10x file \'%s\')", shown_file) else "",
                      shown_value(info$value), cell)
    }
    if (outcome == "result") {
      add("invalid", "a result, not an error")
    } else if (!is.null(want) && !grepl(want, msg, fixed = TRUE)) {
      add("invalid", sprintf("error \\"%s\\", expected \\"%s\\"", msg, want))
    } else if (file_way && !grepl(shown_file, msg, fixed = TRUE)) {
      add("invalid", sprintf("error \\"%s\\" does not name the file", msg))
    }
  } else {
    ref_rows <- if (way == "delayed") as.matrix(rows) else rows
    ref <- tryCatch(fit_with(ref_rows), error = function(e) e)
    if (k > n_cells) {
      want <- sprintf("`k` must be a whole number in [1, %d] (the number of rows of `x`", n_cells)
      if (outcome == "result" || !grepl(want, msg, fixed = TRUE)) {
        add("k_distinct", sprintf("k %d > %d cells: %s", k, n_cells,
                                  if (outcome == "result") "a result" else msg))
      }
    } else if (k > distinct) {
      want <- sprintf("`k` must be a whole number in [1, %d] (the number of distinct rows of `x`), not %d.",
                      distinct, k)
      if (outcome == "result") {
        add("k_distinct", sprintf("k %d > D %d: a fit (sizes %s)", k, distinct,
                                  paste(fit$size, collapse = " ")))
      } else if (msg != want) {
        add("k_distinct", sprintf("k %d > D %d: \\"%s\\"", k, distinct, msg))
      }
      if (!inherits(ref, "error") || conditionMessage(ref) != want) {
        add("k_distinct", sprintf("in memory, k %d > D %d: %s", k, distinct,
                                  if (inherits(ref, "error")) conditionMessage(ref) else "a fit"))
      }
    } else if (outcome == "error") {
      add("fit_error", msg)
    } else {
      if (any(fit$size == 0) || length(unique(fit$cluster)) != length(fit$size)) {
        if (kind == "wide" && !inherits(ref, "error") && any(ref$size == 0)) {
          wide_empty <- TRUE
        } else {
          add("no_empty", sprintf("sizes %s", paste(fit$size, collapse = " ")))
        }
      }
      used <- sort(unique(fit$cluster))
      dense <- as.matrix(rows)
      means <- rowsum(dense, fit$cluster) / as.vector(table(fit$cluster))
      err <- max(abs(unname(fit$centers[used, , drop = FALSE]) - unname(means)))
      top <- max(abs(dense), 1)
      if (!is.finite(err) || err > 1e-12 * top) add("means", sprintf("centres off the means by %.3g", err))
      if (!identical(names(fit$cluster), colnames(m)) || !identical(colnames(fit$centers), rownames(m))) {
        add("names", sprintf("names(cluster) %s..., colnames(centers) %s...",
                             paste(utils::head(names(fit$cluster), 2), collapse = " "),
                             paste(utils::head(colnames(fit$centers), 2), collapse = " ")))
      }
      if (inherits(ref, "error")) {
        add("memory", paste("in memory an error:", conditionMessage(ref)))
      } else if (!identical(unname(fit$cluster), unname(ref$cluster))) {
        add("memory", sprintf("labels differ from the cells in memory at %d of %d cells (objective %.10g vs %.10g)",
                              sum(fit$cluster != ref$cluster), n_cells, fit$tot.withinss, ref$tot.withinss))
      }
      if (way == "delayed") {
        # (informational: dense blocks against the sparse cells in memory)
        sp <- tryCatch(fit_with(rows), error = function(e) e)
        mem_diff <- inherits(sp, "error") || !identical(unname(sp$cluster), unname(fit$cluster))
      }
      p <- tryCatch(predict(fit, rows), error = function(e) paste("error:", conditionMessage(e)))
      # (wide counts: apart when the fit of the cells in memory is not its
      # own predict() either)
      wide_apart <- function() {
        kind == "wide" && !inherits(ref, "error") &&
          !identical(unname(predict(ref, rows)), unname(ref$cluster))
      }
      if (!identical(unname(p), unname(fit$cluster)) && !is.character(p) && wide_apart()) {
        wide_predict <- TRUE
      } else if (!identical(unname(p), unname(fit$cluster))) {
        add("predict", sprintf("predict(fit, cells in memory): %s",
                               if (is.character(p)) p else sprintf("%d labels differ", sum(p != fit$cluster))))
      }
      if (sce_way) {
        p2 <- tryCatch(predict(fit, x), error = function(e) paste("error:", conditionMessage(e)))
        if (!identical(unname(p2), unname(fit$cluster))) {
          add("predict", sprintf("predict(fit, sce): %s",
                                 if (is.character(p2)) p2 else sprintf("%d labels differ", sum(p2 != fit$cluster))))
        }
      }
    }
  }
  list(case = case, what = what, way = way, kind = kind, valid = valid, outcome = outcome,
       message = substr(msg, 1, 300), bad = bad, warned = warned, dense_sparse_differ = mem_diff,
       wide_empty = wide_empty, wide_predict = wide_predict)
}

res <- list()
for (case in from:to) {
  res[[length(res) + 1L]] <- one_case(case)
  saveRDS(res, out)  # (after each case: a crash keeps the cases before it)
}
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
dir <- tempfile("fuzz-tenx-")
dir.create(dir)
last_case <- first_case + n_cases - 1L
t0 <- proc.time()[["elapsed"]]
run <- run_batches(script, first_case, last_case, batch, seed, dir)
all <- run$all
crashes <- run$crashes
unlink(dir, recursive = TRUE)
outcome <- vapply(all, `[[`, "", "outcome")
valid <- vapply(all, `[[`, TRUE, "valid")
way <- vapply(all, `[[`, "", "way")
kind <- vapply(all, `[[`, "", "kind")
dsd <- vapply(all, function(r) isTRUE(r$dense_sparse_differ), TRUE)
v <- violations(all)
bad <- v$bad
details <- v$details
cat(sprintf(paste0("%d cases (seed %d, cases %d..%d, %.0f s): %d results, %d clean errors, %d crashes; ",
                   "%d cases with a violation\n"),
            length(all) + length(crashes), seed, first_case, last_case, proc.time()[["elapsed"]] - t0,
            sum(outcome == "result"), sum(outcome == "error"), length(crashes),
            sum(vapply(all, function(r) length(r$bad) > 0L, TRUE))))
cat(sprintf("valid cases %d (k above the distinct cells: %d), invalid %d; fits with a warning %d; ",
            sum(valid), sum(vapply(all, function(r) r$valid && grepl("distinct rows", r$message), TRUE)),
            sum(!valid), sum(vapply(all, function(r) length(r$warned) > 0L, TRUE))))
cat(sprintf("dense DelayedArray labels other than the sparse cells' in memory: %d of %d fits\n",
            sum(dsd), sum(way == "delayed" & valid & outcome == "result")))
cat(sprintf(paste0("fits of wide counts with an empty cluster, as in memory: %d; whose predict() ",
                   "differs from their labels, as in memory: %d\n"),
            sum(vapply(all, function(r) isTRUE(r$wide_empty), TRUE)),
            sum(vapply(all, function(r) isTRUE(r$wide_predict), TRUE))))
cat("ways in:", paste(names(table(way)), table(way), sep = " ", collapse = ", "), "\n")
cat("corruptions:", paste(names(table(kind)), table(kind), sep = " ", collapse = ", "), "\n")
warnings_seen <- table(sub("\n.*", "", unlist(lapply(all, function(r) unique(r$warned)))))
if (length(warnings_seen)) {
  cat("warnings (cases):\n")
  cat(sprintf("  %4d  %s\n", as.vector(warnings_seen), substr(names(warnings_seen), 1, 150)), sep = "")
}
if (length(crashes)) cat("crashes at:", paste0("  ", crashes), "", sep = "\n")
if (length(all) <= 10L) {
  # (a replay: each case in full)
  for (r in all) cat(sprintf("\n%s\n  %s%s\n", r$what, r$outcome,
                             if (nzchar(r$message)) paste0(": ", r$message) else ""))
}
if (length(bad)) {
  cat("\nViolations by invariant (cases by way in and corruption):\n")
  for (nm in sort(unique(names(bad)))) {
    hit <- Filter(function(r) nm %in% names(r$bad), all)
    by <- table(vapply(hit, function(r) paste(r$way, r$kind), ""))
    cat(sprintf("  %-11s %4d  (%s)\n", nm, length(hit), paste(names(by), by, collapse = ", ")))
  }
  cat("\nFirst cases of each:\n")
  for (nm in unique(names(bad))) {
    hit <- details[grepl(paste0("\n      ", nm, ":"), details, fixed = TRUE)]
    cat(paste0("  ", utils::head(hit, 4L), collapse = "\n"), "\n")
  }
}
quit(status = if (length(crashes) || length(bad)) 1L else 0L)
