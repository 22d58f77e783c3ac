# tests/api/api.mk - the API lane: Python (stdlib only) against a real server.
#   make test-api                       against $(BUILD)/numalab
#   make test-api NUMALAB_BIN=path      against another binary
#   make test-api-san                   against the ASan/UBSan build
#   make test-api-tsan                  runner/streaming tests, TSan build
#   make test-api API_TESTS=LifecycleTest.test_kill9_mid_run   one test
NUMALAB_BIN ?= $(BUILD)/numalab
API_TESTS ?=

test-api: $(NUMALAB_BIN)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/api/test_api.py $(API_TESTS)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/api/test_import.py
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/api/test_check.py

test-api-san:
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined build-address-undefined/numalab
	$(Q)ASAN_OPTIONS=$${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1} \
		UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		NUMALAB_BIN=build-address-undefined/numalab \
		sh -c 'python3 tests/api/test_api.py $(API_TESTS) && python3 tests/api/test_import.py && python3 tests/api/test_check.py'

# the tests that start, stream, cancel and kill runs: the runner thread,
# the stream callbacks and the store meet there
TSAN_TESTS ?= ApiTest.test_runs_execute_in_order \
	ApiTest.test_cancel_running_and_queued ApiTest.test_worker_killed \
	ApiTest.test_late_subscriber_gets_everything \
	ApiTest.test_live_stream_and_resume_mid_run ApiTest.test_many_subscribers \
	QueueTest LifecycleTest.test_sigterm_mid_run \
	WorkerFailureTest.test_garbage WorkerFailureTest.test_killed_by_signal \
	WorkerFailureTest.test_cancel_a_worker_that_ignores_sigterm

test-api-tsan:
	$(Q)$(MAKE) --no-print-directory SAN=thread build-thread/numalab
	$(Q)TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1} \
		NUMALAB_BIN=build-thread/numalab \
		python3 tests/api/test_api.py $(TSAN_TESTS)

TEST_LANES += test-api test-api-tsan
.PHONY: test-api test-api-san test-api-tsan
