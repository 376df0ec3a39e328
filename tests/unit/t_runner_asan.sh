#!/bin/bash
# tests/run.sh's asan tier in a tree of fakes: it runs the unit scripts
# again with KP set to the ASan build, except those marked "# runs no
# kprotperf", which the unit tier alone runs (they would run the same code
# twice).  The whole outputs are compared, the table of times left out.
# runs no kprotperf
set -u
cd "$(dirname "$0")/../.." || exit 1
unset T KP KP_REQUIRE_VM KP_TEST_TIMEOUT
TMP=$(mktemp -d /tmp/kp-runner.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
T=$TMP/tree
mkdir -p "$T/tests/unit" "$T/tests/live" "$T/build/asan/tests"
cp tests/run.sh "$T/tests/"
export RUNS=$TMP/runs
printf '#!/bin/sh\necho "asan kprotperf $*"\n' >"$T/build/asan/kprotperf"
chmod +x "$T/build/asan/kprotperf"
cat >"$T/tests/unit/t_tool.sh" <<'EOF'
if [ -n "${KP:-}" ]; then echo "t_tool: $("$KP" --version)"; else echo "t_tool: no KP"; fi >>"$RUNS"
EOF
cat >"$T/tests/unit/t_fake.sh" <<'EOF'
# a fake of some script the tool does not run in
# runs no kprotperf
echo "t_fake" >>"$RUNS"
EOF
echo 'echo "t_live: $("$KP" record)" >>"$RUNS"' >"$T/tests/live/t_live.sh"

# the lines before the table of times, those times masked
lines() { sed -E '/^== slowest/,$d; s/\([0-9]+ s\)/(N s)/' "$1"; }

(cd "$T" && bash tests/run.sh unit asan) >"$TMP/out" 2>&1 || fail "run.sh unit asan exited $?: $(cat "$TMP/out")"
lines "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOF'
== unit tests
PASS unit/t_fake.sh (N s)
PASS unit/t_tool.sh (N s)
== asan tests
PASS asan unit/t_tool.sh (N s)
PASS asan live/t_live.sh (N s)
PASS asan: no sanitizer report
EOF
diff -u "$TMP/want" "$TMP/got" >&2 || fail "the tiers' lines differ (above)"
printf '%s\n' "t_fake" "t_tool: no KP" "t_tool: asan kprotperf --version" \
	"t_live: asan kprotperf record" >"$TMP/want"
diff -u "$TMP/want" "$RUNS" >&2 || fail "the scripts that ran differ (above)"
echo "asan tier: a script marked '# runs no kprotperf' left to the unit tier; the others run with the ASan build"
