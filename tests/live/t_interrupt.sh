#!/bin/bash
# Ctrl-C mid-record (SIGINT to the whole process group, as a terminal sends
# it) and SIGTERM to kprotperf alone both end with a complete data file.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
# Each signal waits for the command's exec (record's setup done, its
# handlers in place), not a fixed sleep: a loaded host can take longer
# than that to load the BPF programs, and a signal before the exec is
# another case (t_exec_counts.sh).
# child_of PID NAME: PID's child NAME, once it has exec'd (in 30 s)
child_of() {
	local _
	for _ in $(seq 300); do
		pgrep -P "$1" -x "$2" && return 0
		sleep 0.1
	done
	return 1
}
# cpu_ticks PID: its user and system time, in clock ticks
cpu_ticks() {
	local stat
	read -r stat < "/proc/$1/stat" || return 1
	# shellcheck disable=SC2086 # the fields after "pid (comm) ", split
	set -- ${stat##*) }
	echo $((${12} + ${13}))
}
# a terminal job has SIGINT at its default; background jobs of scripts do not
env --default-signal=INT setsid "$KP" record -q -o int.data -- "$ROOT/syscall-loop" 2000000000 > /dev/null 2>&1 &
pid=$!
wl=$(child_of "$pid" syscall-loop) || fail "syscall-loop did not start under record in 30 s"
# 100 ms of its CPU time: tens of thousands of getppid calls, however loaded
for _ in $(seq 600); do [ "$(cpu_ticks "$wl")" -ge 10 ] && break; sleep 0.1; done
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
child_of "$pid" sleep > /dev/null || fail "sleep did not start under record in 30 s"
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
child_of "$pid" sleep > /dev/null || fail "sleep did not start under record in 30 s"
kill -INT "$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 143 ] || fail "SIGINT to a background kprotperf: exit $rc, want 143 (sleep ended by SIGTERM)"
[ "$(q bg.data "SELECT value FROM meta WHERE key = 'record.end'")" = interrupted ] ||
	fail "bg.data: record.end is not 'interrupted'"
# a command that ignores SIGTERM gets SIGKILL 5 s later
"$KP" record -q -o kill.data -- sh -c 'trap "" TERM; exec sleep 60' &
pid=$!
child_of "$pid" sleep > /dev/null || fail "sleep did not start under record in 30 s"
kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
[ "$rc" = 137 ] || fail "SIGTERM-proof command: exit $rc, want 137 (SIGKILL)"
cmd=$(q kill.data "SELECT value FROM meta WHERE key = 'record.pid'")
! kill -0 "$cmd" 2>/dev/null || fail "the SIGTERM-proof command (pid $cmd) survived"
ls | grep -q '\.tmp\.' && fail "temporary file left behind"
echo "interrupted recordings are complete"
