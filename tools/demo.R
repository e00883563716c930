# The main job on the shipped data set: cluster 3000 Fashion-MNIST images
# with kmeans_reduced(), report the fit, its accuracy against the labels and
# its time against stats::kmeans(), and draw the clusters to a PNG.
suppressPackageStartupMessages(library(kmreduce))

accuracy <- cluster_accuracy  # best one-to-one matching (Hungarian method)

x <- fashion_mnist$x / 255
truth <- fashion_mnist$label
k <- 10L
cat(sprintf("Fashion-MNIST subset: %d images x %d pixels, %d classes\n\n",
            nrow(x), ncol(x), nlevels(truth)))

t_red <- system.time(fit <- kmeans_reduced(x, k, method = "sign", dims = 100,
                                          n_init = 10, seed = 42))[["elapsed"]]
print(summary(fit))
t_none <- system.time(full <- kmeans_reduced(x, k, method = "none", n_init = 10,
                                            seed = 42))[["elapsed"]]
set.seed(42)
t_stats <- system.time(ref <- stats::kmeans(x, k, nstart = 10, iter.max = 100))[["elapsed"]]

rows <- data.frame(
  run = c("kmeans_reduced(method = \"sign\", dims = 100)",
          "kmeans_reduced(method = \"none\")",
          "stats::kmeans(nstart = 10)"),
  seconds = c(t_red, t_none, t_stats),
  objective = c(fit$tot.withinss, full$tot.withinss, ref$tot.withinss),
  accuracy = c(accuracy(fit$cluster, truth), accuracy(full$cluster, truth),
               accuracy(ref$cluster, truth))
)
rows$objective_vs_stats <- rows$objective / ref$tot.withinss
rows$speedup_vs_stats <- t_stats / rows$seconds
cat("\nAll with 10 starts, 1 thread; objective on the original 784 pixels:\n")
print(format(rows, digits = 4), row.names = FALSE)

# The cluster centres as images (what each cluster looks like), and the
# clusters in the first two principal axes coloured by the true class.
png_file <- "kmreduce-demo.png"
grDevices::png(png_file, width = 900, height = 620)
plot(fit, which = "centers", image_dim = c(28, 28),
     main = "Fashion-MNIST: the 10 cluster centres of kmeans_reduced (sign projection, 100 dims)")
invisible(grDevices::dev.off())
png_clusters <- "kmreduce-demo-clusters.png"
grDevices::png(png_clusters, width = 900, height = 700)
plot(fit, labels = truth,
     main = "Fashion-MNIST (3000 images): clusters (numbers) and true classes (colours)")
invisible(grDevices::dev.off())
cat(sprintf("\nPlots written to %s (centres) and %s (clusters)\n", png_file, png_clusters))
