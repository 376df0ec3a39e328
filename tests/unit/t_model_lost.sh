#!/bin/bash
# The timing model's lost last-level lines (plugin/kp_timing.h, kp_ll_lost;
# no QEMU needed): the rate a draw keeps over a million hits, the same
# draws for the same hits, the edges, the argument's bound
# (tests/unit/model_lost.c).  Runs no kprotperf.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-lost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
. "$ROOT/tests/unit/timing_cc.sh"
timing_cc "$ROOT/tests/unit/model_lost.c" "$TMP/model_lost"
"$TMP/model_lost" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
echo "model lost lines: $(grep -c 'want' "$TMP/out") checks held"
