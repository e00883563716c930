# make demo: install what the package needs, build it (only when its sources
#            changed), run the main job on the shipped data
# make test: install what the tests need (OpenMPI and pbdMPI too), build, run
#            the test suite
R       ?= R
RSCRIPT ?= Rscript
LIB     := $(CURDIR)/.Rlib
RUN     := R_LIBS="$(LIB)$${R_LIBS:+:$$R_LIBS}" $(RSCRIPT) --vanilla
# Everything the installed package is built from: a change to any of them
# rebuilds it, otherwise the installed copy in .Rlib is used as it is.
PKG_SRC := DESCRIPTION NAMESPACE configure $(wildcard man/*.Rd) $(wildcard R/*.R src/*.cpp src/*.h src/Makevars* src/quiet/*.h src/quiet/Eigen/* \
             inst/include/kmreduce/*.hpp inst/include/kmreduce/*/*.hpp data/*.rda inst/CITATION)
STAMP   := $(LIB)/kmreduce/.built

.PHONY: deps-build deps-test deps-check deps-docs install test demo document check site readme clean

deps-build:
	bash tools/install-deps.sh build
deps-test:
	bash tools/install-deps.sh test
deps-check:
	bash tools/install-deps.sh check
deps-docs:
	bash tools/install-deps.sh docs

# Compiler jobs for the package build: one per core.
CORES   ?= $(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)

$(STAMP): $(PKG_SRC)
	mkdir -p $(LIB)
	rm -f src/*.o src/*.so
	@echo "kmreduce: compiling the C++ core and installing into .Rlib ($(CORES) compiler jobs;"
	@echo "          about 2 minutes on 2 cores, less when only a few files changed; log in .Rlib/install.log) ..."
	@start=$$(date +%s); \
	MAKEFLAGS="-j$(CORES)" R_LIBS="$(LIB)$${R_LIBS:+:$$R_LIBS}" $(R) CMD INSTALL --preclean --no-multiarch -l $(LIB) . > $(LIB)/install.log 2>&1 || { cat $(LIB)/install.log; exit 1; }; \
	echo "kmreduce: installed in $$(( $$(date +%s) - start )) s."
	rm -f src/*.o src/*.so
	touch $@

install: deps-build $(STAMP)

test: deps-test $(STAMP)
	$(RUN) tools/run-tests.R

demo: deps-build $(STAMP)
	$(RUN) tools/demo.R

# roxygen reads the installed package (no second compile through pkgbuild)
document: deps-docs
	$(RSCRIPT) -e 'Rcpp::compileAttributes()'
	$(MAKE) $(STAMP)
	R_LIBS="$(LIB)$${R_LIBS:+:$$R_LIBS}" $(RSCRIPT) -e 'roxygen2::roxygenise(load_code = roxygen2::load_installed)'

check: deps-check
	rm -rf check && mkdir -p check
	cd check && $(R) CMD build .. && \
	  R_CRAN_WEB="$$(cd .. && $(RSCRIPT) tools/cran-web.R check/cran-web)" \
	  R_LIBS="$(LIB)" _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_CRAN_INCOMING_=false $(R) CMD check --as-cran --no-manual kmreduce_*.tar.gz

# README.md from README.Rmd: its example output is what the package prints
# (tests/testthat/test-readme.R checks that it still is)
readme: deps-test $(STAMP)
	$(RUN) -e 'knitr::knit("README.Rmd", "README.md", quiet = TRUE, envir = new.env())'

site: deps-docs $(STAMP)
	R_LIBS="$(LIB)$${R_LIBS:+:$$R_LIBS}" $(RSCRIPT) --vanilla tools/build-site.R

clean:
	rm -rf .Rlib check docs src/*.o src/*.so kmreduce-demo*.png
