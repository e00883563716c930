# Small 10x-layout HDF5 files for the tests of the file sources (made in a
# temporary folder): genes x cells counts `m` written as Cell Ranger 2 does
# (group with data, indices, indptr, shape, barcodes, genes).
skip_without_bioc <- function(pkgs = c("rhdf5", "HDF5Array", "SingleCellExperiment")) {
  for (p in pkgs) {
    if (!requireNamespace(p, quietly = TRUE)) {
      skip(sprintf("the Bioconductor package %s is not installed", p))
    }
  }
}

# `group`: "/" writes the datasets in the root group ("/data", ...);
# `value_type`: the HDF5 type of the counts; `indptr`: the offsets to store
# instead of m@p (as doubles when `indptr_type` is a float type).
write_tenx <- function(m, file, group = "mm10", index_type = "H5T_STD_I64LE",
                       value_type = "H5T_STD_I32LE", indptr = NULL,
                       indptr_type = "H5T_STD_I64LE") {
  m <- methods::as(m, "CsparseMatrix")
  rhdf5::h5createFile(file)
  root <- group %in% c("", "/")
  if (!root) rhdf5::h5createGroup(file, group)
  path <- function(name) if (root) paste0("/", name) else paste0(group, "/", name)
  ds <- function(name, value, type) {
    rhdf5::h5createDataset(file, path(name), dims = length(value),
                           H5type = type, chunk = max(1L, min(length(value), 4096L)),
                           level = 4)
    rhdf5::h5write(value, file, path(name))
  }
  ds("data", if (value_type == "H5T_STD_I32LE") as.integer(m@x) else as.double(m@x), value_type)
  ds("indices", as.numeric(m@i), index_type)
  ds("indptr", if (is.null(indptr)) as.numeric(m@p) else indptr, indptr_type)
  rhdf5::h5write(as.integer(dim(m)), file, path("shape"))
  cells <- if (is.null(colnames(m))) sprintf("cell%d-1", seq_len(ncol(m))) else colnames(m)
  genes <- if (is.null(rownames(m))) sprintf("gene%d", seq_len(nrow(m))) else rownames(m)
  rhdf5::h5write(cells, file, path("barcodes"))
  rhdf5::h5write(genes, file, path("genes"))
  rhdf5::h5write(genes, file, path("gene_names"))
  rhdf5::h5closeAll()
  invisible(file)
}

# Counts of `n_cells` cells of `n_types` planted types (genes x cells).
sim_counts <- function(n_genes = 300, n_cells = 600, n_types = 3, seed = 1) {
  withr::with_seed(seed, {
    type <- sample(n_types, n_cells, replace = TRUE)
    base <- stats::rgamma(n_genes, 0.3, 1)
    mu <- vapply(seq_len(n_types), function(t) {
      b <- base
      up <- sample(n_genes, n_genes %/% 10)
      b[up] <- b[up] * 6
      b
    }, numeric(n_genes))
    lib <- stats::rlnorm(n_cells, 0, 0.3)
    counts <- matrix(stats::rpois(n_genes * n_cells, mu[, type] * rep(lib, each = n_genes)),
                     n_genes, n_cells)
    m <- methods::as(counts, "CsparseMatrix")
    dimnames(m) <- list(sprintf("gene%d", seq_len(n_genes)), sprintf("cell%d-1", seq_len(n_cells)))
    list(counts = m, type = type)
  })
}

# HDF5Array::TENxMatrix(), after resetting rhdf5's error handling: with
# HDF5Array 1.26 and rhdf5 2.42 a TENxMatrix() call leaves rhdf5 returning
# FALSE instead of an error from H5Dopen(), so the next TENxMatrix() call in
# the same process fails.
tenx_matrix <- function(file, group = "mm10") {
  rhdf5::h5errorHandling("normal")
  HDF5Array::TENxMatrix(file, group)
}

# `code` run with the package's own 10x reader on (own = TRUE, where it was
# built with HDF5) or off (every block read by rhdf5).
with_own_reader <- function(own, code) {
  held <- kmreduce:::held
  old <- held$own_hdf5_reader
  assign("own_hdf5_reader", own, envir = held)
  on.exit(assign("own_hdf5_reader", old, envir = held))
  code
}

# The readers available: rhdf5, and the own reader where it was built.
tenx_readers <- function() {
  c(rhdf5 = FALSE, if (kmreduce:::tenx_hdf5_available_cpp()) c(own = TRUE))
}

# Skips where the package was built without HDF5 (src/tenx_hdf5.cpp).
skip_without_own_reader <- function() {
  skip_without_bioc("rhdf5")
  if (!kmreduce:::tenx_hdf5_available_cpp()) skip("built without HDF5: rhdf5 reads every block")
}

# One dataset `value` of HDF5 type `type` in a new file (chunks of `chunk`
# values, gzip `level`, shuffle or not; chunk NULL: contiguous).
write_dataset <- function(value, type, chunk = 4000L, level = 4L, shuffle = TRUE) {
  f <- tempfile(fileext = ".h5")
  rhdf5::h5createFile(f)
  if (!is.null(chunk)) chunk <- min(chunk, length(value))
  rhdf5::h5createDataset(f, "d", dims = length(value), H5type = type, chunk = chunk,
                         level = level, shuffle = shuffle)
  rhdf5::h5write(value, f, "d")
  rhdf5::h5closeAll()
  f
}

# A small .h5ad file in the layout anndata writes (R/source_h5ad.R): `x`,
# cells x genes (a sparse Matrix or a matrix, with dimnames) as `X`, stored
# "csr", "csc" or "dense"; `layers`: a named list of more matrices of the
# same cells and genes (layers/<name>); `raw`: NULL or a matrix of the same
# cells (raw/X, its genes in raw/var); `obs`: a list of factors, stored as
# anndata's categorical columns. `value_type`: the HDF5 type of the values;
# `level`: gzip level, 0 for none (contiguous datasets, as anndata writes
# without compression), with chunks of `chunk` values. `index`: the name of
# obs's and var's index dataset.
write_h5ad <- function(x, file, format = "csr", layers = list(), raw = NULL, obs = list(),
                       value_type = "H5T_STD_I32LE", level = 4L, index = "_index", chunk = 64L) {
  rhdf5::h5createFile(file)
  set_attrs <- function(path, attrs) {
    fid <- rhdf5::H5Fopen(file)
    on.exit(rhdf5::H5Fclose(fid))
    obj <- if (path == "/") fid else rhdf5::H5Oopen(fid, path)
    if (path != "/") on.exit(rhdf5::H5Oclose(obj), add = TRUE, after = FALSE)
    for (a in names(attrs)) {
      rhdf5::h5writeAttribute(attrs[[a]], obj, a, asScalar = is.character(attrs[[a]]) &&
                                length(attrs[[a]]) == 1L)
    }
  }
  ds <- function(path, value, type) {
    dims <- if (is.matrix(value)) dim(value) else length(value)
    if (level > 0) {
      rhdf5::h5createDataset(file, path, dims = dims, H5type = type,
                             chunk = pmax(1L, pmin(dims, chunk)), level = level)
    } else {
      rhdf5::h5createDataset(file, path, dims = dims, H5type = type, chunk = NULL, level = 0)
    }
    rhdf5::h5write(value, file, path)
  }
  value <- function(v) if (grepl("_STD_", value_type)) as.integer(v) else as.double(v)
  put_matrix <- function(path, m, fmt) {
    if (fmt == "dense") {
      # (rhdf5 writes R's genes x cells as the file's cells x genes)
      ds(path, t(matrix(value(as.matrix(m)), nrow(m))), value_type)
      set_attrs(path, list(`encoding-type` = "array", `encoding-version` = "0.2.0"))
      return(invisible())
    }
    s <- methods::as(if (fmt == "csr") Matrix::t(m) else m, "CsparseMatrix")
    rhdf5::h5createGroup(file, path)
    ds(paste0(path, "/data"), value(s@x), value_type)
    ds(paste0(path, "/indices"), as.integer(s@i), "H5T_STD_I32LE")
    ds(paste0(path, "/indptr"), as.numeric(s@p), "H5T_STD_I64LE")
    set_attrs(path, list(`encoding-type` = paste0(fmt, "_matrix"), `encoding-version` = "0.1.0",
                         shape = as.integer(dim(m))))
  }
  frame <- function(path, names, columns = list()) {
    rhdf5::h5createGroup(file, path)
    rhdf5::h5write(names, file, paste0(path, "/", index))
    for (col in names(columns)) {
      f <- columns[[col]]
      g <- paste0(path, "/", col)
      rhdf5::h5createGroup(file, g)
      rhdf5::h5write(levels(f), file, paste0(g, "/categories"))
      rhdf5::h5write(as.integer(f) - 1L, file, paste0(g, "/codes"))
      set_attrs(g, list(`encoding-type` = "categorical", `encoding-version` = "0.2.0",
                        ordered = 0L))
    }
    attrs <- list(`encoding-type` = "dataframe", `encoding-version` = "0.2.0", `_index` = index)
    if (length(columns)) attrs$`column-order` <- names(columns)
    set_attrs(path, attrs)
  }
  set_attrs("/", list(`encoding-type` = "anndata", `encoding-version` = "0.1.0"))
  put_matrix("/X", x, format)
  frame("/obs", rownames(x), obs)
  frame("/var", colnames(x))
  if (length(layers)) {
    rhdf5::h5createGroup(file, "/layers")
    for (l in names(layers)) put_matrix(paste0("/layers/", l), layers[[l]], format)
  }
  if (!is.null(raw)) {
    rhdf5::h5createGroup(file, "/raw")
    put_matrix("/raw/X", raw, format)
    frame("/raw/var", colnames(raw))
  }
  rhdf5::h5closeAll()
  invisible(file)
}
