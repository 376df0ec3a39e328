#!/bin/bash
# -p PID follows a running process and what it starts; -a -d records the
# whole system for a while; a recording of an idle process, with nothing
# in it, is written all the same and its report says there are no samples.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
mkfifo go
sh -c "read x < go; '$ROOT/syscall-loop' 4000 > /dev/null" &
target=$!
"$KP" record -q -o p.data -p $target &
rec=$!
# the loop starts once record follows it: its sampler's perf events are
# opened after the syscall programs are attached (a fixed sleep is a race
# on a busy host)
attached() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:\[perf_event\]'; }
for _ in $(seq 300); do attached $rec && break; sleep 0.1; done
attached $rec || fail "record -p did not attach in 30 s"
echo > go
wait $rec || fail "record -p exited $?"
[ "$(q p.data "SELECT calls FROM latency WHERE name = 'getppid'")" = 4000 ] ||
	fail "-p: getppid $(q p.data "SELECT calls FROM latency WHERE name = 'getppid'"), want 4000"
[ "$(q p.data "SELECT value FROM meta WHERE key = 'record.mode'")" = pid ] || fail "mode"
"$ROOT/syscall-loop" 1000000000 > /dev/null &
loop=$!
"$KP" record -q -a -d 1 -o a.data || fail "record -a exited $?"
kill $loop
[ "$(q a.data "SELECT calls > 10000 FROM latency WHERE name = 'getppid'")" = 1 ] ||
	fail "-a missed the syscall loop"
[ "$(q a.data "SELECT value FROM meta WHERE key = 'record.end'")" = duration ] || fail "end"
sleep 30 &
idle=$!
# asleep (clock_nanosleep or nanosleep), past the syscalls of its start
asleep() { read -r nr _ < "/proc/$1/syscall" && [[ $nr == 230 || $nr == 35 ]]; }
for _ in $(seq 200); do asleep $idle && break; sleep 0.05; done
asleep $idle || fail "sleep 30 is not asleep after 10 s"
"$KP" record -q -p $idle -d 0.5 -o e.data 2> err || fail "empty recording exited $?: $(cat err)"
kill $idle
[ "$(q e.data "SELECT value FROM meta WHERE key = 'record.end'")" = duration ] || fail "empty: end"
"$KP" report e.data > report.txt || fail "report of the empty recording exited $?"
grep -qE '^no CPU samples in [0-9.]+ms at 99 Hz$' report.txt ||
	fail "empty recording's report: $(tail -3 report.txt)"
echo "-p, -a and empty recordings behave"
