#!/bin/bash
# SIGKILL of record, which it cannot catch: the workload dies with it
# (PR_SET_PDEATHSIG), the data file already at -o is untouched, and the
# temporary file it leaves is removed by the next record writing there.
# Also the workload's tree killed when record stops first (SIGTERM to record).
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
# alive PID: running, not a zombie waiting for a reaper that may be slow
alive() { [ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null)" != Z ]; }
"$KP" record -q -o k.data -- "$ROOT/syscall-loop" 100 > /dev/null || fail "first record failed"
cp k.data before.data
"$KP" record -q -o k.data -- "$ROOT/cpu-burn" 60 > /dev/null 2>&1 &
rec=$!
for _ in $(seq 50); do
	wl=$(pgrep -P "$rec" -x cpu-burn) && break
	sleep 0.1
done
[ -n "$wl" ] || fail "the workload did not start"
sleep 0.5
kill -KILL "$rec"
{ wait "$rec"; } 2> /dev/null
sleep 1
if alive "$wl"; then
	kill -KILL "$wl"
	fail "the workload (pid $wl) outlived record's SIGKILL by a second"
fi
cmp -s k.data before.data || fail "the data file at -o was changed by the killed record"
ls | grep -q '^k\.data\.tmp\.' || fail "no temporary file of the killed record (the test needs one)"
"$KP" record -q -o k.data -- "$ROOT/syscall-loop" 100 > /dev/null || fail "record after the kill failed"
left=$(ls | grep '\.tmp' || true)
[ -z "$left" ] || fail "temporary files left after the next record: $left"
cmp -s k.data before.data && fail "the next record did not write k.data"
# SIGTERM to record stops it first: CMD gets SIGTERM, and what CMD started gets SIGKILL
"$KP" record -q -o t.data -- sh -c "'$ROOT/cpu-burn' 60 & '$ROOT/cpu-burn' 60" > /dev/null 2>&1 &
rec=$!
for _ in $(seq 50); do
	[ "$(pgrep -f "^$ROOT/cpu-burn 60" | wc -l)" = 2 ] && break
	sleep 0.1
done
burns=$(pgrep -f "^$ROOT/cpu-burn 60" | tr '\n' ' ')
[ "$(echo $burns | wc -w)" = 2 ] || fail "the two workloads did not start: $burns"
kill -TERM "$rec"
{ wait "$rec"; } 2> /dev/null
for p in $burns; do
	if alive "$p"; then
		kill -KILL $burns 2> /dev/null
		fail "a process of the workload's tree (pid $p) outlived record"
	fi
done
echo "the workload dies with record; the file at -o is kept; temporary files are cleaned"
