#!/bin/sh
# Installs the Debian packages numalab needs, only those that are missing,
# so a second run costs a few dpkg queries. Usage: deps.sh run|test|bench
set -e
mode=${1:-run}
pkgs="gcc make pkg-config libmicrohttpd-dev libgnutls28-dev libjansson-dev libhwloc-dev libnuma-dev libsqlite3-dev libcurl4-openssl-dev zlib1g-dev nodejs npm"
case "$mode" in
test) pkgs="$pkgs libcmocka-dev python3 python3-jsonschema curl openssl chromium sqlite3 wrk clang libclang-rt-14-dev clang-format slurm-wlm munge clustershell lcov man-db docker.io debootstrap git iproute2 dpkg-dev debhelper lintian" ;;
bench) pkgs="$pkgs python3 curl wrk likwid" ;;
esac
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# node and npm may come from elsewhere than Debian (nvm, a tarball)
case "$missing" in *nodejs*|*npm*)
	if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
		missing=$(echo "$missing" | sed 's/ nodejs//; s/ npm//')
	fi ;;
esac
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "numalab needs these Debian packages:$missing" >&2
	echo "run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# another apt (a second checkout installing, unattended upgrades) may hold the
# lock: wait for it rather than fail
apt-get -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
