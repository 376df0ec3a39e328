#!/bin/bash
# The machine model's x86 instruction classes (plugin/kp_x86.c, no QEMU
# needed) on instructions the host's assembler encodes: registers only,
# cannot leave its block in the kernel, changes address translation, each
# as QEMU 7.2 runs it (tests/unit/model_x86.c says what it covers).
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-x86.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the instructions are assembled for x86-64, not $(uname -m)"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_x86.c" "$ROOT/plugin/kp_x86.c" \
	-o "$TMP/model_x86" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_x86" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
n=$(sed -n 's/^\([0-9]*\) instructions, 0 wrong$/\1/p' "$TMP/out")
[ -n "$n" ] && [ "$(wc -l <"$TMP/out")" = 1 ] || fail "unexpected output: $(cat "$TMP/out")"
echo "model x86 classes: $n instructions classed as QEMU 7.2 runs them"
