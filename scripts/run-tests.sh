#!/bin/sh
# Runs each test lane (a make target) in turn and prints one line per lane at
# the end, with how long it took. Keeps going after a failure unless
# FAILFAST=1, when it stops at the first lane that fails.
# Exit status: 0 only if every lane that ran passed and none was skipped.
failed=""
summary=""
skipped=""
for lane in "$@"; do
	if [ -n "$failed" ] && [ "${FAILFAST:-}" = 1 ]; then
		skipped="$skipped $lane"
		continue
	fi
	echo "=== $lane"
	start=$(date +%s)
	if ${MAKE:-make} --no-print-directory "$lane"; then
		verdict=PASS
	else
		verdict=FAIL
		failed="$failed $lane"
	fi
	secs=$(($(date +%s) - start))
	summary="$summary
  $verdict  $lane  ($(printf '%d:%02d' $((secs / 60)) $((secs % 60))))"
done
echo "=== summary$summary"
[ -z "$skipped" ] || echo "not run (FAILFAST=1):$skipped"
[ -z "$failed" ] || { echo "failed lanes:$failed"; exit 1; }
