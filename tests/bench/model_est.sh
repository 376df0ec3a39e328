#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# est_cycles against native time (a part of `make bench`): the machine
# model's estimated cycles, weighed by this machine's calibrated cost table
# (kprotperf calibrate; --costs native), against the time the same loops
# take natively, for three static user programs whose cost is mostly one
# thing (tests/bench/model_est.c):
#   chase       a random pointer chase over 256 MiB of 4 KiB pages: every
#               load misses L1, LL and the TLB
#   fence       a store, LFENCE, an add, MFENCE
#   retpoline   a call through a retpoline thunk (Linux's
#               __x86_indirect_thunk_rax) to a function that returns
# Natively: each program pinned to one CPU, BENCH_EST_RUNS (default 5)
# interleaved runs of its loop of N iterations and of its setup alone (N =
# 0), each timed by its CPU time (user + system: what else ran on the CPU
# is left out); the loop's time is the best of the first less the best of
# the second.  In the VM: one boot per program, `scripts/vm-run.sh --model
# cache -- kprotperf record --model -- model-est KIND N`, then `kprotperf
# report --model --json --costs native`: the est_cycles of the loop's
# functions (kp_est_chase; kp_est_fence; kp_est_retpoline, the thunk
# __x86_indirect_thunk_rax and its target kp_est_target), summed;
# totals.user.est_cycles shown beside it, which adds the setup.  Per iteration: est_cycles / ghz (the table's) against
# the native ns, the ratio printed with the goal, within 25% (0.75..1.25;
# a miss prints MISSED, not a failure).
#
# The table is calibrated anew first (kprotperf calibrate, written where
# --costs native finds it; BENCH_EST_CALIBRATE=0 takes the one saved).
# BENCH_EST_RUNS, BENCH_EST_VM=0 (the native half only), KP (default
# ./kprotperf), OUTPUT (default build: results in OUTPUT/bench/model_est.txt).
# Exit: 0 when both halves ran, 77 when the VM half could not (the native
# figures are printed, and why not in one line), 1 when the native half
# failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
KP=${KP:-$ROOT/kprotperf}
OUT=${OUTPUT:-$ROOT/build}/bench
RUNS=${BENCH_EST_RUNS:-5}
VM=${BENCH_EST_VM:-1}
KINDS=(chase fence retpoline)
# iterations natively (~1 s, 0.4 s and 0.2 s here) and in the VM (est_cycles is per iteration)
declare -A N=([chase]=4194304 [fence]=16777216 [retpoline]=33554432)
declare -A NVM=([chase]=1048576 [fence]=1048576 [retpoline]=1048576)
# the functions the loop runs in
declare -A FUNCS=([chase]=kp_est_chase [fence]=kp_est_fence
	[retpoline]="kp_est_retpoline __x86_indirect_thunk_rax kp_est_target")

die() {
	echo "model_est: $*" >&2
	exit 1
}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_EST_RUNS must be a positive integer, not '$RUNS'"
[ -x "$KP" ] || die "no $KP: run make"
mkdir -p "$OUT/model-est"
TMP=$(mktemp -d /tmp/kp-model-est.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

BIN=$OUT/model-est/model-est
if [ ! -x "$BIN" ] || [ tests/bench/model_est.c -nt "$BIN" ] || [ include/model_marker.h -nt "$BIN" ] || [ include/retpoline_thunk.h -nt "$BIN" ]; then
	cc -O2 -g -static -Wall tests/bench/model_est.c -o "$BIN" 2>"$TMP/cc.log" ||
		die "building model-est failed: $(tail -1 "$TMP/cc.log")"
fi

# this machine's table, calibrated anew (BENCH_EST_CALIBRATE=0: the one saved
# before, if any): a host whose load moves moves memory latencies with it,
# so the table and the native runs are best measured together
if [ "${BENCH_EST_CALIBRATE:-1}" = 0 ] && "$KP" calibrate --show --json >"$TMP/costs.json" 2>/dev/null; then
	echo "model_est: the table calibrated before: $("$KP" calibrate --show | head -1)"
else
	echo "model_est: kprotperf calibrate (~10 s), into its native table"
	"$KP" calibrate >"$TMP/calibrate.log" 2>&1 || die "kprotperf calibrate failed: $(tail -1 "$TMP/calibrate.log")"
	"$KP" calibrate --show --json >"$TMP/costs.json" || die "no calibrated table after calibrate"
fi
read -r GHZ COSTS_NAME < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["ghz"], d["name"])' "$TMP/costs.json")
# What the table predicts per iteration from the events each loop makes by
# construction, the model's counts as they should come out: chase, 1.75
# instructions a load (4 loads, sub, cmp, jg) and its L1, LL and TLB miss;
# fence, 6 instructions, an LFENCE and an MFENCE; retpoline, 8 instructions
# (lea, call, the thunk's call, mov and ret, the target's ret, dec, jnz),
# two returns and a retpoline.
declare -A TABLE
while read -r k v; do TABLE[$k]=$v; done < <(python3 - "$TMP/costs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, cpi = d["costs"], d["cpi"]
print("chase", 1.75 * cpi + c["d1_miss"] + c["ll_miss"] + c["dtlb_miss"])
print("fence", 6 * cpi + c["lfence"] + c["mfence"])
print("retpoline", 8 * cpi + 2 * c["ret"] + c["retpoline"])
PY
)

# the last CPU: the loops pinned where the machine's interrupts are fewest
CPU=$(($(nproc) - 1))
# run_ns KIND N: the program's CPU time (user + system, from wait4's
# rusage, to the microsecond) in ns: the time other processes ran on its
# CPU meanwhile is not its own, as wall time would count it on a busy machine
run_ns() {
	python3 - "$CPU" "$BIN" "$1" "$2" <<'PY' || die "model-est $1 $2 failed"
import os, sys
cpu, argv = int(sys.argv[1]), sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.sched_setaffinity(0, {cpu})
    os.execv(argv[0], argv)
_, status, ru = os.wait4(pid, 0)
if os.waitstatus_to_exitcode(status):
    sys.exit(1)
print(round((ru.ru_utime + ru.ru_stime) * 1e9))
PY
}

declare -A BEST0 BEST1
echo "model_est: $RUNS interleaved native runs per program, CPU $CPU ($(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg))"
for ((r = 0; r < RUNS; r++)); do
	for k in "${KINDS[@]}"; do
		t0=$(run_ns "$k" 0)
		t1=$(run_ns "$k" "${N[$k]}")
		[ -n "${BEST0[$k]:-}" ] && [ "${BEST0[$k]}" -le "$t0" ] || BEST0[$k]=$t0
		[ -n "${BEST1[$k]:-}" ] && [ "${BEST1[$k]}" -le "$t1" ] || BEST1[$k]=$t1
	done
done

# vm_est KIND: "FUNCTIONS_EST USER_EST RETPOLINES" of the loop's functions
# (their est_cycles and retpoline entries) and of all user code, or why not
vm_est() {
	local k=$1 d=$TMP/vm-$1
	scripts/vm-run.sh --model cache --ro "$(dirname "$BIN")" --out "$d" -- \
		kprotperf record --model -q -o est.data -- /mnt/ro/model-est "$k" "${NVM[$k]}" \
		>"$TMP/vm-$k.log" 2>&1 || { echo "scripts/vm-run.sh: $(tail -1 "$TMP/vm-$k.log")"; return 1; }
	"$KP" report --model --json --costs native -n 1000000 "$d/est.data" >"$TMP/report-$k.json" \
		2>"$TMP/report-$k.err" || { echo "kprotperf report: $(tail -1 "$TMP/report-$k.err")"; return 1; }
	# shellcheck disable=SC2086 # a list of names
	python3 - "$TMP/report-$k.json" ${FUNCS[$k]} <<'PY'
import json, sys
doc, names = json.load(open(sys.argv[1])), sys.argv[2:]
def rows(v):
    if isinstance(v, dict):
        yield v
        for x in v.values():
            yield from rows(x)
    elif isinstance(v, list):
        for x in v:
            yield from rows(x)
if doc.get("tlb") is False or doc.get("events") is False:
    fmt = doc.get("model", {}).get("format", "?")
    print(f"the model counted no TLB misses or events (a table of format {fmt}: a plugin without them)")
    sys.exit(1)
est, rp = {}, {}
for r in rows(doc):
    if r.get("name") in names and isinstance(r.get("est_cycles"), (int, float)):
        est.setdefault(r["name"], r["est_cycles"])
        rp.setdefault(r["name"], r.get("retpolines") or 0)
user = doc.get("totals", {}).get("user", {}).get("est_cycles")
missing = [n for n in names if n not in est]
if missing:
    print(f"report --model --json has no est_cycles for the function {missing[0]}")
    sys.exit(1)
print(sum(est.values()), user if isinstance(user, (int, float)) else "NA", sum(rp.values()))
PY
}

VM_WHY=
declare -A EST USER RP
if [ "$VM" = 1 ]; then
	for k in "${KINDS[@]}"; do
		if ! out=$(vm_est "$k"); then
			VM_WHY=$out
			break
		fi
		read -r "EST[$k]" "USER[$k]" "RP[$k]" <<<"$out"
	done
else
	VM_WHY="BENCH_EST_VM=0"
fi

{
	echo "est_cycles (estimate, costs: $COSTS_NAME, $GHZ GHz) against native time, per iteration"
	printf '%-10s %10s %8s %10s %9s %10s %9s %10s  %s\n' program native_ns loop_s table_cyc table/nat \
		est_cycles est_ns est/native "goal: within 25%"
	for k in "${KINDS[@]}"; do
		awk -v k="$k" -v n="${N[$k]}" -v nvm="${NVM[$k]}" -v b0="${BEST0[$k]}" -v b1="${BEST1[$k]}" \
			-v est="${EST[$k]:-}" -v ghz="$GHZ" -v t="${TABLE[$k]}" 'BEGIN {
			ns = (b1 - b0) / n
			printf "%-10s %10.2f %8.3f %10.1f %9.2f ", k, ns, (b1 - b0) / 1e9, t, t / ghz / ns
			if (est == "") {
				printf "%10s %9s %10s  %s\n", "-", "-", "-", "VM not run"
				exit
			}
			c = est / nvm; e = c / ghz; r = e / ns
			printf "%10.1f %9.2f %10.2f  %s\n", c, e, r, (r >= 0.75 && r <= 1.25) ? "met" : "MISSED"
		}'
	done
	echo "native: CPU time, best of $RUNS runs of N iterations less the best of $RUNS of the setup alone" \
		"(chase ${N[chase]}, fence ${N[fence]}, retpoline ${N[retpoline]}); loop_s: that difference in s"
	echo "table_cyc: the table's cycles for the events each loop makes by construction; table/nat: over ghz, against native"
	if [ -n "$VM_WHY" ]; then
		echo "VM half not run: $VM_WHY"
	else
		echo "VM: est_cycles of the loops' functions over ${NVM[chase]} iterations (all user code, setup included:" \
			"chase ${USER[chase]}, fence ${USER[fence]}, retpoline ${USER[retpoline]})"
		# spec 45 §4 counts the entries of the kernel's thunks: a user program's are not
		[ "${RP[retpoline]}" != 0 ] ||
			echo "note: the model counted no retpoline entries in the retpoline loop: the views count" \
				"the entries of kernel thunks only, not of a user program's __x86_indirect_thunk_rax," \
				"so its est_cycles lacks their cost"
	fi
} | tee "$OUT/model_est.txt"
[ -z "$VM_WHY" ] || exit 77
