#!/bin/sh
# test_package.sh - the package lane (tests/package/package.mk): the .deb
# built from a clean clone with dpkg-buildpackage, lintian with no error,
# then installed with apt into a Debian 12 root made by debootstrap (cached,
# tests/container/base.sh), where its unit passes systemd-analyze verify,
# `numalab serve` answers (tests/install/served.py) and `numalab run
# false_sharing` works; purge leaves nothing of it. Then, where dockerd is
# at hand, the unit itself under a real systemd (booted in a container):
# active, as its own user with CAP_SYS_NICE alone, a run done through it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${NUMALAB_TEST_CACHE:-/var/cache/numalab-test}

skip() { echo "SKIP test-package: $*"; exit 0; }
fail() { echo "FAIL $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "the chroot needs root"
for t in dpkg-buildpackage dh lintian git chroot; do
	command -v $t >/dev/null 2>&1 || skip "'$t' is not installed (make test-deps installs dpkg-dev, debhelper, lintian, git)"
done

. "$repo/tests/container/dockerd.sh"
run=$(mktemp -d /tmp/nlp.XXXXXX)
root=$run/root
server=""
mounted() { grep -q " $root/" /proc/mounts; }
cleanup() {
	set +e
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	[ -n "$dk_dpid" ] && d rm -f "nlp-$(basename "$run")" >/dev/null 2>&1
	dockerd_down
	for m in var/cache/apt/archives dev sys proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount "$root/$m"
	done
	# never remove a tree that still holds the host's /dev or /sys
	if mounted; then
		echo "test_package.sh: $root is still mounted on; left in place" >&2
	else
		rm -rf "$run"
	fi
}
trap cleanup EXIT INT TERM

git clone -q "$repo" "$run/src" || fail "git clone"
t0=$(date +%s)
(cd "$run/src" && dpkg-buildpackage -us -uc -b) >"$run/build.log" 2>&1 ||
	{ tail -30 "$run/build.log" >&2; fail "dpkg-buildpackage -us -uc -b"; }
deb=$(ls "$run"/numalab_*.deb)
echo "ok   dpkg-buildpackage -us -uc -b built $(basename "$deb") ($(($(date +%s) - t0)) s)"
dpkg-deb -f "$deb" Depends | grep -q 'libmicrohttpd12' || fail "Depends lacks the shared libraries: $(dpkg-deb -f "$deb" Depends)"
lintian --fail-on error "$run"/numalab_*.changes >"$run/lintian.log" 2>&1 ||
	{ cat "$run/lintian.log" >&2; fail "lintian reports errors"; }
echo "ok   lintian: no error ($(grep -c '^W:' "$run/lintian.log" || true) warnings); Depends: $(dpkg-deb -f "$deb" Depends)"

tar=$(sh "$repo/tests/container/base.sh" "$cache") || fail "no Debian 12 base root"
mkdir "$root"
tar -C "$root" -xf "$tar"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# nothing started by the package's scripts in the chroot
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mkdir -p "$cache/apt-archives/partial"
mount --bind "$cache/apt-archives" "$root/var/cache/apt/archives"
mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }
# the same, as the process itself: `in_root CMD &` would leave $! the
# subshell running the function, and killing it would not stop CMD
in_root_exec() { exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }
t0=$(date +%s)
in_root apt-get update -qq >"$run/apt.log" 2>&1 || { cat "$run/apt.log" >&2; fail "apt-get update in the root"; }
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"/tmp/$(basename "$deb")" systemd >>"$run/apt.log" 2>&1 ||
	{ tail -30 "$run/apt.log" >&2; fail "apt-get install numalab in the Debian 12 root"; }
echo "ok   apt-get install $(basename "$deb") into a Debian 12 root ($(($(date +%s) - t0)) s)"

mode=$(in_root stat -c '%a %U:%G' /etc/numalab/token)
[ "$mode" = "640 root:numalab" ] || fail "/etc/numalab/token is $mode, not 640 root:numalab"
[ -s "$root/etc/numalab/numalab.conf" ] || fail "no /etc/numalab/numalab.conf"
[ -x "$root/usr/lib/numalab/numalab-worker" ] || fail "no /usr/lib/numalab/numalab-worker (the server's worker)"
in_root systemd-analyze verify --man=no /lib/systemd/system/numalab.service >"$run/verify.log" 2>&1 ||
	{ cat "$run/verify.log" >&2; fail "systemd-analyze verify numalab.service"; }
echo "ok   systemd-analyze verify numalab.service; the user numalab and /etc/numalab/token (640 root:numalab) made"

# systemd makes the state directory when it starts the unit; here, by hand
in_root mkdir -p /var/lib/numalab
(in_root_exec numalab serve --listen 127.0.0.1:0 --db /var/lib/numalab/test.db \
	--token-file /etc/numalab/token) >"$run/serve.out" 2>"$run/serve.err" &
server=$!
i=0
until grep -q '^listening on ' "$run/serve.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat "$run/serve.err" >&2; fail "numalab serve did not start in the root"; }
	sleep 0.1
done
python3 "$repo/tests/install/served.py" "$(sed -n 's/^listening on //p' "$run/serve.out" | head -1)" \
	--token-file "$root/etc/numalab/token"
kill "$server"
wait "$server" 2>/dev/null || true
server=""

in_root numalab run false_sharing threads=1 increments=1000000 repeat=1 warmup=0 budget=0 >"$run/run.out" 2>&1 ||
	{ cat "$run/run.out" >&2; fail "numalab run false_sharing in the root"; }
echo "ok   numalab run false_sharing in the root"

in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq numalab >>"$run/apt.log" 2>&1 || fail "apt-get purge numalab"
in_root id numalab >/dev/null 2>&1 && fail "purge left the user numalab"
left=$(cd "$root" && ls -d usr/bin/numalab usr/lib/numalab usr/share/numalab etc/numalab var/lib/numalab lib/systemd/system/numalab.service 2>/dev/null || true)
[ -z "$left" ] || fail "purge left: $left"
echo "ok   apt-get purge numalab leaves none of its files"

# the unit itself, under a real systemd booted in a container
if ! command -v dockerd >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then
	echo "SKIP the unit under systemd: dockerd is not installed (make test-deps installs docker.io)"
	exit 0
fi
dockerd_up "$run" "$cache/docker-systemd"
dockerd_base "$cache"
mkdir "$run/ctx"
cp "$deb" "$run/ctx/numalab.deb"
cat >"$run/ctx/Dockerfile" <<'DOCKERFILE'
FROM numalab-test-base:bookworm
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends systemd systemd-sysv curl
COPY numalab.deb /tmp/
RUN DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/numalab.deb
STOPSIGNAL SIGRTMIN+3
CMD ["/lib/systemd/systemd"]
DOCKERFILE
d build -q --network host -t numalab-test-systemd:latest "$run/ctx" >"$run/systemd-build.log" 2>&1 ||
	{ tail -20 "$run/systemd-build.log" >&2; fail "docker build of a Debian 12 with systemd and the package"; }
box=nlp-$(basename "$run")
d run -d --name "$box" --cap-add SYS_ADMIN --cap-add SYS_NICE --security-opt seccomp=unconfined \
	--security-opt apparmor=unconfined -v /sys/fs/cgroup:/sys/fs/cgroup:rw \
	--tmpfs /run --tmpfs /run/lock --tmpfs /tmp numalab-test-systemd:latest >/dev/null ||
	fail "docker run of the systemd container"
i=0
state=""
until [ "$state" = active ] || [ "$state" = failed ]; do
	i=$((i + 1))
	if [ $i -gt 60 ]; then
		d exec "$box" systemctl is-system-running >/dev/null 2>&1 ||
			{ echo "SKIP the unit under systemd: systemd does not boot in a container here"; exit 0; }
		break
	fi
	sleep 1
	state=$(d exec "$box" systemctl is-active numalab 2>/dev/null || true)
done
[ "$state" = active ] ||
	fail "numalab.service is $state under systemd: $(d exec "$box" journalctl -u numalab --no-pager | tail -5)"
d exec "$box" sh -c 'pid=$(systemctl show -p MainPID --value numalab)
	echo "$(awk "/^Uid/ { print \$2 }" /proc/$pid/status) $(id -u numalab) $(awk "/^CapEff/ { print \$2 }" /proc/$pid/status)"' >"$run/who"
read -r uid want caps <"$run/who"
[ "$uid" = "$want" ] || fail "the service runs as uid $uid, not numalab's ($want)"
[ "$caps" = 0000000000800000 ] || fail "the service's effective capabilities are $caps, not CAP_SYS_NICE alone"
d exec "$box" sh -c 'T=$(cat /etc/numalab/token)
	# active is said as soon as it starts; it listens once it has measured its rates
	for i in $(seq 120); do
		curl -sf -H "Authorization: Bearer $T" http://127.0.0.1:8080/api/experiments >/dev/null && break
		sleep 1
	done
	curl -sf -XPOST -H "Authorization: Bearer $T" -H "Content-Type: application/json" \
		-d "{\"experiment\":\"memory_policy\",\"params\":{\"size\":\"8M\",\"repeat\":\"1\",\"warmup\":\"0\",\"budget\":\"0\"}}" \
		http://127.0.0.1:8080/api/runs >/dev/null || { echo "POST /api/runs failed"; exit 1; }
	s=""
	for i in $(seq 300); do
		s=$(curl -s -H "Authorization: Bearer $T" http://127.0.0.1:8080/api/runs/1 | grep -o "\"status\": *\"[a-z]*\"" | head -1)
		case $s in *done*) exit 0 ;; *failed* | *cancelled* | *interrupted*) echo "$s"; exit 1 ;; esac
		sleep 1
	done
	echo "still $s after 300 s"
	exit 1' || fail "a memory_policy run through numalab.service did not end done"
d exec "$box" sh -c 'journalctl -u numalab --no-pager | grep -q -f /etc/numalab/token' &&
	fail "the token is in the journal"
echo "ok   numalab.service under systemd: active as numalab with CAP_SYS_NICE alone, a memory_policy run done, the token not in the journal"
