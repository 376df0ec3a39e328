#!/bin/bash
# The timing model's core (plugin/kp_core.c, no QEMU needed) on streams
# whose cycles an instruction window fixes, worked out by hand: the width,
# dependent chains, independent misses bound by the miss buffers (L1's, and
# L2's for those beyond it), the page walkers or the
# window, a dependent chase (one through a hit on a line a miss still brings
# too), loads whose values operations await bound by the scheduler's
# entries, mispredicted branches, a copy through L2 bound
# by L1's fill path, a stream's crossings into pages holding the memory
# channel, a serializing
# instruction's drain; each stack summing to its cycles and naming the
# cause; bad sizes refused naming the field (tests/unit/model_core.c).
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-core.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_core.c" "$ROOT/plugin/kp_core.c" -lm \
	-o "$TMP/model_core" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_core" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
echo "model core: $(grep -c 'cycles/insn' "$TMP/out") streams at their hand-worked cycles, stacks summing to them;" \
	"$(sed -n 's/^bad sizes refused: //p' "$TMP/out") bad sizes refused"
