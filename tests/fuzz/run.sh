#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the libFuzzer targets built by `make fuzz-build` ($OUTPUT/fuzz/fuzz_*):
# each first replays its regression inputs (tests/fuzz/regressions/TARGET/,
# every crash ever found), then fuzzes FUZZ_TIME seconds (default 60), or
# FUZZ_RUNS executions when that is set (no time limit then), from its seeds
# (seeds.sh) and the corpus it grew before ($OUTPUT/fuzz/corpus/); with
# FUZZ_FORK=N, in N processes at once (libFuzzer's -fork=N: the executions
# and the limits are the campaign's, summed over its processes).
# Prints one line per target with its executions; exits non-zero on any
# crash, leak, timeout or sanitizer report, whose input is kept under
# $OUTPUT/fuzz/crashes/TARGET/.
# usage: run.sh [TARGET...]   (default: every target built)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${OUTPUT:-build}/fuzz")
time=${FUZZ_TIME:-60}
runs=${FUZZ_RUNS:-}
fork=${FUZZ_FORK:-}
[[ -z $runs || $runs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_RUNS must be a positive integer"; exit 1; }
[[ -z $fork || $fork =~ ^[1-9][0-9]?$ ]] || { echo "fuzz: FUZZ_FORK must be a number of processes, 1 to 99"; exit 1; }
[[ $time =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_TIME must be a positive integer"; exit 1; }

# seeds made anew when seeds.sh or the files they come from changed
seeds=$out/seeds
if [ ! -d "$seeds" ] || [ -n "$(find tests/fuzz/seeds.sh tests/golden share/features.conf share/costs docs/sweep tests/unit/model \
	-newer "$seeds" -print -quit)" ]; then
	tests/fuzz/seeds.sh "$seeds" || { echo "fuzz: seeds.sh failed"; exit 1; }
fi
export KP_FUZZ_VMLINUX=$seeds/vmlinux.elf KP_FUZZ_SYMFS=$seeds/symfs KP_FUZZ_RECORDINGS=$seeds/recordings

fuzz_one() {	# $1: target
	local t=$1 bin=$out/fuzz_$1 regs=tests/fuzz/regressions/$1 log execs rate
	local crashes=$out/crashes/$1 corpus=$out/corpus/$1 status limit start secs
	mkdir -p "$crashes" "$corpus"
	log=$(mktemp)
	if compgen -G "$regs/*" >/dev/null; then
		if ! "$bin" -close_fd_mask=2 "$regs"/* >"$log" 2>&1; then
			echo "FAIL fuzz $t: a regression input of $regs crashes again:"
			grep -E 'Running:|ERROR|SUMMARY|runtime error' "$log" | head -20 | sed 's/^/    /'
			rm -f "$log"
			return 1
		fi
	fi
	limit=(-max_total_time="$time")
	[ -z "$runs" ] || limit=(-runs="$runs")
	[ -z "$fork" ] || limit+=(-fork="$fork")
	start=$SECONDS
	"$bin" "${limit[@]}" -timeout=60 -close_fd_mask=2 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$corpus" "$seeds/$t" >"$log" 2>&1
	status=$?
	secs=$((SECONDS - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	# -fork's parent prints no final stats: its last progress line counts all processes
	if [ -n "$fork" ]; then
		execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
		rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
	fi
	if [ $status -eq 0 ]; then
		echo "PASS fuzz $t: ${execs:-0} executions in ${secs}s (${rate:-0}/s), no crash," \
			"corpus $(ls "$corpus" | wc -l)"
	else
		echo "FAIL fuzz $t (exit $status) after ${execs:-?} executions; input kept in" \
			"$crashes/, to be fixed and then added to $regs/:"
		grep -E -A12 '^==[0-9]+==ERROR|runtime error|^SUMMARY|Test unit written' "$log" |
			head -40 | sed 's/^/    /'
	fi
	rm -f "$log"
	return $status
}

if [ $# -eq 0 ]; then
	set --
	for b in "$out"/fuzz_*; do [ -x "$b" ] && set -- "$@" "${b##*/fuzz_}"; done
fi
rc=0
for t in "$@"; do
	if [ ! -x "$out/fuzz_$t" ]; then
		echo "FAIL fuzz $t: no $out/fuzz_$t (make fuzz-build)"
		rc=1
		continue
	fi
	fuzz_one "$t" || rc=1
done
exit $rc
