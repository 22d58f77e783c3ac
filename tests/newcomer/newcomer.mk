# tests/newcomer/newcomer.mk - the template experiment copied under a new
# name into a copy of the tree, with its one registry line and nothing else,
# builds and passes the registry, lesson and API tests (newcomer.sh).
TEST_LANES += test-newcomer

test-newcomer: $(BUILD)/numalab
	$(Q)tests/newcomer/newcomer.sh

.PHONY: test-newcomer
