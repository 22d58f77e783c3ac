#!/bin/sh
# manpages.sh - numalab(1) and a page per command, made from the built
# binary's own --help texts (scripts/help2roff.awk), so a page cannot say
# other than --help does. numalab-run(1) lists every experiment's
# parameters from `numalab run NAME --help`.
#   scripts/manpages.sh BINARY OUTDIR
# Limits that depend on the machine are printed for one fixed synthetic
# machine (below), so every build writes the same pages.
set -eu
bin=$1
out=$2
here=$(dirname "$0")
awkf="$here/help2roff.awk"
MACHINE="pack:2 numa:1 l3:1 core:4 pu:2"
MACHINE_WORDS="two packages of four cores with two CPUs each (16 CPUs) and two NUMA nodes"
HWLOC_SYNTHETIC=$MACHINE
export HWLOC_SYNTHETIC
unset HWLOC_XMLFILE
LC_ALL=C
export LC_ALL

version=$("$bin" --version | sed 's/^numalab //')
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
	date=$(git -C "$here/.." log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
fi
mkdir -p "$out"

# the commands `numalab --help` lists, in its order
commands=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | uniq)
experiments=$("$bin" list | awk '{ print $1 }')

head() { # name section-title one-line-description
	printf '.TH %s 1 "%s" "numalab %s" "numalab manual"\n' \
		"$(echo "$1" | tr a-z A-Z)" "$date" "$version"
	printf '.SH NAME\n%s \\- %s\n' "$1" "$2"
}

synopsis() {
	printf '.SH SYNOPSIS\n.nf\n'
	awk -v mode=synopsis -f "$awkf"
	printf '.fi\n'
}

see_also() { # pages, the first without a comma before it
	printf '.SH SEE ALSO\n'
	first=1
	for p in "$@"; do
		[ $first = 1 ] || printf ',\n'
		printf '.BR %s (1)' "$p"
		first=0
	done
	printf '\n'
}

others() { # every page but $1
	for p in numalab $(for c in $commands; do echo "numalab-$c"; done); do
		[ "$p" = "$1" ] || printf '%s ' "$p"
	done
}

# a command's one-line description, from `numalab --help`
what() {
	"$bin" --help | awk -v c="$1" '$1 == c { sub(/^ *[^ ].*[^ ]  +/, ""); print; exit }'
}

page_numalab() {
	head numalab "the multi-thread and NUMA memory experiments of a lab machine"
	"$bin" --help | synopsis
	cat <<'EOF'
.SH DESCRIPTION
numalab runs the experiments of the sections on multi-threaded and NUMA
memory of Ulrich Drepper's "What every programmer should know about memory"
as native kernels, pinned to the CPUs and memory nodes a run names, and
shows what they measured: as a table on the command line, or as live
charts in a browser page served by
.BR "numalab serve" .
Every run records where its threads really ran and where its memory really
was, with the machine it ran on.
EOF
	"$bin" --help | awk -v mode=body -f "$awkf"
	cat <<EOF
.SH FILES
.TP
.I PREFIX/share/numalab/web
The page the server serves (found from the binary's folder,
.IR ../share/numalab/web ;
.B \\-\\-web
names another).
.TP
.I PREFIX/lib/numalab/libnumalab_tls.so, libnumalab_tls_big.so
The shared objects
.B variable_layout
loads to time thread-local storage reached through a call.
.TP
.I ./numalab.db
The runs, for
.B numalab serve
without
.BR \\-\\-db .
.TP
.I \$XDG_CACHE_HOME/numalab/rates
The rates run-time estimates are based on.
.SH ENVIRONMENT
.TP
.B HWLOC_XMLFILE, HWLOC_SYNTHETIC
Another machine's topology (a file from
.BR lstopo (1),
or a synthetic description) for everything but running.
.TP
.B NUMALAB_TOKEN
The server's token for
.B numalab fleet
when no
.B \\-\\-token\\-file
is given.
.TP
.B XDG_CACHE_HOME
Where the rates are cached (default
.IR ~/.cache ).
.SH EXIT STATUS
0 when the command did what it was asked, 1 when it failed (it says why),
2 for a request it refused (an unknown option or parameter, a value out
of its range).
EOF
	see_also $(others numalab)
}

page_command() { # command
	c=$1
	head "numalab-$c" "$(what "$c")"
	"$bin" "$c" --help | synopsis
	printf '.SH DESCRIPTION\n'
	"$bin" "$c" --help | awk -v mode=body -f "$awkf"
	see_also $(others "numalab-$c")
}

page_run() {
	head numalab-run "$(what run)"
	"$bin" run --help | synopsis
	printf '.SH DESCRIPTION\n'
	"$bin" run --help | awk -v mode=body -f "$awkf"
	printf '.SH EXPERIMENTS\n'
	printf 'Each experiment'"'"'s own parameters. Limits and defaults that depend on\n'
	printf 'the machine are shown for %s;\n' "$MACHINE_WORDS"
	printf '.B numalab run\n.I NAME\n.B \\-\\-help\nprints this machine'"'"'s.\n'
	placed=""
	for e in $experiments; do
		help=$("$bin" run "$e" --help)
		printf '.SS %s\n' "$e"
		echo "$help" | awk -v mode=about -f "$awkf"
		echo "$help" | awk -v mode=params -f "$awkf"
		echo "$help" | grep -q '^where the threads run' && placed=$e
	done
	printf '.SH PLACEMENT PARAMETERS\n'
	printf 'Where the threads run, for the experiments that pin them.\n'
	"$bin" run "$placed" --help |
		awk -v mode=params -v from="where the threads run (the placement parameters)" -f "$awkf"
	printf '.SH PARAMETERS EVERY EXPERIMENT TAKES\n'
	"$bin" run "$placed" --help |
		awk -v mode=params -v from="parameters every experiment takes" -f "$awkf"
	printf '.SH EXAMPLES\n.nf\n'
	printf 'numalab run false_sharing threads=1\\-4 layout=both\n'
	printf 'numalab run \\-\\-json memory_latency > run.json\n'
	printf 'numalab run core_to_core \\-\\-help\n.fi\n'
	see_also $(others numalab-run)
}

page_numalab >"$out/numalab.1"
for c in $commands; do
	case $c in
	run) page_run >"$out/numalab-run.1" ;;
	*) page_command "$c" >"$out/numalab-$c.1" ;;
	esac
done
