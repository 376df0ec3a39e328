#!/bin/bash
# The machine model's cache simulator (plugin/kp_cache.c, no QEMU needed)
# against a plain reference on three million pseudo-random fetches and
# accesses through four geometries at once, and its TLBs on a million
# fetches, accesses, CR3 writes and flushes through three, with and
# without PTI and PCID: every count equal; bad geometries refused; the
# walker's cache of 2 MiB ranges on walks worked out by hand
# (tests/unit/model_sim.c says what it covers).
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-sim.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_sim.c" "$ROOT/plugin/kp_cache.c" \
	-o "$TMP/model_sim" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_sim" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
echo "model cache simulator: $(grep -c "^geom" "$TMP/out") geometries over 3M accesses equal the reference's counts;" \
	"TLBs of $(grep -c "^tlb pti 0 pcid 0 large 0" "$TMP/out") geometries, PTI and PCID on and off, 4 KiB pages and the kernel's 2 MiB ones, over 1M accesses and flushes equal;" \
	"bad geometries refused; the walker's cache: $(sed -n "s/^walker's cache: //p" "$TMP/out")"
