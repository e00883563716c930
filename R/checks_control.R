# Checks of `control` (kmeans_control() and plain lists).

# Merges `control` over the defaults; unknown names and bad values are errors.
check_control <- function(control, defaults = control_defaults(), prefix = "control$") {
  nm <- function(name) paste0(prefix, name)
  if (is.null(control)) control <- list()
  if (!is.list(control) || (length(control) > 0L && is.null(names(control))) ||
      any(names(control) == "")) {
    stop_arg(sprintf("`control` must be a named list, not %s.", describe(control)))
  }
  # A name given twice is two answers to one question (the last would win
  # silently): refused, as R refuses an argument given twice in a call.
  twice <- unique(names(control)[duplicated(names(control))])
  if (length(twice) > 0L) {
    values <- vapply(control[names(control) == twice[1L]], describe, "")
    stop_arg(sprintf("`control` must give each option once, but gives %s %d times (%s)%s.",
                     paste0("'", twice[1L], "'"), length(values), paste(values, collapse = ", "),
                     if (length(twice) > 1L) {
                       sprintf("; also given more than once: %s",
                               paste0("'", twice[-1L], "'", collapse = ", "))
                     } else ""))
  }
  unknown <- setdiff(names(control), names(defaults))
  if (length(unknown) > 0L) {
    stop_arg(sprintf("`control` has unknown name%s %s; known names: %s.",
                     if (length(unknown) > 1L) "s" else "",
                     paste0("'", unknown, "'", collapse = ", "),
                     paste0("'", names(defaults), "'", collapse = ", ")))
  }
  out <- defaults
  out[names(control)] <- control
  number_in <- function(v, arg, lower, upper, open_lower = FALSE) {
    check_number(v, nm(arg), lower, upper, open_lower)
  }
  number_in(out$tol, "tol", 0, 1)
  number_in(out$dims_tol, "dims_tol", 0, 1)
  if (!is.logical(out$keep_reduced) || length(out$keep_reduced) != 1L ||
      is.na(out$keep_reduced)) {
    stop_arg(sprintf("`%s` must be TRUE or FALSE, not %s.", nm("keep_reduced"),
                     describe(out$keep_reduced)))
  }
  check_choice(out$seeding, nm("seeding"), c("auto", kmeans_seedings_cpp()))
  number_in(out$oversampling, "oversampling", 0, 1e6, open_lower = TRUE)
  out$rounds <- check_whole(out$rounds, nm("rounds"), 1, 1000)
  check_choice(out$polish, nm("polish"), c("auto", "split_merge", "hartigan", "none"))
  out$tries <- check_whole(out$tries, nm("tries"), 1, 1e6)
  out$split_rounds <- check_whole(out$split_rounds, nm("split_rounds"), 1, 1e6)
  if (!identical(out$polish_starts, "auto")) {
    if (!is_whole(out$polish_starts) || out$polish_starts < 1 || out$polish_starts > 1e6) {
      stop_arg(sprintf("`%s` must be \"auto\" or a whole number in [1, 1e+06], not %s.",
                       nm("polish_starts"), describe(out$polish_starts)))
    }
    out$polish_starts <- as.integer(out$polish_starts)
  }
  pw <- out$polish_work
  if (!is.numeric(pw) || length(pw) != 1L || is.na(pw) || pw < 0) {
    stop_arg(sprintf("`%s` must be a number >= 0 (Inf: no bound), not %s.", nm("polish_work"),
                     describe(pw)))
  }
  out$polish_work <- as.double(pw)
  sr <- out$sketch_rows
  if (!identical(sr, "auto")) {
    if (!is.numeric(sr) || length(sr) != 1L || is.na(sr) || sr < 0 ||
        (is.finite(sr) && sr != round(sr))) {
      stop_arg(sprintf("`%s` must be \"auto\", a whole number >= 0 or Inf (all rows), not %s.",
                       nm("sketch_rows"), describe(sr)))
    }
    out$sketch_rows <- as.double(sr)
  }
  out$file_cache <- check_file_cache(out$file_cache, nm("file_cache"))
  check_choice(out$precision, nm("precision"), c("double", "single"))
  if (!is.null(out$local_search)) {
    out$local_search <- check_whole(out$local_search, nm("local_search"), 0, 1e6)
  }
  out$batch_size <- check_whole(out$batch_size, nm("batch_size"), 1, 1e9)
  number_in(out$reassignment_ratio, "reassignment_ratio", 0, 1)
  if (!is.null(out$block_rows)) {
    out$block_rows <- check_whole(out$block_rows, nm("block_rows"), 1)
  }
  # The reduction methods' options, each checked as its registry entry says.
  params <- method_params()
  for (p in names(params)) out[p] <- list(params[[p]]$check(out[[p]], nm(p)))
  out
}

# control$file_cache: "auto" or a number of bytes >= 0.
check_file_cache <- function(v, arg) {
  if (identical(v, "auto")) return(v)
  if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 0) {
    stop_arg(sprintf("`%s` must be \"auto\" or a number of bytes >= 0, not %s.", arg,
                     describe(v)))
  }
  as.double(v)
}
