# Sourced by the unit tests of the timing model's harnesses (model_*.c
# against plugin/kp_timing.c and all it calls, no QEMU): timing_cc SRC OUT
# compiles SRC into OUT, or fails the test with the compiler's words.
# Needs ROOT, TMP and fail() of the test.
timing_cc() {
	local p=$ROOT/plugin
	cc -O2 -Wall -Wextra -I"$p" "$1" "$p/kp_timing.c" "$p/kp_targs.c" "$p/kp_core.c" \
		"$p/kp_cache.c" "$p/kp_bpred.c" "$p/kp_prefetch.c" "$p/kp_x86_deps.c" "$p/kp_x86_optab.c" \
		"$p/kp_x86.c" -lm -o "$2" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
}
