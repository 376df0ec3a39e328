#!/bin/bash
# scripts/demo.sh (make demo) runs to its end three times over one folder,
# with a folded file of over 1,000 stacks (~350 KiB, more than a pipe
# holds): its `sort | head -3` under pipefail died of SIGPIPE (exit 141)
# when head exited before sort had written everything.  Each run prints
# its sections in order, the stack count of the folded file, and as the
# hottest the three largest counts of it.
. "$(dirname "$0")/lib.sh"
need_bpf
# the demo runs the checkout's ./kprotperf, not $KP: the plain tier covers it
[ "${KP_ASAN:-0}" = 0 ] || skip "demo.sh runs ./kprotperf, not the sanitized build"
D=$TMP/demo
# 150 forks at 29999 Hz: ~1,300 to 1,800 distinct stacks here in ~6 s a run
# (the default 1000 forks at 99 Hz make ~80)
export DEMO_DIR=$D DEMO_FORKS=150 DEMO_FREQ=29999

cat >"$TMP/sections.want" <<EOF
== kprotperf record -F 29999 -o $D/big-fork.data -- ./big-fork 150
== kprotperf report $D/big-fork.data
== kprotperf report --hist clone $D/big-fork.data
== kprotperf record --repeat 5, twice, and kprotperf diff: one kernel, so nothing
EOF
for run in 1 2 3; do
	"$ROOT/scripts/demo.sh" >"$TMP/out" 2>&1 || fail "run $run: demo.sh exited $?: $(tail -5 "$TMP/out")"
	n=$(wc -l <"$D/big-fork.folded")
	[ "$n" -gt 1000 ] ||
		fail "run $run: $n folded stacks, not over 1000: raise DEMO_FORKS or DEMO_FREQ here"
	grep '^== kprotperf' "$TMP/out" >"$TMP/sections"
	cmp -s "$TMP/sections" "$TMP/sections.want" ||
		fail "run $run: demo's sections: $(diff "$TMP/sections.want" "$TMP/sections")"
	# the largest counts, the count being a line's last field; on a tie the first line
	python3 - "$D/big-fork.folded" >"$TMP/hot.want" <<'EOF' || fail "python3"
import sys
lines = open(sys.argv[1]).read().splitlines()
print("== folded stacks: %s (%d stacks); hottest:" % (sys.argv[1], len(lines)))
print("\n".join(sorted(lines, key=lambda l: -int(l.rsplit(" ", 1)[1]))[:3]))
EOF
	sed -n '/^== folded stacks: /{N;N;N;p;q}' "$TMP/out" >"$TMP/hot"
	cmp -s "$TMP/hot" "$TMP/hot.want" ||
		fail "run $run: hottest stacks:"$'\n'"$(cat "$TMP/hot")"$'\n'"want:"$'\n'"$(cat "$TMP/hot.want")"
	echo "run $run: $n folded stacks ($(wc -c <"$D/big-fork.folded") bytes)"
done
