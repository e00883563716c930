# make demo: install dependencies, build, run the main job on the shipped data
# make test: install dependencies, build, run the test suite
R       ?= R
RSCRIPT ?= Rscript
LIB     := $(CURDIR)/.Rlib
RUN     := R_LIBS="$(LIB)$${R_LIBS:+:$$R_LIBS}" $(RSCRIPT) --vanilla

.PHONY: deps install test demo document check clean

deps:
	bash tools/install-deps.sh

install: deps
	mkdir -p $(LIB)
	rm -f src/*.o src/*.so
	R_LIBS="$(LIB)$${R_LIBS:+:$$R_LIBS}" $(R) CMD INSTALL --preclean --no-multiarch -l $(LIB) . > $(LIB)/install.log 2>&1 || (cat $(LIB)/install.log; exit 1)
	rm -f src/*.o src/*.so

test: install
	$(RUN) tools/run-tests.R

demo: install
	$(RUN) tools/demo.R

document:
	rm -f src/*.o src/*.so
	$(RSCRIPT) -e 'Rcpp::compileAttributes(); roxygen2::roxygenise()'
	rm -f src/*.o src/*.so

check: deps
	rm -rf check && mkdir -p check
	cd check && $(R) CMD build .. && R_LIBS="$(LIB)" _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_CRAN_INCOMING_=false $(R) CMD check --as-cran --no-manual kmreduce_*.tar.gz

clean:
	rm -rf .Rlib check src/*.o src/*.so kmreduce-demo.png
