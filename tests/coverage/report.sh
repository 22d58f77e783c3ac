#!/bin/sh
# report.sh BUILD PART... - sums the gcov counters under BUILD with lcov and
# prints the line and branch coverage of each PART (a source folder) and of
# all of them; writes the HTML report to BUILD/coverage/.
set -e
build=$1
shift
rc="--rc lcov_branch_coverage=1"
info=$build/coverage.info
# shellcheck disable=SC2086
lcov $rc --quiet --capture --directory "$build" --base-directory . --output-file "$info.all" >/dev/null 2>&1
# shellcheck disable=SC2086
lcov $rc --quiet --extract "$info.all" "$(pwd)/*" --output-file "$info" >/dev/null
pct() { # covered total -> "12.3 % (covered of total)"
	awk -v c="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%5.1f %% (%d of %d)", 100 * c / t, c, t; else printf "  -" }'
}
sum() { # info file -> "lines_hit lines branches_hit branches"
	awk -F: '/^LH:/ { lh += $2 } /^LF:/ { lf += $2 } /^BRH:/ { bh += $2 } /^BRF:/ { bf += $2 }
		END { printf "%d %d %d %d\n", lh, lf, bh, bf }' "$1"
}
printf '  %-20s %-28s %s\n' part lines branches
for part in "$@" all; do
	if [ "$part" = all ]; then
		f=$info
	else
		f=$info.$(echo "$part" | tr / -)
		# shellcheck disable=SC2086
		lcov $rc --quiet --extract "$info" "$(pwd)/$part/*" --output-file "$f" >/dev/null 2>&1 || : >"$f"
	fi
	# shellcheck disable=SC2046
	set -- $(sum "$f") "$@"
	printf '  %-20s %-28s %s\n' "$part" "$(pct "$1" "$2")" "$(pct "$3" "$4")"
	shift 4
done
if command -v genhtml >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	genhtml $rc --quiet --output-directory "$build/coverage" "$info" >/dev/null 2>&1 &&
		echo "  report: $build/coverage/index.html"
fi
