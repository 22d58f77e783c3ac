# tests/tests.mk - `make test` runs every lane. Each lane lives in its own
# tests/LANE/LANE.mk, which appends its target to TEST_LANES.
TEST_LANES :=
include $(sort $(wildcard tests/*/*.mk))

test: test-deps all
	$(Q)scripts/run-tests.sh $(TEST_LANES)
