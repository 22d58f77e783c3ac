#!/bin/sh
# test_package.sh - the package lane (tests/package/package.mk): the .deb
# built from a clean clone with dpkg-buildpackage, lintian with no error,
# then installed with apt into a Debian 12 root made by debootstrap (cached,
# tests/container/base.sh), where its unit passes systemd-analyze verify,
# `numalab serve` answers (tests/install/served.py) and `numalab run
# false_sharing` works; purge leaves nothing of it.
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

run=$(mktemp -d /tmp/nlp.XXXXXX)
root=$run/root
server=""
mounted() { grep -q " $root/" /proc/mounts; }
cleanup() {
	set +e
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
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
t0=$(date +%s)
in_root apt-get update -qq >"$run/apt.log" 2>&1 || { cat "$run/apt.log" >&2; fail "apt-get update in the root"; }
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"/tmp/$(basename "$deb")" systemd >>"$run/apt.log" 2>&1 ||
	{ tail -30 "$run/apt.log" >&2; fail "apt-get install numalab in the Debian 12 root"; }
echo "ok   apt-get install $(basename "$deb") into a Debian 12 root ($(($(date +%s) - t0)) s)"

mode=$(stat -c %a "$root/etc/numalab/token")
[ "$mode" = 600 ] || fail "/etc/numalab/token has mode $mode, not 600"
[ -s "$root/etc/numalab/numalab.conf" ] || fail "no /etc/numalab/numalab.conf"
in_root systemd-analyze verify --man=no /lib/systemd/system/numalab.service >"$run/verify.log" 2>&1 ||
	{ cat "$run/verify.log" >&2; fail "systemd-analyze verify numalab.service"; }
echo "ok   systemd-analyze verify numalab.service; /etc/numalab/token made, mode 600"

# systemd makes the state directory when it starts the unit; here, by hand
in_root mkdir -p /var/lib/numalab
in_root numalab serve --listen 127.0.0.1:0 --db /var/lib/numalab/test.db \
	--token-file /etc/numalab/token >"$run/serve.out" 2>"$run/serve.err" &
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
left=$(cd "$root" && ls -d usr/bin/numalab usr/lib/numalab usr/share/numalab etc/numalab var/lib/numalab lib/systemd/system/numalab.service 2>/dev/null || true)
[ -z "$left" ] || fail "purge left: $left"
echo "ok   apt-get purge numalab leaves none of its files"
