#!/bin/bash
# The timing model's decoder (plugin/kp_x86_deps.c, no QEMU needed) on
# instructions the host's assembler encodes: registers read and written,
# the memory access and its address registers, latency, uops, kind, each
# instruction's whole struct against the one tests/unit/model_x86_deps.c
# writes out by hand.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-x86d.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the instructions are assembled for x86-64, not $(uname -m)"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_x86_deps.c" "$ROOT/plugin/kp_x86_deps.c" "$ROOT/plugin/kp_x86_optab.c" \
	"$ROOT/plugin/kp_x86.c" -o "$TMP/model_x86_deps" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_x86_deps" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
n=$(sed -n 's/ instructions, 0 wrong$//p' "$TMP/out")
[ -n "$n" ] || fail "unexpected output: $(cat "$TMP/out")"
echo "model x86 deps: $n instructions decoded as written by hand"
