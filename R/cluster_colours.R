#' Distinct colours for clusters
#'
#' The colours kmreduce's plots give to `n` clusters (or labels), distinct
#' for any `n`: the Tableau 10 palette up to 10, the dark colours of
#' Polychrome 36 up to 33, beyond that hues spread by the golden angle at
#' three alternating lightness levels (from some thousands of clusters on,
#' neighbouring codes: all different, though no eye tells them apart).
#'
#' @param n Number of colours.
#' @return A character vector of `n` colours.
#' @examples
#' cluster_colours(10)
#' @export
cluster_colours <- function(n) {
  n <- check_whole(n, "n", 0, 1e6)
  if (n <= 10L) return(unname(grDevices::palette.colors(10L, "Tableau 10"))[seq_len(n)])
  dark <- grDevices::palette.colors(36L, "Polychrome 36")
  lum <- colSums(grDevices::col2rgb(dark) * c(0.299, 0.587, 0.114)) / 255
  dark <- unname(dark[lum < 0.8])
  if (n <= length(dark)) return(dark[seq_len(n)])
  i <- seq_len(n) - 1
  h <- (i * 137.50776) %% 360
  out <- grDevices::hcl(h = h, c = c(80, 60, 45)[i %% 3 + 1], l = c(45, 65, 80)[i %% 3 + 1])
  # Hues closer than a hex code can tell apart: turn the repeats a little.
  for (step in seq_len(100L)) {
    dup <- duplicated(out)
    if (!any(dup)) break
    out[dup] <- grDevices::hcl(h = (h[dup] + 0.7 * step) %% 360, c = c(80, 60, 45)[i[dup] %% 3 + 1],
                               l = c(45, 65, 80)[i[dup] %% 3 + 1] + step %% 5)
  }
  # Beyond what hues can separate (thousands of clusters): the next free
  # code one channel level away, so that no two clusters share a colour.
  if (anyDuplicated(out)) {
    rgb <- grDevices::col2rgb(out)
    code <- colSums(rgb * c(65536, 256, 1))
    used <- !duplicated(code)
    taken <- code[used]
    for (j in which(!used)) {
      cand <- code[j]
      delta <- 1
      while (cand %in% taken) {
        cand <- code[j] + delta
        delta <- if (delta > 0) -delta else 1 - delta
        if (cand < 0 || cand > 16777215) cand <- code[j]
      }
      taken <- c(taken, cand)
      code[j] <- cand
    }
    out <- grDevices::rgb(code %/% 65536, (code %/% 256) %% 256, code %% 256, maxColorValue = 255)
  }
  out
}
