# tests/load/load.mk - the load lane: wrk against the API while one run
# streams to 500 SSE subscribers, slow clients, one live run to 10,000
# subscribers (in under 100 MB) and the 503 past --max-viewers, eight
# addresses holding every connection while a ninth is still served, reads
# with ETag/304 and gzip from many clients; loopback only, bounded (about
# two minutes).
#   make test-load                      against $(BUILD)/numalab
#   make test-load LOAD_SUBSCRIBERS=100 fewer subscribers
#   make test-load LOAD_SLOW=10000      more slow clients (default 3000)
#   make test-load LOAD_STORED_SUBSCRIBERS=1000  of a stored run (default 500)
#   make test-load LOAD_FANOUT=2000     subscribers of one live run (default 10000)
test-load: $(NUMALAB_BIN)
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_load.py
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_slow_clients.py
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_fanout.py
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_fair.py
	$(Q)NUMALAB_BIN=$(NUMALAB_BIN) python3 tests/load/test_reads.py

TEST_LANES += test-load
.PHONY: test-load
