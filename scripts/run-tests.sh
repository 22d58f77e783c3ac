#!/bin/sh
# Runs each test lane (a make target) in turn, keeps going after a failure,
# and prints one line per lane at the end. Exit status: 0 only if all passed.
failed=""
summary=""
for lane in "$@"; do
	echo "=== $lane"
	if ${MAKE:-make} --no-print-directory "$lane"; then
		summary="$summary
  PASS  $lane"
	else
		summary="$summary
  FAIL  $lane"
		failed="$failed $lane"
	fi
done
echo "=== summary$summary"
[ -z "$failed" ] || { echo "failed lanes:$failed"; exit 1; }
