# tests/cli/cli.mk - experiments through `numalab run --json` with small
# params: results that must hold on any machine, never a timing
TEST_LANES += test-cli

test-cli: $(BUILD)/numalab
	$(Q)NUMALAB_BIN=$(BUILD)/numalab python3 tests/cli/test_experiments.py
	$(Q)NUMALAB_BIN=$(BUILD)/numalab python3 tests/cli/test_echo.py

.PHONY: test-cli
