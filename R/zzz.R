.onLoad <- function(libname, pkgname) {
  # kmeans_control()'s arguments: every option of control_options() with its
  # default, from the core's table of options (it needs the package's
  # compiled code, loaded by now).
  ns <- topenv()
  f <- get("kmeans_control", envir = ns)
  formals(f) <- control_formals()
  assign("kmeans_control", f, envir = ns)
  # The tidyclust engine: now if tidyclust is loaded, else when it loads.
  if (isNamespaceLoaded("tidyclust")) register_tidyclust_engine()
  setHook(packageEvent("tidyclust", "onLoad"), register_tidyclust_engine)
  invisible()
}
