#!/bin/bash
# The whole tour on this machine: record big-fork, report it, write folded stacks.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${DEMO_DIR:-demo}
mkdir -p "$out"
echo "== kprotperf record -o $out/big-fork.data -- ./big-fork 1000"
./kprotperf record -o "$out/big-fork.data" -- ./big-fork 1000
echo
echo "== kprotperf report $out/big-fork.data"
./kprotperf report --top 12 "$out/big-fork.data"
echo
echo "== kprotperf report --hist clone $out/big-fork.data"
./kprotperf report --hist clone "$out/big-fork.data" | sed -n '/entry to return/,/^$/p'
./kprotperf folded "$out/big-fork.data" > "$out/big-fork.folded"
echo
echo "== folded stacks: $out/big-fork.folded ($(wc -l < "$out/big-fork.folded") stacks); hottest:"
sort -t' ' -k2 -nr "$out/big-fork.folded" | head -3
if command -v flamegraph.pl > /dev/null; then
	flamegraph.pl "$out/big-fork.folded" > "$out/big-fork.svg"
	echo "flame graph: $out/big-fork.svg"
else
	echo "render it with: flamegraph.pl $out/big-fork.folded > big-fork.svg"
fi
echo
echo "== kprotperf record --repeat 5, twice, and kprotperf diff: one kernel, so nothing"
echo "   should stand out (on a baseline and a hardened kernel, this is the tool's answer)"
./kprotperf record -q -r 5 -o "$out/a.data" -- ./alloc-free 8
./kprotperf record -q -r 5 -o "$out/b.data" -- ./alloc-free 8
./kprotperf diff --top 5 "$out/a.data" "$out/b.data" | sed -n '1,/^Syscalls: on-CPU/p'
