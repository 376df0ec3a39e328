#!/bin/bash
# record --repeat: N runs of CMD in one data file, each run's share exact
# (N getppid calls in every run), the merged tables their sum; a failing run
# stops the repetition, Ctrl-C keeps the complete runs, bad uses are refused.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
GETPPID="(SELECT id FROM latency WHERE kind = 'syscall' AND name = 'getppid')"
# sums ROWS: the per-run rows add up to the merged ones, for every latency row and stack pair
sums() {
	[ "$(q "$1" "SELECT count(*) FROM latency l LEFT JOIN (SELECT kind, id, sum(calls) c,
		sum(done) d, sum(total_ns) t, sum(oncpu_ns) o, sum(offcpu_ns) f FROM run_latency
		GROUP BY kind, id) r USING (kind, id) WHERE r.c IS NOT l.calls OR r.d IS NOT l.done
		OR r.t IS NOT l.total_ns OR r.o IS NOT l.oncpu_ns OR r.f IS NOT l.offcpu_ns")" = 0 ] ||
		fail "$1: run_latency does not add up to latency"
	[ "$(q "$1" "SELECT count(*) FROM (SELECT kstack, ustack, sum(count) FROM samples GROUP BY 1, 2
		EXCEPT SELECT kstack, ustack, sum(count) FROM run_samples GROUP BY 1, 2)")" = 0 ] ||
		fail "$1: run_samples does not add up to samples per stack"
	[ "$(q "$1" "SELECT (SELECT sum(count) FROM run_samples) IS (SELECT sum(count) FROM samples)")" = 1 ] ||
		fail "$1: run_samples total differs from samples"
}

"$KP" record -q -r 3 -o r.data -- "$ROOT/syscall-loop" 1000 > /dev/null || fail "record -r 3 exited $?"
[ "$(q r.data "SELECT group_concat(run || ':' || exit_code || ':' || end, ' ') FROM runs")" = \
	"0:0:exited 1:0:exited 2:0:exited" ] || fail "runs: $(q r.data 'SELECT * FROM runs')"
[ "$(q r.data "SELECT count(*) FROM runs WHERE wall_ns > 0")" = 3 ] || fail "a run without wall time"
[ "$(q r.data "SELECT group_concat(calls || '/' || done, ' ') FROM run_latency
	WHERE kind = 'syscall' AND id = $GETPPID ORDER BY run")" = "1000/1000 1000/1000 1000/1000" ] ||
	fail "getppid per run: $(q r.data "SELECT * FROM run_latency WHERE id = $GETPPID")"
[ "$(q r.data "SELECT calls FROM latency WHERE id = $GETPPID")" = 3000 ] || fail "merged getppid calls not 3000"
[ "$(q r.data "SELECT value FROM meta WHERE key = 'record.repeat'")" = 3 ] || fail "meta record.repeat is not 3"
sums r.data
"$KP" report r.data > /dev/null || fail "report of a repeated recording failed"

# children count in their run: the next run starts when the whole tree is gone
"$KP" record -q -r 2 -F 999 -o c.data -- sh -c "$ROOT/syscall-loop 500 && $ROOT/cpu-burn 0.3" \
	> /dev/null || fail "record -r 2 of a tree exited $?"
# (the shell may call getppid itself, as often in each run)
read -r a b < <(q c.data "SELECT group_concat(calls, ' ') FROM run_latency WHERE id = $GETPPID ORDER BY run")
[ "$a" -ge 500 ] && [ "$a" = "$b" ] || fail "getppid of the children per run: $a, $b"
[ "$(q c.data "SELECT count(DISTINCT run) FROM run_samples WHERE count > 0")" = 2 ] ||
	fail "a run without samples"
sums c.data

# one run is the default, and is a run too
"$KP" record -q -o one.data -- "$ROOT/syscall-loop" 1000 > /dev/null || fail "record exited $?"
[ "$(q one.data "SELECT count(*), sum(end = 'exited') FROM runs")" = "1|1" ] || fail "one run: no runs row"
[ "$(q one.data "SELECT value FROM meta WHERE key = 'record.repeat'")" = 1 ] || fail "record.repeat is not 1"
sums one.data

# the third run fails: repeating stops there, with its status and one line saying so
"$KP" record -q -r 5 -o f.data -- sh -c 'n=$(cat n 2>/dev/null || echo 0); echo $((n + 1)) > n; [ "$n" -lt 2 ] || exit 3' \
	> /dev/null 2> err && rc=0 || rc=$?
[ "$rc" = 3 ] || fail "failing run: exit $rc, want 3"
grep -qx 'kprotperf record: run 3 of 5 exited with status 3; stopped repeating (2 complete runs kept)' err ||
	fail "failing run: message is '$(cat err)'"
[ "$(q f.data "SELECT group_concat(exit_code || ':' || end, ' ') FROM runs")" = "0:exited 0:exited 3:failed" ] ||
	fail "failing run: runs $(q f.data 'SELECT * FROM runs')"
"$KP" record -q -r 3 -o k.data -- sh -c 'kill -SEGV $$' > /dev/null 2> err && rc=0 || rc=$?
[ "$rc" = 139 ] || fail "crashing run: exit $rc, want 139"
grep -q 'run 1 of 3 was killed by signal 11' err || fail "crashing run: message is '$(cat err)'"

# CMD that cannot exec again (a script that took away its own x bit): that run
# fails as in a shell, with 126, and the runs before it are kept
printf '#!/bin/sh\nchmod -x "$0"\n' > once.sh
chmod +x once.sh
"$KP" record -q -r 3 -o x.data -- ./once.sh > /dev/null 2> err && rc=0 || rc=$?
[ "$rc" = 126 ] || fail "no exec in run 2: exit $rc, want 126"
[ "$(cat err)" = "kprotperf record: run 2 of 3 cannot run './once.sh': Permission denied; stopped repeating (1 complete run kept)" ] ||
	fail "no exec in run 2: message is '$(cat err)'"
[ "$(q x.data "SELECT group_concat(exit_code || ':' || end, ' ') FROM runs")" = "0:exited 126:failed" ] ||
	fail "no exec in run 2: runs $(q x.data 'SELECT * FROM runs')"
sums x.data

# setting up run 2 fails after its CMD was forked: that CMD, still stopped
# before exec, is killed instead of waited for forever.  LeakSanitizer
# cannot run under ptrace: the sanitizer tier's leak check is off here alone.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout -k 5 30 strace -o /dev/null -e trace=pidfd_open -e inject=pidfd_open:error=EMFILE:when=2 \
	"$KP" record -q -r 2 -o h.data -- "$ROOT/syscall-loop" 10 > /dev/null 2> err && rc=0 || rc=$?
[ "$rc" = 1 ] || fail "failed setup of run 2: exit $rc, want 1"
[ "$(cat err)" = "kprotperf record: starting the command: Too many open files" ] ||
	fail "failed setup of run 2: message is '$(cat err)'"

# a process left behind is killed before the next run (and the last run ends with CMD)
"$KP" record -r 2 -o s.data -- sh -c 'sleep 5 & exit 0' > /dev/null 2> err || fail "straggler: exit $?"
grep -q 'run 1 of 2 left 1 process running' err || fail "straggler: no note: $(cat err)"
grep -q 'wrote s.data: 2 runs' err || fail "summary does not say 2 runs: $(cat err)"

# Ctrl-C in the third run: two complete runs, the third marked interrupted
env --default-signal=INT setsid "$KP" record -q -r 20 -o i.data -- "$ROOT/syscall-loop" 1500000 > out 2>&1 &
pid=$!
# each run prints one line when it is done; then the third run's command,
# once it has exec'd: a fixed sleep could land while a loaded host still
# sets the run up, and leave two runs
for _ in $(seq 600); do
	[ "$(wc -l < out)" -ge 2 ] && break
	sleep 0.05
done
for _ in $(seq 300); do
	pgrep -P "$pid" -x syscall-loop > /dev/null && break
	sleep 0.1
done
kill -INT -- -"$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C: exit $rc, want 130"
[ "$(q i.data "SELECT value FROM meta WHERE key = 'record.end'")" = interrupted ] || fail "record.end not interrupted"
runs=$(q i.data "SELECT count(*) FROM runs")
[ "$runs" -ge 3 ] && [ "$runs" -lt 20 ] || fail "Ctrl-C: $runs runs"
# the signal may land between two runs: then every run kept is complete
[ "$(q i.data "SELECT count(*) FROM runs WHERE run < $runs - 1 AND end = 'exited'")" = $((runs - 1)) ] ||
	fail "Ctrl-C: runs before the last not all complete"
last=$(q i.data "SELECT end FROM runs WHERE run = $runs - 1")
[ "$last" = interrupted ] || [ "$last" = exited ] || fail "Ctrl-C: last run ended '$last'"
[ "$(q i.data "SELECT count(*) FROM run_latency WHERE id = $GETPPID AND calls = 1500000 AND run IN
	(SELECT run FROM runs WHERE end = 'exited')")" = "$(q i.data "SELECT count(*) FROM runs WHERE end = 'exited'")" ] ||
	fail "Ctrl-C: a complete run without its 1500000 getppid calls"
sums i.data

# refused: no runs, not a number, nothing to start again
for args in "-r 0 -- true" "-r x -- true" "-r 2 -p $$" "-r 2 -a" "-r 2 -d 1 -- true"; do
	# shellcheck disable=SC2086
	"$KP" record -o bad.data $args > /dev/null 2> err && rc=0 || rc=$?
	[ "$rc" = 2 ] || fail "record $args: exit $rc, want 2"
	[ "$(wc -l < err)" = 1 ] && grep -q -- '--repeat' err || fail "record $args: message '$(cat err)'"
	[ ! -e bad.data ] || fail "record $args wrote a file"
done
echo "repeat: 3 runs of 1000 getppid each, failing run stops at 3 of 5, Ctrl-C after $((runs - 1)) complete runs"
