library(testthat)
library(kmreduce)

test_check("kmreduce")
