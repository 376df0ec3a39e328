#!/bin/bash
# record --count and -e/-c with software events on real BPF (issues 47, 55),
# on count-loop: S nanosleep(1 ms) calls, G getppid calls, P fresh pages,
# one read of R fresh pages, M moves to another CPU.
#  - the window: getppid's on-CPU ns a call with --count
#    task-clock,context-switches (the median of five) lies within the
#    spread of five recordings without it, interleaved with them; on a busy
#    machine plain recordings scatter by 20% (315 to 391 ns seen here), so
#    the band is widened to 25% of their median, lest five that happen to
#    agree make it a point.  The four perf reads that were inside the window
#    before made it 2 to 3 times as long: the counting's own work lies
#    outside the timed window;
#  - --count context-switches,task-clock: both from kprotperf's own hooks
#    (count.sources); a nanosleep switches its thread out at most twice (a
#    preemption may add one) and in most calls once, but one whose timer
#    has already fired returns without switching (under icount, or with
#    the machine busy): at least half of them; getppid switches less than
#    once in a hundred calls; task-clock within 10% of the latency table's
#    on-CPU time of the same calls (both read the same clock); the calls
#    counted are the calls made but for those counted lost;
#  - --count page-faults,minor-faults,major-faults,cpu-migrations: the
#    read of R fresh pages (MADV_NOHUGEPAGE) takes R minor faults inside the
#    read calls, plus the few the loader's own reads may take, none major,
#    and as many page faults or a few more (a fault entered again);
#    the M sched_setaffinity calls move the thread once each, the first
#    zero to two times (two CPUs or more; else that check is skipped);
#  - -e page-faults -c 1: every fault of touch_pages is one sample there
#    (P to P + 16: a few of libc's own may land there too), of weight 1;
#  - a hardware event on this machine without a PMU: the refusal's exact
#    line, exit 1, no data file.
. "$(dirname "$0")/lib.sh"
need_bpf
S=200 G=20000 P=500 R=300 M=40 W=50000
WL=$ROOT/count-loop
[ -x "$WL" ] || skip "no $WL: run make"

# OUT [--count EVENTS]: getppid's on-CPU ns a call, W calls
getppid_ns() {
	local out=$1
	shift
	"$KP" record -q -o "$TMP/$out.data" "$@" -- "$WL" 0 $W 0 > /dev/null ||
		fail "record $* exited $?"
	q "$TMP/$out.data" "SELECT oncpu_ns / calls FROM latency WHERE kind = 'syscall'
		AND name = 'getppid'"
}
plain=() counted=()
for i in 1 2 3 4 5; do
	plain+=("$(getppid_ns p$i)")
	counted+=("$(getppid_ns c$i --count task-clock,context-switches)")
done
# lo, median and hi of the plain ones; the counted ones' median
read -r lo _ med _ hi < <(printf '%s\n' "${plain[@]}" | sort -n | tr '\n' ' ')
mid=$(printf '%s\n' "${counted[@]}" | sort -n | sed -n 3p)
band=$(((hi - lo) > med / 4 ? hi - lo : med / 4))
[ "$mid" -ge $((lo - band)) ] && [ "$mid" -le $((hi + band)) ] ||
	fail "getppid: ${counted[*]} ns a call with --count, ${plain[*]} without (band $band ns)"
echo "getppid on-CPU ns a call: ${plain[*]} without --count, ${counted[*]} with it"

"$KP" record -q -o "$TMP/c.data" --count context-switches,task-clock -- "$WL" $S $G 0 \
	> /dev/null || fail "record --count exited $?"
got=$(q "$TMP/c.data" "SELECT * FROM count_events ORDER BY event; SELECT value FROM meta WHERE
	key IN ('count.events', 'count.sources') ORDER BY key")
want="0|context-switches|1|3|0|0
1|task-clock|1|1|0|0
context-switches,task-clock
sched_switch,clock"
[ "$got" = "$want" ] || fail "count_events, count.events and count.sources: $got"
# FILE NAME EVENT: calls counted, total, enabled_ns, running_ns; then the latency row's calls and oncpu_ns
row() {
	q "$1" "SELECT e.calls, e.total, e.enabled_ns, e.running_ns, l.calls, l.oncpu_ns
		FROM event_totals e JOIN latency l ON l.kind = e.kind AND l.id = e.id
		WHERE e.kind = 'syscall' AND l.name = '$2' AND e.event = $3" | tr '|' ' '
}
lost=$(q "$TMP/c.data" "SELECT value FROM counters WHERE name = 'lost_count'")
read -r n cs en run calls _ < <(row "$TMP/c.data" nanosleep 0)
[ "$calls" = $S ] || fail "nanosleep: $calls calls, want $S"
[ "$n" -le $S ] && [ "$n" -ge $((S - lost)) ] && [ "$n" -ge $((S / 2)) ] ||
	fail "nanosleep: $n calls counted of $S ($lost lost)"
[ "$cs" -ge $((n / 2)) ] && [ "$cs" -le $((2 * n)) ] || fail "nanosleep: $cs context switches in $n calls"
[ "$run" = "$en" ] || fail "a software event multiplexed: running $run, enabled $en"
sleeps="nanosleep: $cs context switches in $n calls"
read -r n cs _ _ calls _ < <(row "$TMP/c.data" getppid 0)
[ "$calls" = $G ] && [ "$n" -le $G ] && [ "$n" -ge $((G - lost)) ] ||
	fail "getppid: $n calls counted of $calls ($lost lost)"
[ "$cs" -lt $((G / 100)) ] || fail "getppid: $cs context switches in $n calls"
# the counted calls' on-CPU time: all of them when none was lost
read -r n tc _ _ calls oncpu < <(row "$TMP/c.data" getppid 1)
[ "$n" = "$calls" ] || oncpu=$((oncpu * n / calls))
[ "$tc" -ge $((oncpu * 9 / 10)) ] && [ "$tc" -le $((oncpu * 11 / 10)) ] ||
	fail "getppid: task-clock $tc ns, on-CPU $oncpu ns"
echo "$sleeps; getppid: task-clock $tc ns in $n calls, $oncpu ns on-CPU; lost $lost"

"$KP" record -q -o "$TMP/pf.data" --count page-faults,minor-faults,major-faults,cpu-migrations \
	-- "$WL" 0 0 0 $R $M > /dev/null || fail "record --count page-faults,... exited $?"
[ "$(q "$TMP/pf.data" "SELECT value FROM meta WHERE key = 'count.sources'")" = \
	"page_fault,min_flt,maj_flt,sched_migrate_task" ] || fail "page-faults,...: count.sources"
read -r _ pf _ _ _ _ < <(row "$TMP/pf.data" read 0)
read -r _ minor _ _ _ _ < <(row "$TMP/pf.data" read 1)
read -r _ major _ _ _ _ < <(row "$TMP/pf.data" read 2)
# page-faults counts each entry of the fault handler, as perf's software
# event does, minor-faults each fault completed: a fault retried, or one a
# loaded machine takes again, counts twice in the first and once in the
# second (301 and 300 seen under the asan tier)
[ "$minor" -ge $R ] && [ "$minor" -le $((R + 8)) ] && [ "$pf" -ge "$minor" ] &&
	[ "$pf" -le $((minor + 8)) ] && [ "$major" = 0 ] ||
	fail "read of $R fresh pages: $pf page faults, $minor minor, $major major"
echo "read of $R fresh pages: $pf page faults, $minor minor, $major major"
if [ "$(nproc)" -ge 2 ]; then
	read -r n mig _ _ calls _ < <(row "$TMP/pf.data" sched_setaffinity 3)
	# the first call, made before the thread is pinned, may find it moved
	# already (no move) or see the balancer move it too (two)
	[ "$calls" = $M ] && [ "$n" -ge $((M / 2)) ] && [ "$mig" -le $((n + 1)) ] &&
		[ "$mig" -ge $((n - 1)) ] ||
		fail "$M sched_setaffinity calls: $mig migrations in the $n of $calls counted"
	echo "$M sched_setaffinity calls: $mig migrations"
fi

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
