#!/bin/bash
# record --model names the functions of every exec of the workload's tree
# (docs/model.md, Recording), on Debian's 6.1 kernel, one boot of --model
# insns.  Two static-PIE programs of the test's own, kp-a and kp-b, each call
# a noinline function of its own name (kp_a_step, kp_b_step) N times; kp-a
# given more arguments then execs them in the same process.  The recording
# is of `sh -c`: kp-a 1000, `sh run.sh`, a shell script whose one command
# is kp-a 4000 that execs kp-b 8000, and kp-b 2000.  So kp-a runs in two
# processes and kp-b in two, each at an address of its own (ASLR), short-lived
# children of two shells, one of them exec'ing twice.  report --model and
# folded --model and annotate --model must give kp_a_step of kp-a exactly
# 5000 calls' instructions and kp_b_step of kp-b exactly 10000 calls' (the
# instructions per call read from the file: the function is straight-line),
# and the recording its tasks' names and each exec's mapping of its program
# with its build id.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
vm_need_model
command -v cc >/dev/null || skip "no C compiler"
vm_need_tools objdump readelf python3

mkdir -p "$TMP/ro"
cat >"$TMP/step.c" <<'EOS'
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void STEP(unsigned long i)
{
	sink += i;
}

/* argv[1] calls of STEP, then argv[2...] exec'ed in this process */
int main(int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 0), i;

	sink = 1;
	for (i = 0; i < n; i++)
		STEP(i);
	if (argc > 2)
		execv(argv[2], argv + 2);
	return argc > 2;
}
EOS
# static PIE: away from busybox and the static workloads near 0x401000,
# whose PCs the machine-wide model would add to theirs
for p in a b; do
	cc -O2 -g -static-pie -fPIE -DSTEP=kp_${p}_step "$TMP/step.c" -o "$TMP/ro/kp-$p" ||
		fail "cc exited $?"
done
printf '/mnt/ro/kp-a 4000 /mnt/ro/kp-b 8000\n' >"$TMP/ro/run.sh"

# per_call FILE FUNC: the instructions of one call (straight-line: each executes once)
per_call() {
	objdump -d --no-show-raw-insn --disassemble="$2" "$1" | grep -c '^ *[0-9a-f]*:'
}
ka=$(per_call "$TMP/ro/kp-a" kp_a_step) kb=$(per_call "$TMP/ro/kp-b" kp_b_step)
[ "$ka" -gt 0 ] && [ "$kb" -gt 0 ] || fail "no kp_a_step or kp_b_step in objdump's output"

rc=0
start=$SECONDS
"$VR" --model insns --ro "$TMP/ro" --out "$TMP/m" --timeout 600 -- sh -c \
	"kprotperf record --model -q -o e.data -- sh -c '/mnt/ro/kp-a 1000; sh /mnt/ro/run.sh; /mnt/ro/kp-b 2000'" \
	>"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "vm-run exited $rc: $(tail -3 "$TMP/err")"
D=$TMP/m/e.data
[ "$(q "$D" "SELECT value FROM meta WHERE key = 'model.state'")" = counted ] ||
	fail "the counts were not merged: $(tail -3 "$TMP/err")"
echo "model execs: booted, ran and merged in $((SECONDS - start)) s"

# the tree's tasks by name, and each exec's own mapping with its build id
for p in a b; do
	bid=$(readelf -n "$TMP/ro/kp-$p" | awk '/Build ID/ { print $3 }')
	[ "$(q "$D" "SELECT COUNT(*) FROM tasks WHERE comm = 'kp-$p'")" -ge 1 ] ||
		fail "no task kp-$p: $(q "$D" "SELECT comm FROM tasks")"
	n=$(q "$D" "SELECT COUNT(DISTINCT start) FROM maps WHERE path = '/mnt/ro/kp-$p' AND build_id = '$bid'")
	[ "$n" -ge 2 ] || fail "kp-$p: mapped at $n address(es) with build id $bid, not at 2"
done
n=$(q "$D" "SELECT COUNT(*) FROM tasks")
[ "$n" -ge 3 ] || fail "$n tasks, not the shell and its two children at least"
echo "model execs: kp-a and kp-b each mapped at two addresses with their build ids"

# want FUNC MODULE INSNS: report --model --json's row and folded --model's line
want() {
	local got
	got=$("$KP" report --model --json -n 1000000 "$D" 2>/dev/null |
		python3 -c 'import json, sys
r = [f for f in json.load(sys.stdin)["functions"] if f["name"] == sys.argv[1]]
print(" ".join("%s:%d" % (f["module"], f["insns"]) for f in r))' "$1")
	[ "$got" = "$2:$3" ] || fail "report --model: $1 is '$got', not '$2:$3'"
	got=$("$KP" folded --model insns "$D" 2>/dev/null | grep ";$1 ") || fail "folded --model: no $1"
	[ "$got" = "$2;$1 $3" ] || fail "folded --model: '$got', not '$2;$1 $3'"
	got=$("$KP" annotate --model -f "$1" --symfs "$TMP/symfs" "$D" 2>/dev/null |
		sed -n "s/^# annotate $1 //p")
	[ "${got%% (*}" = "$2: $3 instructions" ] || fail "annotate --model: '$got', not '$2: $3 instructions'"
	echo "model execs: $1 of $2: $3 instructions in report, folded and annotate"
}
# annotate finds the programs' DWARF under --symfs by their guest paths
mkdir -p "$TMP/symfs/mnt"
ln -s "$TMP/ro" "$TMP/symfs/mnt/ro"
want kp_a_step /mnt/ro/kp-a $((5000 * ka))
want kp_b_step /mnt/ro/kp-b $((10000 * kb))
