# The options of `control` (kmeans_control(), or a plain list). Each option
# of k-means is declared once, for R and C++, in the core's table
# (inst/include/kmreduce/cluster/kmeans_options.def, given to R by
# kmeans_option_table_cpp()): its name, kind, default, bounds and help. From
# that table come kmeans_control()'s arguments and their defaults (its
# formals are set from control_formals() when the package loads, R/zzz.R),
# its @param help (control_rd_params(), roxygen @eval), control_defaults()
# and the checks of check_control() (option_check()); the core validates the
# same table. The reduction methods' options are their registry entries'
# param()s (builtin_params(), R/registry.R), after the k-means ones. The
# core chooses the "auto" values for a fit (resolve_options()).

# The core's table, read once per session: a named list of its rows.
option_table <- local({
  table <- NULL
  function() {
    if (is.null(table)) table <<- kmeans_option_table_cpp()
    table
  }
})

# Every option of kmeans_control(), in the order of its arguments: the
# table's options of kmeans_control() (scopes "control" and "r_only"), then
# the reduction methods' (builtin_params()). Made once per table (a fit
# checks its control several times).
control_options <- local({
  made <- NULL
  function() {
    table <- option_table()
    if (is.null(made) || !identical(made$table, table)) {
      made <<- list(table = table, options = table_options(table))
    }
    made$options
  }
})

table_options <- function(table) {
  rows <- Filter(function(o) o$scope != "call", table)
  c(lapply(rows, function(o) {
    check <- option_check(o)
    # (the default as its check gives it: whole numbers as integers)
    param(check, check(eval(str2lang(o$value)), o$name), gsub("\n[ ]+", "\n", o$help))
  }), builtin_params())
}

# The check of one row of the table (as the core's checked_option()): a
# function(value, arg) giving the value checked, or stop_arg() naming `arg`
# with what is expected.
option_check <- function(o) {
  function(v, arg) {
    if (is.null(v) && o$null) return(NULL)
    if (identical(v, "auto") && o$auto) return(v)
    ok <- switch(o$kind,
      flag = is.logical(v) && length(v) == 1L && !is.na(v),
      choice = is.character(v) && length(v) == 1L && !is.na(v) && v %in% o$choices,
      is.numeric(v) && length(v) == 1L && !is.na(v) &&
        (if (o$open_lower) v > o$lower else v >= o$lower) &&
        (if (o$open_upper) v < o$upper else v <= o$upper) &&
        (o$kind == "number" || is.infinite(v) || v == round(v)))
    if (!ok) {
      stop_arg(sprintf("`%s` must be %s, not %s.", arg, option_expected(o), describe(v)))
    }
    if (o$kind == "number") return(as.double(v))
    if (o$kind == "whole" && is.finite(v) && abs(v) <= .Machine$integer.max) as.integer(v) else v
  }
}

# What a row of the table accepts, in words.
option_expected <- function(o) {
  what <- switch(o$kind,
    flag = "TRUE or FALSE",
    choice = paste("one of", paste0("\"", o$choices, "\"", collapse = ", ")),
    sprintf("%s in %s%s, %s%s", if (o$kind == "whole") "a whole number" else "a number",
            if (o$open_lower) "(" else "[", format(o$lower), format(o$upper),
            if (o$open_upper) ")" else "]"))
  paste0(if (o$auto) "\"auto\" or ", if (o$null) "NULL or ", what)
}

# The formals of kmeans_control(): every option with its default.
control_formals <- function() {
  lapply(control_options(), `[[`, "default")
}

# The @param lines of ?kmeans_control (roxygen @eval): each option's help,
# the options that share one text (next to each other) in one @param.
control_rd_params <- function() {
  opts <- control_options()
  help <- vapply(opts, function(o) gsub("\n[ ]+", "\n", o$help), character(1))
  group <- cumsum(c(TRUE, help[-1L] != help[-length(help)]))
  vapply(split(names(opts), group), function(nms) {
    paste0("@param ", paste(nms, collapse = ","), " ", help[[nms[1L]]])
  }, character(1), USE.NAMES = FALSE)
}
