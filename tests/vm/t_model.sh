#!/bin/bash
# The machine model (plugin/kp_model.c through scripts/vm-run.sh --model) on
# Debian's 6.1 kernel, two boots.  A static-PIE program of the test's own
# calls a noinline function N times and strides twice over a 256 KiB buffer
# (4096 lines of 64 bytes, eight times D1), printing where both functions
# are:
#   --model insns: exactly N at kp_step's first instruction; kernel PCs
#     counted too (the window is machine-wide); a second window that is
#     never closed (model-window killed) leaves the table marked incomplete
#     with both windows' counts;
#   --model cache, two geometries side by side: kp_step still exactly N; at
#     kp_stride's load, exactly 2 x 4096 D1 reads and, in each geometry, at
#     least 4096 D1 read misses (the buffer is larger than D1, so its first
#     pass misses on every line at least), and I1 and LL misses somewhere;
# and, before any boot, the refusals: an unknown mode, a geometry that is
# not a power of two or whose line is larger than the cache.
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
N=30000
LINES=4096
vm_need_model
command -v cc >/dev/null || skip "no C compiler"

# expect LINE -- ARGS...: vm-run refuses with exit 125 and that line, no boot
expect() { vm_expect 125 "$@"; }
expect "vm-run: --model cycles: want insns, cache or timing" -- --model cycles -- true
expect "vm-run: --D1=24576,8,64: want SIZE,ASSOC,LINE in bytes, ways and bytes, each a power of two, ASSOC x LINE <= SIZE" \
	-- --model cache --D1=24576,8,64 -- true
expect "vm-run: --LL=4096,1,8192: want SIZE,ASSOC,LINE in bytes, ways and bytes, each a power of two, ASSOC x LINE <= SIZE" \
	-- --model cache --LL=4096,1,8192 -- true
expect "vm-run: --I1, --D1 and --LL are cache geometries: they need --model cache" \
	-- --model insns --I1=32768,8,64 -- true
echo "model: an unknown mode and bad geometries refused before boot"

mkdir -p "$TMP/ro"
cat >"$TMP/loop.c" <<'EOS'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

__attribute__((noinline)) void kp_step(unsigned long i)
{
	sink += i;
}

/* one load per 64-byte line, passes times over */
__attribute__((noinline)) unsigned long kp_stride(const volatile unsigned char *buf,
						  unsigned long len, int passes)
{
	unsigned long s = 0, i;

	while (passes--)
		for (i = 0; i < len; i += 64)
			s += buf[i];
	return s;
}

int main(int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 0), len = 4096 * 64, i;
	unsigned char *buf = aligned_alloc(4096, len);

	/* real pages: untouched ones would all read the one zero page */
	memset(buf, 1, len);
	/* sink's page written before the loop: no fault in kp_step */
	sink = 1;
	printf("kp_step %p\nkp_stride %p\n", (void *)kp_step, (void *)kp_stride);
	fflush(stdout);
	for (i = 0; i < n; i++)
		kp_step(i);
	sink += kp_stride(buf, len, 2);
	return 0;
}
EOS
# static PIE: loaded away from the static non-PIE programs (busybox,
# model-window), which all start near 0x401000 and would share its PCs
cc -O2 -static-pie -fPIE "$TMP/loop.c" -o "$TMP/ro/model-loop" || fail "cc exited $?"
stride_size=$(nm -S "$TMP/ro/model-loop" | awk '$4 == "kp_stride" { print $2 }')
[ -n "$stride_size" ] || fail "no kp_stride in nm's output"
stride_size=$((16#$stride_size))

# addr NAME: the runtime address the guest printed
addr() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/out"; }
# col TABLE NAME: the column of NAME in the table's '# columns' line
col() { awk -v n="$2" '$1 == "#" && $2 == "columns" { for (i = 3; i <= NF; i++) if ($i == n) print i - 2 }' "$1"; }
# at TABLE PC COLUMN: that PC's value (0 when it has no row)
at() {
	awk -v pc="$2" -v c="$(col "$1" "$3")" '$1 == pc { v = $c } END { print v + 0 }' "$1"
}
header() { sed -n "s/^# $2 //p" "$1"; }

boot() {	# $1 label, then vm-run's options
	local rc=0 label=$1 start
	shift
	start=$(date +%s)
	"$VR" "$@" --ro "$TMP/ro" --out "$TMP/$label" --timeout 600 -- sh -c \
		"model-window -- /mnt/ro/model-loop $N; model-window -- sh -c 'kill -KILL \$PPID'; true" \
		>"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq 0 ] || fail "$label: vm-run exited $rc: $(tail -3 "$TMP/err")"
	[ -s "$TMP/$label/model.txt" ] || fail "$label: no model.txt: $(tail -3 "$TMP/err")"
	grep -q "window was never closed" "$TMP/err" || fail "$label: vm-run did not say the window stayed open"
	step=$(addr kp_step) stride=$(addr kp_stride)
	[ -n "$step" ] && [ -n "$stride" ] || fail "$label: the program printed no addresses: $(cat "$TMP/out")"
	echo "model: $label boot and run: $(($(date +%s) - start)) s"
}

# common TABLE MODE: the header, and exactly N at kp_step
common() {
	local t=$1 got
	[ "$(header "$t" mode)" = "$2" ] || fail "$2: header says mode $(header "$t" mode)"
	[ "$(header "$t" window)" = incomplete ] || fail "$2: window $(header "$t" window), not incomplete"
	[ "$(header "$t" windows)" = "opened 2 closed 1 restarts 0 stray_stops 0" ] ||
		fail "$2: windows $(header "$t" windows)"
	[ "$(header "$t" qemu)" = "$(dpkg-query -W -f='${Version}' qemu-system-x86)" ] ||
		fail "$2: header's qemu is $(header "$t" qemu)"
	got=$(at "$t" "$step" insns)
	[ "$got" = "$N" ] || fail "$2: $got instructions at kp_step's first ($step), not $N"
	awk '$1 ~ /^0xffff/ && $2 > 0 { k++ } END { exit !(k > 1000) }' "$t" ||
		fail "$2: fewer than 1000 kernel PCs counted"
	echo "model: $2: exactly $N at kp_step ($step), kernel PCs counted, the open window marked incomplete"
}

boot insns --model insns
common "$TMP/insns/model.txt" insns

boot cache --model cache --LL=1048576,16,64 --LL=8388608,16,64
T=$TMP/cache/model.txt
common "$T" cache
[ "$(header "$T" iaddr)" = physical ] || fail "cache: instruction addresses not calibrated: $(header "$T" iaddr)"
# the load: kp_stride's PC with the most D1 reads
pcs=$(for ((a = stride; a < stride + stride_size; a++)); do printf '0x%x ' "$a"; done)
load=$(awk -v pcs="$pcs" -v c="$(col "$T" d1_read.0)" '
	BEGIN { split(pcs, l, " "); for (i in l) in_fn[l[i]] = 1 }
	($1 in in_fn) && $c > best { best = $c; pc = $1 } END { print pc }' "$T")
[ -n "$load" ] || fail "cache: no D1 reads in kp_stride ($stride, $stride_size bytes)"
for g in 0 1; do
	reads=$(at "$T" "$load" "d1_read.$g") misses=$(at "$T" "$load" "d1_read_miss.$g")
	[ "$reads" = $((2 * LINES)) ] || fail "cache: geometry $g: $reads D1 reads at kp_stride's load ($load), not $((2 * LINES))"
	[ "$misses" -ge $LINES ] || fail "cache: geometry $g: $misses D1 read misses at $load, fewer than $LINES lines"
	for c in i1_miss ll_miss; do
		awk -v c="$(col "$T" "$c.$g")" '$1 !~ /^#/ { s += $c } END { exit !(s > 0) }' "$T" ||
			fail "cache: geometry $g: no $c anywhere"
	done
	echo "model: cache: geometry $g ($(header "$T" "geom $g")): $reads D1 reads, $misses read misses at kp_stride's load"
done
