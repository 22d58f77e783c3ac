#!/bin/sh
# base.sh - a Debian 12 root made by debootstrap, cached between runs on one
# machine: prints the path of its tarball, making it first when it is not
# there (a few minutes; later runs reuse it). The container lane imports it
# as the image's base, the package lane unpacks it to install the .deb in.
#   tests/container/base.sh [CACHE_DIR]   (default $NUMALAB_TEST_CACHE,
#                                          else /var/cache/numalab-test)
set -eu
cache=${1:-${NUMALAB_TEST_CACHE:-/var/cache/numalab-test}}
tar=$cache/debian12-minbase.tar
if [ -s "$tar" ]; then
	echo "$tar"
	exit 0
fi
command -v debootstrap >/dev/null 2>&1 || {
	echo "base.sh: debootstrap is not installed (make test-deps installs it)" >&2
	exit 1
}
mkdir -p "$cache"
root=$(mktemp -d "$cache/root.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "base.sh: debootstrap bookworm into $root (once; cached as $tar)" >&2
# the mirror is the host's own apt source when it names one, else debootstrap's default
mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ { print $2; exit }' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
fi
debootstrap --variant=minbase bookworm "$root" $mirror >"$cache/debootstrap.log" 2>&1 || {
	tail -20 "$cache/debootstrap.log" >&2
	exit 1
}
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -cf "$tar.tmp" .
mv "$tar.tmp" "$tar"
echo "$tar"
