#!/bin/sh
# test_container.sh - the container lane (tests/container/container.mk): a
# dockerd of its own (data root cached under $NUMALAB_TEST_CACHE, socket,
# pid file and bridge made for this run, stopped by its pid after), a
# Debian 12 base image from debootstrap when the cache has none, the image
# built from a clean clone, then run with the commands docs/guide/install.md
# gives: the page, the API, a run, variable_layout, the token kept out of
# the log, /data kept across a new container, and which NUMA calls each
# docker run option opens, as numalab says at start.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${NUMALAB_TEST_CACHE:-/var/cache/numalab-test}

skip() { echo "SKIP test-container: $*"; exit 0; }
fail() { echo "FAIL $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "dockerd needs root"
for t in dockerd docker git ip; do
	command -v $t >/dev/null 2>&1 || skip "'$t' is not installed (make test-deps installs docker.io, git, iproute2)"
done

. "$here/dockerd.sh"
run=$(mktemp -d /tmp/nlc.XXXXXX)
tag=$(basename "$run" | tr -dc 'a-zA-Z0-9' | tr A-Z a-z | cut -c1-9)
# stable names: the next run's build starts from these images' layers
# (apt's packages in both stages), and a rebuild leaves the old ones dangling
image=numalab-test:latest
stage=numalab-test-build:latest
cleanup() {
	set +e
	if [ -n "$dk_dpid" ]; then
		for c in $(d ps -aq --filter "label=numalab-test=$tag" 2>/dev/null); do
			d rm -f "$c" >/dev/null 2>&1
		done
		d volume rm -f "nlt-$tag" >/dev/null 2>&1
	fi
	dockerd_down
	grep -q " $run/" /proc/mounts || rm -rf "$run"
}
trap cleanup EXIT INT TERM

dockerd_up "$run" "$cache/docker"
echo "ok   dockerd $(d version --format '{{.Server.Version}}') on $run/docker.sock, data root $cache/docker"
dockerd_base "$cache"
base=numalab-test-base:bookworm

git clone -q "$repo" "$run/src" || fail "git clone"
t0=$(date +%s)
for target in build final; do
	if [ $target = build ]; then set -- --target build -t "$stage"; else set -- -t "$image"; fi
	d build --network host --build-arg BASE=$base -f docker/Dockerfile "$@" "$run/src" \
		>>"$run/build.log" 2>&1 || { tail -30 "$run/build.log" >&2; fail "docker build from a clean clone"; }
done
echo "ok   docker build from a clean clone ($(($(date +%s) - t0)) s, $(grep -c 'Using cache' "$run/build.log") steps from the cache)"
user=$(d run --rm --entrypoint id "$image" -u)
[ "$user" != 0 ] || fail "the image runs as root"
d run --rm --entrypoint sh "$image" -c 'test -r /usr/lib/numalab/libnumalab_tls.so &&
	test -r /usr/lib/numalab/libnumalab_tls_big.so && test -r /usr/share/numalab/web/vendor/chart.umd.min.js &&
	test -x /usr/lib/numalab/numalab-worker && ! command -v npm && ! command -v node' >/dev/null ||
	fail "the image lacks the worker, the TLS objects or the page's scripts, or has npm"
echo "ok   the image runs as uid $user, holds the worker, the TLS objects and the page, and no npm"

token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$token" >"$run/token"
chmod 644 "$run/token"

# start IMAGE with OPTIONS...: prints the container's id once it listens
start() {
	c=$(d run -d --label "numalab-test=$tag" -p 127.0.0.1::8080 "$@") || fail "docker run $*"
	i=0
	until d logs "$c" 2>/dev/null | grep -q '^listening on '; do
		i=$((i + 1))
		[ $i -lt 60 ] && [ "$(d inspect -f '{{.State.Running}}' "$c")" = true ] ||
			{ d logs "$c" >&2; fail "the container did not start: docker run $*"; }
		sleep 0.5
	done
	echo "$c"
}
url() { echo "http://$(d port "$1" 8080 | head -1)"; }

# the token from a mounted file, the default seccomp profile
c=$(start -v "nlt-$tag:/data" -v "$run/token:/run/secrets/numalab_token:ro" \
	-e NUMALAB_PUBLIC_URL=http://lab.example:8080 "$image")
python3 "$repo/tests/install/served.py" "$(url "$c")" --token-file "$run/token"
d logs "$c" >"$run/log1" 2>&1
grep -q "$token" "$run/log1" && fail "the token is in docker logs"
grep -q '^teacher' "$run/log1" || fail "no teacher's link in the log: $(cat "$run/log1")"
grep -q 'this system refuses .*get_mempolicy' "$run/log1" ||
	fail "numalab did not say the default seccomp profile refuses get_mempolicy: $(cat "$run/log1")"
echo "ok   the token stays out of the log; it says: $(grep -o 'this system refuses [^(]*' "$run/log1")"
if d run --rm --entrypoint numalab "$image" serve --help | grep -- --public-url >/dev/null; then
	grep -q '^teacher.*http://lab\.example:8080/' "$run/log1" ||
		fail "the links do not use NUMALAB_PUBLIC_URL: $(grep -E '^(teacher|class)' "$run/log1")"
	echo "ok   the printed links use --public-url"
else
	echo "SKIP the links' --public-url: this numalab has no --public-url yet (issue 33)"
fi
d rm -f "$c" >/dev/null

# a new container on the same volume, the token from -e, keeps the runs
c=$(start -v "nlt-$tag:/data" -e NUMALAB_TOKEN="$token" "$image")
kept=$(curl -s -H "Authorization: Bearer $token" "$(url "$c")/api/runs" |
	python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d if isinstance(d, list) else d.get("runs", [])))')
[ "$kept" -ge 2 ] || fail "a new container on the same /data lists $kept runs, not the 2 made before"
d logs "$c" 2>&1 | grep -q "$token" && fail "the token given with -e is in docker logs"
d inspect -f '{{.Config.Env}}' "$c" >/dev/null
echo "ok   a new container on the same /data lists the $kept runs made before (token from -e, not in the log)"
d rm -f "$c" >/dev/null

# which calls each option opens, as numalab says at start
c=$(start --cap-add SYS_NICE -e NUMALAB_TOKEN="$token" "$image")
line=$(d logs "$c" 2>&1 | grep -o 'this system refuses [^(]*' || true)
case $line in
*get_mempolicy* | *set_mempolicy* | *mbind*) fail "--cap-add SYS_NICE still refuses: $line" ;;
esac
echo "ok   --cap-add SYS_NICE: ${line:-nothing refused}"
d rm -f "$c" >/dev/null
c=$(start --cap-add SYS_NICE --security-opt seccomp=unconfined -e NUMALAB_TOKEN="$token" "$image")
line=$(d logs "$c" 2>&1 | grep -o 'this system refuses [^(]*' || true)
[ -z "$line" ] || fail "--security-opt seccomp=unconfined still refuses: $line"
python3 "$repo/tests/install/served.py" "$(url "$c")" --token-file "$run/token" --runs variable_layout >/dev/null
echo "ok   --cap-add SYS_NICE --security-opt seccomp=unconfined: nothing refused"
d rm -f "$c" >/dev/null

d run --rm "$image" >"$run/notoken" 2>&1 && fail "the image started without a token"
grep -q 'no token' "$run/notoken" || fail "without a token it said: $(cat "$run/notoken")"
echo "ok   without a token the container stops, saying how to give one"
