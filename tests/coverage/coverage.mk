# tests/coverage/coverage.mk - line and branch coverage of the C code
# (gcov counters, summed by lcov from Debian) over the unit, CLI and API
# lanes, run against a build under build-cov/. Prints one line per part of
# the code; the HTML report is written to build-cov/coverage/.
TEST_LANES += test-coverage

COV_PARTS = kernels/experiments kernels/harness server/rundoc server cli lib

test-coverage:
	$(Q)find build-cov -name '*.gcda' -delete 2>/dev/null; true
	$(Q)$(MAKE) --no-print-directory COV=1 build-cov/numalab
	$(Q)$(MAKE) --no-print-directory COV=1 test-unit >build-cov/lane-unit.log 2>&1 || { tail -30 build-cov/lane-unit.log; exit 1; }
	$(Q)$(MAKE) --no-print-directory COV=1 NUMALAB_BIN=build-cov/numalab test-cli >build-cov/lane-cli.log 2>&1 || { tail -30 build-cov/lane-cli.log; exit 1; }
	$(Q)$(MAKE) --no-print-directory COV=1 NUMALAB_BIN=build-cov/numalab test-api >build-cov/lane-api.log 2>&1 || { tail -30 build-cov/lane-api.log; exit 1; }
	$(Q)sh tests/coverage/report.sh build-cov $(COV_PARTS)

.PHONY: test-coverage
