#!/bin/bash
# The timing model sampled (scripts/vm-run.sh --model timing --sample N,
# plugin/kp_timing.c) on Debian's 6.1 kernel: bad --sample values refused
# before any boot; then one boot with one interval of 20,000 instructions
# in 4 going to the core (2,000 of them warming it), running the
# validation suite's branch loop (tests/bench/model_est.c) with its bit
# always set and random:
#   - the table says how it sampled (its '# timing core=' line), and the
#     core stepped about a quarter of the instructions counted (under
#     four tenths asserted: the warm-up is stepped too);
#   - every row's stack sums to its cycles (each rounded: within 6);
#   - the cycles scaled from the samples keep what the exact model makes
#     certain (tests/vm/t_model_timing.sh): the random branch costs 3
#     cycles an iteration more than the predicted one.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
vm_need_est

expect() { vm_expect 125 "$@"; }
expect "vm-run: --sample samples the timing model: it needs --model timing" \
	-- --model cache --sample 4 -- true
expect "vm-run: --sample 1: want a whole number of intervals from 2 to 1000" \
	-- --model timing --sample 1 -- true
expect "vm-run: --sample 4x: want a whole number of intervals from 2 to 1000" \
	-- --model timing --sample 4x -- true
echo "model sample: bad --sample values refused before boot"

vm_est_programs "$TMP/ro"
start=$(date +%s)
KP_MODEL_ARGS=sample.len=20000,sample.warm=2000 "$VR" --model timing --core skylake --sample 4 \
	--ro "$TMP/ro" --out "$TMP/vmout" -- sh -c \
	'/mnt/ro/est-a branch-pred 262144 && /mnt/ro/est-b branch-rand 262144' >"$TMP/vm.log" 2>&1 ||
	fail "vm-run exited $?: $(tail -3 "$TMP/vm.log")"
echo "model sample: one boot, two programs: $(($(date +%s) - start)) s"

python3 - "$TMP/vmout/model.txt" "$TMP/ro" <<'PY' || fail "the sampled table: see above"
import subprocess, sys
tab, ro = sys.argv[1:]
def span(binf, fn):
    for l in subprocess.run(["nm", "-S", binf], capture_output=True, text=True, check=True).stdout.splitlines():
        p = l.split()
        if len(p) == 4 and p[3] == fn:
            return int(p[0], 16), int(p[0], 16) + int(p[1], 16)
    sys.exit(f"no {fn} in {binf}")
spans = {k: span(f"{ro}/est-{k}", "kp_est_branch") for k in "ab"}
cols, core, stepped, counted, bad, cyc = None, "", None, 0, 0, {"a": 0, "b": 0}
for l in open(tab):
    if l.startswith("# timing core="):
        core = l
    elif l.startswith("# timing insns "):
        stepped = int(l.split()[3])
    elif l.startswith("# columns "):
        cols = l.split()[2:]
    elif not l.startswith("#"):
        f = l.split()
        c, pc = cols.index("cycles"), int(f[0], 16)
        counted += int(f[1])
        if abs(sum(int(x) for x in f[c + 1:c + 7]) - int(f[c])) > 6:
            bad += 1
            print(f"FAIL: row {f[0]}: the stack does not sum to its cycles: {' '.join(f[c:c + 7])}")
        for k, (lo, hi) in spans.items():
            if lo <= pc < hi:
                cyc[k] += int(f[c])
want = " sample.period=4 sample.len=20000 sample.warm=2000\n"
if not core.endswith(want):
    sys.exit(f"FAIL: the table's core line does not end with{want!r}: {core[-80:]!r}")
if stepped is None or not 0 < stepped < 0.4 * counted:
    sys.exit(f"FAIL: the core stepped {stepped} of {counted} instructions: want a quarter or so")
pred, rand = cyc["a"] / 262144, cyc["b"] / 262144
if bad or not rand > pred + 3:
    sys.exit(f"FAIL: the branch: {rand:.2f} cycles an iteration random, {pred:.2f} predicted: want 3 more")
print(f"model sample: the core stepped {stepped} of {counted} instructions; "
      f"branch {pred:.2f} cycles an iteration predicted, {rand:.2f} random; every stack sums")
PY
