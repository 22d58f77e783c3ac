#!/bin/sh
# lan.sh - two network namespaces joined by a veth pair, nothing else: the
# server's (198.51.100.1, host name lab-NET_TAG) and the class's
# (198.51.100.2), no default route in either; runs tests/net/lan.mjs in the
# class's namespace and tears everything down after, whatever happened.
# usage: tests/net/lan.sh BUILD/numalab [CHROMIUM]
set -eu
bin=$(realpath "$1")
chromium=${2:-/usr/bin/chromium}
tag=${NET_TAG:-i33}
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
	echo "SKIP test-net: needs root, ip (iproute2) and unshare to make network namespaces"
	exit 0
fi
if ! command -v node >/dev/null 2>&1; then
	echo "SKIP test-net: node is not installed (apt-get install nodejs npm)"
	exit 0
fi
# unique to this run: the lane's tag and this shell's pid
srv="nl-$tag-srv-$$"
cli="nl-$tag-cli-$$"
vs="v$tag""s$$"
vc="v$tag""c$$"
host="lab-$tag"
cleanup() {
	ip netns del "$srv" 2>/dev/null || true
	ip netns del "$cli" 2>/dev/null || true
	ip link del "$vs" 2>/dev/null || true
	rm -rf "/etc/netns/$srv" "/etc/netns/$cli"
}
trap cleanup EXIT INT TERM
ip netns add "$srv"
ip netns add "$cli"
ip link add "$vs" type veth peer name "$vc"
ip link set "$vs" netns "$srv"
ip link set "$vc" netns "$cli"
for ns in "$srv" "$cli"; do ip -n "$ns" link set lo up; done
# the lane is IPv4: no IPv6 link-local address on the veth ends, whose
# arrival a second after the link comes up (its duplicate check done)
# Chromium takes for a network change and aborts the page's loads with
# ERR_NETWORK_CHANGED
for pair in "$srv:$vs" "$cli:$vc"; do
	if [ -e /proc/sys/net/ipv6 ]; then
		ip netns exec "${pair%%:*}" sysctl -qw "net.ipv6.conf.${pair#*:}.disable_ipv6=1"
	fi
done
ip -n "$srv" addr add 198.51.100.1/24 dev "$vs"
ip -n "$cli" addr add 198.51.100.2/24 dev "$vc"
ip -n "$srv" link set "$vs" up
ip -n "$cli" link set "$vc" up
# ip netns exec puts /etc/netns/NAME/hosts over /etc/hosts: the lab's name
# resolves on both sides, to the server's address
for ns in "$srv" "$cli"; do
	mkdir -p "/etc/netns/$ns"
	printf '127.0.0.1 localhost\n198.51.100.1 %s\n' "$host" >"/etc/netns/$ns/hosts"
done
if ip -n "$cli" route | grep -q default; then
	echo "FAIL test-net: the class's namespace has a route out"
	exit 1
fi
ip netns exec "$cli" node tests/net/lan.mjs --numalab "$bin" --chromium "$chromium" \
	--web web --screenshots build/screenshots --server-ns "$srv" --host-name "$host"
