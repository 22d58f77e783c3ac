#!/bin/bash
# vm.sh - boots small Linux guests with several NUMA nodes under qemu and runs numalab inside.
#
# This machine may have one node; memory policies, page placement and
# migration only show something with two or more. The guest runs Debian's
# own kernel under qemu (software emulation by default), with numalab, the
# shared libraries it needs and static busybox packed into an initramfs.
#
#   vm.sh lane BINARY [PLAN_PROBE]
#       the test lane: checks on this machine that need no guest, then a
#       2-node and a 4-node guest of one CPU a node and an 8-node guest of
#       two (16 vCPUs) each run tests/numa/guest.sh, and tests/numa/check.py
#       judges what they printed. PLAN_PROBE (tests/numa/plan_probe) goes
#       into the guests too: it prints the pair and cell plans for what the
#       guest's kernel reports. Exits 0 with a loud SKIP when qemu or a
#       kernel image cannot be had.
#   vm.sh run [--nodes N] [--mem-per-node MB] BINARY [ARGS...]
#       runs `BINARY ARGS...` once in a guest and prints its output.
#
# Environment: NUMALAB_VM_ACCEL=tcg|kvm (default tcg: nested KVM can hang at
# boot), NUMALAB_VM_CACHE (where the kernel image is kept, default
# /var/cache/numalab-vm), NUMALAB_VM_KEEP=1 keeps the work folder,
# NUMALAB_VM_GUESTS the lane's guests as NODES:CPUS_PER_NODE:MB_PER_NODE
# (default "2:1:384 4:1:256 8:2:128", "none" for none), NUMALAB_VM_SHAPES
# the odd-shaped guests (default "memonly cpuonly asym": a node of memory
# alone, a node of cpus alone, distances that differ by direction; "none"
# for none), NUMALAB_VM_TIMEOUT a guest's limit
# in seconds (default 150).
# Timings inside the guest are an emulator's: test semantics there, never speed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${NUMALAB_VM_CACHE:-/var/cache/numalab-vm}
accel=${NUMALAB_VM_ACCEL:-tcg}

skip() {
	echo "########################################################################"
	echo "## SKIP test-numa: $*"
	echo "## (the multi-node NUMA checks did not run on this machine)"
	echo "########################################################################"
	exit 0
}

# qemu, static busybox and cpio from Debian, when they are missing and we may install.
need_tools() {
	local need=()
	command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
	{ [ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx poweroff &&
		! ldd /bin/busybox >/dev/null 2>&1; } || need+=(busybox-static)
	command -v cpio >/dev/null || need+=(cpio)
	command -v gzip >/dev/null || need+=(gzip)
	[ ${#need[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || { echo "cannot install ${need[*]}: not root"; return 1; }
	echo "vm.sh: installing ${need[*]}" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "${need[@]}"; } >/dev/null 2>&1 ||
		{ echo "could not install ${need[*]} with apt-get"; return 1; }
}

# Debian's kernel image, unpacked once into the cache.
need_kernel() {
	kernel=$(ls "$cache"/boot/vmlinuz-* 2>/dev/null | head -1 || true)
	[ -n "$kernel" ] && return 0
	mkdir -p "$cache" || { echo "cannot create $cache"; return 1; }
	echo "vm.sh: fetching Debian's kernel image into $cache" >&2
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
	if [ -z "$pkg" ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
	fi
	[ -n "$pkg" ] || { echo "apt knows no linux-image-amd64 package"; return 1; }
	(cd "$cache" && apt-get download -qq "$pkg" >/dev/null 2>&1 &&
		dpkg-deb --fsys-tarfile "$pkg"_*.deb | tar -x ./boot/ && rm -f "$pkg"_*.deb) ||
		{ echo "could not download $pkg"; return 1; }
	kernel=$(ls "$cache"/boot/vmlinuz-* 2>/dev/null | head -1 || true)
	[ -n "$kernel" ] || { echo "$pkg holds no vmlinuz"; return 1; }
}

# The part of the initramfs every boot shares: busybox, the binaries, their libraries, /init.
build_base() {
	local bin=$1 probe=${2:-} root=$work/root
	mkdir -p "$root"/{bin,proc,sys,dev,tmp,data}
	cp /bin/busybox "$root/bin/"
	for a in sh mount poweroff cat echo ls mkdir sync sleep grep; do ln -sf busybox "$root/bin/$a"; done
	cp -L "$bin" "$root/numalab"
	[ -z "$probe" ] || cp -L "$probe" "$root/plan_probe"
	for lib in $( { ldd "$bin"; [ -z "$probe" ] || ldd "$probe"; } | grep -o '/[^ ]*' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp "$here/guest.sh" "$root/guest.sh"
	cp "$here/guest_shape.sh" "$root/guest_shape.sh"
	cat >"$root/init" <<-'EOF'
		#!/bin/sh
		mount -t proc proc /proc
		mount -t sysfs sys /sys
		mount -t devtmpfs dev /dev
		cd /data
		/bin/sh /job
		echo "@@@ GUEST_DONE" >/dev/ttyS1
		/bin/busybox poweroff -f
	EOF
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$work/base.cpio.gz")
}

# The initrd of guest NAME: the shared base and the script text JOB as /job.
boot_job() {
	local name=$1 job=$2 jobdir=$work/job-$1
	mkdir -p "$jobdir"
	printf '%s\n' "$job" >"$jobdir/job"
	(cd "$jobdir" && echo job | cpio -o -H newc 2>/dev/null | gzip -1 >"$work/job-$name.cpio.gz")
	# the kernel unpacks concatenated archives in turn: the job file joins the base
	cat "$work/base.cpio.gz" "$work/job-$name.cpio.gz" >"$work/initrd-$name.gz"
}

# The odd shapes: a node with memory and no cpu, a node with cpus and no
# memory, distances that differ by direction (qemu's -numa node without
# cpus or without memdev, -numa dist both ways). Prints "SMP MB ARGS...".
shape_args() {
	local m="-object memory-backend-ram,id=m"
	case "$1" in
	memonly) echo "2,sockets=1,cores=2 1024 ${m}0,size=512M ${m}1,size=512M" \
		"-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,memdev=m1" \
		"-numa dist,src=0,dst=1,val=20" ;;
	cpuonly) echo "2,sockets=2,cores=1 384 ${m}0,size=384M" \
		"-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1" \
		"-numa dist,src=0,dst=1,val=20" ;;
	asym) echo "3,sockets=3,cores=1 576 ${m}0,size=192M ${m}1,size=192M ${m}2,size=192M" \
		"-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1" \
		"-numa node,nodeid=2,cpus=2,memdev=m2" \
		"-numa dist,src=0,dst=1,val=20 -numa dist,src=1,dst=0,val=30" \
		"-numa dist,src=0,dst=2,val=25 -numa dist,src=2,dst=0,val=25" \
		"-numa dist,src=1,dst=2,val=40 -numa dist,src=2,dst=1,val=15" ;;
	*) return 1 ;;
	esac
}

# Boots a guest of nodes nodes that runs the script text $2; its ttyS1 output lands in $3.
# Each node is a socket of cpn (default 1) cores under one L3, with its
# memory (SMT threads would not show: qemu's emulated CPU reports none).
boot() {
	local nodes=$1 job=$2 results=$3 mem=$4 name=$5 cpn=${6:-1}
	boot_job "$name" "$job"
	local numa=()
	for ((n = 0; n < nodes; n++)); do
		numa+=(-object "memory-backend-ram,id=m$n,size=${mem}M"
			-numa "node,nodeid=$n,cpus=$((n * cpn))-$((n * cpn + cpn - 1)),memdev=m$n")
	done
	for ((a = 0; a < nodes; a++)); do
		for ((b = a + 1; b < nodes; b++)); do
			numa+=(-numa "dist,src=$a,dst=$b,val=$(distance "$nodes" $a $b)")
		done
	done
	run_guest "$name" "$results" "$((mem * nodes))" "$((nodes * cpn)),sockets=$nodes,cores=$cpn,threads=1" "${numa[@]}"
}

# Boots the guest whose initrd boot_job made: NAME RESULTS MB SMP QEMU_NUMA_ARGS...
run_guest() {
	local name=$1 results=$2 mb=$3 smp=$4
	shift 4
	: >"$results"
	timeout "${NUMALAB_VM_TIMEOUT:-150}" qemu-system-x86_64 -accel "$accel" -cpu max \
		-m "${mb}M" -smp "$smp" "$@" \
		-kernel "$kernel" -initrd "$work/initrd-$name.gz" \
		-append "console=ttyS0 quiet loglevel=0 panic=-1 numa_balancing=disable" \
		-display none -monitor none -nodefaults -no-reboot \
		-serial "file:$work/console-$name.log" -serial "file:$results" \
		</dev/null >"$work/qemu-$name.log" 2>&1 || true
	if ! grep -q '^@@@ GUEST_DONE' "$results"; then
		echo "vm.sh: the guest $name did not finish; last console lines:" >&2
		tail -n 5 "$work/console-$name.log" "$work/qemu-$name.log" >&2 || true
		return 1
	fi
}

# The guests' distance matrices. 4 nodes: two pairs, near inside a pair
# (16), far across (22, 28 diagonally), so a test can tell they arrived.
# 8 nodes: pairs (16) in two halves (22 inside a half, 28 across), three
# classes of remote distance like a large machine's hops.
distance() {
	local nodes=$1 a=$2 b=$3
	[ "$a" -lt "$b" ] || { a=$3; b=$2; }
	if [ "$nodes" -eq 8 ]; then
		if [ $((a / 2)) -eq $((b / 2)) ]; then echo 16
		elif [ $((a / 4)) -eq $((b / 4)) ]; then echo 22
		else echo 28; fi
		return
	fi
	if [ "$nodes" -ne 4 ]; then
		echo 20
		return
	fi
	case "$a$b" in
	01 | 23) echo 16 ;;
	02 | 13) echo 22 ;;
	*) echo 28 ;;
	esac
}

# Checks on this machine that need no guest: a refused capability.
host_checks() {
	local bin=$1 out rc=0
	if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
		out=$(setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice -- \
			"$bin" run memory_policy migrate_with=move_all size=4M 2>&1) && rc=0 || rc=$?
		if [ "$rc" = 2 ] && grep -q "needs CAP_SYS_NICE" <<<"$out"; then
			echo "  ok    move_all without CAP_SYS_NICE is refused: ${out#*: }"
		else
			echo "  FAIL  move_all without CAP_SYS_NICE: rc=$rc: $out"
			return 1
		fi
	else
		echo "  skip  move_all without CAP_SYS_NICE (needs root and setpriv)"
	fi
}

lane() {
	local bin=$1 probe=${2:-} why fail=0 t0=$SECONDS
	[ -x "$bin" ] || { echo "vm.sh: $bin is not an executable" >&2; exit 2; }
	echo "numa lane: checks on this machine"
	host_checks "$bin" || fail=1
	why=$(need_tools) || skip "$why"
	why=$(need_kernel) || skip "$why"
	need_kernel >/dev/null
	[ "$accel" != kvm ] || [ -w /dev/kvm ] || skip "NUMALAB_VM_ACCEL=kvm but /dev/kvm is not usable"
	command -v python3 >/dev/null || skip "python3 is missing (check.py judges the output)"
	work=$(mktemp -d /tmp/numalab-vm.XXXXXX)
	[ -n "${NUMALAB_VM_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
	build_base "$bin" "$probe"
	# nodes:cpus a node:MB a node; NUMALAB_VM_GUESTS picks some, e.g. "8:2:128"
	for guest in ${NUMALAB_VM_GUESTS:-2:1:384 4:1:256 8:2:128}; do
		[ "$guest" != none ] || continue
		local nodes=${guest%%:*} cpn mem s=$SECONDS
		cpn=${guest#*:}; cpn=${cpn%%:*}; mem=${guest##*:}
		echo "numa lane: a $nodes-node guest of $((nodes * cpn)) cpus ($accel, $(basename "$kernel"))"
		if ! boot "$nodes" "/bin/sh /guest.sh $nodes $cpn" "$work/results-$nodes.log" "$mem" "$nodes" "$cpn"; then
			fail=1
			continue
		fi
		local dists=""
		for ((a = 0; a < nodes; a++)); do
			for ((b = 0; b < nodes; b++)); do
				if [ $a = $b ]; then dists+="10,"; else dists+="$(distance "$nodes" $a $b),"; fi
			done
		done
		python3 "$here/check.py" --nodes "$nodes" --cpus-per-node "$cpn" \
			--distances "${dists%,}" ${probe:+--probe} "$work/results-$nodes.log" || fail=1
		# what the guest spent: booting, and its slowest commands
		local took
		took=$(sed -n 's/^@@@ TOOK \([^ ]*\) \([0-9]*\) s.*/\2 \1/p' "$work/results-$nodes.log" |
			tr -d '\r' | sort -rn | head -3 | awk '{printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1}')
		local first last
		first=$(sed -n 's/^@@@ TOOK [^ ]* \([0-9]*\) s (guest up \([0-9]*\) s.*/\2 - \1/p' \
			"$work/results-$nodes.log" | head -1)
		last=$(sed -n 's/^@@@ TOOK .*guest up \([0-9]*\) s.*/\1/p' "$work/results-$nodes.log" | tail -1)
		echo "  ($((SECONDS - s)) s; by the guest's clock the checks ran from $((${first:-0})) s" \
			"to ${last:-?} s after boot; slowest: $took)"
	done
	# the odd shapes: NUMALAB_VM_SHAPES picks some ("none": none)
	for shape in ${NUMALAB_VM_SHAPES:-memonly cpuonly asym}; do
		[ "$shape" != none ] || continue
		local spec s=$SECONDS
		spec=$(shape_args "$shape") || { echo "vm.sh: unknown shape '$shape'" >&2; fail=1; continue; }
		# shellcheck disable=SC2086 # the spec is words
		set -- $spec
		local smp=$1 mb=$2
		shift 2
		echo "numa lane: the $shape guest ($smp cpus, $mb MiB, $accel)"
		boot_job "$shape" "/bin/sh /guest_shape.sh"
		if ! run_guest "$shape" "$work/results-$shape.log" "$mb" "$smp" "$@"; then
			fail=1
			continue
		fi
		python3 "$here/check_shape.py" --shape "$shape" "$work/results-$shape.log" || fail=1
		echo "  ($((SECONDS - s)) s)"
	done
	echo "numa lane: $((SECONDS - t0)) s"
	[ -z "${NUMALAB_VM_KEEP:-}" ] || echo "numa lane: kept $work"
	return $fail
}

run_once() {
	local nodes=2 mem=512
	while [ $# -gt 0 ]; do
		case "$1" in
		--nodes) nodes=$2; shift 2 ;;
		--mem-per-node) mem=$2; shift 2 ;;
		*) break ;;
		esac
	done
	[ $# -ge 1 ] || { echo "usage: vm.sh run [--nodes N] [--mem-per-node MB] BINARY [ARGS...]" >&2; exit 2; }
	local bin=$1 why
	shift
	why=$(need_tools) || { echo "vm.sh: $why" >&2; exit 2; }
	why=$(need_kernel) || { echo "vm.sh: $why" >&2; exit 2; }
	need_kernel >/dev/null
	work=$(mktemp -d /tmp/numalab-vm.XXXXXX)
	[ -n "${NUMALAB_VM_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
	build_base "$bin"
	local cmd="/numalab" q
	for a in "$@"; do
		q=${a//\'/\'\\\'\'}
		cmd+=" '$q'"
	done
	boot "$nodes" "$cmd >/dev/ttyS1 2>&1; echo \"@@@ EXIT=\$?\" >/dev/ttyS1" \
		"$work/results.log" "$mem" run || exit 125
	grep -v '^@@@ ' "$work/results.log" | tr -d '\r'
	exit "$(sed -n 's/^@@@ EXIT=\([0-9]*\).*/\1/p' "$work/results.log" | tail -1)"
}

case "${1:-}" in
lane) shift; lane "$@" ;;
run) shift; run_once "$@" ;;
-h | --help | "") sed -n '2,30p' "$0"; exit 0 ;;
*) echo "vm.sh: unknown mode '$1' (lane, run)" >&2; exit 2 ;;
esac
