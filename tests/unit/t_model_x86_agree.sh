#!/bin/bash
# The timing model's decoder (plugin/kp_x86_deps.c) against capstone, a
# decoder we did not write, on every instruction of libc's text and, when
# one was built (tests/vm/kernels.sh), a vmlinux's: the share it knows and
# the share of those whose general registers and flags read and written
# agree with capstone's, and of their explicit memory operands whose
# address registers do (tests/unit/model_x86_agree.c says which
# differences are by design and where capstone 4 is wrong).  The summary
# and the worst disagreements are printed; below the floors it fails.
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-x86a.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# the floors, in percent: instructions known, known ones agreeing, their
# explicit memory operands' address registers agreeing
KNOWN_MIN=99 AGREE_MIN=99 MEM_MIN=99.5
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the x86-64 libc is the host's, not $(uname -m)'s"; exit 77; }
[ -f /usr/include/capstone/capstone.h ] || { echo "skipped: no capstone (libcapstone-dev: scripts/install-deps.sh)"; exit 77; }
[ -f "$LIBC" ] || { echo "skipped: no $LIBC"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_x86_agree.c" "$ROOT/plugin/kp_x86_deps.c" "$ROOT/plugin/kp_x86_optab.c" \
	"$ROOT/plugin/kp_x86.c" -lcapstone -o "$TMP/agree" 2>"$TMP/cc.err" || fail "cc: $(cat "$TMP/cc.err")"
files=("$LIBC")
vmlinux=
for v in "${KP_KBUILD_CACHE:-$HOME/.cache/kprotperf/kbuild}"/out/*/vmlinux; do
	[ -f "$v" ] && { vmlinux=$v; break; }
done
if [ -n "$vmlinux" ]; then
	files+=("$vmlinux")
else
	echo "vmlinux: skipped: none built (tests/vm/kernels.sh), libc alone"
fi
"$TMP/agree" -k "$KNOWN_MIN" -a "$AGREE_MIN" -m "$MEM_MIN" "${files[@]}" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
cat "$TMP/out"
