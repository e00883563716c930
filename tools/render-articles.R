# Renders the articles (vignettes/articles/*.Rmd.orig, the sources) to
# precomputed vignettes/articles/*.Rmd: Markdown with the results and figures
# already in it and no code left to run, so that the pkgdown site and GitHub
# show them without the data packages the experiments use.
#
#   R_LIBS=.Rlib Rscript tools/render-articles.R              # all articles
#   R_LIBS=.Rlib Rscript tools/render-articles.R liu2017      # one
#
# Each source is knitted to GitHub Markdown (figures in figures/), then
# wrapped with its title. Needs kmreduce installed, rmarkdown with pandoc,
# and the articles' data packages (see vignettes/articles/README.md).
args <- commandArgs(trailingOnly = TRUE)
dir <- "vignettes/articles"
sources <- list.files(dir, pattern = "\\.Rmd\\.orig$", full.names = TRUE)
if (length(args) > 0L) sources <- sources[sub("\\.Rmd\\.orig$", "", basename(sources)) %in% args]

# The title of an .Rmd source (its YAML header).
source_title <- function(path) {
  head <- readLines(path, n = 20L)
  line <- grep("^title:", head, value = TRUE)[1L]
  gsub("^title:\\s*\"?|\"\\s*$", "", line)
}

# GitHub Markdown from github_document, minus its setext title, as an .Rmd
# whose only YAML is the title (pkgdown supplies the HTML format).
wrap_markdown <- function(md, title, out) {
  body <- readLines(md, encoding = "UTF-8")
  if (length(body) >= 1L && grepl("^=+$", body[min(which(grepl("^=+$", body)), length(body))])) {
    body <- body[-seq_len(which(grepl("^=+$", body))[1L])]
  }
  while (length(body) > 0L && !nzchar(body[1L])) body <- body[-1L]
  header <- c("---", sprintf("title: \"%s\"", title), "---", "",
              "<!-- Precomputed from this file's .Rmd.orig by tools/render-articles.R; edit that. -->",
              "")
  writeLines(c(header, body), out, useBytes = TRUE)
}

for (src in sources) {
  name <- sub("\\.Rmd\\.orig$", "", basename(src))
  message("rendering ", name)
  # Knit a copy next to the source (figures land in figures/, as the
  # articles' fig.path says), then keep only the wrapped Markdown.
  rmd <- file.path(dir, paste0(name, "-render.Rmd"))
  file.copy(src, rmd, overwrite = TRUE)
  md <- rmarkdown::render(rmd, output_format = rmarkdown::github_document(html_preview = FALSE),
                          quiet = TRUE, envir = new.env())
  wrap_markdown(md, source_title(src), file.path(dir, paste0(name, ".Rmd")))
  unlink(c(rmd, md))
}
