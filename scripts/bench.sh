#!/bin/sh
# bench.sh - `make bench`: numalab's figures side by side with likwid-bench,
# wrk, a bare libmicrohttpd server and a TSC ping-pong, in one table
# (scripts/bench/bench.py does the measuring). Never run by `make test`:
# figures are not asserted. Exits non-zero only when a comparison could not
# be run.
#
#   scripts/bench.sh [--quick] [SECTION ...]
#                                      bandwidth overhead latency throughput fanout c2c scale estimate
#   --quick (or BENCH_QUICK=1)         fewer rows, smaller sizes, fewer pairs: under 2 minutes
#   --check (after --quick)            beside a spinner on the first CPU: exit 1 when a
#                                      bandwidth row reads above 1.15x likwid-bench or a
#                                      row was skipped by a budget (make bench-check)
#   BUILD=dir                          the build to measure (default build)
#   BENCH_OUT=dir                      where the JSON goes (default build/bench)
#   BENCH_MIN_PAIRS / BENCH_MAX_PAIRS  A/B pairs per comparison (3 / 8; quick 2 / 3)
#   BENCH_BUDGET_<SECTION>=s           a section's time budget (common.py BUDGET_S)
set -e
cd "$(dirname "$0")/.."
if [ "$1" = "--quick" ]; then
	BENCH_QUICK=1
	shift
fi
export BENCH_QUICK=${BENCH_QUICK:-}
BUILD=${BUILD:-build}
BENCH_OUT=${BENCH_OUT:-build/bench}
MAKE=${MAKE:-make}

scripts/deps.sh bench
# the reference programs of tests/bench/, against this build's objects
$MAKE --no-print-directory BUILD="$BUILD" "$BUILD/numalab" bench-tools
exec python3 scripts/bench/bench.py --build "$BUILD" --out "$BENCH_OUT" "$@"
