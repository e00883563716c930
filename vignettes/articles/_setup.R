# Shared set-up of the articles (sourced by each .Rmd; not part of the package).
suppressPackageStartupMessages(library(kmreduce))
knitr::opts_chunk$set(comment = "#>", fig.width = 10, fig.height = 3.4, dpi = 90)
Sys.setenv(OMP_NUM_THREADS = "1")

load_usps <- function() {
  e <- new.env()
  utils::data("digits", package = "RnavGraphImageData", envir = e)
  # Images are columns, 11 blocks of 1100 in class order; blocks 6 and 7
  # (images 5501-7700) repeat block 5: dropped, leaving 8800 images, 8 classes.
  keep <- setdiff(seq_len(11000), 5501:7700)
  list(x = t(as.matrix(e$digits))[keep, ] / 255,
       truth = droplevels(factor(rep(1:10, each = 1100)[keep])))
}

load_orl <- function() {
  e <- new.env()
  utils::data("faces", package = "RnavGraphImageData", envir = e)
  list(x = t(as.matrix(e$faces)) / 255, truth = factor(rep(1:40, each = 10)))
}

# Chapters of Jane Austen's six novels (Debian r-cran-janeaustenr) as a
# document-term count matrix (dgCMatrix), stop words (tm) removed, terms used
# in at least 5 chapters kept; the novel is the class.
load_austen <- function() {
  b <- janeaustenr::austen_books()
  chapter <- cumsum(grepl("^chapter [0-9ivxlc]+", b$text, ignore.case = TRUE))
  keep <- chapter > 0
  doc <- paste(b$book[keep], chapter[keep])
  words <- strsplit(tolower(b$text[keep]), "[^a-z']+")
  d <- rep(doc, lengths(words))
  w <- unlist(words)
  ok <- nchar(w) > 2 & !(w %in% tm::stopwords("en"))
  d <- factor(d[ok], levels = unique(doc))
  w <- factor(w[ok])
  x <- Matrix::sparseMatrix(as.integer(d), as.integer(w), x = 1,
                            dimnames = list(levels(d), levels(w)))
  x <- x[, Matrix::colSums(x > 0) >= 5]
  book <- factor(sub(" [0-9]+$", "", rownames(x)))
  list(x = methods::as(x, "dgCMatrix"), truth = book)
}
