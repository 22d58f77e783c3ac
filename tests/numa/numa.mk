# tests/numa/numa.mk - the multi-node NUMA lane: 2- and 4-node guests under
# qemu run $(BUILD)/numalab; tests/numa/check.py judges what it reports.
# Skips loudly (exit 0) where qemu or a kernel image cannot be had.
test-numa: $(BUILD)/numalab
	$(Q)tests/numa/vm.sh lane $(BUILD)/numalab

TEST_LANES += test-numa
.PHONY: test-numa
