# tests/fleet/fleet.mk - the fleet lane: a real Slurm (one slurmctld, two
# slurmd, munged) brought up on this host in a temporary directory, and
# ClusterShell's exec worker, driven by `numalab fleet run`
TEST_LANES += test-fleet

test-fleet: $(BUILD)/numalab
	$(Q)NUMALAB_BIN=$(BUILD)/numalab sh tests/fleet/test_fleet.sh

.PHONY: test-fleet
