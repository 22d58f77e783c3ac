# tests/tests.mk - `make test` runs every lane, fastest first; `make check`
# runs the quick ones a developer waits for before a commit. Each lane lives
# in its own tests/LANE/LANE.mk, which appends its target to TEST_LANES.
#   make test                every lane, keeps going after a failure
#   make test FAILFAST=1     stops at the first lane that fails
#   make check               format, web, unit, CLI and API lanes (a few minutes)
TEST_LANES :=
include $(sort $(wildcard tests/*/*.mk))

# Lanes in the order they run, quickest first (as measured on a 2-CPU
# machine): a lane not named here runs after these, so a new lane is never
# left out. The slow lanes bring up qemu guests and a Slurm cluster.
LANE_ORDER = test-format test-web test-unit test-cli test-api test-unit-san \
	test-fuzz test-faults test-api-tsan test-coverage test-load test-browser test-net test-busy \
	test-numa test-fleet
ORDERED_LANES = $(filter $(TEST_LANES),$(LANE_ORDER)) \
	$(filter-out $(LANE_ORDER),$(TEST_LANES))
CHECK_LANES = test-format test-web test-unit test-cli test-api

test: test-deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)FAILFAST=$(FAILFAST) scripts/run-tests.sh $(ORDERED_LANES)

check: test-deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)FAILFAST=1 scripts/run-tests.sh $(CHECK_LANES)

.PHONY: check
