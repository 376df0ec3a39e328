#!/bin/bash
# record --count and -e/-c with software events on real BPF (issue 47), on
# count-loop: S nanosleep(1 ms) calls, G getppid calls, P fresh pages.
#  - --count context-switches,task-clock: each nanosleep switches its thread
#    out and in once (1 to 2 per call: a preemption may add one); the
#    getppids switch less than once in ten calls in all; task-clock inside
#    getppid is above 0 and at most kprotperf's own on-CPU time of getppid
#    (the counted window lies inside the timed one) * 1.05 + 1 ms; the calls
#    counted are the calls made but for those counted lost;
#  - -e page-faults -c 1: every fault of touch_pages is one sample there
#    (P to P + 16: a few of libc's own may land there too), of weight 1;
#  - a hardware event on this machine without a PMU: the refusal's exact
#    line, exit 1, no data file.
. "$(dirname "$0")/lib.sh"
need_bpf
S=200 G=20000 P=500
WL=$ROOT/count-loop
[ -x "$WL" ] || skip "no $WL: run make"

"$KP" record -q -o "$TMP/c.data" --count context-switches,task-clock -- "$WL" $S $G 0 \
	> /dev/null || fail "record --count exited $?"
got=$(q "$TMP/c.data" "SELECT * FROM count_events ORDER BY event; SELECT value FROM meta WHERE key = 'count.events'")
want="0|context-switches|1|3|0|0
1|task-clock|1|1|0|0
context-switches,task-clock"
[ "$got" = "$want" ] || fail "count_events and count.events: $got"
# NAME EVENT: calls counted, total, enabled_ns, running_ns; then the latency row's calls and oncpu_ns
row() {
	q "$TMP/c.data" "SELECT e.calls, e.total, e.enabled_ns, e.running_ns, l.calls, l.oncpu_ns
		FROM event_totals e JOIN latency l ON l.kind = e.kind AND l.id = e.id
		WHERE e.kind = 'syscall' AND l.name = '$1' AND e.event = $2" | tr '|' ' '
}
lost=$(q "$TMP/c.data" "SELECT value FROM counters WHERE name = 'lost_count'")
read -r n cs en run calls _ < <(row nanosleep 0)
[ "$calls" = $S ] || fail "nanosleep: $calls calls, want $S"
[ "$n" -le $S ] && [ "$n" -ge $((S - lost)) ] && [ "$n" -ge $((S / 2)) ] ||
	fail "nanosleep: $n calls counted of $S ($lost lost)"
[ "$cs" -ge "$n" ] && [ "$cs" -le $((2 * n)) ] || fail "nanosleep: $cs context switches in $n calls"
[ "$run" = "$en" ] || fail "a software event multiplexed: running $run, enabled $en"
sleeps="nanosleep: $cs context switches in $n calls"
read -r n cs _ _ calls _ < <(row getppid 0)
[ "$calls" = $G ] && [ "$n" -le $G ] && [ "$n" -ge $((G - lost)) ] ||
	fail "getppid: $n calls counted of $calls ($lost lost)"
[ "$cs" -lt $((G / 10)) ] || fail "getppid: $cs context switches in $n calls"
read -r n tc _ _ _ oncpu < <(row getppid 1)
[ "$tc" -gt 0 ] && [ "$tc" -le $((oncpu * 105 / 100 + 1000000)) ] ||
	fail "getppid: task-clock $tc ns, on-CPU $oncpu ns"
echo "$sleeps; getppid: task-clock $tc ns in $n calls, $oncpu ns on-CPU; lost $lost"

# -r 3: each run's share, summing to the totals
"$KP" record -q -r 3 -o "$TMP/r3.data" --count cs -- "$WL" 20 100 0 > /dev/null ||
	fail "record -r 3 --count exited $?"
got=$(q "$TMP/r3.data" "SELECT COUNT(*) FROM event_totals t WHERE calls != (SELECT SUM(calls)
	FROM run_event_totals r WHERE r.kind = t.kind AND r.id = t.id AND r.event = t.event) OR
	total != (SELECT SUM(total) FROM run_event_totals r WHERE r.kind = t.kind AND r.id = t.id
	AND r.event = t.event); SELECT group_concat(run, ' ') FROM (SELECT run FROM run_event_totals
	WHERE kind = 'syscall' AND id = 35 AND calls BETWEEN 10 AND 20 ORDER BY run)")
[ "$got" = "0
0 1 2" ] || fail "-r 3: the runs' shares: $got"

"$KP" record -q -o "$TMP/f.data" -e page-faults -c 1 -- "$WL" 0 0 $P > /dev/null ||
	fail "record -e page-faults -c 1 exited $?"
got=$(q "$TMP/f.data" "SELECT key || '=' || value FROM meta WHERE key IN ('sampling.event',
	'sampling.period', 'sampling.freq_hz') ORDER BY key")
[ "$got" = "sampling.event=page-faults
sampling.period=1" ] || fail "sampling meta: $got"
# the samples and the weights of the stacks whose user leaf is touch_pages
read -r n w < <(q "$TMP/f.data" "SELECT SUM(s.count), (SELECT SUM(w.weight) FROM sample_weights w
	WHERE w.ustack IN (SELECT stack FROM ustack_frames WHERE depth = 0 AND symbol = 'touch_pages'))
	FROM samples s WHERE s.ustack IN (SELECT stack FROM ustack_frames WHERE depth = 0
	AND symbol = 'touch_pages')" | tr '|' ' ')
[ "$n" -ge $P ] && [ "$n" -le $((P + 16)) ] || fail "touch_pages: $n page-fault samples, want $P..$((P + 16))"
[ "$w" = "$n" ] || fail "touch_pages: weight $w, samples $n (period 1)"
echo "touch_pages: $n page-fault samples of $P pages"

# -e without -c: at -F's frequency, each sample weighing the period the kernel adjusted to
"$KP" record -q -o "$TMP/t.data" -e task-clock -F 499 -- "$ROOT/cpu-burn" 0.3 > /dev/null ||
	fail "record -e task-clock -F 499 exited $?"
got=$(q "$TMP/t.data" "SELECT key || '=' || value FROM meta WHERE key IN ('sampling.event',
	'sampling.period', 'sampling.freq_hz') ORDER BY key; SELECT (SELECT COUNT(*) FROM
	sample_weights) = (SELECT COUNT(*) FROM (SELECT DISTINCT pid, tid, kstack, ustack FROM samples)),
	(SELECT SUM(weight) FROM sample_weights) > (SELECT SUM(count) FROM samples)")
[ "$got" = "sampling.event=task-clock
sampling.freq_hz=499
1|1" ] || fail "-e task-clock -F 499: $got"

if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ]; then
	echo "this machine has a PMU: the no-PMU refusal is not checked"
	exit 0
fi
for opt in --count -e; do
	out=$("$KP" record -q -o "$TMP/r.data" $opt cycles -- "$WL" 1 1 1 2>&1)
	rc=$?
	want="kprotperf record: $opt cycles: no hardware PMU here (/sys/bus/event_source/devices/cpu is missing: a VM without a virtual PMU?); software events work: cpu-clock, task-clock, page-faults, context-switches, cpu-migrations"
	[ "$rc" = 1 ] && [ "$out" = "$want" ] || fail "$opt cycles: exit $rc: $out"
	[ ! -e "$TMP/r.data" ] || fail "$opt cycles left $TMP/r.data"
done
echo "--count cycles and -e cycles: refused, nothing written"
