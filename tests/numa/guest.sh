#!/bin/sh
# guest.sh - runs inside the NUMA guest (busybox sh): the numalab commands whose
# output tests/numa/check.py judges on the host. Usage: guest.sh NODES [CPUS_PER_NODE]
# Each command's stdout and stderr go to the second serial port (/dev/ttyS1)
# between marker lines, so kernel messages on the console cannot mix in.
nodes=$1
cpn=${2:-1}
out=/dev/ttyS1
nl=/numalab
quick="repeat=1 warmup=0"

# The guest's clock since boot, in whole seconds (busybox here has no date).
uptime_s() {
	read -r up _ </proc/uptime
	echo "${up%.*}"
}

block() {
	name=$1
	shift
	t0=$(uptime_s)
	"$@" >/tmp/stdout 2>/tmp/stderr
	rc=$?
	{
		echo "@@@ BEGIN $name"
		cat /tmp/stdout
		echo "@@@ STDERR"
		cat /tmp/stderr
		echo "@@@ END rc=$rc"
		echo "@@@ TOOK $name $(($(uptime_s) - t0)) s (guest up $(uptime_s) s)"
	} >$out
}

last=$((nodes - 1))
block topology $nl topology --json
# the plans are pure, so only what the guest's kernel reports goes in
if [ -x /plan_probe ]; then
	block plans /plan_probe
fi
block bind_last $nl run --json memory_policy policy=bind nodes=$last size=16M \
	migrate_to=0 migrate_with=both from_nodes=0,$last $quick
block bind_task $nl run --json memory_policy policy=bind scope=task nodes=$last \
	size=8M migrate_with=none from_nodes=0 $quick
block preferred $nl run --json memory_policy policy=preferred nodes=$last \
	size=8M migrate_with=none from_nodes=0 $quick
block first_touch $nl run --json memory_policy policy=default toucher=$last \
	size=8M migrate_with=none from_nodes=$last $quick
block interleave $nl run --json memory_policy policy=interleave nodes=0-$last \
	size=16M migrate_with=none $quick
block interleave_task $nl run --json memory_policy policy=interleave scope=task \
	nodes=0-$last size=8M migrate_with=none from_nodes=0 $quick
block move_pages $nl run --json memory_policy policy=bind nodes=0 size=8M \
	migrate_to=$last migrate_with=move_pages from_nodes=0 $quick
block remote $nl run --json remote_bandwidth size=4M $quick
# memory_latency: every cell's buffer counted with move_pages (small, exact rounds)
block latency $nl run --json memory_latency size=1M loads=2048 budget=0 $quick
block scaling $nl run --json bandwidth_scaling threads=1-$nodes size=2M \
	placements=spread ops=read,write $quick
block missing_node $nl run memory_policy nodes=$nodes size=8M
block missing_matrix_node $nl run remote_bandwidth nodes=0,$((nodes + 1))
block too_big $nl run memory_policy policy=bind nodes=0 size=64G
# numa_replication: every copy, region and the migrated buffer are counted with move_pages
block replication $nl run --json numa_replication size=1M passes=1 updates=20000 \
	buckets=1024 $quick
block replication_home $nl run --json numa_replication nodes=0,$last home=$last \
	size=1M passes=1 updates=20000 buckets=1024 $quick
if [ "$nodes" -ge 4 ]; then
	block interleave_odd $nl run --json memory_policy policy=interleave \
		nodes=1,3 size=8M migrate_with=none from_nodes=0 $quick
fi
# memory_policy_semantics and affinity: every step on two nodes, placement
# under taskset, and a cgroup v2 cpuset of the last node alone where the
# guest's kernel lets one be made (check.py says SKIP otherwise)
one=$((last * cpn))
block semantics $nl run --json memory_policy_semantics size=1M repeat=2
block affinity $nl run --json affinity threads=$nodes size=1M passes=1 \
	modes=created_pinned,unpinned,cache_split $quick
block affinity_taskset /bin/busybox taskset -c $one $nl run --json affinity \
	threads=1 size=1M passes=1 modes=created_pinned,unpinned $quick
cg=/sys/fs/cgroup
if mount -t cgroup2 none $cg 2>/dev/null &&
	echo +cpuset >$cg/cgroup.subtree_control 2>/dev/null &&
	mkdir $cg/narrow && echo $one >$cg/narrow/cpuset.cpus &&
	echo $last >$cg/narrow/cpuset.mems; then
	inside="echo \$\$ >$cg/narrow/cgroup.procs && exec $nl"
	block cpuset_topology sh -c "$inside topology --json"
	block cpuset_run sh -c "$inside run --json affinity threads=1 size=1M passes=1 modes=created_pinned,unpinned $quick"
	block cpuset_refused sh -c "$inside run memory_policy_semantics nodes=0,$last"
fi
sync
