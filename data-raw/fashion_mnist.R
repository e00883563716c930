# Builds data/fashion_mnist.rda from the Debian package dataset-fashion-mnist
# (apt-get install dataset-fashion-mnist). Run from the package root:
#   Rscript data-raw/fashion_mnist.R
# Provenance: Zalando Research, Fashion-MNIST (2017), MIT/Expat licence;
# the first 3000 images of the test set (t10k-*), in file order.
read_idx <- function(path) {
  con <- gzfile(path, "rb")
  on.exit(close(con))
  magic <- readBin(con, "integer", n = 1, size = 4, endian = "big")
  ndim <- magic %% 256
  dims <- readBin(con, "integer", n = ndim, size = 4, endian = "big")
  vals <- readBin(con, "integer", n = prod(dims), size = 1, signed = FALSE)
  list(dims = dims, vals = vals)
}
dir <- "/usr/share/datasets/fashion-mnist"
n <- 3000L
img <- read_idx(file.path(dir, "t10k-images-idx3-ubyte.gz"))
lab <- read_idx(file.path(dir, "t10k-labels-idx1-ubyte.gz"))
stopifnot(img$dims[1] == 10000L, img$dims[2] == 28L, img$dims[3] == 28L)
# idx stores each image row-major (28 rows of 28 pixels): one image per row of x.
x <- matrix(img$vals, nrow = img$dims[1], ncol = 784L, byrow = TRUE)[seq_len(n), ]
storage.mode(x) <- "integer"
colnames(x) <- sprintf("r%02dc%02d", rep(1:28, each = 28), rep(1:28, times = 28))
classes <- c("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
             "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")
fashion_mnist <- list(
  x = x,
  label = factor(classes[lab$vals[seq_len(n)] + 1L], levels = classes)
)
save(fashion_mnist, file = "data/fashion_mnist.rda", compress = "xz")
