#!/bin/bash
# Ctrl-C mid-record (SIGINT to the whole process group, as a terminal sends
# it) and SIGTERM to kprotperf alone both end with a complete data file.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
# a terminal job has SIGINT at its default; background jobs of scripts do not
env --default-signal=INT setsid "$KP" record -q -o int.data -- "$ROOT/syscall-loop" 2000000000 > /dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT -- -"$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C: exit $rc, want 130"
[ "$(q int.data "SELECT value FROM meta WHERE key = 'record.end'")" = interrupted ] ||
	fail "record.end is not 'interrupted'"
[ "$(q int.data "SELECT calls > 1000 FROM latency WHERE name = 'getppid'")" = 1 ] ||
	fail "getppid calls before Ctrl-C missing"
"$KP" report int.data > /dev/null || fail "report of an interrupted recording failed"
# SIGTERM to kprotperf alone: it stops, the command gets SIGTERM, data is kept
"$KP" record -q -o term.data -- sleep 60 &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc, want 143 (sleep ended by SIGTERM)"
cmd=$(q term.data "SELECT value FROM meta WHERE key = 'record.pid'")
[ -n "$cmd" ] && ! kill -0 "$cmd" 2>/dev/null || fail "the command (pid $cmd) outlived the recording"
"$KP" report term.data > /dev/null || fail "report after SIGTERM failed"
# a script's background command starts with SIGINT ignored: kprotperf takes
# it back, as perf record does, and ends as for SIGTERM
"$KP" record -q -o bg.data -- sleep 60 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 143 ] || fail "SIGINT to a background kprotperf: exit $rc, want 143 (sleep ended by SIGTERM)"
[ "$(q bg.data "SELECT value FROM meta WHERE key = 'record.end'")" = interrupted ] ||
	fail "bg.data: record.end is not 'interrupted'"
# a command that ignores SIGTERM gets SIGKILL 5 s later
"$KP" record -q -o kill.data -- sh -c 'trap "" TERM; exec sleep 60' &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 137 ] || fail "SIGTERM-proof command: exit $rc, want 137 (SIGKILL)"
cmd=$(q kill.data "SELECT value FROM meta WHERE key = 'record.pid'")
! kill -0 "$cmd" 2>/dev/null || fail "the SIGTERM-proof command (pid $cmd) survived"
ls | grep -q '\.tmp\.' && fail "temporary file left behind"
echo "interrupted recordings are complete"
