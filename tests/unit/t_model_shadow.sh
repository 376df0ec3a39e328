#!/bin/bash
# The plugin's shadow stack of the calls into the string helpers
# (plugin/kp_shadow.c, no QEMU needed): tests/unit/model_shadow.c runs the
# kernel's call and ret sequences through it and checks the call site each
# rep string instruction is counted for, and the bytes it decodes.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-shadow.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" -I"$ROOT/tests/unit" "$ROOT/tests/unit/model_shadow.c" \
	"$ROOT/tests/unit/model_harness.c" "$ROOT/plugin/kp_shadow.c" -o "$TMP/model_shadow" \
	2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_shadow" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
n=$(sed -n 's/ checks, 0 wrong$//p' "$TMP/out")
[ -n "$n" ] || fail "unexpected output: $(cat "$TMP/out")"
echo "model shadow stack: $n checks"
