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
# 0); the loop's time is the best of the first less the best of the
# second.  In the VM: one boot per program, `scripts/vm-run.sh --model
# cache -- kprotperf record --model -- model-est KIND N`, then `kprotperf
# report --model --json --costs native`: the est_cycles of the loop's own
# function (kp_est_KIND; totals.user.est_cycles shown beside it, which
# adds the setup).  Per iteration: est_cycles / ghz (the table's) against
# the native ns, the ratio printed with the goal, within 25% (0.75..1.25;
# a miss prints MISSED, not a failure).
#
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
if [ ! -x "$BIN" ] || [ tests/bench/model_est.c -nt "$BIN" ] || [ include/model_marker.h -nt "$BIN" ]; then
	cc -O2 -g -static -Wall tests/bench/model_est.c -o "$BIN" 2>"$TMP/cc.log" ||
		die "building model-est failed: $(tail -1 "$TMP/cc.log")"
fi

# the calibrated table: measured now when there is none
if ! "$KP" calibrate --show --json >"$TMP/costs.json" 2>"$TMP/costs.err"; then
	echo "model_est: $(cat "$TMP/costs.err"); calibrating now"
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
# run_ns KIND N: the program's wall time in ns
run_ns() {
	local s e
	s=$EPOCHREALTIME
	taskset -c "$CPU" "$BIN" "$1" "$2" || die "model-est $1 $2 exited $?"
	e=$EPOCHREALTIME
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.0f\n", (e - s) * 1e9 }'
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

# vm_est KIND: "FUNCTION_EST USER_EST" of the loop's function and of all user code, or why not
vm_est() {
	local k=$1 d=$TMP/vm-$1
	scripts/vm-run.sh --model cache --ro "$(dirname "$BIN")" --out "$d" -- \
		kprotperf record --model -q -o est.data -- /mnt/ro/model-est "$k" "${NVM[$k]}" \
		>"$TMP/vm-$k.log" 2>&1 || { echo "scripts/vm-run.sh: $(tail -1 "$TMP/vm-$k.log")"; return 1; }
	"$KP" report --model --json --costs native -n 1000000 "$d/est.data" >"$TMP/report-$k.json" \
		2>"$TMP/report-$k.err" || { echo "kprotperf report: $(tail -1 "$TMP/report-$k.err")"; return 1; }
	python3 - "$TMP/report-$k.json" "kp_est_$k" <<'PY'
import json, sys
doc, name = json.load(open(sys.argv[1])), sys.argv[2]
def rows(v):
    if isinstance(v, dict):
        yield v
        for x in v.values():
            yield from rows(x)
    elif isinstance(v, list):
        for x in v:
            yield from rows(x)
fn = [r["est_cycles"] for r in rows(doc) if r.get("name") == name and isinstance(r.get("est_cycles"), (int, float))]
user = doc.get("totals", {}).get("user", {}).get("est_cycles")
if not fn:
    print(f"report --model --json has no est_cycles for the function {name}")
    sys.exit(1)
print(fn[0], user if isinstance(user, (int, float)) else "NA")
PY
}

VM_WHY=
declare -A EST USER
if [ "$VM" = 1 ]; then
	for k in "${KINDS[@]}"; do
		if ! out=$(vm_est "$k"); then
			VM_WHY=$out
			break
		fi
		read -r EST[$k] USER[$k] <<<"$out"
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
	echo "native: best of $RUNS runs of N iterations less the best of $RUNS of the setup alone" \
		"(chase ${N[chase]}, fence ${N[fence]}, retpoline ${N[retpoline]}); loop_s: that difference in s"
	echo "table_cyc: the table's cycles for the events each loop makes by construction; table/nat: over ghz, against native"
	if [ -n "$VM_WHY" ]; then
		echo "VM half not run: $VM_WHY"
	else
		echo "VM: est_cycles of kp_est_KIND over ${NVM[chase]} iterations (all user code, setup included:" \
			"chase ${USER[chase]}, fence ${USER[fence]}, retpoline ${USER[retpoline]})"
	fi
} | tee "$OUT/model_est.txt"
[ -z "$VM_WHY" ] || exit 77
