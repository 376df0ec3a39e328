#!/bin/bash
# report's sorting, histogram and JSON views agree with the data file.
. "$(dirname "$0")/lib.sh"
need_bpf
cd "$TMP"
"$KP" record -q -o k.data -- "$ROOT/syscall-loop" 5000 > /dev/null || fail "record"
first=$("$KP" report --sort calls k.data | awk '/^SYSCALL/ {getline; print $1, $2}')
[ "$first" = "getppid 5000" ] || fail "--sort calls starts with '$first'"
names=$("$KP" report --sort name k.data | awk '/^SYSCALL/ {on=1; next} on && NF == 0 {exit} on {print $1}')
[ "$names" = "$(printf '%s\n' "$names" | LC_ALL=C sort)" ] || fail "--sort name is not sorted"
"$KP" report --hist getppid k.data > h.txt || fail "--hist"
grep -q 'getppid: entry to return (5000 returned)' h.txt || fail "--hist title"
sum=$(sed -n '/entry to return/,/on-CPU part/s/^\[.*) *\([0-9]*\) |.*/\1/p' h.txt | awk '{s += $1} END {print s}')
[ "$sum" = 5000 ] || fail "histogram bars add up to $sum"
"$KP" report --json k.data | python3 -c '
import json, sys
d = json.load(sys.stdin)
row = [s for s in d["syscalls"] if s["name"] == "getppid"][0]
assert row["calls"] == 5000, row
assert row["p50_ns"] <= row["p90_ns"] <= row["p99_ns"] <= row["max_ns"], row
assert d["meta"]["kernel.release"], d["meta"]
assert d["counters"]["syscalls"] >= 5000
assert any(k.startswith("CONFIG_") for k in d["config"])
' || fail "--json content"
"$KP" report --json --hist getppid k.data | python3 -c '
import json, sys
h = json.load(sys.stdin)["histogram"]
assert sum(b["count"] for b in h["total"]) == 5000
' || fail "--json --hist"
echo "report views consistent"
