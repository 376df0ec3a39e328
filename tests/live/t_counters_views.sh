#!/bin/bash
# The views of record --count and -e on real recordings (issue 47): what
# report, diff and folded print must be what the data file holds.
#  - report of --count context-switches,task-clock (software events: never
#    multiplexed): its header lines (events, and each one's hook), and nanosleep's and getppid's rows of
#    the Counters table (calls counted, context switches total and per call)
#    equal to event_totals'; --json's events and events_per_call of every
#    syscall equal to event_totals' (task-clock in ns);
#  - diff of two such recordings of 2 runs each, the events in another order
#    on the hardened side and page-faults on that side only: nanosleep's
#    context switches per call on each side equal to run_event_totals' sums,
#    its ratio inside its bootstrap interval, page-faults said to be counted
#    on one side only;
#  - folded of -e page-faults -c 1: the counts add up to the samples'
#    weights, which at period 1 are the samples.
. "$(dirname "$0")/lib.sh"
need_bpf
WL=$ROOT/count-loop
[ -x "$WL" ] || skip "no $WL: run make"
command -v python3 > /dev/null || skip "no python3"

"$KP" record -q -r 2 -o "$TMP/b.data" --count context-switches,task-clock -- "$WL" 20 500 0 \
	> /dev/null || fail "record base exited $?"
"$KP" record -q -r 2 -o "$TMP/h.data" --count task-clock,cs,page-faults -- "$WL" 20 500 0 \
	> /dev/null || fail "record hardened exited $?"

"$KP" report "$TMP/b.data" > "$TMP/report" || fail "report exited $?"
[ "$(grep '^# count' "$TMP/report")" = '# counters: context-switches, task-clock (none multiplexed)
# counted by: context-switches: sched_switch; task-clock: the on-CPU clock' ] ||
	fail "the counters header lines: $(grep '^# count' "$TMP/report")"
# NAME: "CALLS EVENT TOTAL PER-CALL" of its context switches, as the file has
# them; the ratio is rounded by C's printf, as report's is: SQLite's printf
# rounds the decimal spelling, so 41/40 is 1.03 there and 1.02 in C
want_row() {
	q "$TMP/b.data" "SELECT e.calls, e.total FROM event_totals e JOIN latency l
		ON l.kind = 'syscall' AND l.id = e.id WHERE e.kind = 'syscall' AND e.event = 0
		AND l.name = '$1'" | awk -F'|' 'NF == 2 { printf "%d context-switches %d %.2f\n", $1, $2, $2 / $1 }'
}
for sc in nanosleep getppid; do
	got=$(awk -v n=$sc '/^Counters per syscall/ { t = 1 } t && $1 == n { print $2, $3, $4, $5; exit }' "$TMP/report")
	want=$(want_row $sc)
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "$sc's counters row: '$got', want '$want'"
done
echo "report: nanosleep $(want_row nanosleep)"

"$KP" report --json "$TMP/b.data" > "$TMP/report.json" || fail "report --json exited $?"
q "$TMP/b.data" "SELECT l.name, c.name, e.calls, e.total FROM event_totals e
	JOIN latency l ON l.kind = 'syscall' AND l.id = e.id JOIN count_events c ON c.event = e.event
	WHERE e.kind = 'syscall'" > "$TMP/totals"
python3 - "$TMP/report.json" "$TMP/totals" << 'EOF' || fail "report --json's events differ from event_totals"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["event_counters"] == {"events": ["context-switches", "task-clock"], "multiplexed": {},
	"sources": {"context-switches": "sched_switch", "task-clock": "clock"}}, d["event_counters"]
rows = {r["name"]: r for r in d["syscalls"]}
n = 0
for line in open(sys.argv[2]):
    name, ev, calls, total = line.strip().split("|")
    r = rows[name]
    assert r["events_calls"] == int(calls) and r["events"][ev] == int(total), (name, ev, r)
    want = int(total) / int(calls) if int(calls) else None
    got = r["events_per_call"][ev]
    assert (got is None and want is None) or abs(got - want) <= 1e-9 * max(1, want), (name, ev, got, want)
    n += 1
assert n >= 4, n
EOF

"$KP" diff --json "$TMP/b.data" "$TMP/h.data" > "$TMP/diff.json" || fail "diff --json exited $?"
# nanosleep's context switches per call over both runs, base then hardened
per_call() {
	q "$1" "SELECT CAST(SUM(r.total) AS REAL) / SUM(r.calls) FROM run_event_totals r
		JOIN count_events c ON c.event = r.event WHERE r.kind = 'syscall' AND r.id = 35
		AND c.name = 'context-switches'"
}
python3 - "$TMP/diff.json" "$(per_call "$TMP/b.data")" "$(per_call "$TMP/h.data")" << 'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counters"]
assert c["base"] == ["context-switches", "task-clock"], c["base"]
assert c["hardened"] == ["task-clock", "context-switches", "page-faults"], c["hardened"]
row = [r for r in c["syscalls"] if r["name"] == "nanosleep" and r["event"] == "context-switches"][0]
b, h = float(sys.argv[2]), float(sys.argv[3])
assert abs(row["base"] - b) < 1e-9 and abs(row["hardened"] - h) < 1e-9, (row, b, h)
assert row["method"] == "bootstrap" and row["status"] == "both" and row["only"] is None, row
assert row["ci_low_pct"] <= row["change_pct"] <= row["ci_high_pct"], row
assert any(r["event"] == "page-faults" and r["only"] == "hardened" and r["base"] is None
           for r in c["syscalls"]), c["syscalls"]
assert "note: page-faults counted on the hardened side only (record --count): the base has no value of it" in d["notes"], d["notes"]
EOF
	fail "diff --json's counters differ from run_event_totals"
echo "diff: nanosleep context switches per call $(per_call "$TMP/b.data") -> $(per_call "$TMP/h.data")"

"$KP" record -q -o "$TMP/f.data" -e page-faults -c 1 -- "$WL" 0 0 200 > /dev/null ||
	fail "record -e page-faults -c 1 exited $?"
got=$("$KP" folded "$TMP/f.data" | awk '{ n += $NF } END { print n + 0 }')
want=$(q "$TMP/f.data" "SELECT (SELECT SUM(weight) FROM sample_weights) || ' ' || (SELECT SUM(count) FROM samples)")
[ "$got $got" = "$want" ] || fail "folded: $got events, weights and samples: $want"
echo "folded: $got page faults, one per sample"
