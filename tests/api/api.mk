# tests/api/api.mk - the API lane: Python (stdlib only) against a real server.
#   make test-api                       against $(BUILD)/numalab
#   make test-api NUMALAB_BIN=path      against another binary
#   make test-api-san                   against the ASan/UBSan build
#   make test-api API_TESTS=LifecycleTest.test_kill9_mid_run   one test
NUMALAB_BIN ?= $(BUILD)/numalab
API_TESTS ?=

test-api: $(NUMALAB_BIN)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/api/test_api.py $(API_TESTS)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/api/test_import.py

test-api-san:
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined build-address-undefined/numalab
	$(Q)ASAN_OPTIONS=$${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1} \
		UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		NUMALAB_BIN=build-address-undefined/numalab \
		sh -c 'python3 tests/api/test_api.py $(API_TESTS) && python3 tests/api/test_import.py'

TEST_LANES += test-api
.PHONY: test-api test-api-san
