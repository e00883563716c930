# Checks of `control` (kmeans_control() and plain lists).

# Merges `control` over the defaults (control_defaults()); unknown names and
# bad values are errors.
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
  # Each option checked as its declaration says (control_options()), then
  # the options that only registered methods read (their entries' param()).
  params <- control_options()
  extra <- method_params()
  params <- c(params, extra[setdiff(names(extra), names(params))])
  for (p in names(params)) out[p] <- list(params[[p]]$check(out[[p]], nm(p)))
  out
}
