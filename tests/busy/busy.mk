# tests/busy/busy.mk - the contention lessons on a shared machine: a
# neighbour takes about half of one cpu in short slices while each lesson
# runs a few times; most runs must still state a valid comparison; and the
# single-thread timings beside two spinners on their cpu stay within 1.3x
# of quiet or are disowned. Asserts what the verdicts say, and that one
# wide bound on times. SKIPs on a 1-cpu machine.
TEST_LANES += test-busy

$(BUILD)/tests/busy/neighbour: tests/busy/neighbour.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $<

test-busy: $(BUILD)/numalab $(BUILD)/tests/busy/neighbour
	$(Q)echo "  BUSY    tests/busy/test_busy.py"; \
	NUMALAB_BIN=$(BUILD)/numalab NEIGHBOUR=$(BUILD)/tests/busy/neighbour \
		python3 tests/busy/test_busy.py

.PHONY: test-busy
