.onLoad <- function(libname, pkgname) {
  # The tidyclust engine: now if tidyclust is loaded, else when it loads.
  if (isNamespaceLoaded("tidyclust")) register_tidyclust_engine()
  setHook(packageEvent("tidyclust", "onLoad"), register_tidyclust_engine)
  invisible()
}
