# .ci/tests.mk: read beside a build directory's Makefile by .ci/run, which
# takes the list of tests from it (make -f Makefile -f .ci/tests.mk ci-print-tests).
ci-print-tests:
	@echo $(TESTS)
