# citation("kmreduce") (inst/CITATION) and the DESCRIPTION's references.

test_that("citation() cites the package itself, then the papers", {
  cit <- utils::citation("kmreduce")
  expect_gt(length(cit), 1L)
  first <- cit[[1L]]
  expect_identical(attr(unclass(first)[[1L]], "bibtype"), "Manual")
  expect_match(first$title, "^kmreduce: ")
  expect_identical(first$note, paste("R package version", as.character(utils::packageVersion("kmreduce"))))
  expect_true(any(grepl("Randomized Dimensionality Reduction for k-Means Clustering", unlist(cit$title))))
})

test_that("the DESCRIPTION cites Boutsidis et al. with the year of citation()", {
  cit <- utils::citation("kmreduce")
  paper <- cit[grepl("Randomized Dimensionality Reduction for k-Means Clustering", unlist(cit$title))]
  year <- unlist(paper$year)
  expect_identical(year, "2015")
  desc <- gsub("\\s+", " ", utils::packageDescription("kmreduce")$Description)
  cited <- regmatches(desc, regexpr("Boutsidis, Zouzias, Mahoney and Drineas \\([0-9]{4}\\)", desc))
  expect_length(cited, 1L)
  expect_identical(sub(".*\\(([0-9]{4})\\)$", "\\1", cited), year)
})
