#!/bin/sh
# test_fleet.sh - brings the test cluster up, runs the campaign checks
# against it, and takes every daemon down again, by PID, pass or fail.
NUMALAB_BIN=$(realpath "${NUMALAB_BIN:-build/numalab}")
export NUMALAB_BIN
for tool in slurmctld slurmd munged mungekey sinfo sbatch squeue scancel clush; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "SKIP test-fleet: '$tool' is missing (scripts/deps.sh test installs slurm-wlm, munge, clustershell)"
		exit 0
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "SKIP test-fleet: slurmd must run as root to start jobs (run the lane as root)"
	exit 0
fi
here=$(dirname "$0")
. "$here/cluster.sh"
tmp=$(mktemp -d /tmp/numalab-fleet.XXXXXX)
chmod 755 "$tmp"
cleanup() {
	cluster_down
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start=$(date +%s)
# a port chosen free can be taken before a daemon binds it: try afresh
tries=0
until cluster_up "$tmp/cluster"; do
	tries=$((tries + 1))
	cluster_down
	[ $tries -lt 3 ] || exit 1
	echo "  FLEET   the cluster did not come up; again with new ports"
	rm -rf "$tmp/cluster"
done
echo "  FLEET   cluster up in $(($(date +%s) - start)) s: $(sinfo -h -N -o '%N %t %f' | tr '\n' ';')"
# in the background, so that a TERM to this shell runs the trap at once
# each run's estimate reads the machine's rates from a cache of the lane's
# own (a numalab of another version elsewhere would overwrite a shared one):
# measured once here, not by a thousand runs at once; Slurm's jobs get
# XDG_CACHE_HOME too
export XDG_CACHE_HOME="$tmp/cache"
"$NUMALAB_BIN" rates >/dev/null || exit 1
# FLEET_TESTS: some of them (Class.test_name ...), all when empty
FLEET_TMP=$tmp python3 "$here/check_fleet.py" $FLEET_TESTS &
wait $!
rc=$?
echo "  FLEET   up, campaigns and checks took $(($(date +%s) - start)) s"
exit $rc
