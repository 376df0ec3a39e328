#!/bin/bash
# The machine model's cache simulator (scripts/vm-run.sh --model cache, on
# Debian's 6.1 kernel, one boot) against valgrind's cachegrind on the host,
# same geometry (I1 and D1 32 KiB 8-way, LL 1 MiB 16-way, 64-byte lines),
# on a static program of the test's own.  Per function: instructions within
# 1 %, D1 misses (reads and writes) within 5 %, LL misses (instructions and
# data) within 15 % of cachegrind's.  It prints both tools' figures.
#
# The program is linked static, not PIE, its text at 0x10000000: the same
# PCs in both tools and in nm, away from busybox and model-window (near
# 0x401000), whose PCs the machine-wide model would add to its own.  The
# measured functions call nothing (libc picks its string functions by CPU,
# and QEMU's -cpu max is not the host's); main runs each after kp_flush,
# which reads a buffer twice LL's size, so that both tools start it with
# none of its data or code cached, whatever ran before (the kernel filling
# the page cache, say, which only the model sees):
#   kp_seq      8-byte loads from an odd offset (1 in 8 straddles two
#               lines, 1 in 512 two pages) over 128 KiB, stores over
#               another 128 KiB, 4 passes: every line misses D1 in each
#               pass, LL in the first;
#   kp_stride   an add to memory every 192 bytes (3 lines: all of D1's
#               sets) over 384 KiB, 4 passes: D1 misses each time, LL once;
#               the read-modify-write is one read for cachegrind, a read
#               and a write for the model (accesses differ, misses cannot);
#   kp_chase    a random single cycle through 4 MiB, a node per line,
#               twice: every load misses D1 and LL;
#   kp_rep      rep movsq, 48 KiB to 48 KiB, twice: each iteration is an
#               instruction in both (VEX and TCG both re-run the insn);
#   kp_compute  xorshift in registers, 2 million rounds, and a load from
#               each line of 32 KiB every 4000;
#   kp_flush    the flush itself, 5 times.
# Why the two can differ, and what the program does about it:
# - Indexing: the model's caches see physical addresses, cachegrind's
#   virtual ones.  D1's and I1's set index (64 sets of 64 bytes) lies within
#   the page offset, the same in both; LL's (1024 sets) does not, so a
#   working set near LL's capacity would hit or miss by where the guest put
#   its pages: each LL working set here is a quarter of LL or 4 times it.
# - The kernel: the model counts machine-wide, and timer interrupts run
#   kernel code that evicts I1 lines: I1 misses cachegrind does not have,
#   and LL misses too in functions that pushed their code out of LL
#   (kp_chase, kp_flush: 0 to 4).  Functions are 64-byte aligned: a line
#   shared with the function before would be warm in cachegrind's I1 and
#   perhaps evicted in the model's.
# - Interrupt delivery's accesses (6 reads of descriptor tables, the 5
#   writes of the interrupt frame): QEMU 7.2 charges them to the last
#   instruction that left its memory-callback pointer set, which includes
#   every ret and indirect call.  A delivery lands there when it comes
#   before the next such instruction, in practice while QEMU translates the
#   code it returns to, the first time.  So main calls every function from
#   one site in a loop, through a pointer, after a first call of kp_sep (a
#   bare ret), and kp_sep after each: a measured function returns into
#   translated code, and the deliveries go to kp_sep (shown, not compared)
#   and main's call.  (A call site of its own per function put one on
#   kp_flush's ret in 3 of 40 runs: 11 accesses, 4 D1 and 5 LL misses more.)
#   And every function has 500 misses or more, so that one would stay within
#   limits.
# - Page faults: a faulting instruction counts twice in the model (it is
#   retried), once in cachegrind: every page is written beforehand.
# - The stack's address differs (environment, ASLR), so whether two slots
#   share a line does too: kp_sep's row shows it.
# - Straddling: both tools look an access up in both its lines and count
#   one access, one miss at most; but the model takes the line after the
#   first one physically, which for an access across a page boundary is
#   another page's (kp_seq: a few misses either way, by where the pages are).
# shellcheck source=tests/vm/vm.sh
. "$(dirname "$0")/vm.sh"
VR=$ROOT/scripts/vm-run.sh
I1=32768,8,64 D1=32768,8,64 LL=1048576,16,64
[ "$(id -u)" -eq 0 ] || skip "needs root (the kernel cache is root's here)"
vm_need_host_test
PLUGIN=$VM_OUTPUT/plugin/kp_model.so
if [ ! -f "$PLUGIN" ]; then
	why=$(make -s -C "$ROOT" OUTPUT="$VM_OUTPUT" plugin 2>&1 | tail -1) || true
	[ -f "$PLUGIN" ] || skip "no model plugin: ${why:-make plugin built nothing}"
fi
command -v cc >/dev/null || skip "no C compiler"
command -v valgrind >/dev/null || skip "no valgrind (scripts/install-deps.sh installs it)"
valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null true >/dev/null 2>&1 ||
	skip "valgrind's cachegrind does not run here"

mkdir -p "$TMP/ro"
cat >"$TMP/prog.c" <<'EOS'
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))
#define PAGE_ALIGNED __attribute__((aligned(4096)))

#define SEQ_WORDS (128 * 1024 / 8)
#define STRIDE_LEN (384 * 1024)
#define REP_LEN (48 * 1024)
#define NODES (4 * 1024 * 1024 / 64)
#define FLUSH_LEN (2 * 1024 * 1024)
#define TABLE_LEN (32 * 1024)

struct node { struct node *next; unsigned long pad[7]; };

static unsigned long src[SEQ_WORDS + 1] PAGE_ALIGNED, dst[SEQ_WORDS] PAGE_ALIGNED;
static unsigned char strided[STRIDE_LEN] PAGE_ALIGNED;
static unsigned char rep_src[REP_LEN] PAGE_ALIGNED, rep_dst[REP_LEN] PAGE_ALIGNED;
static struct node nodes[NODES] PAGE_ALIGNED;
static unsigned char flushbuf[FLUSH_LEN] PAGE_ALIGNED;
static unsigned char table[TABLE_LEN] PAGE_ALIGNED;
volatile unsigned long seed = 88172645463325252ul;

/* does nothing: the last ret before every long loop (see the test) */
NOINLINE unsigned long kp_sep(void)
{
	asm volatile("" ::: "memory");
	return 0;
}

NOINLINE unsigned long kp_flush(void)
{
	const volatile unsigned char *b = flushbuf;
	unsigned long s = 0, i;

	for (i = 0; i < FLUSH_LEN; i += 64)
		s += b[i];
	return s;
}

NOINLINE unsigned long kp_seq(void)
{
	const unsigned char *s = (const unsigned char *)src + 3;
	unsigned long i, w;
	int passes = 4;

	while (passes--)
		for (i = 0; i < SEQ_WORDS; i++) {
			memcpy(&w, s + 8 * i, 8);	/* one unaligned mov */
			dst[i] = w + passes;
		}
	return dst[7];
}

NOINLINE unsigned long kp_stride(void)
{
	unsigned long i;
	int passes = 4;

	while (passes--) {
		for (i = 0; i < STRIDE_LEN; i += 192)
			strided[i]++;	/* one read-modify-write add */
		asm volatile("" ::: "memory");
	}
	return 0;
}

NOINLINE unsigned long kp_chase(void)
{
	const struct node *p = nodes;
	unsigned long steps = 2 * NODES;

	while (steps--)
		p = p->next;
	return (unsigned long)p;
}

NOINLINE unsigned long kp_rep(void)
{
	int passes = 2;

	while (passes--) {
		void *d = rep_dst;
		const void *s = rep_src;
		unsigned long n = REP_LEN / 8;

		asm volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	}
	return 0;
}

NOINLINE unsigned long kp_compute(void)
{
	unsigned long x = seed, s = 0, i, n;

	for (i = 0; i < TABLE_LEN; i += 64) {
		s += table[i];
		for (n = 0; n < 4000; n++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s += x & 0xff;
		}
	}
	return s;
}

int main(void)
{
	/* each measured function after a flush, called from one site */
	static unsigned long (*const fns[])(void) = {
		kp_sep, kp_flush, kp_seq, kp_flush, kp_stride, kp_flush, kp_chase,
		kp_flush, kp_rep, kp_flush, kp_compute,
	};
	unsigned long x = seed, acc = 0, i, j;
	struct node *t;

	/* every page written before the measured part: no faults there */
	memset(src, 1, sizeof(src));
	memset(dst, 2, sizeof(dst));
	memset(strided, 3, sizeof(strided));
	memset(rep_src, 4, sizeof(rep_src));
	memset(rep_dst, 5, sizeof(rep_dst));
	memset(flushbuf, 6, sizeof(flushbuf));
	memset(table, 7, sizeof(table));
	/* a random single cycle through the nodes (Sattolo) */
	for (i = 0; i < NODES; i++)
		nodes[i].next = &nodes[i];
	for (i = NODES - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % i;
		t = nodes[i].next;
		nodes[i].next = nodes[j].next;
		nodes[j].next = t;
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		unsigned long (*f)(void) = fns[i];

		asm volatile("" : "+r"(f));	/* an indirect call, not 11 calls */
		acc += f();
		kp_sep();
	}
	printf("done %lx %lu\n", acc, dst[7] + strided[192] + rep_dst[8]);
	return 0;
}
EOS
# static, not PIE, its text at 256 MiB: its PCs are the same in both tools
# and nm's, and far from the other static programs (busybox, model-window,
# near 0x401000), whose PCs the machine-wide model would add to ours; scalar
# code (no vectorizing), no calls to memset for loops, each function on
# lines of its own (a line shared with the function before would be warm in
# cachegrind's I1, but in the model's perhaps evicted by the kernel's code)
cc -O2 -fno-tree-vectorize -fno-tree-loop-distribute-patterns -falign-functions=64 -no-pie -static \
	-Wl,-Ttext-segment=0x10000000 "$TMP/prog.c" -o "$TMP/ro/model-cg" || fail "cc exited $?"
FNS="kp_seq kp_stride kp_chase kp_rep kp_compute kp_flush"
nm -S "$TMP/ro/model-cg" | awk -v fns=" $FNS kp_sep " '$3 ~ /^[tT]$/ && index(fns, " " $4 " ") { print $4, $1, $2 }' \
	>"$TMP/syms"
[ "$(wc -l <"$TMP/syms")" -eq 7 ] || fail "nm found $(wc -l <"$TMP/syms") of the 7 functions: $(cat "$TMP/syms")"

start=$(date +%s)
valgrind --tool=cachegrind --cache-sim=yes --I1=$I1 --D1=$D1 --LL=$LL \
	--cachegrind-out-file="$TMP/cg.out" "$TMP/ro/model-cg" >"$TMP/cg.stdout" 2>"$TMP/cg.err" ||
	fail "cachegrind exited $?: $(tail -3 "$TMP/cg.err")"
for want in "I1 cache: *32768 B, 64 B, 8-way" "D1 cache: *32768 B, 64 B, 8-way" "LL cache: *1048576 B, 64 B, 16-way"; do
	grep -q "^desc: $want" "$TMP/cg.out" || fail "cachegrind did not simulate $want: $(grep '^desc' "$TMP/cg.out")"
done
echo "model-cachegrind: cachegrind on the host: $(($(date +%s) - start)) s"

start=$(date +%s)
rc=0
"$VR" --model cache --I1=$I1 --D1=$D1 --LL=$LL --ro "$TMP/ro" --out "$TMP/vm" --timeout 600 -- \
	model-window -- /mnt/ro/model-cg >"$TMP/vm.stdout" 2>"$TMP/vm.err" </dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "vm-run exited $rc: $(tail -3 "$TMP/vm.err")"
M=$TMP/vm/model.txt
[ -s "$M" ] || fail "no model.txt: $(tail -3 "$TMP/vm.err")"
echo "model-cachegrind: the model in the VM: $(($(date +%s) - start)) s"
[ "$(cat "$TMP/vm.stdout")" = "$(cat "$TMP/cg.stdout")" ] ||
	fail "the program's output differs: guest '$(cat "$TMP/vm.stdout")', cachegrind '$(cat "$TMP/cg.stdout")'"
header() { sed -n "s/^# $1 //p" "$M"; }
[ "$(header window)" = complete ] || fail "the model's window: $(header window)"
[ "$(header windows)" = "opened 1 closed 1 restarts 0 stray_stops 0" ] || fail "the model's windows: $(header windows)"
[ "$(header iaddr)" = physical ] || fail "instruction addresses not calibrated: $(header iaddr)"
[ "$(header 'geom 0')" = "i1=32768:8:64 d1=32768:8:64 ll=1048576:16:64" ] ||
	fail "the model's geometry: $(header 'geom 0')"

# per function: insns i1_miss d1_ref d1_miss ll_miss, summed over the
# model's rows whose PC lies in it (columns found by their names in the
# '# columns' line; hex() as mawk has no strtonum: user PCs fit a double)
awk '
function hex(s,   i, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
NR == FNR { name[NR] = $1; lo[NR] = hex($2); hi[NR] = lo[NR] + hex($3); nf = NR; next }
$1 == "#" && $2 == "columns" { for (i = 3; i <= NF; i++) c[$i] = i - 2; next }
/^#/ || length($1) > 14 { next }
{
	pc = hex($1)
	for (i = 1; i <= nf; i++) if (pc >= lo[i] && pc < hi[i]) {
		f = name[i]; seen[f] = 1
		ins[f] += $c["insns"]; i1[f] += $c["i1_miss.0"]
		ref[f] += $c["d1_read.0"] + $c["d1_write.0"]
		d1[f] += $c["d1_read_miss.0"] + $c["d1_write_miss.0"]; ll[f] += $c["ll_miss.0"]
	}
}
END { for (f in seen) print f, ins[f], i1[f], ref[f], d1[f], ll[f] }' "$TMP/syms" "$M" >"$TMP/model.fn"

# the same from cachegrind's fn= records (events named in its 'events:' line)
awk '
/^events:/ { for (i = 2; i <= NF; i++) c[$i] = i; next }
/^fn=/ { f = substr($0, 4); next }
/^[0-9]/ && f != "" {
	seen[f] = 1
	ins[f] += $c["Ir"]; i1[f] += $c["I1mr"]; ref[f] += $c["Dr"] + $c["Dw"]
	d1[f] += $c["D1mr"] + $c["D1mw"]; ll[f] += $c["ILmr"] + $c["DLmr"] + $c["DLmw"]
}
/^(fl|summary|totals)/ { f = "" }
END { for (f in seen) print f, ins[f], i1[f], ref[f], d1[f], ll[f] }' "$TMP/cg.out" >"$TMP/cg.fn"

# the table, and what is off: instructions 1 %, D1 misses 5 %, LL misses 15 %
# of cachegrind's figure (I1 misses and D1 accesses shown, not compared)
awk -v fns="$FNS kp_sep" '
function pct(m, g) { return g ? sprintf("%+.2f%%", 100 * (m - g) / g) : (m ? "+inf" : "0") }
function check(what, f, m, g, tol) {
	if (m - g > tol * g || g - m > tol * g)
		bad = bad sprintf("\n  %s %s: model %d, cachegrind %d (%s, allowed %d%%)", f, what, m, g, pct(m, g), 100 * tol)
}
FILENAME == ARGV[1] { cg[$1] = $0; next }
{ mo[$1] = $0 }
END {
	printf "%-10s %27s %21s %21s %17s %27s\n", "function", "instructions cg / model", "D1 misses cg / model",
		"LL misses cg / model", "I1 misses cg / model", "D1 accesses cg / model"
	n = split(fns, l, " ")
	for (k = 1; k <= n; k++) {
		f = l[k]
		if (!(f in cg) || !(f in mo)) { bad = bad "\n  " f ": " ((f in cg) ? "not in the model" : "not in cachegrind"); continue }
		split(cg[f], g, " "); split(mo[f], m, " ")
		printf "%-10s %12d %12d %10d %10d %10d %10d %8d %8d %13d %13d\n", f, g[2], m[2], g[5], m[5], g[6], m[6], g[3], m[3], g[4], m[4]
		printf "%-10s %25s %21s %21s%s\n", "", pct(m[2], g[2]), pct(m[5], g[5]), pct(m[6], g[6]),
			f == "kp_sep" ? "   (not compared)" : ""
		if (f == "kp_sep")
			continue
		check("instructions", f, m[2], g[2], 0.01)
		check("D1 misses", f, m[5], g[5], 0.05)
		check("LL misses", f, m[6], g[6], 0.15)
	}
	fflush()
	if (bad != "") { print "off:" bad > "/dev/stderr"; exit 1 }
}' "$TMP/cg.fn" "$TMP/model.fn" || fail "the model and cachegrind disagree beyond the tolerances (table above)"
echo "model-cachegrind: per function, instructions within 1 %, D1 misses within 5 %, LL misses within 15 % of cachegrind's"
