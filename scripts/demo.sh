#!/bin/bash
# The whole tour on this machine: record big-fork, report it, write folded stacks.
# DEMO_DIR: where its files go (default demo); DEMO_FORKS: big-fork's forks
# (default 1000); DEMO_FREQ: the sampling frequency in Hz (default 99,
# record's): more of either, more samples and distinct stacks.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${DEMO_DIR:-demo}
forks=${DEMO_FORKS:-1000}
freq=${DEMO_FREQ:-99}
mkdir -p "$out"
echo "== kprotperf record -F $freq -o $out/big-fork.data -- ./big-fork $forks"
./kprotperf record -F "$freq" -o "$out/big-fork.data" -- ./big-fork "$forks"
echo
echo "== kprotperf report $out/big-fork.data"
./kprotperf report --top 12 "$out/big-fork.data"
echo
echo "== kprotperf report --hist clone $out/big-fork.data"
./kprotperf report --hist clone "$out/big-fork.data" | sed -n '/entry to return/,/^$/p'
./kprotperf folded "$out/big-fork.data" > "$out/big-fork.folded"
echo
echo "== folded stacks: $out/big-fork.folded ($(wc -l < "$out/big-fork.folded") stacks); hottest:"
# the three largest counts (the last field: a frame may hold a space), in
# one process: under pipefail, `sort | head -3` failed the demo with
# SIGPIPE (141) whenever head exited before sort had written everything
awk '{
	c = $NF + 0
	if (n < 3)
		n++
	else if (c <= top[n])
		next
	for (i = n; i > 1 && c > top[i - 1]; i--) {
		top[i] = top[i - 1]
		line[i] = line[i - 1]
	}
	top[i] = c
	line[i] = $0
}
END { for (i = 1; i <= n; i++) print line[i] }' "$out/big-fork.folded"
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
