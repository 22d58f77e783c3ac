#!/bin/sh
# vendor.sh - copies Chart.js and its plugins into web/vendor/, so the server
# serves them itself. They come from node_modules (pinned by
# package-lock.json) where npm is at hand, and are then also kept in
# third_party/chartjs/, which is committed: a clean clone builds without npm
# (a container build, a Debian package build, a machine without Node), and a
# changed lock shows up there as a diff to commit.
# Idempotent and quick: runs `npm ci` only when node_modules is missing or
# older than package-lock.json, copies only files that changed.
set -eu
cd "$(dirname "$0")/.."

lock=package-lock.json
installed=node_modules/.package-lock.json
src=node_modules
if [ -n "${NUMALAB_NO_NPM:-}" ] && [ -f third_party/chartjs/chart.umd.min.js ]; then
	src="" # a package build: the committed copies, no network
elif [ ! -f "$installed" ] || [ "$lock" -nt "$installed" ]; then
	if command -v npm >/dev/null 2>&1; then
		echo "  NPM     ci"
		npm ci --no-audit --no-fund --loglevel=error
		touch "$installed"
	elif [ -f third_party/chartjs/chart.umd.min.js ]; then
		src=""
	else
		echo "vendor.sh: npm is not installed and third_party/chartjs/ is missing; npm is needed once to fetch Chart.js (apt-get install npm)" >&2
		exit 1
	fi
fi

dest=web/vendor
mkdir -p "$dest"

# source in node_modules -> name under web/vendor and third_party/chartjs
copy() {
	if [ -z "$src" ]; then
		from=third_party/chartjs/$2
	else
		from=node_modules/$1
		if [ ! -f "$from" ]; then
			echo "vendor.sh: $from is missing: is package-lock.json up to date?" >&2
			exit 1
		fi
		put "$from" third_party/chartjs "$2"
	fi
	put "$from" "$dest" "$2"
}

# put FROM DIR NAME: FROM copied to DIR/NAME unless it is there already
put() {
	mkdir -p "$2"
	if ! cmp -s "$1" "$2/$3" 2>/dev/null; then
		echo "  VENDOR  $2/$3"
		cp "$1" "$2/$3.tmp"
		mv "$2/$3.tmp" "$2/$3"
	fi
}

copy chart.js/dist/chart.umd.min.js chart.umd.min.js
copy chartjs-chart-matrix/dist/chartjs-chart-matrix.min.js chartjs-chart-matrix.min.js
copy chartjs-chart-error-bars/build/index.umd.min.js chartjs-chart-error-bars.min.js
copy chart.js/LICENSE.md LICENSE.chart.js.md
copy chartjs-chart-matrix/LICENSE LICENSE.chartjs-chart-matrix
copy chartjs-chart-error-bars/LICENSE LICENSE.chartjs-chart-error-bars

touch "$dest/.stamp"
