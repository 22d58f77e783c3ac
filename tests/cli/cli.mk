# tests/cli/cli.mk - experiments through `numalab run --json` with small
# params: results that must hold on any machine, never a timing; and the
# table, progress line and --help a person sees
TEST_LANES += test-cli

test-cli: $(BUILD)/numalab
	$(Q)NUMALAB_BIN=$(BUILD)/numalab python3 tests/cli/test_experiments.py
	$(Q)NUMALAB_BIN=$(BUILD)/numalab python3 tests/cli/test_echo.py
	$(Q)NUMALAB_BIN=$(BUILD)/numalab python3 tests/cli/test_table.py

.PHONY: test-cli
