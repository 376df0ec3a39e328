#!/bin/bash
# tests/run.sh's vm tier in a tree of fakes (nothing built or booted): the
# fixture fetches, the kernel builds run in the background, and each test
# runs as soon as the kernels on its "# kernels:" line are built — a test
# naming none while the builds still run (t_a.sh: the fake build of k1
# waits for it to start), one naming k1 only after k1's line (t_b.sh), one
# naming a kernel whose build fails after the builds end, failing by name
# (t_c.sh).  Then the tier's slots: one test at a time while another tier
# runs (t_p.sh, beside live/t_l.sh), two at once (KP_VM_JOBS=2) once the
# tier runs alone (t_q.sh and t_r.sh each wait for the other to start).
# The whole outputs are compared, times masked.
# runs no kprotperf
set -u
cd "$(dirname "$0")/../.." || exit 1
# the runner's settings are the inner run's own (`make test T=runner_vm`)
unset T KP_REQUIRE_VM KP_TEST_TIMEOUT KP_VM_JOBS
TMP=$(mktemp -d /tmp/kp-runner.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
T=$TMP/tree
mkdir -p "$T/tests/vm" "$TMP/sync"
cp tests/run.sh "$T/tests/"
export SYNC=$TMP/sync
# the tier's record of its tests' times: the fakes' own, none at first
export KP_VM_TIMES=$TMP/vm-times

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
# k2 fails well after t_b.sh has ended: the lines' order is the events'
for i in $(seq 100); do [ -e "$SYNC/b-started" ] && break; sleep 0.1; done
sleep 3
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
touch "$SYNC/b-started"
[ -e "$SYNC/k1" ] || { echo "t_b ran before k1 was built"; exit 1; }
EOF
cat >"$T/tests/vm/t_c.sh" <<'EOF'
# kernels: k1 k2
echo "FAIL: no k2"
exit 1
EOF

# masked: times; the table of times sorted by name (equal times tie)
masked() {
	sed -E 's/[0-9]+ s\b/N s/g; s/^ +[0-9]+ +[0-9]+ /  N N /; s/(CPU time in all:) [0-9]+/\1 N/' "$1" |
		awk '/^== slowest/ { print; t = 1; next } t && /^  N / { print | "sort"; next } { close("sort"); print }'
}

bash "$T/tests/run.sh" vm >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "run.sh vm exited $rc, want 1 (t_c.sh and the builds fail)"
masked "$TMP/out" >"$TMP/got"
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
== slowest tests (s, CPU s)
  N N vm/fixture.sh
  N N vm/kernels.sh build (background)
  N N vm/t_a.sh
  N N vm/t_b.sh
  N N vm/t_c.sh
CPU time in all: N s
failed: vm/kernels.sh
failed: vm/t_c.sh
tests: 2 passed, 2 failed, 0 skipped
EOF
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "run.sh vm printed otherwise:"$'\n'"$(cat "$TMP/diff")"

# The slots: no kernels; t_p.sh runs while live/t_l.sh waits for it to end,
# alone; then t_q.sh and t_r.sh at once, t_r.sh ending last.
rm -f "$T"/tests/vm/t_*.sh
mkdir -p "$T/tests/live"
cat >"$T/tests/live/t_l.sh" <<'EOF'
for i in $(seq 100); do [ -e "$SYNC/p-done" ] && break; sleep 0.1; done
[ -e "$SYNC/p-done" ] || { echo "no vm test ran beside the live tier"; exit 1; }
EOF
cat >"$T/tests/vm/t_p.sh" <<'EOF'
sleep 2
[ ! -e "$SYNC/q-started" ] || { echo "t_q ran beside t_p while the live tier ran"; exit 1; }
touch "$SYNC/p-done"
EOF
cat >"$T/tests/vm/t_q.sh" <<'EOF'
touch "$SYNC/q-started"
for i in $(seq 100); do [ -e "$SYNC/r-started" ] && break; sleep 0.1; done
[ -e "$SYNC/r-started" ] || { echo "t_r did not run beside t_q"; exit 1; }
EOF
cat >"$T/tests/vm/t_r.sh" <<'EOF'
touch "$SYNC/r-started"
for i in $(seq 100); do [ -e "$SYNC/q-started" ] && break; sleep 0.1; done
[ -e "$SYNC/q-started" ] || { echo "t_q did not run beside t_r"; exit 1; }
sleep 3
EOF
KP_VM_JOBS=2 bash "$T/tests/run.sh" live vm >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "run.sh live vm exited $rc, want 0: $(cat "$TMP/out")"
masked "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOF'
== live tests
PASS live/t_l.sh (N s)
== vm tests
PASS vm/fixture.sh: debian kernels fetched
PASS vm/t_p.sh (N s)
PASS vm/t_q.sh (N s)
PASS vm/t_r.sh (N s)
== slowest tests (s, CPU s)
  N N live/t_l.sh
  N N vm/fixture.sh
  N N vm/t_p.sh
  N N vm/t_q.sh
  N N vm/t_r.sh
CPU time in all: N s
tests: 4 passed, 0 failed, 0 skipped
EOF
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "run.sh live vm printed otherwise:"$'\n'"$(cat "$TMP/diff")"
# The order: longest first by the times of the last run that ran each
# test, one never timed first; one slot, so the lines are the starts'.
grep -qx '[0-9]* vm/t_r.sh' "$KP_VM_TIMES" || fail "run.sh kept no time of t_r.sh: $(cat "$KP_VM_TIMES")"
rm -f "$T"/tests/vm/t_*.sh
for t in x y z; do echo "echo $t >>\"\$SYNC/order\"" >"$T/tests/vm/t_$t.sh"; done
printf '5 vm/t_y.sh\n90 vm/t_z.sh\n' >"$KP_VM_TIMES"
KP_VM_JOBS=1 bash "$T/tests/run.sh" vm >"$TMP/out" 2>&1 || fail "run.sh vm (the order) failed: $(cat "$TMP/out")"
[ "$(paste -sd' ' "$SYNC/order")" = "x z y" ] || fail "the vm tests ran in the order $(paste -sd' ' "$SYNC/order"), want x z y"
grep -q '^[0-9]* vm/t_x.sh$' "$KP_VM_TIMES" || fail "run.sh kept no time of t_x.sh: $(cat "$KP_VM_TIMES")"
echo "run.sh vm: a test beside the builds, one after its kernel, one failed by name after a failed build; one test at a time beside another tier, two at once alone; the longest first"
