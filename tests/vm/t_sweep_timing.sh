#!/bin/bash
# kprotperf sweep --model timing on Debian's 6.1 package kernel (nothing
# built): base and a null variant (base again, booted again), one
# operation, two runs, --core skylake.  Checked: the cell compared (exit
# 0); the matrix names the model and its core (the text's header line,
# the JSON's model and core, no cost table); est_cycles per run is the
# timing model's cycles (positive on both sides, and of the order of the
# instructions: not counts x costs of a table); the job files keep the
# core, and the same sweep again finds both jobs done already (nothing
# booted).  Prints the cell and the time each step took.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
vm_need_model
command -v python3 >/dev/null || skip "no python3 (vm-run reads core descriptions with it)"
export KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600}
# the jobs' vm-run.sh finds the static binaries and the plugin from the folder the test works in
export OUTPUT=$VM_OUTPUT
cd "$TMP" || fail "cd $TMP"

printf 'base: --kernel linux-image-amd64\nnull:\n' >plan
start=$SECONDS rc=0
"$KP" sweep -r 2 --ops null --model timing --core skylake -o out plan >m.txt 2>err || rc=$?
took=$((SECONDS - start))
[ "$rc" = 0 ] || fail "sweep --model timing: exit $rc, want 0: $(tail -12 m.txt) $(tail -3 err)"
cat m.txt
grep -qx '# est: est_cycles (timing model, core skylake): its cycles, not counts x costs' m.txt ||
	fail "no timing model's est line in the matrix: $(head -5 m.txt)"
{ grep -qx 'core=skylake' out/base/job && grep -qx 'model=timing' out/null/job; } ||
	fail "the job files keep no core or model: $(cat out/base/job)"
"$KP" sweep --merge out --json >m.json 2>>err || fail "sweep --merge --json exited $?: $(tail -3 err)"
python3 - m.json <<'PY' || fail "the matrix: $(head -c 3000 m.json)"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["model"] == "timing" and m["core"] == "skylake" and m["costs"] is None, m
(r,) = m["rows"]
(c,) = r["cells"]
assert r["ok"] and c["ok"], r
est, insns = c["est_cycles_per_run"], c["insns_per_run"]
assert all(e > 0 for e in est), c
# cycles of a core of width 4 and more: between a quarter of the instructions and 50 a piece
assert all(i / 4 < e < 50 * i for e, i in zip(est, insns)), c
print("sweep timing: null %+.2f%% (p %.2g); est_cycles per run %d -> %d, insns %d -> %d" % (
    c["change_pct"], c["p"], est[0], est[1], insns[0], insns[1]))
PY
echo "sweep timing: 2 variants x 1 operation in $took s"

start=$SECONDS
"$KP" sweep -r 2 --ops null --model timing --core skylake -o out plan >/dev/null 2>err2 ||
	fail "the same sweep again exited $?: $(tail -3 err2)"
[ "$(grep -c ': done already (' err2)" = 2 ] || fail "a job ran again: $(cat err2)"
echo "sweep timing: the same sweep again, both jobs done already, in $((SECONDS - start)) s"
