# Shared helpers of the benchmark scripts (not part of the package).
suppressPackageStartupMessages(library(kmreduce))

# cluster_accuracy() comes from kmreduce (best one-to-one matching, clue).

machine_info <- function() {
  cpu <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
                  error = function(e) "unknown")
  si <- utils::sessionInfo()
  sprintf("%s, %d cores; %s; BLAS: %s; LAPACK: %s",
          cpu, parallel::detectCores(), R.version.string,
          basename(si$BLAS), basename(si$LAPACK))
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
