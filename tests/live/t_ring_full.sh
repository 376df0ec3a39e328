#!/bin/bash
# A full ring buffer drops samples, and every one it drops is counted: the
# samples taken are exactly those kept plus lost_ring_full, the recording
# completes and report's "# lost:" line names what was lost.  The ring is
# made to fill for certain: kprotperf is stopped (SIGSTOP) for 3 s while
# two cpu-burns are sampled at 999 Hz with --call-graph dwarf (up to 8 KiB
# a sample) into a 1 MiB ring, which holds a few hundred samples: even at
# a tenth of a CPU each, the burners are sampled ~600 times meanwhile.
# The stop waits for both burners' exec, so the sampling is on by then,
# however long a loaded host takes to load the BPF programs.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
"$KP" record -q -F 999 --call-graph dwarf --ring-size 1 -o r.data -- \
	sh -c "$ROOT/cpu-burn 5 & $ROOT/cpu-burn 5; wait" > out 2> err &
rec=$!
burners=0
for _ in $(seq 300); do
	sh=$(pgrep -P $rec -x sh) && burners=$(pgrep -c -P "$sh" -x cpu-burn) && [ "$burners" = 2 ] && break
	sleep 0.1
done
[ "$burners" = 2 ] || fail "the two cpu-burns did not start under record in 30 s"
kill -STOP $rec
sleep 3
kill -CONT $rec
wait $rec || fail "record exited $?: $(cat err)"
[ "$(q r.data "SELECT value FROM meta WHERE key = 'sampling.ring_mib'")" = 1 ] || fail "ring_mib not 1"
taken=$(q r.data "SELECT value FROM counters WHERE name = 'samples'")
kept=$(q r.data "SELECT SUM(count) FROM samples")
dropped=$(q r.data "SELECT value FROM counters WHERE name = 'lost_ring_full'")
[ "$dropped" -gt 0 ] && [ "$taken" = $((kept + dropped)) ] ||
	fail "$taken samples taken, $kept kept, $dropped counted lost"
"$KP" report r.data > rep || fail "report exited $?"
line=$(grep '^# lost:' rep)
[[ $line == *" lost_ring_full=$dropped"* ]] ||
	fail "report's lost line does not name lost_ring_full=$dropped: $line"
echo "1 MiB ring: $taken samples, $kept kept, $dropped dropped and counted"
