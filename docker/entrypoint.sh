#!/bin/sh
# numalab-entrypoint - starts `numalab serve` in the container: runs kept in
# /data, the token from a mounted file or NUMALAB_TOKEN, handed to the server
# in a file (never on its command line), and never written to the log.
#   /run/secrets/numalab_token  (or NUMALAB_TOKEN_FILE=PATH)  the token's file
#   NUMALAB_TOKEN=T             the token itself, when no file is mounted
#   NUMALAB_PUBLIC_URL=URL      the address the printed links use
# Arguments are passed on to `numalab serve` (e.g. --allowed-host NAME); a
# --listen or --db among them replaces the default here (serve refuses an
# option given twice).
set -eu
# given NAME ARGS...: whether ARGS hold option NAME ("NAME V" or "NAME=V")
given() {
	name=$1
	shift
	for a in "$@"; do
		case $a in "$name" | "$name"=*) return 0 ;; esac
	done
	return 1
}
for opt in --token --token-file; do
	if given "$opt" "$@"; then
		echo "numalab-entrypoint: '$opt' is not taken here: the token" \
			"comes from the file NUMALAB_TOKEN_FILE names (default" \
			"/run/secrets/numalab_token) or from NUMALAB_TOKEN" >&2
		exit 2
	fi
done
if [ -n "${NUMALAB_PUBLIC_URL:-}" ] && given --public-url "$@"; then
	echo "numalab-entrypoint: give NUMALAB_PUBLIC_URL or --public-url," \
		"not both" >&2
	exit 2
fi
file=${NUMALAB_TOKEN_FILE:-/run/secrets/numalab_token}
if [ ! -r "$file" ]; then
	if [ -z "${NUMALAB_TOKEN:-}" ]; then
		echo "numalab-entrypoint: no token: mount a file at $file" \
			"(-v PATH:$file:ro) or pass -e NUMALAB_TOKEN=..." >&2
		exit 2
	fi
	dir=$(mktemp -d /tmp/numalab-token.XXXXXX)
	file=$dir/token
	(umask 077 && printf '%s\n' "$NUMALAB_TOKEN" >"$file")
fi
unset NUMALAB_TOKEN
set -- --token-file "$file" "$@"
given --db "$@" || set -- --db /data/numalab.db "$@"
given --listen "$@" || set -- --listen 0.0.0.0:8080 "$@"
if [ -n "${NUMALAB_PUBLIC_URL:-}" ]; then
	if numalab serve --help | grep -q -- --public-url; then
		set -- "$@" --public-url "$NUMALAB_PUBLIC_URL"
	else
		echo "numalab-entrypoint: this numalab has no --public-url:" \
			"NUMALAB_PUBLIC_URL is not used" >&2
	fi
fi
# The teacher's link carries the token: the log gets it without. The
# server stays the container's first process, its output through sed.
fifo=$(mktemp -u /tmp/numalab-out.XXXXXX)
mkfifo -m 600 "$fifo"
sed -u '/^teacher/ s/token=[^[:space:]&#]*/token=(your token)/g' <"$fifo" &
exec numalab serve "$@" >"$fifo"
