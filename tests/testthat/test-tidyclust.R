# kmreduce as an engine of tidyclust's k_means().

test_that("the engine is registered with modelenv, tidyclust's engine registry", {
  skip_if_not_installed("modelenv")
  # tidyclust declares its k_means() model when it loads; without it, the
  # same declaration
  if (!"k_means" %in% modelenv::get_from_env("models")) {
    modelenv::set_new_model("k_means")
    modelenv::set_model_mode("k_means", "partition")
  }
  expect_true(kmreduce:::register_tidyclust_engine())
  fits <- modelenv::get_from_env("k_means_fit")
  row <- fits[fits$engine == "kmreduce", ]
  expect_identical(nrow(row), 1L)
  expect_identical(row$value[[1]]$func[["fun"]], ".k_means_fit_kmreduce")
  args <- modelenv::get_from_env("k_means_args")
  expect_identical(args$original[args$engine == "kmreduce"], "k")
  # registering twice changes nothing
  expect_true(kmreduce:::register_tidyclust_engine())
  expect_identical(nrow(modelenv::get_from_env("k_means_fit")), nrow(fits))
})

test_that("k_means() |> set_engine(\"kmreduce\") fits and predicts like kmeans_reduced()", {
  if (!requireNamespace("tidyclust", quietly = TRUE)) {
    skip("tidyclust is not installed (`bash tools/install-deps.sh extras` installs it)")
  }
  skip_if_not_installed("modelenv")
  suppressPackageStartupMessages(library(tidyclust))
  m <- make_mixture(n = 240, d = 30, k = 4, sd = 2, sep = 4)
  df <- as.data.frame(m$x)
  spec <- tidyclust::k_means(num_clusters = 4) |>
    tidyclust::set_engine("kmreduce", method = "sign", dims = 10, seed = 3)
  fit <- generics::fit(spec, ~ ., data = df)
  expect_s3_class(fit$fit, "kmeans_reduced")
  ref <- kmeans_reduced(m$x, 4, method = "sign", dims = 10, seed = 3)
  # the same partition, numbered in the order of first rows (tidyclust's rule)
  expect_equal(fit$fit$tot.withinss, ref$tot.withinss)
  expect_identical(adjusted_rand_index(fit$fit$cluster, ref$cluster), 1)
  expect_identical(unique(unname(fit$fit$cluster)), seq_len(4))
  expect_equal(fit$fit$centers[fit$fit$cluster, ], ref$centers[ref$cluster, ],
               ignore_attr = TRUE)
  # assignment, centroids and prediction agree with each other and with predict()
  asg <- tidyclust::extract_cluster_assignment(fit)$.cluster
  pred <- predict(fit, df)$.pred_cluster
  expect_identical(as.character(asg), as.character(pred))
  expect_identical(as.character(pred), paste0("Cluster_", fit$fit$cluster))
  cen <- tidyclust::extract_centroids(fit)
  expect_equal(as.matrix(cen[, -1]), fit$fit$centers, ignore_attr = TRUE)
  new <- m$x[c(5, 17, 101), ] + 0.01
  expect_identical(as.character(predict(fit, as.data.frame(new))$.pred_cluster),
                   paste0("Cluster_", predict(fit$fit, new)))
  # new rows land where kmeans_reduced() puts them, up to the renumbering
  lab <- tapply(fit$fit$cluster, ref$cluster, unique)
  expect_identical(as.integer(lab[predict(ref, new)]), unname(predict(fit$fit, new)))
})

test_that("relabelling by first appearance keeps predict() == cluster for every method", {
  m <- make_mixture(n = 150, d = 20, k = 3, sd = 1, sep = 3)
  for (method in c("none", "leverage", "rsvd")) {
    fit <- kmreduce:::.k_means_fit_kmreduce(m$x, 3, method = method, seed = 2, refine = 1)
    expect_identical(predict(fit, m$x), fit$cluster, label = method)
    expect_identical(unique(unname(fit$cluster)), 1:3, label = method)
    expect_equal(sum(fit$withinss), fit$tot.withinss)
    expect_identical(as.integer(table(fit$cluster)), as.integer(fit$size))
  }
})
