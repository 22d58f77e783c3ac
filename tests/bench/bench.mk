# tests/bench/bench.mk - the programs `make bench` compares numalab against.
# Not a test lane: bench figures are never asserted (scripts/bench.sh runs them).
BENCH_TOOLS = $(BUILD)/tests/bench/bw_alone \
	$(BUILD)/tests/bench/loop_ab \
	$(BUILD)/tests/bench/chase_ref \
	$(BUILD)/tests/bench/emit_clock.so \
	$(BUILD)/tests/bench/guess_client \
	$(BUILD)/tests/bench/thread_cpu.so \
	$(BUILD)/tests/bench/kernel_alone \
	$(BUILD)/tests/bench/mhd_fixed \
	$(BUILD)/tests/bench/pair_estimate \
	$(BUILD)/tests/bench/pingpong \
	$(BUILD)/tests/bench/relay

# an experiment's run(), or the bandwidth kernels, called directly:
# linked with the kernels only
$(BUILD)/tests/bench/kernel_alone $(BUILD)/tests/bench/bw_alone $(BUILD)/tests/bench/loop_ab: $(BUILD)/tests/bench/%: tests/bench/%.c $(KERNEL_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(KERNEL_OBJS) $(PKG_LIBS) $(LDLIBS)

# the plans' pair counts on synthetic machines (tests/unit's distance model)
$(BUILD)/tests/bench/pair_estimate: tests/bench/pair_estimate.c $(KERNEL_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(KERNEL_OBJS) $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/bench/mhd_fixed: tests/bench/mhd_fixed.c
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/bench/pingpong $(BUILD)/tests/bench/relay: $(BUILD)/tests/bench/%: tests/bench/%.c
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(BUILD)/tests/bench/chase_ref $(BUILD)/tests/bench/guess_client: $(BUILD)/tests/bench/%: tests/bench/%.c
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(BUILD)/tests/bench/emit_clock.so $(BUILD)/tests/bench/thread_cpu.so: $(BUILD)/tests/bench/%.so: tests/bench/%.c
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $< -ldl

bench-tools: $(BENCH_TOOLS)

.PHONY: bench-tools
