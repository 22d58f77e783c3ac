#!/bin/sh
# test_install.sh - make install into a staging tree, use it, uninstall it
# (tests/install/install.mk). Run from the repository root.
set -eu
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
stage=$(mktemp -d "${TMPDIR:-/tmp}/numalab-install-i37.XXXXXX")
prefix=/usr/local
root=$stage$prefix
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$stage"
}
trap cleanup EXIT
fail() { echo "FAIL $*" >&2; exit 1; }

$MAKE --no-print-directory -s install BUILD="$BUILD" PREFIX=$prefix DESTDIR="$stage" >"$stage.log" 2>&1 ||
	{ cat "$stage.log" >&2; rm -f "$stage.log"; fail "make install"; }
rm -f "$stage.log"

# every file in its place
pages="numalab numalab-serve numalab-run numalab-list numalab-topology numalab-rates numalab-estimate numalab-fleet"
for f in bin/numalab lib/numalab/numalab-worker lib/numalab/libnumalab_tls.so lib/numalab/libnumalab_tls_big.so \
	share/numalab/web/index.html share/numalab/web/student.html share/numalab/web/app.js \
	share/numalab/web/vendor/chart.umd.min.js share/numalab/web/vendor/chartjs-chart-matrix.min.js \
	share/numalab/web/vendor/chartjs-chart-error-bars.min.js \
	share/bash-completion/completions/numalab; do
	[ -s "$root/$f" ] || fail "make install did not install $prefix/$f"
done
for p in $pages; do
	[ -s "$root/share/man/man1/$p.1" ] || fail "make install did not install the man page $p.1"
done
[ -x "$root/bin/numalab" ] || fail "$prefix/bin/numalab is not executable"
[ -x "$root/lib/numalab/numalab-worker" ] || fail "$prefix/lib/numalab/numalab-worker is not executable"
for f in web/*.html web/*.js web/*.css; do
	cmp -s "$f" "$root/share/numalab/web/${f#web/}" || fail "$f is not installed as it is"
done
echo "ok   every file installed under $prefix"

# each page renders without a warning, and says what --help says
for p in $pages; do
	err=$(MANWIDTH=80 man --warnings -l "$root/share/man/man1/$p.1" 2>&1 >/dev/null) || fail "man -l $p.1"
	[ -z "$err" ] || fail "man -l $p.1 warns: $err"
done
MANWIDTH=200 man -M "$root/share/man" numalab-run 2>/dev/null >"$stage/run.txt"
for e in $("$root/bin/numalab" list | awk '{ print $1 }'); do
	grep -q "^   $e\$" "$stage/run.txt" || fail "man numalab-run has no section for $e"
done
MANWIDTH=200 man -M "$root/share/man" numalab-serve 2>/dev/null >"$stage/serve.txt"
for o in $("$root/bin/numalab" serve --help | awk '/^  --/ { print $1 }'); do
	grep -q -- "^       $o" "$stage/serve.txt" || fail "man numalab-serve lacks $o"
done
# the completion, with the staged binary, whether or not bash-completion is there
comp() {
	PATH="$root/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _numalab; echo "${COMPREPLY[*]}"' \
		_ "$root/share/bash-completion/completions/numalab" numalab "$@"
}
[ "$(comp run fal)" = false_sharing ] || fail "completing 'numalab run fal' gave '$(comp run fal)'"
[ "$(comp run false_sharing thr)" = threads= ] || fail "completing 'numalab run false_sharing thr' gave '$(comp run false_sharing thr)'"
comp "" | grep -qw serve || fail "completing 'numalab ' gave '$(comp "")'"
echo "ok   man renders $(echo $pages | wc -w) pages without a warning; man numalab-run names every experiment; bash completes commands, experiments and parameters"

# the staged binary finds its page and objects from its prefix, with no flags,
# run from a folder that has no web/ of its own
mkdir "$stage/cwd"
cd "$stage/cwd"
"$root/bin/numalab" serve --listen 127.0.0.1:0 --db "$stage/runs.db" >"$stage/serve.out" 2>"$stage/serve.err" &
server=$!
i=0
until grep -q '^listening on ' "$stage/serve.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat "$stage/serve.err" >&2; fail "the installed server did not start"; }
	sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$stage/serve.out" | head -1)
cd - >/dev/null
grep -q 'no web folder' "$stage/serve.err" && fail "the installed server found no page: $(cat "$stage/serve.err")"
python3 tests/install/served.py "$url"
kill "$server"
wait "$server" 2>/dev/null || true
server=""

$MAKE --no-print-directory -s uninstall BUILD="$BUILD" PREFIX=$prefix DESTDIR="$stage" >/dev/null 2>&1 || fail "make uninstall"
left=$(cd "$stage" && find .$prefix ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
left=$(cd "$stage" && find .$prefix -name 'numalab*')
[ -z "$left" ] || fail "make uninstall left: $left"
echo "ok   make uninstall leaves no file"
