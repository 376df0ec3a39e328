#!/bin/bash
# The machine model's branch predictor (plugin/kp_bpred.c, no QEMU needed)
# on patterns whose mispredictions are known by construction: loops,
# alternating and random branches, recursion past the return stack, a
# retpoline, return thunks, polymorphic indirect calls, a BTB set's ways;
# bad sizes refused.  The whole output compared; the speed line printed,
# not compared (tests/unit/model_bpred.c says what it covers).
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-bpred.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_bpred.c" "$ROOT/tests/unit/model_harness.c" \
	"$ROOT/plugin/kp_bpred.c" -o "$TMP/model_bpred" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_bpred" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
cat >"$TMP/want" <<'EOF'
loop of 20, 100 runs: 101 mispredicted, 50 in the last 50
loop of 4, 100 runs: 6 mispredicted, 0 in the last 50
loop of 20, loop predictor, 100 runs: 5 mispredicted, 0 in the last 50
loop of 20 or one more, loop predictor, 100 runs: 101 mispredicted, 50 in the last 50
alternating, 12 history bits: 8 of 1000, 0 of the last 500
alternating, 0 history bits (bimodal alone): 500 of 1000, 250 of the last 500
random, 100000: 50016 mispredicted
recursion 16 deep, return stack of 16, 3 times: 0 returns wrong
recursion 20 deep, return stack of 16, 3 times: 12 returns wrong
retpoline, 1000 calls: thunk 1000, return 0, caller's return 0 wrong
indirect call, 1000 calls: thunk 1, return 0, caller's return 0 wrong
return thunk, 1000 calls: thunk 0, return 0, caller's return 0 wrong
srso return thunk, 1000 calls: thunk 1000, return 0, caller's return 1 wrong
indirect call alternating, 0 path bits: 1000 of 1000 wrong
indirect call alternating, 4 path bits: 5 of 1000 wrong
4 indirect call sites in turn through a BTB of 4 ways: 4 of 400 wrong
5 indirect call sites in turn through a BTB of 4 ways: 500 of 500 wrong
kp_model: bpred cond_entries=1000: want a power of two, at most 16777216
kp_model: bpred btb_entries=0: want a power of two, at most 16777216
kp_model: bpred btb_assoc=3: want a power of two, at most 16777216
kp_model: bpred ras_depth=24: want a power of two, at most 16777216
kp_model: bpred btb_assoc=1024: more than btb_entries=512
kp_model: bpred hist_bits=13: more than log2(cond_entries)=12
kp_model: bpred path_bits=13: more than hist_bits=12 or 16
EOF
grep -v '^speed: ' "$TMP/out" >"$TMP/got" || true
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "unexpected output:"$'\n'"$(cat "$TMP/diff")"
echo "model branch predictor: $(grep -c . "$TMP/want") results as expected (a retpoline's ret wrong every time);" \
	"$(sed -n 's/^speed: \(.*\) (.*/\1/p' "$TMP/out") per call"
