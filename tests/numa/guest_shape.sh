#!/bin/sh
# guest_shape.sh - runs inside an odd-shaped NUMA guest (busybox sh): a node
# of memory alone, a node of cpus alone, or distances that differ by direction.
# The memory experiments run with their defaults, so that their own plans meet
# the shape; tests/numa/check_shape.py judges the output on the host.
out=/dev/ttyS1
nl=/numalab
quick="repeat=1 warmup=0"

block() {
	name=$1
	shift
	"$@" >/tmp/stdout 2>/tmp/stderr
	rc=$?
	{
		echo "@@@ BEGIN $name"
		cat /tmp/stdout
		echo "@@@ STDERR"
		cat /tmp/stderr
		echo "@@@ END rc=$rc"
	} >$out
}

block topology $nl topology --json
block plan $nl estimate --json remote_bandwidth
block policy $nl run --json memory_policy size=8M $quick
block remote $nl run --json remote_bandwidth size=4M $quick
block latency $nl run --json memory_latency size=1M loads=2048 budget=0 $quick
block replication $nl run --json numa_replication size=1M passes=1 \
	updates=20000 buckets=1024 $quick
sync
