#!/bin/bash
# The machine model's prefetchers (plugin/kp_prefetch.c, no QEMU needed) on
# access patterns whose prefetches are known by construction: next-line
# (on every miss, and a stream's only: a miss after the line before),
# IP-stride at two strides, the streamer up, down, across pages and
# interleaved, random lines, streams crossing into the next virtual page; misses, lines issued and useful counted by a
# cache beside them, none outside the access's page; bad parameters
# refused.  The whole output compared; the speed line printed, not compared
# (tests/unit/model_prefetch.c says what it covers).
# runs no kprotperf
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kp-prefetch.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "skipped: no C compiler"; exit 77; }
cc -O2 -Wall -Wextra -I"$ROOT/plugin" "$ROOT/tests/unit/model_prefetch.c" "$ROOT/tests/unit/model_harness.c" \
	"$ROOT/plugin/kp_prefetch.c" -o "$TMP/model_prefetch" 2>"$TMP/cc.err" ||
	fail "cc: $(cat "$TMP/cc.err")"
"$TMP/model_prefetch" >"$TMP/out" 2>&1 || fail "$(cat "$TMP/out")"
cat >"$TMP/want" <<'EOF'
next-line, a page line by line: 32 misses, 32 issued, 32 useful, 0 outside the page
next-line of a stream, a page line by line: 33 misses, 31 issued, 31 useful, 0 outside the page
next-line, even lines then odd: 32 misses, 32 issued, 32 useful, 0 outside the page
next-line of a stream, even lines then odd: 64 misses, 0 issued, 0 useful, 0 outside the page
IP-stride, 256 bytes, 2 ahead, 4 pages: 12 misses, 53 issued, 53 useful, 0 outside the page
IP-stride, 8 bytes, 4 ahead, 2 pages: 3 misses, 126 issued, 126 useful, 0 outside the page
streamer, a page up: 3 misses, 61 issued, 61 useful, 0 outside the page
streamer, a page down: 3 misses, 61 issued, 61 useful, 0 outside the page
streamer, two pages up: 6 misses, 122 issued, 122 useful, 0 outside the page
streamer, 4 pages interleaved, 16 streams: 12 misses, 244 issued, 244 useful, 0 outside the page
streamer, 4 pages interleaved, 2 streams: 256 misses, 0 issued, 0 useful, 0 outside the page
random, 200000 accesses: IP-stride 0 issued, streamer 0 issued
streamer, degree 8, 1 asked for: 3 misses, 61 issued, 61 useful, 0 outside the page
next page, 4 pages up, 3 crossings (armed at 55 119 183): 3 misses, 253 issued, 253 useful, 0 outside the page
next page, 2 pages down, 1 crossings (armed at 200): 3 misses, 125 issued, 125 useful, 0 outside the page
next page off, 4 pages up, 0 crossings (armed at): 12 misses, 244 issued, 244 useful, 0 outside the page
next page, the next entered at its line 20, 0 crossings (armed at): 6 misses, 102 issued, 102 useful, 0 outside the page
kp_model: prefetch line_bits=3: want 4 to 12 (lines of 16 B to 4 KiB)
kp_model: prefetch ip_entries=100: want 0 or a power of two up to 2^20
kp_model: prefetch ip_distance=0: want 1 to a page's lines
kp_model: prefetch streams=65: want 0 to 64
kp_model: prefetch stream_distance=0: want 1 to a page's lines
kp_model: prefetch stream_distance=65: want 1 to a page's lines
kp_model: prefetch stream_degree=0: want 1 or more
kp_model: prefetch next_page=1: want streams to follow (streams=0)
kp_model: prefetch next_line=3: want 0, 1 (every miss) or 2 (a stream's)
EOF
grep -v '^speed: ' "$TMP/out" >"$TMP/got" || true
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "unexpected output:"$'\n'"$(cat "$TMP/diff")"
echo "model prefetchers: $(grep -c . "$TMP/want") results as expected (nothing past a page);" \
	"$(sed -n 's/^speed: \(.*\) (.*/\1/p' "$TMP/out")"
