# tests/load/load.mk - the load lane: wrk against the API while one run
# streams to 500 SSE subscribers, loopback only, bounded (well under 60 s).
#   make test-load                      against $(BUILD)/numalab
#   make test-load LOAD_SUBSCRIBERS=100 fewer subscribers
test-load: $(NUMALAB_BIN)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_load.py

TEST_LANES += test-load
.PHONY: test-load
