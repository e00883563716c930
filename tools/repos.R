# The one place the install scripts choose a package repository: the
# repositories you have configured (getOption("repos"), from your .Rprofile or
# the site profile) are used as they are; only when none is set (the "@CRAN@"
# placeholder) does CRAN's cloud mirror stand in.
local({
  repos <- getOption("repos")
  if (length(repos) == 0L || !nzchar(repos[[1L]]) || any(repos == "@CRAN@")) {
    repos <- c(CRAN = "https://cloud.r-project.org")
    options(repos = repos)
  }
  invisible(repos)
})
