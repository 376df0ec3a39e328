#!/bin/bash
# N getppid calls by the syscall-loop workload are recorded exactly N times,
# all returned, with a plausible latency whose on-CPU part never exceeds it.
. "$(dirname "$0")/lib.sh"
need_bpf
N=20000
"$KP" record -q -o "$TMP/k.data" -- "$ROOT/syscall-loop" $N >/dev/null || fail "record exited $?"
read -r calls done total oncpu offcpu max < <(q "$TMP/k.data" \
	"SELECT calls, done, total_ns, oncpu_ns, offcpu_ns, max_ns FROM latency WHERE name = 'getppid'" | tr '|' ' ')
[ "$calls" = $N ] || fail "getppid calls $calls, want $N"
[ "$done" = $N ] || fail "getppid returned $done, want $N"
avg=$((total / N))
[ $avg -ge 30 ] && [ $avg -le 100000 ] || fail "implausible getppid latency ${avg} ns"
[ "$oncpu" -le "$total" ] && [ $((oncpu + offcpu)) -eq "$total" ] || fail "on/off-CPU split $oncpu+$offcpu != $total"
[ "$max" -ge $avg ] || fail "max $max below average $avg"
hist=$(q "$TMP/k.data" "SELECT SUM(count) FROM latency_hist WHERE kind = 'syscall' AND clock = 'total' AND id = (SELECT id FROM latency WHERE kind = 'syscall' AND name = 'getppid')")
[ "$hist" = $N ] || fail "histogram holds $hist calls, want $N"
echo "getppid: $calls calls, avg $avg ns"
