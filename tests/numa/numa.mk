# tests/numa/numa.mk - the multi-node NUMA lane: 2-, 4- and 8-node guests under
# qemu run $(BUILD)/numalab and the plan probe; tests/numa/check.py judges
# what they report. Skips loudly (exit 0) where qemu or a kernel image cannot be had.
$(BUILD)/tests/numa/plan_probe: tests/numa/plan_probe.c $(KERNEL_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(KERNEL_OBJS) $(PKG_LIBS) $(LDLIBS)

test-numa: $(BUILD)/numalab $(BUILD)/tests/numa/plan_probe
	$(Q)tests/numa/vm.sh lane $(BUILD)/numalab $(BUILD)/tests/numa/plan_probe

TEST_LANES += test-numa
.PHONY: test-numa
