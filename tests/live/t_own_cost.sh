#!/bin/bash
# kprotperf's own cost: its BPF programs' samples are one "[kprotperf probe]"
# frame (no bpf_prog_*_kp_* or BPF glue frame left in folded output or in the
# kernel function table), report's own-cost figures agree with the kernel's
# BPF statistics (record --bpf-stats; none without it) and the samples, and
# record --no-syscalls loads no syscall programs and says so.
. "$(dirname "$0")/lib.sh"
need_bpf
command -v python3 >/dev/null || skip "needs python3"
N=200000
"$KP" record -q -F 999 --bpf-stats -o "$TMP/k.data" -- "$ROOT/syscall-loop" $N >/dev/null || fail "record exited $?"
"$KP" report --json "$TMP/k.data" >"$TMP/k.json" || fail "report --json exited $?"
"$KP" report "$TMP/k.data" >"$TMP/k.txt" || fail "report exited $?"
"$KP" folded "$TMP/k.data" >"$TMP/k.folded" || fail "folded exited $?"

# JSON: every figure, whole fields compared
python3 - "$TMP/k.json" $N <<'PY' || fail "report --json's own_cost"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
c = d["own_cost"]; progs = {p["name"]: p for p in c["programs"]}
def check(ok, what):
    if not ok:
        sys.exit("own_cost: %s: %s" % (what, json.dumps(c)))
check(d["meta"]["record.syscalls"] == "traced", "record.syscalls %r" % d["meta"].get("record.syscalls"))
check(c["bpf_stats"] is True, "no kernel BPF stats")
# each getppid runs sys_enter and sys_exit once (the programs run for every task: >=)
enter, exit_ = progs["kp_sys_enter"]["runs"], progs["kp_sys_exit"]["runs"]
check(enter >= d["counters"]["syscalls"] >= n and exit_ >= n, "runs %d/%d < %d syscalls" % (enter, exit_, n))
check(c["runs"] == sum(p["runs"] for p in progs.values()) >= 2 * n, "total runs")
check(c["run_time_ns"] == sum(p["run_time_ns"] for p in progs.values()) > 0, "total time")
check(abs(c["ns_per_run"] - c["run_time_ns"] / c["runs"]) < 1e-6 * c["ns_per_run"], "ns per run")
check(0 < c["ns_per_run"] < 1e6, "ns per run implausible")
all_ = d["counters"]["samples"]
check(c["samples_pct"] is None if not all_ else abs(c["samples_pct"] - 100.0 * c["samples"] / all_) < 1e-9, "samples_pct")
kf = {f["name"]: f for f in d["kernel_functions"]}
probe = kf.get("[kprotperf probe]", {"self_samples": 0, "total_samples": 0})
check(probe["self_samples"] == probe["total_samples"] == c["samples"], "kernel table's probe row")
# another tool's programs on the same tracepoints (a busy machine) are kept,
# named, with their glue: then only ours must be gone
foreign = [f for f in kf if f.startswith("bpf_prog_") and "_kp_" not in f]
glue = lambda f: f.startswith(("bpf_trace_run", "__bpf_trace_"))
bad = [f for f in kf if (f.startswith("bpf_prog_") and "_kp_" in f) or (glue(f) and not foreign)]
check(not bad, "kernel functions %s (foreign programs: %s)" % (bad, foreign))
PY

# folded: the probe is cut out, and was there to cut (the ksyms table names
# the programs the raw stacks went through)
# a stack through another tool's program keeps its glue frames (see above)
if grep -Ev '(^|;)bpf_prog_[0-9a-f]{16}_[^;]*_\[k\]' "$TMP/k.folded" |
	grep -Eq '(^|;)(bpf_trace_run[0-9]+|__bpf_trace_[^;]*)_\[k\]' ||
	grep -Eq '(^|;)bpf_prog_[0-9a-f]{16}_kp_[^;]*_\[k\]' "$TMP/k.folded"; then
	fail "probe frames left in folded output: $(grep -Em3 'bpf_prog_|bpf_trace_run|__bpf_trace_' "$TMP/k.folded")"
fi
raw=$(q "$TMP/k.data" "SELECT COUNT(*) FROM ksyms WHERE name GLOB 'bpf_prog_*_kp_*' OR name GLOB 'bpf_trace_run*'")
folded=$(grep -F '[kprotperf probe]_[k] ' "$TMP/k.folded" | awk '{ n += $NF } END { print n + 0 }')
samples=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["own_cost"]["samples"])' "$TMP/k.json")
[ "$folded" = "$samples" ] || fail "folded has $folded samples in [kprotperf probe], report $samples"
[ "$raw" -eq 0 ] || [ "$folded" -gt 0 ] || fail "the stacks went through kprotperf's programs, no [kprotperf probe] frame"
grep -Eq "^# kprotperf's own BPF programs: ([0-9.]+% of samples \($samples\)|no samples); .* in [0-9,]+ runs \([0-9]+ ns per run\) \(kernel BPF stats\)$" "$TMP/k.txt" ||
	fail "report's own-cost line: $(grep "own BPF" "$TMP/k.txt")"

# --no-syscalls: no syscall programs, no syscall rows, and the report says so
"$KP" record -q --no-syscalls --bpf-stats -o "$TMP/n.data" -- "$ROOT/syscall-loop" $N >/dev/null || fail "record --no-syscalls exited $?"
"$KP" report --json "$TMP/n.data" >"$TMP/n.json" || fail "report --json exited $?"
python3 - "$TMP/n.json" <<'PY' || fail "--no-syscalls report --json"
import json, sys
d = json.load(open(sys.argv[1]))
progs = sorted(p["name"] for p in d["own_cost"]["programs"])
for what, got, want in [("syscalls", d["syscalls"], None),
                        ("record.syscalls", d["meta"]["record.syscalls"], "off"),
                        ("counters.syscalls", d["counters"]["syscalls"], 0),
                        ("syscall programs", [p for p in progs if p.startswith("kp_sys_")], []),
                        ("bpf_stats", d["own_cost"]["bpf_stats"], True),
                        # the rest is recorded: a program's first run faults its pages in
                        ("page faults recorded", d["counters"]["page_faults_user"] > 0, True)]:
    if got != want:
        sys.exit("--no-syscalls: %s is %r, want %r" % (what, got, want))
PY
[ "$(q "$TMP/n.data" "SELECT COUNT(*) FROM latency WHERE kind = 'syscall'")" = 0 ] || fail "--no-syscalls recorded syscall rows"
"$KP" report "$TMP/n.data" | grep -qx 'Syscalls not traced (record --no-syscalls)' || fail "report does not say syscalls were not traced"
"$KP" record --help | grep -q -- '--no-syscalls' || fail "--no-syscalls not in record --help"

# without --bpf-stats: no statistics stored, none claimed
"$KP" record -q -o "$TMP/d.data" -- "$ROOT/syscall-loop" 1000 >/dev/null || fail "record exited $?"
[ "$(q "$TMP/d.data" "SELECT COUNT(*) FROM counters WHERE name LIKE 'bpf_run%'")" = 0 ] ||
	fail "BPF statistics stored without --bpf-stats"
"$KP" report --json "$TMP/d.data" | python3 -c '
import json, sys
c = json.load(sys.stdin).get("own_cost")
if c is not None and (c["bpf_stats"], c["runs"], c["programs"]) != (False, None, []):
    sys.exit("own_cost without --bpf-stats: %s" % json.dumps(c))' || fail "report --json without --bpf-stats"
echo "own cost: $(grep "own BPF" "$TMP/k.txt")"
