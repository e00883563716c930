.onLoad <- function(libname, pkgname) {
  # The tidyclust engine: now if tidyclust is loaded, else when it loads.
  if (isNamespaceLoaded("tidyclust")) register_tidyclust_engine()
  setHook(packageEvent("tidyclust", "onLoad"), register_tidyclust_engine)
  invisible()
}

# kmeans_control()'s arguments: every option of control_options() with its
# default (set here, once every file of R/ is read: the table reads the
# registry's builtin_params()).
formals(kmeans_control) <- control_formals()
