#!/bin/bash
# Stacks side by side with perf, on the same processes of the same run
# (kprotperf records perf record, which records the workload):
# 1. frame pointers: 60 s (20 in the asan tier) of two xz -9 at -F 999 on both CPUs lose nothing
#    (every sample kept, no stack dropped) and the share of samples in
#    liblzma agrees with perf's within 2 percentage points;
# 2. --call-graph dwarf on xz (Debian's, no frame pointers): the median user
#    stack depth is within 20% of perf --call-graph dwarf's, and the data
#    file at most 0.2x the size of perf.data.
# kprotperf records perf (and not perf kprotperf): perf 6.1 cannot read a
# perf.data holding the BPF programs of a newer kernel, and this way perf's
# own work never lands in the workload's samples.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/lib/perfcmp.sh"
need_bpf
command -v perf > /dev/null || skip "perf not installed (Debian's linux-perf)"
command -v xz > /dev/null || skip "xz not installed"
cd "$TMP"
perfcmp_xzloop "$TMP"
perf record -q -o /dev/null -- true 2> /dev/null || skip "perf record cannot sample here"

# the asan tier runs this for the sanitizer's sake: the code paths, which 20 s covers
secs=60
[ -z "${ASAN_OPTIONS:-}" ] || secs=20
"$KP" record -q -F 999 -o k.data -- perf record -q -F 999 -o p.data -- \
	sh -c "./xzloop $secs & ./xzloop $secs; wait" > out 2> err || fail "record (fp) exited $?: $(cat err)"
lost=$(q k.data "SELECT group_concat(name || '=' || value) FROM counters WHERE name LIKE 'lost%' AND value")
[ -z "$lost" ] || fail "fp recording lost: $lost"
kept=$(q k.data "SELECT SUM(count) FROM samples")
taken=$(q k.data "SELECT value FROM counters WHERE name = 'samples'")
[ "$kept" = "$taken" ] || fail "$taken samples taken, $kept kept"
ps=$(perf_share p.data xz liblzma)
ks=$(kp_share k.data xz liblzma)
awk -v a="$ps" -v b="$ks" 'BEGIN {d = a - b; exit !(d <= 2 && d >= -2)}' ||
	fail "liblzma share: kprotperf $ks%, perf $ps%"
echo "fp, $secs s at 999 Hz: $kept samples, none lost; liblzma $ks% (perf $ps%)"

"$KP" record -q -F 999 --call-graph dwarf -o kd.data -- perf record -q -F 999 \
	--call-graph dwarf -o pd.data -- sh -c './xzloop 8 & ./xzloop 8; wait' > out 2> err ||
	fail "record (dwarf) exited $?: $(cat err)"
pd=$(perf_depth pd.data xz)
kd=$(kp_depth kd.data xz)
[ -n "$pd" ] && [ "$pd" -gt 2 ] || fail "perf's median user depth is '$pd'"
[ $((kd * 10)) -ge $((pd * 8)) ] && [ $((kd * 10)) -le $((pd * 12)) ] ||
	fail "median user stack depth: kprotperf $kd, perf $pd"
ksz=$(stat -c %s kd.data)
psz=$(stat -c %s pd.data)
[ $((ksz * 5)) -le "$psz" ] || fail "data file $ksz bytes, perf.data $psz"
echo "dwarf: median user depth $kd (perf $pd), data file $ksz bytes (perf.data $psz)"
