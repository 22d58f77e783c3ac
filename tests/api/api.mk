# tests/api/api.mk - the API lane: Python (stdlib only) against a real server.
# tests/api/run.py runs every tests/api/test_*.py; a new file needs no line here.
# test_schemafuzz.py drives node (tests/api/schemafuzz.mjs and the
# devDependencies of package.json, which `make all` installs) for a minute.
#   make test-api                       against $(BUILD)/numalab
#   make test-api NUMALAB_BIN=path      against another binary
#   make test-api-san                   against the ASan/UBSan build
#   make test-api-tsan                  the tests marked @tsan, TSan build
#   make test-api API_TESTS=test_lifecycle.LifecycleTest.test_kill9_mid_run
#                                       one test (module.Class.test)
#   make test-api API_TESTS=test_schemafuzz SCHEMAFUZZ_SEED=7
#                                       the schema-driven pass, another seed
NUMALAB_BIN ?= $(BUILD)/numalab
API_TESTS ?=

test-api: $(NUMALAB_BIN)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/api/run.py $(API_TESTS)

test-api-san:
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined build-address-undefined/numalab
	$(Q)ASAN_OPTIONS=$${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1} \
		UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		NUMALAB_BIN=build-address-undefined/numalab \
		python3 tests/api/run.py $(API_TESTS)

# The tests that start, stream, cancel and kill runs, where the runner
# thread, the stream callbacks and the store meet: each file marks them
# with @tsan (tests/api/harness.py). TSAN_TESTS=module.Class.test picks others.
TSAN_TESTS ?= --tsan

test-api-tsan:
	$(Q)$(MAKE) --no-print-directory SAN=thread build-thread/numalab
	$(Q)TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1} \
		NUMALAB_BIN=build-thread/numalab \
		python3 tests/api/run.py $(TSAN_TESTS)

TEST_LANES += test-api test-api-tsan
.PHONY: test-api test-api-san test-api-tsan
