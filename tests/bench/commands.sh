#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How long the reading commands take, as a user waits for them (issue 56):
# report, report --json, folded, annotate of a user function, diff and
# diff --folded of the golden recordings and of make demo's pair, this
# tree's ./kprotperf against 9e71bf7's and af47e8b's (BENCH_REFS), each
# built from `git archive` into build/bench/ref-COMMIT (kept, as open.sh
# does).  The three binaries run interleaved BENCH_RUNS times (default 7),
# the first of each round turning; the median wall time counts, and the
# largest peak RSS (/usr/bin/time %M).  A reference that cannot read a
# recording (a newer schema) shows "-" and is no goal.  make demo's pair is
# recorded once into build/bench/demo (root).
#
# Goals: report --top 1 of old/v4-sl.data (the sl recording 9e71bf7 can
# read) <= 0.50x 9e71bf7's time; every command <= 1.0x its time and
# <= 1.2x its peak memory where it reads the recording; diff of the demo
# pair <= 100 ms.  Exit 1 when one is missed or a build fails, 77 skipped.
# Results: build/bench/commands.tsv.
set -euo pipefail

cd "$(dirname "$0")/../.."
OUT=$PWD/build/bench
RUNS=${BENCH_RUNS:-7}
read -r -a REFS <<<"${BENCH_REFS:-9e71bf7 af47e8b}"
D=tests/golden/data
skip() {
	echo "skipped: $*"
	exit 77
}
[ -x ./kprotperf ] || skip "./kprotperf not built (make)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time (Debian package time)"
mkdir -p "$OUT/demo"

# $1 a commit: its binary, built once from git archive
ref_bin() {
	local sha ref
	sha=$(git rev-parse --verify -q "$1^{commit}") || skip "commit $1 is not in this clone"
	ref=$OUT/ref-${sha:0:12}
	if [ ! -x "$ref/kprotperf" ]; then
		rm -rf "$ref.tmp" && mkdir -p "$ref.tmp"
		git archive "$sha" | tar -x -C "$ref.tmp"
		make -s -C "$ref.tmp" -j2 kprotperf >"$OUT/ref-build.log" 2>&1 ||
			{ echo "commands: the build of $1 failed" >&2; exit 1; }
		rm -rf "$ref" && mv "$ref.tmp" "$ref"
	fi
	echo "$ref/kprotperf"
}
BINS=()
for r in "${REFS[@]}"; do BINS+=("$(ref_bin "$r")"); done
BINS+=("$PWD/kprotperf")
NAMES=("${REFS[@]}" now)

if [ ! -s "$OUT/demo/b.data" ]; then
	[ "$(id -u)" = 0 ] || skip "make demo's pair is not recorded and recording needs root"
	make -s alloc-free >/dev/null
	./kprotperf record -q -r 5 -o "$OUT/demo/a.data" -- ./alloc-free 8
	./kprotperf record -q -r 5 -o "$OUT/demo/b.data" -- ./alloc-free 8
fi
CMDS=("report --top 1 $D/sl.data" "report --top 1 $D/old/v4-sl.data" "report $D/burn.data"
	"report $D/old/v4-burn.data" "report --json $D/sl.data" "folded $D/sl.data"
	"folded $D/old/v4-sl.data" "annotate --func __libc_start_call_main $D/sl.data"
	"diff $D/bf-a.data $D/bf-b.data" "diff $D/old/v4-bf-a.data $D/old/v4-bf-b.data"
	"diff --folded $D/bf-a.data $D/bf-b.data" "report $OUT/demo/a.data"
	"diff $OUT/demo/a.data $OUT/demo/b.data")

WORK=$(mktemp -d /tmp/kp-bench-cmds.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# one run: "ms rss_kb" of binary $1 running $2..., "- -" when it fails
one() {
	local t0 t1 b=$1
	shift
	t0=$(date +%s%N)
	# shellcheck disable=SC2068  # the command's words
	if /usr/bin/time -f %M -o "$WORK/rss" "$b" $@ >/dev/null 2>&1; then
		t1=$(date +%s%N)
		echo "$(((t1 - t0) / 1000)) $(tail -1 "$WORK/rss")"
	else
		echo "- -"
	fi
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR && v[1] != "-") print v[int((NR + 1) / 2)]; else print "-" }'; }
for ((c = 0; c < ${#CMDS[@]}; c++)); do
	for ((r = 0; r < RUNS; r++)); do
		for ((k = 0; k < ${#BINS[@]}; k++)); do
			i=$(((k + r) % ${#BINS[@]}))
			one "${BINS[i]}" "${CMDS[c]}" >>"$WORK/$c.$i"
		done
	done
done
{
	printf 'command'
	for n in "${NAMES[@]}"; do printf '\t%s_ms' "$n"; done
	printf '\tratio_%s\tratio_%s' "${NAMES[0]}" "${NAMES[1]}"
	for n in "${NAMES[@]}"; do printf '\t%s_rss_kb' "$n"; done
	printf '\n'
	for ((c = 0; c < ${#CMDS[@]}; c++)); do
		ms=() rss=()
		for ((i = 0; i < ${#BINS[@]}; i++)); do
			ms+=("$(awk '{ print $1 }' "$WORK/$c.$i" | median)")
			rss+=("$(awk '{ print $2 }' "$WORK/$c.$i" | sort -n | tail -1)")
		done
		ratio() { [ "$1" = - ] && echo - || awk -v a="$2" -v b="$1" 'BEGIN { printf "%.2f", a / b }'; }
		printf '%s' "${CMDS[c]//$OUT\//build\/bench\/}"
		for ((i = 0; i < ${#BINS[@]}; i++)); do
			[ "${ms[i]}" = - ] && printf '\t-' || printf '\t%.1f' "$(echo "${ms[i]} / 1000" | bc -l)"
		done
		printf '\t%s\t%s' "$(ratio "${ms[0]}" "${ms[2]}")" "$(ratio "${ms[1]}" "${ms[2]}")"
		printf '\t%s' "${rss[@]}"
		printf '\n'
	done
} >"$OUT/commands.tsv"

echo "Reading commands: median wall ms of $RUNS interleaved runs, peak RSS KB; - : cannot read it"
column -t -s $'\t' "$OUT/commands.tsv"
missed=$(awk -F'\t' 'NR > 1 && $2 != "-" {
	if ($1 ~ /report --top 1 .*v4-sl/ && $5 > 0.50) print $1 " (time > 0.50x)"
	else if ($5 > 1.0) print $1 " (time > 1.0x)"
	if ($9 > 1.2 * $7) print $1 " (memory > 1.2x)" }
	NR > 1 && $1 ~ /^diff build\/bench\/demo/ && $4 > 100 { print $1 " (> 100 ms)" }' "$OUT/commands.tsv")
if [ -n "$missed" ]; then
	printf 'MISSED: %s\n' "$missed"
	exit 1
fi
echo "goals met: every command <= 1.0x ${NAMES[0]}'s time and 1.2x its memory, report --top 1 <= 0.50x, demo diff <= 100 ms"
