# dockerd.sh - a dockerd of a test's own, sourced by the container and
# package lanes: its data root cached (images kept between runs), its
# socket, pid file, exec root and bridge made under the run's folder and
# removed after, the daemon stopped by its pid. No iptables: published
# ports go through docker-proxy, and builds take the host's network.
#   dockerd_up RUN_DIR DATA_ROOT   starts it; d ARGS... talks to it
#   dockerd_base CACHE             the Debian 12 base image (base.sh's root)
#   dockerd_down                   stops it and removes what it made
# The caller defines fail().

dk_dpid=""
dk_run=""
dk_br=""

d() { docker -H "unix://$dk_run/docker.sock" "$@"; }

dockerd_up() {
	dk_run=$1
	dk_br=nl$(basename "$dk_run" | tr -dc 'a-zA-Z0-9' | tr A-Z a-z | cut -c1-9)
	# a bridge of this run's own, on a /24 no route uses
	net=""
	for k in $(shuf -i 16-250 -n 20 2>/dev/null || seq 16 35); do
		ip route | grep -q "^172\.29\.$k\." || { net=172.29.$k; break; }
	done
	[ -n "$net" ] || fail "no free 172.29.x.0/24 for the test's bridge"
	ip link add "$dk_br" type bridge || fail "cannot make a bridge (ip link add $dk_br type bridge)"
	ip addr add "$net.1/24" dev "$dk_br"
	ip link set "$dk_br" up
	mkdir -p "$2"
	dockerd --data-root "$2" --exec-root "$dk_run/x" --pidfile "$dk_run/docker.pid" \
		-H "unix://$dk_run/docker.sock" --bridge "$dk_br" --iptables=false --ip-masq=false \
		>"$dk_run/dockerd.log" 2>&1 &
	dk_dpid=$!
	i=0
	until d version >/dev/null 2>&1; do
		i=$((i + 1))
		kill -0 "$dk_dpid" 2>/dev/null && [ $i -lt 120 ] ||
			{ tail -20 "$dk_run/dockerd.log" >&2; fail "dockerd did not start"; }
		sleep 0.5
	done
}

dockerd_base() {
	if ! d image inspect numalab-test-base:bookworm >/dev/null 2>&1; then
		tar=$(sh "$(dirname "$0")/../container/base.sh" "$1") || fail "no Debian 12 base root"
		d import "$tar" numalab-test-base:bookworm >/dev/null || fail "docker import $tar"
		echo "ok   the base image imported from $tar"
	fi
}

dockerd_down() {
	if [ -n "$dk_dpid" ]; then
		d image prune -f >/dev/null 2>&1
		kill "$dk_dpid" 2>/dev/null
		i=0
		while kill -0 "$dk_dpid" 2>/dev/null && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
		kill -9 "$dk_dpid" 2>/dev/null
		dk_dpid=""
	fi
	[ -n "$dk_br" ] && ip link del "$dk_br" 2>/dev/null
	# dockerd leaves its network namespace's mount behind
	for m in $(awk -v r="$dk_run/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount "$m"
	done
	return 0
}
