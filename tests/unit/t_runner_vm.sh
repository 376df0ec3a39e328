#!/bin/bash
# tests/run.sh's vm tier in a tree of fakes (nothing built or booted): the
# fixture fetches, the kernel builds run in the background, and each test
# runs as soon as the kernels on its "# kernels:" line are built — a test
# naming none while the builds still run (t_a.sh: the fake build of k1
# waits for it to start), one naming k1 only after k1's line (t_b.sh), one
# naming a kernel whose build fails after the builds end, failing by name
# (t_c.sh).  The whole output is compared, times masked.
set -u
cd "$(dirname "$0")/../.." || exit 1
TMP=$(mktemp -d /tmp/kp-runner.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
T=$TMP/tree
mkdir -p "$T/tests/vm" "$TMP/sync"
cp tests/run.sh "$T/tests/"
export SYNC=$TMP/sync

cat >"$T/tests/vm/fixture.sh" <<'EOF'
echo "debian kernels fetched"
EOF
# the builds: k1 once t_a.sh runs (a build beside a test), k2 fails
cat >"$T/tests/vm/kernels.sh" <<'EOF'
shift
for i in $(seq 100); do [ -e "$SYNC/a-started" ] && break; sleep 0.1; done
[ -e "$SYNC/a-started" ] || { echo "k1's build saw no test run beside it"; exit 1; }
echo "kernel k1: /k1 (0 s)"
touch "$SYNC/k1"
[ "$*" = "k1 k2" ] || { echo "asked to build: $*"; exit 1; }
sleep 1
echo "kernel k2 (kernel-build.sh) failed: no space"
exit 1
EOF
cat >"$T/tests/vm/t_a.sh" <<'EOF'
touch "$SYNC/a-started"
[ ! -e "$SYNC/k1" ] || { echo "t_a ran after k1's build"; exit 1; }
for i in $(seq 100); do [ -e "$SYNC/k1" ] && break; sleep 0.1; done
EOF
cat >"$T/tests/vm/t_b.sh" <<'EOF'
# kernels: k1
[ -e "$SYNC/k1" ] || { echo "t_b ran before k1 was built"; exit 1; }
EOF
cat >"$T/tests/vm/t_c.sh" <<'EOF'
# kernels: k1 k2
echo "FAIL: no k2"
exit 1
EOF

bash "$T/tests/run.sh" vm >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "run.sh vm exited $rc, want 1 (t_c.sh and the builds fail)"
# times masked; the table of times sorted by name (equal times tie)
sed -E 's/[0-9]+ s\b/N s/g; s/^ +[0-9]+ /  N /' "$TMP/out" |
	awk '/^== slowest/ { print; t = 1; next } t && /^  N / { print | "sort"; next } { close("sort"); print }' >"$TMP/got"
cat >"$TMP/want" <<'EOF'
== vm tests
PASS vm/fixture.sh: debian kernels fetched
PASS vm/t_a.sh (N s)
PASS vm/t_b.sh (N s)
FAIL vm/kernels.sh (exit 1, N s)
    kernel k1: /k1 (N s)
    kernel k2 (kernel-build.sh) failed: no space
FAIL vm/t_c.sh (exit 1, N s)
    FAIL: no k2
== slowest tests (s)
  N vm/fixture.sh
  N vm/kernels.sh build (background)
  N vm/t_a.sh
  N vm/t_b.sh
  N vm/t_c.sh
failed: vm/kernels.sh
failed: vm/t_c.sh
tests: 2 passed, 2 failed, 0 skipped
EOF
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "run.sh vm printed otherwise:"$'\n'"$(cat "$TMP/diff")"
echo "run.sh vm: a test beside the builds, one after its kernel, one failed by name after a failed build"
