# Shared helpers of the benchmark scripts (not part of the package).
suppressPackageStartupMessages(library(kmreduce))

# cluster_accuracy() comes from kmreduce (best one-to-one matching, clue).

machine_info <- function() {
  cpu <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
                  error = function(e) "unknown")
  si <- utils::sessionInfo()
  # the library behind Debian's alternatives link (libblas.so.3 may be
  # OpenBLAS or the reference BLAS): its folder and name
  lib <- function(p) {
    p <- tryCatch(normalizePath(p), error = function(e) p)
    file.path(basename(dirname(p)), basename(p))
  }
  simd <- tryCatch(kmreduce:::simd_level_cpp(), error = function(e) "unknown")
  sprintf("%s, %d cores; %s; BLAS: %s; LAPACK: %s; kmreduce SIMD level: %s",
          cpu, parallel::detectCores(), R.version.string,
          lib(si$BLAS), lib(si$LAPACK), simd)
}

# Data sets. Each: list(x, truth, k, name, source).
load_usps <- function() {
  e <- new.env()
  utils::data("digits", package = "RnavGraphImageData", envir = e)
  # images are columns, 11 blocks of 1100 in class order; the 6th and 7th
  # blocks (images 5501-7700) duplicate the 5th: dropped, 8 classes remain.
  keep <- setdiff(seq_len(11000), 5501:7700)
  x <- t(as.matrix(e$digits))[keep, ] / 255
  truth <- factor(rep(1:10, each = 1100)[keep])
  list(x = x, truth = droplevels(truth), k = 8L, name = "USPS digits (8800 x 256)",
       source = "CRAN RnavGraphImageData::digits without the duplicated blocks 6-7")
}

load_orl <- function() {
  e <- new.env()
  utils::data("faces", package = "RnavGraphImageData", envir = e)
  x <- t(as.matrix(e$faces)) / 255
  list(x = x, truth = factor(rep(1:40, each = 10)), k = 40L, name = "ORL faces (400 x 4096)",
       source = "CRAN RnavGraphImageData::faces, 40 people x 10 images")
}

load_fashion <- function() {
  list(x = fashion_mnist$x / 255, truth = fashion_mnist$label, k = 10L,
       name = "Fashion-MNIST (3000 x 784)", source = "kmreduce::fashion_mnist")
}

# Fashion-MNIST from Debian's dataset-fashion-mnist: the training images then
# the test images (70000 x 784, grey levels / 255), the first `n` of them.
load_fashion_full <- function(n = 70000L) {
  read_idx <- function(path) {
    con <- gzfile(path, "rb")
    on.exit(close(con))
    magic <- readBin(con, "integer", n = 1, size = 4, endian = "big")
    dims <- readBin(con, "integer", n = magic %% 256, size = 4, endian = "big")
    readBin(con, "integer", n = prod(dims), size = 1, signed = FALSE)
  }
  dir <- "/usr/share/datasets/fashion-mnist"
  v <- c(read_idx(file.path(dir, "train-images-idx3-ubyte.gz")),
         read_idx(file.path(dir, "t10k-images-idx3-ubyte.gz")))
  lab <- c(read_idx(file.path(dir, "train-labels-idx1-ubyte.gz")),
           read_idx(file.path(dir, "t10k-labels-idx1-ubyte.gz")))
  x <- matrix(as.double(v), ncol = 784L, byrow = TRUE) / 255
  list(name = sprintf("Fashion-MNIST %d x 784", as.integer(n)), k = 10L,
       x = x[seq_len(n), , drop = FALSE], truth = factor(lab[seq_len(n)]))
}

# Best elapsed time of `reps` runs of f(), and the last result.
best_of <- function(f, reps = 3L) {
  t <- Inf
  for (r in seq_len(reps)) {
    s <- system.time(out <- f())[["elapsed"]]
    t <- min(t, s)
  }
  list(t = t, out = out)
}

# A busy-loop process beside a benchmark (a busy machine), and its end.
busy_start <- function() {
  pidfile <- tempfile()
  system(sprintf("sh -c 'echo $$ > %s; while :; do :; done' >/dev/null 2>&1 &", pidfile))
  Sys.sleep(0.3)
  as.integer(readLines(pidfile))
}
busy_stop <- function(pid) invisible(tools::pskill(pid))

# Gene expression: Bioconductor ALL (Debian r-bioc-all), 128 patients x
# 12625 probe sets (RMA log2 expression); k = 6 (the molecular biology groups
# with more than one patient have 6 levels).
load_all_leukemia <- function() {
  suppressPackageStartupMessages(requireNamespace("Biobase"))
  e <- new.env()
  utils::data("ALL", package = "ALL", envir = e)
  x <- t(Biobase::exprs(e$ALL))
  list(x = x, truth = factor(e$ALL$mol.biol), k = 6L, name = "ALL leukemia (128 x 12625)",
       source = "Bioconductor ALL (Debian r-bioc-all)")
}

# Gene expression: Bioconductor bladderbatch (Debian r-bioc-bladderbatch),
# 57 samples x 22283 probe sets; k = 5 (the outcomes).
load_bladder <- function() {
  suppressPackageStartupMessages(requireNamespace("Biobase"))
  e <- new.env()
  utils::data("bladderdata", package = "bladderbatch", envir = e)
  x <- t(Biobase::exprs(e$bladderEset))
  list(x = x, truth = factor(e$bladderEset$outcome), k = 5L,
       name = "bladderbatch (57 x 22283)", source = "Bioconductor bladderbatch (Debian r-bioc-bladderbatch)")
}

# Text: 20 Newsgroups from CRAN lda 1.4.2 (bench/peers/install-peers.sh), train +
# test documents as word counts (sparse), with their labels.
load_newsgroups <- function() {
  e <- new.env()
  utils::data(list = c("newsgroup.train.documents", "newsgroup.test.documents",
                       "newsgroup.vocab", "newsgroup.train.labels",
                       "newsgroup.test.labels"), package = "lda", envir = e)
  docs <- c(e$newsgroup.train.documents, e$newsgroup.test.documents)
  len <- vapply(docs, ncol, integer(1))
  x <- Matrix::sparseMatrix(i = rep(seq_along(docs), len),
                            j = unlist(lapply(docs, function(m) m[1L, ])) + 1L,
                            x = as.double(unlist(lapply(docs, function(m) m[2L, ]))),
                            dims = c(length(docs), length(e$newsgroup.vocab)))
  list(x = x, truth = factor(c(e$newsgroup.train.labels, e$newsgroup.test.labels)))
}

# The same (18774 documents x 61188 words; those in at least 5 documents
# kept) as tf-idf rows of unit length.
load_newsgroups_tfidf <- function() {
  x <- load_newsgroups()$x
  x <- x[, Matrix::colSums(x != 0) >= 5]
  x <- x[Matrix::rowSums(x) > 0, ]
  idf <- log(nrow(x) / Matrix::colSums(x != 0))
  x@x <- log1p(x@x)
  x <- x %*% Matrix::Diagonal(x = idf)
  x <- Matrix::Diagonal(x = 1 / sqrt(Matrix::rowSums(x^2))) %*% x
  x <- methods::as(x, "CsparseMatrix")
  list(x = x, truth = NULL, k = 20L, name = sprintf("20 Newsgroups tf-idf (%d x %d, sparse)", nrow(x), ncol(x)),
       source = "CRAN lda 1.4.2: newsgroup train + test documents")
}
