# tests/load/load.mk - the load lane: wrk against the API while one run
# streams to 500 SSE subscribers, loopback only, bounded (well under 60 s).
#   make test-load                      against $(BUILD)/numalab
#   make test-load LOAD_SUBSCRIBERS=100 fewer subscribers
#   make test-load LOAD_SLOW=10000      more slow clients (default 3000)
#   make test-load LOAD_STORED_SUBSCRIBERS=1000  of a stored run (default 500)
test-load: $(NUMALAB_BIN)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_load.py
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_slow_clients.py

TEST_LANES += test-load
.PHONY: test-load
