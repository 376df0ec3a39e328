#!/bin/bash
# A CPU-bound workload's hot user function shows up, by name, in folded
# stacks (root first, below main) and as the top self function of report.
. "$(dirname "$0")/lib.sh"
need_bpf
# cpu-burn spins for a wall-clock time: on a busy host it gets a share of a
# CPU, and its samples with it, while its start and exit (exec, the loader,
# page faults: ~10 ms, 2-3 samples at 199 Hz) stay as they are.  2 s at
# 999 Hz keep the hot loop above 80% of hundreds of samples with as little
# as a tenth of a CPU.
"$KP" record -q -F 999 -o "$TMP/c.data" -- "$ROOT/cpu-burn" 2 >/dev/null || fail "record exited $?"
"$KP" folded "$TMP/c.data" > "$TMP/c.folded" || fail "folded exited $?"
grep -qE '^cpu-burn;.*main;kp_burn_outer;kp_burn_hot_loop [0-9]+$' "$TMP/c.folded" ||
	fail "no main;kp_burn_outer;kp_burn_hot_loop stack in: $(head -3 "$TMP/c.folded")"
# every line is "frames count", the format flamegraph.pl reads: the count
# after the last space, frames never empty ([kprotperf probe] and
# [kernel stack lost] hold a space, which flamegraph.pl allows)
bad=$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' "$TMP/c.folded")
[ "$bad" = 0 ] || fail "$bad malformed folded lines"
hot=$(grep 'kp_burn_hot_loop [0-9]*$' "$TMP/c.folded" | awk '{s += $NF} END {print s}')
all=$(awk '{s += $NF} END {print s}' "$TMP/c.folded")
[ $((hot * 100)) -ge $((all * 80)) ] || fail "kp_burn_hot_loop has $hot of $all samples"
top=$("$KP" report --json "$TMP/c.data" | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["user_functions"][0]["name"])')
[ "$top" = kp_burn_hot_loop ] || fail "top user function is $top"
echo "kp_burn_hot_loop: $hot of $all samples"
