#!/bin/bash
# The timing model's sampling (plugin/kp_timing.c, kp_targs.c; no QEMU needed): which
# blocks of whole periods go to the core and which are charged, counted by
# hand; a block found from its first instruction; each PC's row scaled to all its executions, one never measured
# charged the measured mean; the exact rows as before; the arguments'
# bounds (tests/unit/model_sample.c).  Runs no kprotperf.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-sample.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
. "$ROOT/tests/unit/timing_cc.sh"
timing_cc "$ROOT/tests/unit/model_sample.c" "$TMP/model_sample"
"$TMP/model_sample" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
echo "model sample: $(grep -c 'want' "$TMP/out") checks held"
