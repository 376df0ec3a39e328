#!/bin/bash
# The timing model's core descriptions (share/cores/*.json) as
# scripts/lib/core_args.py checks them and turns them into the plugin's
# arguments (docs/model.md, "The timing model"): every shipped one whole,
# its arguments compared with what the file says; a table kprotperf
# calibrate wrote (the golden of test_costs) taken as the description
# nearest its CPU with the measured figures; and bad files, each refused
# in the one line that names the problem, exit 1, nothing on stdout.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-core-args.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
CA() { python3 "$ROOT/scripts/lib/core_args.py" "$1" "$ROOT/share/costs" "$ROOT/share/cores"; }

# every shipped description: its numbers, sizes and its cost table's events, in order
n=0
for f in "$ROOT"/share/cores/*.json; do
	name=$(basename "$f" .json)
	want=$(python3 - "$f" "$ROOT/share/costs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = {"core": "core", "latency": "lat", "predictor": "bp", "prefetch": "pf"}
a = [f"{keys[g]}.{k}={v}" for g in keys for k, v in d[g].items()]
c, t = d["caches"], d["tlbs"]
a += [f"geom={c['i1']}/{c['d1']}/{c['ll']}/{t['itlb']}/{t['dtlb']}", f"l2={c['l2']}", f"stlb={t['stlb']}"]
costs = json.load(open(f"{sys.argv[2]}/{d['costs']}.json"))["costs"]
ev = {"cr3_write": "mov_cr3"}
a += [f"ev.{ev.get(k, k)}={costs[k]}" for k in ("cr3_write", "lfence", "mfence", "sfence", "cpuid",
      "wrmsr", "rdmsr", "verw", "iret", "sysret", "swapgs", "mov_cr", "invlpg", "invpcid", "wbinvd", "lxdt")]
print(",".join(a))
PY
)
	[ "$(CA "$name")" = "core=$name,$want" ] || fail "$name: $(CA "$name")"
	n=$((n + 1))
done

# a calibrated table: the nearest description (its CPU: vendor "x": epyc-milan), its figures in
cal=$ROOT/tests/unit/golden/calibrate-show-core-json
got=$(CA "$cal" | tr , '\n' | grep -E '^(core=|lat\.|core\.l2_mshrs|core\.mispredict|core\.prf|core\.sched|core\.fetch_block|core\.alus|ev\.cpuid)')
want="core=epyc-milan+calibrated
core.l2_mshrs=24
core.mispredict=18
core.prf=200
core.sched=45
core.fetch_block=64
core.alus=4
lat.l1=4
lat.l2=12
lat.ll=50
lat.dram=300
lat.stlb=8
lat.walk=2
lat.string_uops=9
lat.dram_line=8
lat.dram_wline=10
lat.page_cross=126
lat.l1_fill=3
lat.ll_lost=1500
lat.ll_queue=250
ev.cpuid=$(python3 -c "import json; print(round(json.load(open('$cal'))['costs']['cpuid']))")"
[ "$got" = "$want" ] || fail "the calibrated table: $got"
# a loop across two fetch blocks no slower than within one: no bound
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["core"]["fetch_block_crossing"] = 1.02
json.dump(d, open(sys.argv[2], "w"))' "$cal" "$TMP/two.json"
got=$(CA "$TMP/two.json" | tr , '\n' | grep '^core\.fetch_block=')
[ "$got" = core.fetch_block=0 ] || fail "a crossing of 1.02x: $got"
# without FIGURE ARG: the argument ARG (a pattern) of the calibrated table less its core's FIGURE
without() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["core"][sys.argv[3]]
json.dump(d, open(sys.argv[2], "w"))' "$cal" "$TMP/without.json" "$1"
	CA "$TMP/without.json" | tr , '\n' | grep "^$2="
}
# tables calibrated before a figure: the description's number (epyc-milan's)
got=$(without l2_stream_cycles_per_line 'lat\.l1_fill')
[ "$got" = lat.l1_fill=2 ] || fail "a table without l2_stream_cycles_per_line: $got"
got=$(without ll_random_cycles_per_line 'core\.l2_mshrs\|lat\.ll_queue' | tr '\n' ' ')
[ "$got" = "core.l2_mshrs=0 lat.ll_queue=0 " ] || fail "a table without ll_random_cycles_per_line: $got"
got=$(without ll_lost 'lat\.ll_lost')
[ "$got" = lat.ll_lost=0 ] || fail "a table without ll_lost: $got"
got=$(without scheduler 'core\.sched')
[ "$got" = core.sched=0 ] || fail "a table without scheduler: $got"
got=$(without stream_4k_cycles_per_line 'lat\.page_cross')
[ "$got" = lat.page_cross=0 ] || fail "a table without stream_4k_cycles_per_line: $got"

# the nearest description by the table's CPU: family and model as /proc/cpuinfo gives them
near() {
	python3 - "$cal" "$TMP/near.json" "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cpu"] = {"vendor": sys.argv[3], "family": int(sys.argv[4]), "model": int(sys.argv[5])}
json.dump(d, open(sys.argv[2], "w"))
PY
	CA "$TMP/near.json" | cut -d, -f1
}
for c in "AuthenticAMD 23 49 epyc-rome" "AuthenticAMD 25 1 epyc-milan" "AuthenticAMD 25 17 epyc-genoa" "AuthenticAMD 26 2 epyc-turin" \
	"GenuineIntel 6 85 cascadelake" "GenuineIntel 6 207 cascadelake" "GenuineIntel 6 94 skylake"; do
	set -- $c
	[ "$(near "$1" "$2" "$3")" = "core=$4+calibrated" ] || fail "nearest to $1 $2 $3: $(near "$1" "$2" "$3")"
done

# bad FILE LINE: refused with that line, exit 1, nothing on stdout
bad() {
	local rc=0 out
	out=$(CA "$1" 2>"$TMP/err") || rc=$?
	[ "$rc" = 1 ] && [ -z "$out" ] && [ "$(cat "$TMP/err")" = "$2" ] ||
		fail "$1: exit $rc, out '$out', said '$(cat "$TMP/err")', want '$2'"
}
# edit KEY-PATH VALUE: a copy of skylake.json with one change (VALUE null: removed)
edit() {
	python3 - "$ROOT/share/cores/skylake.json" "$TMP/c.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
path, v = sys.argv[3].split("/"), json.loads(sys.argv[4])
o = d
for k in path[:-1]:
    o = o[k]
if v is None:
    del o[path[-1]]
else:
    o[path[-1]] = v
json.dump(d, open(sys.argv[2], "w"))
PY
}
F=$TMP/c.json
bad nosuch "no core named nosuch: the shipped ones are cascadelake, epyc-genoa, epyc-milan, epyc-rome, epyc-turin, skylake, or native"
edit core/window null && bad "$F" "$F: core.window: missing"
edit core/rob 224 && bad "$F" "$F: core.rob: no such field"
edit core/width 0 && bad "$F" "$F: core.width: 0: want a whole number from 1 to 16"
edit core/width 4.5 && bad "$F" "$F: core.width: 4.5: want a whole number from 1 to 16"
edit core/walkers 65 && bad "$F" "$F: core.walkers: 65: want a whole number from 0 to 64"
edit core/l2_mshrs 300 && bad "$F" "$F: core.l2_mshrs: 300: want a whole number from 0 to 256"
edit latency/page_cross 10001 && bad "$F" "$F: latency.page_cross: 10001: want a whole number from 0 to 10000"
edit core/sched 5000 && bad "$F" "$F: core.sched: 5000: want a whole number from 0 to 4096"
edit core/alus 65 && bad "$F" "$F: core.alus: 65: want a whole number from 0 to 64"
edit latency/ll_lost 1000001 && bad "$F" "$F: latency.ll_lost: 1000001: want a whole number from 0 to 1000000"
edit latency/ll_queue 150 && bad "$F" "$F: latency.ll_queue: 150 needs core.l2_mshrs, whose buffers count the misses in flight"
edit sources/core.alus null && bad "$F" "$F: sources.core.alus: missing: every number says where it comes from"
edit prefetch/next_line 3 && bad "$F" "$F: prefetch.next_line: 3: want a whole number from 0 to 2"
edit caches/l2 '"262144:3:64"' && bad "$F" "$F: caches.l2: 262144:3:64: 3 is not a power of two"
edit tlbs/stlb '"1536:12:1"' && bad "$F" "$F: tlbs.stlb: \"1536:12:1\": want \"ENTRIES:ASSOC\""
edit predictor/hist 14 && bad "$F" "$F: predictor.hist: 14 bits index more than the 8192 counters of predictor.cond"
edit predictor/cond 6000 && bad "$F" "$F: predictor.cond: 6000 is not a power of two"
edit predictor/ras 52 && bad "$F" "$F: predictor.ras: 52 is not a power of two"
edit sources/latency.dram null && bad "$F" "$F: sources.latency.dram: missing: every number says where it comes from"
edit kprotperf_core 2 && bad "$F" "$F: not a core description: no \"kprotperf_core\": 1"
edit costs '"../x"' && bad "$F" "$F: costs: \"../x\": want a cost table's name (share/costs/NAME.json)"
edit turbo 1 && bad "$F" "$F: turbo: no such field"
bad "$ROOT/share/costs/skylake.json" "$ROOT/share/costs/skylake.json: a cost table without the core's figures: run kprotperf calibrate (it measures them)"
printf '{"kprotperf_core": 1, "kprotperf_core": 1}' >"$F" && bad "$F" "$F: \"kprotperf_core\" given twice"
head -c 70000 /dev/zero | tr '\0' ' ' >"$F" && bad "$F" "$F: larger than any core description (64 KiB)"
ln -s "$ROOT/share/cores/skylake.json" "$TMP/link.json" && bad "$TMP/link.json" "$TMP/link.json: Too many levels of symbolic links"
bad "$TMP" "$TMP: not a regular file"
echo "core descriptions: $n shipped turned into their arguments, a calibrated table into the nearest with its figures, seven CPUs to their nearest, 26 bad files refused in one line"
