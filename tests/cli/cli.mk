# tests/cli/cli.mk - experiments through `numalab run --json` with small
# params: results that must hold on any machine, never a timing; and the
# table, progress line and --help a person sees
TEST_LANES += test-cli

test-cli: $(BUILD)/numalab
	$(Q)fail=0; for t in $(sort $(wildcard tests/cli/test_*.py)); do \
		echo "  CLI     $$t"; NUMALAB_BIN=$(BUILD)/numalab python3 $$t || fail=1; \
	done; exit $$fail

.PHONY: test-cli
