#!/bin/sh
# vendor.sh - copies Chart.js and its plugins from node_modules (pinned by
# package-lock.json) into web/vendor/, so the server serves them itself.
# Idempotent and quick: runs `npm ci` only when node_modules is missing or
# older than package-lock.json, copies only files that changed.
set -eu
cd "$(dirname "$0")/.."

lock=package-lock.json
installed=node_modules/.package-lock.json
if [ ! -f "$installed" ] || [ "$lock" -nt "$installed" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "vendor.sh: npm is not installed; it is needed once to fetch Chart.js (apt-get install npm)" >&2
		exit 1
	fi
	echo "  NPM     ci"
	npm ci --no-audit --no-fund --loglevel=error
	touch "$installed"
fi

dest=web/vendor
mkdir -p "$dest"

# source in node_modules -> name under web/vendor
copy() {
	if [ ! -f "node_modules/$1" ]; then
		echo "vendor.sh: node_modules/$1 is missing: is package-lock.json up to date?" >&2
		exit 1
	fi
	if ! cmp -s "node_modules/$1" "$dest/$2" 2>/dev/null; then
		echo "  VENDOR  $dest/$2"
		cp "node_modules/$1" "$dest/$2.tmp"
		mv "$dest/$2.tmp" "$dest/$2"
	fi
}

copy chart.js/dist/chart.umd.min.js chart.umd.min.js
copy chartjs-chart-matrix/dist/chartjs-chart-matrix.min.js chartjs-chart-matrix.min.js
copy chartjs-chart-error-bars/build/index.umd.min.js chartjs-chart-error-bars.min.js
copy chart.js/LICENSE.md LICENSE.chart.js.md
copy chartjs-chart-matrix/LICENSE LICENSE.chartjs-chart-matrix
copy chartjs-chart-error-bars/LICENSE LICENSE.chartjs-chart-error-bars

touch "$dest/.stamp"
