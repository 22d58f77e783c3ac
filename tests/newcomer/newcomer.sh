#!/bin/sh
# newcomer.sh - "an experiment is one file and one line", tried: copies the
# tree, adds the template (kernels/experiments/template/my_experiment.c)
# under a new name and its line in the registry, checks that nothing else
# changed, then builds it and runs the registry, lesson and label tests and
# the API's real-documents test against the copy: the new experiment is
# listed, runs, is described and is published with its smoke params.
set -eu
NAME=${NEWCOMER_NAME:-lost_updates_demo}
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/numalab-newcomer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

say() { echo "test-newcomer: $*"; }
fail() { echo "test-newcomer: FAIL: $*" >&2; exit 1; }

# the tree as git sees it (tracked and untracked, not ignored), and the
# objects already built, so that only what the newcomer adds is compiled
git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$tmp" 2>/dev/null || true
[ -d build ] && cp -a build "$tmp/"
[ -d node_modules ] && ln -s "$top/node_modules" "$tmp/node_modules"
cd "$tmp"
git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm base

# the newcomer's two edits: one file, one line
sed "s/my_experiment/$NAME/g; s/exp_my\b/exp_$NAME/g" \
	kernels/experiments/template/my_experiment.c >"kernels/experiments/$NAME.c"
last=$(grep -n '^[[:space:]]*X(' kernels/experiments/registry.c | tail -1 | cut -d: -f1)
sed -i "${last}a\\	X($NAME) \\\\" kernels/experiments/registry.c
changed=$(git status --porcelain | sort | tr '\n' ' ')
[ "$changed" = " M kernels/experiments/registry.c ?? kernels/experiments/$NAME.c " ] ||
	fail "the newcomer changed more than one file and one line: $changed"
[ "$(git diff --numstat | awk '{print $1 "+" $2}')" = "1+0" ] ||
	fail "the registry took more than its one line: $(git diff)"
say "added kernels/experiments/$NAME.c ($(wc -l <"kernels/experiments/$NAME.c") lines) and X($NAME) in registry.c"

make -j2 --no-print-directory build/numalab build/tests/unit/test_registry \
	build/tests/unit/test_lessons build/tests/unit/test_events >/dev/null ||
	fail "the copy does not build"
./build/numalab list | grep -q "$NAME" || fail "'numalab list' does not list $NAME"
for t in test_registry test_lessons; do
	"./build/tests/unit/$t" || fail "$t fails with $NAME added"
done
./build/numalab run "$NAME" threads=2 increments=1000 repeat=2 warmup=0 >/dev/null ||
	fail "numalab run $NAME fails"
NUMALAB_BIN=build/numalab python3 tests/api/run.py \
	test_openapi.ContractTest.test_real_documents_of_every_experiment ||
	fail "the API's real documents test fails with $NAME added"
say "ok: $NAME builds, is listed, runs and passes the registry, lesson and API tests"
