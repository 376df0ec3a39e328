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
# until_5s CMD...: polls CMD for up to 5 s (a loaded machine is slow), false if it never held
until_5s() {
	local _
	for _ in $(seq 50); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# none_alive PID...: none of the pids runs
none_alive() {
	local p
	for p; do alive "$p" && return 1; done
	return 0
}
# stale_tmp: the killed record's temporary file is there
stale_tmp() { ls | grep -q '^k\.data\.tmp\.'; }
"$KP" record -q -o k.data -- "$ROOT/syscall-loop" 100 > /dev/null || fail "first record failed"
cp k.data before.data
"$KP" record -q -o k.data -- "$ROOT/cpu-burn" 60 > /dev/null 2>&1 &
rec=$!
# the workloads' start: up to 30 s, what a loaded host may take to load the
# BPF programs (~0.3 s alone); the deaths below are checked within 5 s
for _ in $(seq 300); do
	wl=$(pgrep -P "$rec" -x cpu-burn) && break
	sleep 0.1
done
[ -n "$wl" ] || fail "the workload did not start"
kill -KILL "$rec"
{ wait "$rec"; } 2> /dev/null
if ! until_5s none_alive "$wl"; then
	kill -KILL "$wl"
	fail "the workload (pid $wl) outlived record's SIGKILL by 5 s"
fi
cmp -s k.data before.data || fail "the data file at -o was changed by the killed record"
stale_tmp || fail "no temporary file of the killed record (the test needs one)"
"$KP" record -q -o k.data -- "$ROOT/syscall-loop" 100 > /dev/null || fail "record after the kill failed"
left=$(ls | grep '\.tmp' || true)
[ -z "$left" ] || fail "temporary files left after the next record: $left"
cmp -s k.data before.data && fail "the next record did not write k.data"
# SIGTERM to record stops it first: CMD gets SIGTERM, and what CMD started gets SIGKILL
"$KP" record -q -o t.data -- sh -c "'$ROOT/cpu-burn' 60 & '$ROOT/cpu-burn' 60" > /dev/null 2>&1 &
rec=$!
for _ in $(seq 300); do
	[ "$(pgrep -f "^$ROOT/cpu-burn 60" | wc -l)" = 2 ] && break
	sleep 0.1
done
burns=$(pgrep -f "^$ROOT/cpu-burn 60" | tr '\n' ' ')
[ "$(echo $burns | wc -w)" = 2 ] || fail "the two workloads did not start: $burns"
kill -TERM "$rec"
{ wait "$rec"; } 2> /dev/null
if ! until_5s none_alive $burns; then
	kill -KILL $burns 2> /dev/null
	fail "a process of the workload's tree ($burns) outlived record by 5 s"
fi
# processes forked while record stops (CMD ignores SIGTERM and forks on during
# its 5 s grace) are killed too: the tree stays traced until it is killed
cat > wl.sh << 'EOF'
trap "" TERM
while :; do
	sleep 1000 &
	echo $! >> kids
	sleep 0.3
done
EOF
"$KP" record -q -d 1 -o f.data -- bash wl.sh > /dev/null 2> err || fail "record -d 1 of a forking CMD failed: $(cat err)"
kids=$(cat kids)
[ "$(echo $kids | wc -w)" -ge 10 ] || fail "the workload forked too few children to test: $kids"
if ! until_5s none_alive $kids; then
	left=$(for p in $kids; do alive "$p" && echo "$p"; done | wc -l)
	kill -KILL $kids 2> /dev/null
	fail "$left of the $(echo $kids | wc -w) processes CMD forked while record stopped outlived it"
fi
echo "the workload dies with record; the file at -o is kept; temporary files are cleaned"
