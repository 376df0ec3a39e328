#!/bin/bash
# The timing model (scripts/vm-run.sh --model timing, plugin/kp_timing.c
# and kp_core.c) on Debian's 6.1 kernel, one boot running the validation
# suite's programs (tests/bench/model_est.c) whose cycles a core makes
# certain, whatever its sizes:
#   stream       a line of a sequential sum costs far less than a load of
#                a random chase: the prefetchers run ahead of the stream
#                and its misses overlap; each load of the chase waits for
#                the last (under a quarter of it, the miss's latency alone
#                is 40 times the stream's lines at one cycle an element);
#                its pages translated ahead by the next-page prefetcher
#                (under 2% of its cycles translating: 7% without it)
#   slab         192-byte objects copied in allocation order cost more laid
#                out shuffled within their pages than in order (native here:
#                3.1 times; over 1.2 asserted): the order the prefetchers
#                and the overlap of misses see is the only difference
#   stosb        a 4 KiB page cleared by rep stosb is charged per line, not
#                per byte: its throughput part (cyc_base) is skylake.json's
#                string_uops, 8 a line at width 4, 128 cycles a page (100 to
#                200 asserted: a uop a byte would be 1024)
#   branch       the same loop with its branch's bit random costs 3 cycles
#                an iteration more than with it always set (half of
#                them mispredicted, each a refill of 11 cycles or more)
# Two copies of the program, linked at different addresses (the table is
# per PC), so that the pairs' loops are told apart in one boot.  And the
# table: every row's cycles split into its stack (the six within 6 of the
# cycles: each rounded), the decoder knowing all but 1% of the
# instructions, --core refusals before any boot.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
vm_need_est

expect() { vm_expect 125 "$@"; }
expect "vm-run: --core: no core named nosuch: the shipped ones are cascadelake, epyc-genoa, epyc-milan, epyc-rome, epyc-turin, skylake, or native" \
	-- --model timing --core nosuch -- true
expect "vm-run: --core: $ROOT/share/costs/skylake.json: a cost table without the core's figures: run kprotperf calibrate (it measures them)" \
	-- --model timing --core "$ROOT/share/costs/skylake.json" -- true
expect "vm-run: --core: $ROOT/share/cores/../../README.md: not JSON: Expecting value: line 1 column 1 (char 0)" \
	-- --model timing --core "$ROOT/share/cores/../../README.md" -- true
expect "vm-run: --core describes the timing model's core: it needs --model timing" \
	-- --model cache --core skylake -- true
echo "model timing: bad core descriptions refused before boot"

vm_est_programs "$TMP/ro"

# the biggest setups first: the plugin instruments nothing before the first window
start=$(date +%s)
"$VR" --model timing --core skylake --ro "$TMP/ro" --out "$TMP/vmout" -- sh -c '
	/mnt/ro/est-a chase 32768 && /mnt/ro/est-a slab-seq-1m 262144 &&
	/mnt/ro/est-b slab-shuf-1m 262144 && /mnt/ro/est-a stream 262144 &&
	/mnt/ro/est-a stosb 1024 && /mnt/ro/est-a branch-pred 262144 &&
	/mnt/ro/est-b branch-rand 262144' >"$TMP/vm.log" 2>&1 ||
	fail "vm-run exited $?: $(tail -3 "$TMP/vm.log")"
T=$TMP/vmout/model.txt
echo "model timing: one boot, seven programs: $(($(date +%s) - start)) s"

# cycles BINARY FUNCTION [COLUMN]: the column (default cycles) summed over the function's PCs
cycles() {
	python3 - "$T" "$TMP/ro/est-$1" "$2" "${3:-cycles}" <<'PY'
import subprocess, sys
tab, binf, fn, col = sys.argv[1:]
lo = hi = None
for l in subprocess.run(["nm", "-S", binf], capture_output=True, text=True, check=True).stdout.splitlines():
    p = l.split()
    if len(p) == 4 and p[3] == fn:
        lo, hi = int(p[0], 16), int(p[0], 16) + int(p[1], 16)
if lo is None:
    sys.exit(f"no {fn} in {binf}")
cols, s = None, 0
for l in open(tab):
    if l.startswith("# columns "):
        cols = l.split()[2:]
    elif not l.startswith("#"):
        f = l.split()
        if lo <= int(f[0], 16) < hi:
            s += int(f[cols.index(col)])
print(s)
PY
}
per() { python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]):.2f}')" "$1" "$2"; }
gt() { python3 -c "import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))" "$1" "$2"; }

stream=$(per "$(cycles a kp_est_stream)" $((262144 / 8))) chase=$(per "$(cycles a kp_est_chase)" 32768)
gt "$chase" "$(python3 -c "print(4 * $stream)")" ||
	fail "a line of the stream costs $stream cycles, a load of the chase $chase: want under a quarter"
stlb=$(cycles a kp_est_stream cyc_tlb) all=$(cycles a kp_est_stream)
gt "$(python3 -c "print(0.02 * $all)")" "$stlb" ||
	fail "the stream's translations cost $stlb of its $all cycles: want under 2% (the next-page prefetcher's)"
echo "model timing: stream $stream cycles a line ($stlb of $all cycles translating), chase $chase a load"

seq=$(per "$(cycles a kp_est_slab)" 262144) shuf=$(per "$(cycles b kp_est_slab)" 262144)
gt "$shuf" "$(python3 -c "print(1.2 * $seq)")" ||
	fail "slab objects: $shuf cycles each shuffled, $seq in order: want over 1.2 times"
echo "model timing: slab-1m $seq cycles an object in order, $shuf shuffled"

base=$(per "$(cycles a kp_est_stosb cyc_base)" 1024) all=$(per "$(cycles a kp_est_stosb)" 1024)
gt 200 "$base" && gt "$base" 100 ||
	fail "rep stosb's throughput $base cycles a page: want 100 to 200, 2 cycles a line"
echo "model timing: rep stosb $base cycles of throughput a page, $all in all"

pred=$(per "$(cycles a kp_est_branch)" 262144) rand=$(per "$(cycles b kp_est_branch)" 262144)
gt "$rand" "$(python3 -c "print($pred + 3)")" ||
	fail "the branch costs $rand cycles an iteration random, $pred always taken: want 3 more"
echo "model timing: branch $pred cycles an iteration predicted, $rand random"

# the table: every row's stack sums to its cycles; the decoder knew nearly everything
python3 - "$T" <<'PY' || fail "the table: see above"
import sys
cols, bad, rows, known = None, 0, 0, None
for l in open(sys.argv[1]):
    if l.startswith("# timing insns "):
        w = l.split()
        insns, unknown = int(w[3]), int(w[5])
    elif l.startswith("# columns "):
        cols = l.split()[2:]
    elif not l.startswith("#"):
        f = l.split()
        c = cols.index("cycles")
        rows += 1
        if abs(sum(int(x) for x in f[c + 1:c + 7]) - int(f[c])) > 6:
            bad += 1
            print(f"FAIL: row {f[0]}: the stack does not sum to its cycles: {' '.join(f[c:c + 7])}")
if bad or not rows:
    sys.exit(1)
if unknown > insns / 100:
    print(f"FAIL: the decoder did not know {unknown} of {insns} instructions")
    sys.exit(1)
print(f"model timing: {rows} rows, each stack summing to its cycles; {unknown} of {insns} instructions unknown to the decoder")
PY
