// SPDX-License-Identifier: GPL-2.0-only
/*
 * The programs of tests/bench/model_est.sh: est_cycles against native time
 * for static user code whose cost is set by different mechanisms,
 *   model-est KIND N
 * KIND one of (an iteration in brackets):
 *   stream       a sum over 64 MiB of longs, wrapping [an element]
 *   gather       independent loads at random over 64 MiB of 4 KiB pages
 *                (MADV_NOHUGEPAGE), the indices from an LCG [a load]
 *   gather-l2    the same over the first 128 KiB: in L2, a quarter of its
 *                lines in L1, its 32 pages in the L1 D-TLB [a load]
 *   reads-l2, reads-ll
 *                independent loads, one a line, at offsets read in turn
 *                from an array of 2^16 made at random (in L2 itself):
 *                no chain from one to the next; over 512 KiB (in L2: set
 *                by L1's fill path, and by what else the prefetchers put
 *                on it) or 4 MiB (beyond L2: by how many misses the last
 *                level serves at once) [a load]
 *   chase        a random pointer chase over 256 MiB of 4 KiB pages: each
 *                load misses L1, LL and the TLB [a load]
 *   slab-seq-6k, slab-shuf-6k, slab-seq-1m, slab-shuf-1m
 *                6,000 or 1,048,576 objects of 192 bytes, 21 to a 4 KiB
 *                page, copied in allocation order into a ring of 16 in
 *                L1; laid out in their pages in that order (seq) or in an
 *                order shuffled within each page (shuf) [an object]
 *   stosb        4 KiB pages of 64 MiB cleared by rep stosb [a page]
 *   movsb        4 KiB copied by rep movsb, 256 KiB into 256 KiB [a copy]
 *   qsort        a quicksort of 4096 random ints, copied in first from
 *                one of 64 such arrays taken in turn (1 MiB): no predictor
 *                learns a sort's branches from one iteration to the next,
 *                natively (2,000 sorts) as in the VM (32) [a sort]
 *   bsearch      binary searches of random keys in 4 M sorted ints
 *                (16 MiB) [a search]
 *   hash         lookups of present keys in an open-addressing table of
 *                2^17 slots of 16 bytes (2 MiB: within the last level
 *                whatever the host's other tenants leave of it; at 16 MiB
 *                the native moved from 2.0 to 10.3 ns a lookup between two
 *                runs), half full, linear probing [a lookup]
 *   matmul       a row of a 384 x 384 double matrix multiply, i-j-k order
 *                (B walked down its columns) [a row]
 *   interp       an interpreter's dispatch: a call through a table of 8
 *                handlers per op of a random 4096-op program [an op]
 *   branch-pred, branch-rand
 *                a branch on a bit of an xorshift generator's next
 *                value, or'ed with a mask the setup sets: every branch
 *                taken (predicted), or random (half mispredicted; no
 *                period short enough for a predictor to learn) [a branch]
 *   fence        a store, LFENCE, an add, MFENCE [a round]
 *   retpoline    a call through a retpoline thunk built as Linux's
 *                __x86_indirect_thunk_rax (named so) [a call]
 * Each prints nothing.  The loop runs between the model's markers (plain
 * nops natively) in noinline functions named kp_est_* (and the thunk),
 * which report --model's rows name, the setup in functions named
 * otherwise; N = 0 runs the setup alone, so that the loop's native time is
 * time(N) - time(0).  The working set is the same for every N: only the
 * iterations differ.  Built statically for the VM.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../include/model_marker.h"
#include "../../include/retpoline_thunk.h"

#define KIB	      (1UL << 10)
#define MIB	      (1UL << 20)
#define PAGE	      4096UL
#define CHASE_BYTES   (256 * MIB)
#define LINES	      (CHASE_BYTES / 64)
#define STREAM_LONGS  (64 * MIB / 8)
#define GATHER_LONGS  (64 * MIB / 8)
#define L2_LONGS      (128 * 1024 / 8)
#define READS_IDX     (1UL << 16)
#define OBJ	      192
#define OBJS_PER_PAGE (PAGE / OBJ)
#define CLEAR_BYTES   (64 * MIB)
#define MOVE_BYTES    (256 * KIB)
#define SORT_INTS     4096
#define SORT_INPUTS   64
#define SEARCH_INTS   (4 * MIB)
#define HASH_SLOTS    (1UL << 17)
#define HASH_KEYS     (HASH_SLOTS / 2)
#define MAT	      384
#define PROG_OPS      4096

/* Linux's retpoline thunk, and a function that only returns. */
asm(".text\n"
    ".globl __x86_indirect_thunk_rax\n"
    ".type __x86_indirect_thunk_rax, @function\n"
    ".p2align 5\n"
    "__x86_indirect_thunk_rax:\n" RETPOLINE_THUNK_RAX
    ".size __x86_indirect_thunk_rax, .-__x86_indirect_thunk_rax\n"
    ".p2align 4\n"
    ".type kp_est_target, @function\n"
    "kp_est_target: ret\n"
    ".size kp_est_target, .-kp_est_target\n");

/* The setup's data, and where the loops' results go so that none is optimized away. */
static struct {
	void *a, *b, *c;
	long count;
} g;
volatile long sink;

/* A full-period LCG step (Knuth's MMIX constants): random data, the same every run. */
static inline uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* size bytes of 4 KiB pages, MADV_NOHUGEPAGE: the TLB sees what the model's does. */
static void *map(size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	madvise(m, size, MADV_NOHUGEPAGE);
	return m;
}

__attribute__((noinline)) void *kp_est_chase(void *p, long n)
{
	for (; n >= 4; n -= 4)
		asm volatile("mov (%0), %0\n mov (%0), %0\n mov (%0), %0\n mov (%0), %0"
			     : "+r"(p)::"memory");
	return p;
}

/* the branch itself in asm: a compiler would make it a cmov */
__attribute__((noinline)) long kp_est_branch(uint64_t mask, long n)
{
	uint64_t x = 88172645463325252ULL;
	long sum = 0;

	for (; n > 0; n--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		asm volatile("bt $40, %1\n jnc 1f\n add $3, %0\n1:"
			     : "+r"(sum)
			     : "r"(x | mask)
			     : "cc");
	}
	return sum;
}

__attribute__((noinline)) void kp_est_fence(long *buf, long n)
{
	asm volatile("1: mov %1, (%2)\n lfence\n add $1, %1\n mfence\n dec %0\n jnz 1b"
		     : "+r"(n)
		     : "r"(0L), "r"(buf)
		     : "memory", "cc");
}

__attribute__((noinline)) void kp_est_retpoline(long n)
{
	/* below the red zone: the calls push onto the stack */
	asm volatile("sub $128, %%rsp\n"
		     "1: lea kp_est_target(%%rip), %%rax\n call __x86_indirect_thunk_rax\n"
		     "dec %0\n jnz 1b\n"
		     "add $128, %%rsp"
		     : "+r"(n)
		     :
		     : "rax", "memory", "cc");
}

__attribute__((noinline)) long kp_est_stream(const long *a, long n)
{
	long sum = 0, i, m;

	for (; n > 0; n -= m) {
		m = n < (long)STREAM_LONGS ? n : (long)STREAM_LONGS;
		for (i = 0; i < m; i++)
			sum += a[i];
	}
	return sum;
}

/* The index from an LCG within longs (a power of two): the loads depend on none before them. */
__attribute__((noinline)) long kp_est_gather(const long *a, uint64_t longs, long n)
{
	uint64_t s = 1;
	long sum = 0;

	for (; n > 0; n--)
		sum += a[lcg(&s) & (longs - 1)];
	return sum;
}

/* Loads at the offsets idx holds, in turn: their addresses come from L1 or L2, not a chain. */
__attribute__((noinline)) long kp_est_reads(const long *a, const uint32_t *idx, long n)
{
	long sum = 0, i;

	for (i = 0; i < n; i++)
		sum += a[idx[i & (READS_IDX - 1)]];
	return sum;
}

/* Objects copied in allocation order, each into a ring of 16 (3 KiB: in L1). */
__attribute__((noinline)) void kp_est_slab(char *const *obj, long nobj, char *ring, long n)
{
	long k = 0, j;

	for (; n > 0; n--) {
		const uint64_t *s = (const uint64_t *)obj[k];
		uint64_t *d = (uint64_t *)(ring + (n & 15) * OBJ);

		for (j = 0; j < OBJ / 8; j++)
			d[j] = s[j];
		if (++k == nobj)
			k = 0;
	}
}

__attribute__((noinline)) void kp_est_stosb(char *m, long n)
{
	unsigned long p = 0;

	for (; n > 0; n--) {
		void *d = m + p * PAGE;
		long c = PAGE;

		asm volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
		if (++p == CLEAR_BYTES / PAGE)
			p = 0;
	}
}

__attribute__((noinline)) void kp_est_movsb(const char *src, char *dst, long n)
{
	unsigned long p = 0;

	for (; n > 0; n--) {
		const void *s = src + p * PAGE;
		void *d = dst + p * PAGE;
		long c = PAGE;

		asm volatile("rep movsb" : "+S"(s), "+D"(d), "+c"(c) : : "memory");
		if (++p == MOVE_BYTES / PAGE)
			p = 0;
	}
}

/* Hoare's partition; the smaller part recursed into, the larger looped on. */
__attribute__((noinline)) void kp_est_qsort_rec(int *a, long lo, long hi)
{
	while (lo < hi) {
		int pivot = a[lo + (hi - lo) / 2], t;
		long i = lo - 1, j = hi + 1;

		for (;;) {
			do
				i++;
			while (a[i] < pivot);
			do
				j--;
			while (a[j] > pivot);
			if (i >= j)
				break;
			t = a[i], a[i] = a[j], a[j] = t;
		}
		if (j - lo < hi - j) {
			kp_est_qsort_rec(a, lo, j);
			lo = j + 1;
		} else {
			kp_est_qsort_rec(a, j + 1, hi);
			hi = j;
		}
	}
}

/*
 * The input taken in turn from SORT_INPUTS arrays: a sort of the same
 * array again and again is learnt by a predictor with long histories, the
 * more the more times it runs (natively 120 us a sort after 2,000 runs of
 * one array, 155 after 32, 168 through 64 arrays, on this project's Zen
 * 5), and the VM runs fewer.
 */
__attribute__((noinline)) void kp_est_qsort(const int *src, int *a, long n)
{
	long i;

	for (; n > 0; n--) {
		const int *in = src + n % SORT_INPUTS * SORT_INTS;

		for (i = 0; i < SORT_INTS; i++)
			a[i] = in[i];
		kp_est_qsort_rec(a, 0, SORT_INTS - 1);
	}
}

/* a[i] = 2i: half the random keys are there. */
__attribute__((noinline)) long kp_est_bsearch(const int *a, long n)
{
	uint64_t s = 3;
	long found = 0, lo, hi, mid;
	int key;

	for (; n > 0; n--) {
		key = lcg(&s) & (2 * SEARCH_INTS - 1);
		for (lo = 0, hi = SEARCH_INTS; lo < hi;) {
			mid = (lo + hi) / 2;
			if (a[mid] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		found += lo < (long)SEARCH_INTS && a[lo] == key;
	}
	return found;
}

struct slot {
	uint64_t key, val;
};
#define HASH(k) (((k)*0x9e3779b97f4a7c15ULL) >> 47) /* 17 bits */

__attribute__((noinline)) long kp_est_hash(const struct slot *t, long n)
{
	uint64_t s = 5, key, h;
	long sum = 0;

	for (; n > 0; n--) {
		key = (lcg(&s) & (HASH_KEYS - 1)) + 1;
		for (h = HASH(key); t[h].key != key; h = (h + 1) & (HASH_SLOTS - 1))
			;
		sum += t[h].val;
	}
	return sum;
}

/* Rows of C = A B, B walked down a column for each element: 3 KiB strides. */
__attribute__((noinline)) void kp_est_matmul(const double *a, const double *b, double *c, long n)
{
	long i = 0, j, k;
	double sum;

	for (; n > 0; n--) {
		for (j = 0; j < MAT; j++) {
			for (sum = 0, k = 0; k < MAT; k++)
				sum += a[i * MAT + k] * b[k * MAT + j];
			c[i * MAT + j] = sum;
		}
		if (++i == MAT)
			i = 0;
	}
}

/* The interpreter's handlers: each a little work on its state. */
struct vm {
	long acc, x;
};
typedef void op_fn(struct vm *v);
__attribute__((noinline)) void kp_est_op_add(struct vm *v)
{
	v->acc += v->x;
}
__attribute__((noinline)) void kp_est_op_sub(struct vm *v)
{
	v->acc -= 3;
}
__attribute__((noinline)) void kp_est_op_xor(struct vm *v)
{
	v->acc ^= v->x;
}
__attribute__((noinline)) void kp_est_op_shl(struct vm *v)
{
	v->acc <<= 1;
}
__attribute__((noinline)) void kp_est_op_inc(struct vm *v)
{
	v->x++;
}
__attribute__((noinline)) void kp_est_op_mul(struct vm *v)
{
	v->acc *= 3;
}
__attribute__((noinline)) void kp_est_op_swap(struct vm *v)
{
	long t = v->acc;

	v->acc = v->x, v->x = t;
}
__attribute__((noinline)) void kp_est_op_neg(struct vm *v)
{
	v->acc = -v->acc;
}

__attribute__((noinline)) void kp_est_interp(const unsigned char *prog, struct vm *v, long n)
{
	static op_fn *const ops[8] = {kp_est_op_add, kp_est_op_sub, kp_est_op_xor,  kp_est_op_shl,
				      kp_est_op_inc, kp_est_op_mul, kp_est_op_swap, kp_est_op_neg};
	long pc = 0;

	for (; n > 0; n--) {
		ops[prog[pc]](v);
		if (++pc == PROG_OPS)
			pc = 0;
	}
}

/*
 * Every line of 256 MiB in one cycle, in a full-period LCG's order (a = 1
 * mod 4, c odd, modulo the lines' power of two): no shuffle array to
 * build, so the setup is short under the model too.
 */
static int chase_setup(long arg)
{
	const uint64_t a = 0x5deece66dULL % LINES / 4 * 4 + 1, c = 12345;
	char *m = map(CHASE_BYTES);
	uint64_t i, next;

	if (!m)
		return -1;
	for (i = 0; i < LINES; i++) {
		next = (a * i + c) % LINES;
		*(void **)(m + i * 64) = m + next * 64;
	}
	g.a = m;
	return 0;
}

/* 64 MiB of longs, written (untouched pages would all read the zero page). */
static int longs_setup(long arg)
{
	long *a = map(64 * MIB), i;

	if (!a)
		return -1;
	for (i = 0; i < (long)(64 * MIB / 8); i++)
		a[i] = i;
	g.a = a;
	return 0;
}

/*
 * nobj objects of OBJ bytes, OBJS_PER_PAGE to a page, the page's slots in
 * allocation order (shuffled 0) or in an order shuffled per page.
 */
static int slab_setup(long nobj, int shuffled)
{
	long pages = (nobj + OBJS_PER_PAGE - 1) / OBJS_PER_PAGE, p, i, k, j, t;
	char *m = map(pages * PAGE), **obj = malloc(nobj * sizeof(*obj));
	long slot[OBJS_PER_PAGE];
	uint64_t s = 11;

	if (!m || !obj)
		return -1;
	for (p = 0; p < pages; p++) {
		for (i = 0; i < (long)OBJS_PER_PAGE; i++)
			slot[i] = i;
		for (i = OBJS_PER_PAGE - 1; shuffled && i > 0; i--) {
			j = lcg(&s) % (i + 1);
			t = slot[i], slot[i] = slot[j], slot[j] = t;
		}
		for (i = 0; i < (long)OBJS_PER_PAGE && (k = p * OBJS_PER_PAGE + i) < nobj; i++) {
			obj[k] = m + p * PAGE + slot[i] * OBJ;
			for (j = 0; j < OBJ / 8; j++)
				((long *)obj[k])[j] = k + j;
		}
	}
	g.a = obj;
	g.b = map(16 * OBJ);
	g.count = nobj;
	return g.b ? 0 : -1;
}

static int slab_seq_setup(long nobj)
{
	return slab_setup(nobj, 0);
}

static int slab_shuf_setup(long nobj)
{
	return slab_setup(nobj, 1);
}

/* Pages to clear, each touched first, and the buffers to copy between. */
static int bytes_setup(long size)
{
	char *a = map(size), *b = map(size);
	unsigned long i;

	if (!a || !b)
		return -1;
	for (i = 0; i < (unsigned long)size; i += 64)
		a[i] = b[i] = (char)i;
	g.a = a, g.b = b;
	return 0;
}

/* arg bytes of longs, and READS_IDX offsets of a long at the start of a random line of them */
static int reads_setup(long arg)
{
	long *a = map(arg);
	uint32_t *idx = map(READS_IDX * sizeof(*idx));
	uint64_t s = 5;
	long i;

	if (!a || !idx)
		return -1;
	for (i = 0; i < arg / 8; i++)
		a[i] = i;
	for (i = 0; i < (long)READS_IDX; i++)
		idx[i] = lcg(&s) % (arg / 64) * 8;
	g.a = a, g.b = idx;
	return 0;
}

static int qsort_setup(long arg)
{
	int *src = malloc(SORT_INPUTS * SORT_INTS * sizeof(int));
	int *a = malloc(SORT_INTS * sizeof(int));
	uint64_t s = 13;
	long i;

	if (!src || !a)
		return -1;
	for (i = 0; i < SORT_INPUTS * SORT_INTS; i++)
		src[i] = (int)lcg(&s);
	g.a = src, g.b = a;
	return 0;
}

static int bsearch_setup(long arg)
{
	int *a = map(SEARCH_INTS * sizeof(int));
	long i;

	if (!a)
		return -1;
	for (i = 0; i < (long)SEARCH_INTS; i++)
		a[i] = 2 * i;
	g.a = a;
	return 0;
}

static int hash_setup(long arg)
{
	struct slot *t = map(HASH_SLOTS * sizeof(*t));
	uint64_t key, h;

	if (!t)
		return -1;
	for (key = 1; key <= HASH_KEYS; key++) {
		for (h = HASH(key); t[h].key; h = (h + 1) & (HASH_SLOTS - 1))
			;
		t[h] = (struct slot){key, key};
	}
	g.a = t;
	return 0;
}

static int matmul_setup(long arg)
{
	double *a = map(MAT * MAT * 8), *b = map(MAT * MAT * 8), *c = map(MAT * MAT * 8);
	long i;

	if (!a || !b || !c)
		return -1;
	for (i = 0; i < MAT * MAT; i++)
		a[i] = i % 7 * 0.5, b[i] = i % 5 * 0.25, c[i] = 0;
	g.a = a, g.b = b, g.c = c;
	return 0;
}

static int interp_setup(long arg)
{
	unsigned char *prog = malloc(PROG_OPS);
	uint64_t s = 17;
	long i;

	if (!prog)
		return -1;
	for (i = 0; i < PROG_OPS; i++)
		prog[i] = lcg(&s) & 7;
	g.a = prog;
	return 0;
}

/* arg 0: the tested bit always set; 1: the generator's */
static int branch_setup(long arg)
{
	g.count = arg ? 0 : 1L << 40;
	return 0;
}

static int no_setup(long arg)
{
	return 0;
}

/* The loop of each kind: n iterations over the setup's data. */
static void run(const char *kind, long n)
{
	static long buf[8];
	static struct vm v = {1, 2};

	if (!strcmp(kind, "chase"))
		sink = (long)kp_est_chase(g.a, n);
	else if (!strcmp(kind, "stream"))
		sink = kp_est_stream(g.a, n);
	else if (!strcmp(kind, "gather"))
		sink = kp_est_gather(g.a, GATHER_LONGS, n);
	else if (!strcmp(kind, "gather-l2"))
		sink = kp_est_gather(g.a, L2_LONGS, n);
	else if (!strncmp(kind, "reads-", 6))
		sink = kp_est_reads(g.a, g.b, n);
	else if (!strncmp(kind, "slab-", 5))
		kp_est_slab(g.a, g.count, g.b, n);
	else if (!strcmp(kind, "stosb"))
		kp_est_stosb(g.a, n);
	else if (!strcmp(kind, "movsb"))
		kp_est_movsb(g.a, g.b, n);
	else if (!strcmp(kind, "qsort"))
		kp_est_qsort(g.a, g.b, n);
	else if (!strcmp(kind, "bsearch"))
		sink = kp_est_bsearch(g.a, n);
	else if (!strcmp(kind, "hash"))
		sink = kp_est_hash(g.a, n);
	else if (!strcmp(kind, "matmul"))
		kp_est_matmul(g.a, g.b, g.c, n);
	else if (!strcmp(kind, "interp"))
		kp_est_interp(g.a, &v, n), sink = v.acc;
	else if (!strncmp(kind, "branch-", 7))
		sink = kp_est_branch(g.count, n);
	else if (!strcmp(kind, "fence"))
		kp_est_fence(buf, n);
	else
		kp_est_retpoline(n);
}

static const struct kind {
	const char *name;
	int (*setup)(long arg);
	long arg;
} kinds[] = {
	{"stream", longs_setup},
	{"gather", longs_setup},
	{"gather-l2", longs_setup},
	{"reads-l2", reads_setup, 512 * KIB},
	{"reads-ll", reads_setup, 4 * MIB},
	{"chase", chase_setup},
	{"slab-seq-6k", slab_seq_setup, 6000},
	{"slab-shuf-6k", slab_shuf_setup, 6000},
	{"slab-seq-1m", slab_seq_setup, 1L << 20},
	{"slab-shuf-1m", slab_shuf_setup, 1L << 20},
	{"stosb", bytes_setup, CLEAR_BYTES},
	{"movsb", bytes_setup, MOVE_BYTES},
	{"qsort", qsort_setup},
	{"bsearch", bsearch_setup},
	{"hash", hash_setup},
	{"matmul", matmul_setup},
	{"interp", interp_setup},
	{"branch-pred", branch_setup, 0},
	{"branch-rand", branch_setup, 1},
	{"fence", no_setup},
	{"retpoline", no_setup},
};

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[2]) : -1;
	size_t i;

	for (i = 0; n >= 0 && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(argv[1], kinds[i].name))
			break;
	if (n < 0 || i == sizeof(kinds) / sizeof(kinds[0]))
		return 2;
	if (kinds[i].setup(kinds[i].arg))
		return 1;
	if (!n)
		return 0;
	model_marker_start();
	run(kinds[i].name, n);
	model_marker_stop();
	return 0;
}
