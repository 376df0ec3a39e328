#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How long does opening a recording take, every check of it included,
# against the reference commit (BENCH_REF, default 9e71bf7: before opening
# checked each row in C, configured SQLite once and attached the tables an
# older schema lacks)?  tests/bench/open_bench.c is built against this
# tree's build/libkp.a and against the reference's, which is built from
# `git archive` of that commit into build/bench/ref-COMMIT (kept for the
# next run).  Each opens every golden recording (tests/golden/data, the
# current schema and, in old/, schema 4) ROUNDS x N times; the fastest
# round's time per open counts.  The two run alternately BENCH_RUNS times
# (default 5), the first of each pair swapped every time, and the median
# counts.  Then, for what a user sees, each build's `kprotperf report FILE`
# CPU time (perf stat's task-clock, best of BENCH_RUNS), whose rest is
# mostly naming the recorded stacks.
#
# Exit: 0 when every recording opens in <= 0.50x the reference's time, 1
# otherwise or when a build fails, 77 when skipped (./kprotperf not built,
# or the reference commit is not in this clone).
# Results: build/bench/open.tsv.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/bench
REF=${BENCH_REF:-9e71bf7}
RUNS=${BENCH_RUNS:-5}
ROUNDS=3
N=40
LIBS=(-lbpf -ldw -lelf -lz -lsqlite3 -lcapstone -lm)
FILES=(tests/golden/data/*.data tests/golden/data/old/*.data)

skip() {
	echo "skipped: $*"
	exit 77
}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "open: BENCH_RUNS must be a positive integer" >&2; exit 1; }
[ -x ./kprotperf ] && [ -f build/libkp.a ] || skip "./kprotperf not built (make)"
command -v perf >/dev/null || skip "perf not installed (Debian package linux-perf)"
sha=$(git rev-parse --verify -q "$REF^{commit}") || skip "commit $REF is not in this clone"
ref=$OUT/ref-${sha:0:12}
mkdir -p "$OUT"

# the reference's tree, built once
if [ ! -x "$ref/kprotperf" ]; then
	rm -rf "$ref.tmp" && mkdir -p "$ref.tmp"
	git archive "$sha" | tar -x -C "$ref.tmp"
	make -s -C "$ref.tmp" -j"$(nproc)" kprotperf >"$OUT/ref-build.log" 2>&1 ||
		{ tail -5 "$OUT/ref-build.log"; echo "open: the build of $REF failed" >&2; exit 1; }
	rm -rf "$ref" && mv "$ref.tmp" "$ref"
fi
# open_bench against a tree: $1 the tree, $2 the binary
bench_for() {
	cc -O2 -D_GNU_SOURCE -I"$1/include" -iquote "$1/src" -I"$1/build" \
		tests/bench/open_bench.c "$1/build/libkp.a" "${LIBS[@]}" -o "$2"
}
bench_for "$ref" "$OUT/open_bench.ref"
bench_for "$ROOT" "$OUT/open_bench.new"

WORK=$(mktemp -d /tmp/kp-bench-open.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
for ((r = 0; r < RUNS; r++)); do
	order=(ref new)
	((r % 2)) && order=(new ref)
	for b in "${order[@]}"; do
		"$OUT/open_bench.$b" "$ROUNDS" "$N" "${FILES[@]}" >>"$WORK/$b"
	done
done
# report's CPU time, best of RUNS: $1 the binary, $2 the file
report_cpu() {
	local best="" t
	for ((r = 0; r < RUNS; r++)); do
		perf stat -x, -e task-clock -o "$WORK/time" "$1" report "$2" >/dev/null 2>&1
		t=$(awk -F, '$3 == "task-clock" { printf "%.1f", $1 }' "$WORK/time")
		if [ -z "$best" ] || (($(echo "$t < $best" | bc))); then best=$t; fi
	done
	echo "$best"
}
{
	printf 'recording\tref_open_us\tnew_open_us\tratio\tref_report_ms\tnew_report_ms\n'
	for f in "${FILES[@]}"; do
		a=$(awk -v f="$f" '$1 == f { print $2 }' "$WORK/ref" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		b=$(awk -v f="$f" '$1 == f { print $2 }' "$WORK/new" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		printf '%s\t%s\t%s\t%.2f\t%s\t%s\n' "${f#tests/golden/data/}" "$a" "$b" \
			"$(echo "$b / $a" | bc -l)" "$(report_cpu "$ref/kprotperf" "$f")" \
			"$(report_cpu ./kprotperf "$f")"
	done
} >"$OUT/open.tsv"

echo "Opening a recording (every check), median of $RUNS runs of the best of $ROUNDS x $N opens,"
echo "this tree against $REF (${sha:0:12}); report: CPU ms of one process, best of $RUNS"
column -t -s $'\t' "$OUT/open.tsv"
missed=$(awk -F'\t' 'NR > 1 && $4 > 0.50 { print $1 }' "$OUT/open.tsv")
if [ -n "$missed" ]; then
	echo "MISSED: open <= 0.50x $REF's time: $missed"
	exit 1
fi
echo "goal met: every recording opens in <= 0.50x $REF's time"
