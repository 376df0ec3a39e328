/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "analysis/cfg.h"
#include "symbols/debuginfo.h"
#include "analysis/inline_ctx.h"
#include "analysis/loopbound.h"
#include "testutil.h"

/* where the hand-written functions are put: any address does, a kernel one reads true */
#define AT 0xffffffff81000000ull

/* The fake kernel memory the fetch programs read: MEM_LEN bytes at MEM_AT. */
#define MEM_AT	0x2000ull
#define MEM_LEN 64

struct machine {
	__u64 regs[KP_FREG_COUNT];
	__u8 mem[MEM_LEN];
};

/* A struct loopbound as expected, its fetch program as ops. */
struct want {
	int loop, block;
	__u64 cmp, jcc; /* from the function's start */
	struct kp_fetch_op ops[KP_FETCH_OPS];
	size_t nops;
	const char *bound, *counter, *cond;
};

/* A hand-written function: its bytes, its one bound (NULL when left out). */
struct code_case {
	const char *name;
	const __u8 *code;
	size_t len;
	const struct want *want;
};

#define OP(o, a)                             \
	{                                    \
		.op = KP_FOP_##o, .arg = (a) \
	}
#define IMM(o, v)                            \
	{                                    \
		.op = KP_FOP_##o, .imm = (v) \
	}
#define REG(r)	    OP(REG, KP_FREG_##r)
#define CODE(bytes) bytes, sizeof(bytes)

/* for (i = 1; i < slab->objects; i++), as allocate_slab's: the bound a 15-bit field in memory */
static const __u8 up_mem[] = {
	0x41, 0xbe, 0x01, 0x00, 0x00, 0x00, /* 0x00 mov $0x1,%r14d */
	0xeb, 0x04,			    /* 0x06 jmp 0xc */
	0x49, 0x83, 0xc6, 0x01,		    /* 0x08 add $0x1,%r14 */
	0x41, 0x0f, 0xb7, 0x77, 0x2a,	    /* 0x0c movzwl 0x2a(%r15),%esi */
	0x81, 0xe6, 0xff, 0x7f, 0x00, 0x00, /* 0x11 and $0x7fff,%esi */
	0x49, 0x39, 0xf6,		    /* 0x17 cmp %rsi,%r14 */
	0x72, 0xec,			    /* 0x1a jb 0x8 */
	0xc3,				    /* 0x1c ret */
};
static const struct want up_mem_want = {
	0,
	2,
	0x17,
	0x1a,
	{REG(R15), IMM(CONST, 0x2a), OP(ADD, 0), OP(LOAD, 2), IMM(AND, 0x7fff)},
	5,
	"*(u16 *)(%r15 + 0x2a) & 0x7fff",
	"%r14",
	"%r14 < (*(u16 *)(%r15 + 0x2a) & 0x7fff)",
};

/* int n = p->n; for (i = 0; i < n; i++): a signed bound set before the loop */
static const __u8 signed_reg[] = {
	0x8b, 0x77, 0x08, /* 0x00 mov 0x8(%rdi),%esi */
	0x31, 0xc0,	  /* 0x03 xor %eax,%eax */
	0x85, 0xf6,	  /* 0x05 test %esi,%esi */
	0x7e, 0x07,	  /* 0x07 jle 0x10 */
	0x83, 0xc0, 0x01, /* 0x09 add $0x1,%eax */
	0x39, 0xf0,	  /* 0x0c cmp %esi,%eax */
	0x7c, 0xf9,	  /* 0x0e jl 0x9 */
	0xc3,		  /* 0x10 ret */
};
static const struct want signed_reg_want = {
	0, 1, 0x0c, 0x0e, {REG(SI), OP(SEXT, 4)}, 2, "%esi", "%eax", "%eax + 1 < %esi",
};

/* for (i = 0; i < n + 1; i++) in 32 bits: the bound wraps to 0 when n is 0xffffffff */
static const __u8 wrap32[] = {
	0x31, 0xc0,	  /* 0x00 xor %eax,%eax */
	0x83, 0xc0, 0x01, /* 0x02 add $0x1,%eax */
	0x8d, 0x56, 0x01, /* 0x05 lea 0x1(%rsi),%edx */
	0x39, 0xd0,	  /* 0x08 cmp %edx,%eax */
	0x72, 0xf6,	  /* 0x0a jb 0x2 */
	0xc3,		  /* 0x0c ret */
};
static const struct want wrap32_want = {
	0,
	1,
	0x08,
	0x0a,
	{REG(SI), IMM(CONST, 1), OP(ADD, 0), OP(ZEXT, 4)},
	4,
	"%rsi + 1",
	"%eax",
	"%eax + 1 < %rsi + 1",
};

/* do p -= 16; while (p > base): counting down to a bound, unsigned */
static const __u8 down_ptr[] = {
	0x48, 0x83, 0xef, 0x10, /* 0x00 sub $0x10,%rdi */
	0x48, 0x39, 0xf7,	/* 0x04 cmp %rsi,%rdi */
	0x77, 0xf7,		/* 0x07 ja 0x0 */
	0xc3,			/* 0x09 ret */
};
static const struct want down_ptr_want = {
	0, 0, 0x04, 0x07, {REG(SI)}, 1, "%rsi", "%rdi", "%rdi - 0x10 > %rsi",
};

/* for (n = len; ; ) { ...; if (--n <= 0) break; }: sub's result against 0, signed */
static const __u8 sub_jle[] = {
	0x89, 0xf2,		/* 0x00 mov %esi,%edx */
	0x03, 0x07,		/* 0x02 add (%rdi),%eax */
	0x48, 0x83, 0xc7, 0x04, /* 0x04 add $0x4,%rdi */
	0x83, 0xea, 0x01,	/* 0x08 sub $0x1,%edx */
	0x7e, 0x02,		/* 0x0b jle 0xf */
	0xeb, 0xf3,		/* 0x0d jmp 0x2 */
	0xc3,			/* 0x0f ret */
};
static const struct want sub_jle_want = {
	0, 1, 0x08, 0x0b, {IMM(CONST, 0)}, 1, "0", "%edx", "%edx - 1 > 0",
};

/* for (i = 10; i; i--) with dec, whose flags are its result's */
static const __u8 dec_jne[] = {
	0xb9, 0x0a, 0x00, 0x00, 0x00, /* 0x00 mov $0xa,%ecx */
	0x01, 0xc8,		      /* 0x05 add %ecx,%eax */
	0xff, 0xc9,		      /* 0x07 dec %ecx */
	0x75, 0xfa,		      /* 0x09 jne 0x5 */
	0xc3,			      /* 0x0b ret */
};
static const struct want dec_jne_want = {
	0, 1, 0x07, 0x09, {IMM(CONST, 0)}, 1, "0", "%ecx", "%ecx - 1 != 0",
};

/* i going up, j going down: neither side stays, no bound */
static const __u8 both_move[] = {
	0x83, 0xc0, 0x01, /* 0x00 add $0x1,%eax */
	0x83, 0xea, 0x01, /* 0x03 sub $0x1,%edx */
	0x39, 0xd0,	  /* 0x06 cmp %edx,%eax */
	0x72, 0xf6,	  /* 0x08 jb 0x0 */
	0xc3,		  /* 0x0a ret */
};

/* a side the slice does not follow (popcnt): no bound */
static const __u8 opaque[] = {
	0x83, 0xc0, 0x01,	      /* 0x00 add $0x1,%eax */
	0xf3, 0x48, 0x0f, 0xb8, 0xd6, /* 0x03 popcnt %rsi,%rdx */
	0x39, 0xd0,		      /* 0x08 cmp %edx,%eax */
	0x72, 0xf4,		      /* 0x0a jb 0x0 */
	0xc3,			      /* 0x0c ret */
};

/*
 * BUG_ON(i >= limit) in a loop to n: the BUG's exit, in the block that
 * dominates the latch, would be preferred were it not doomed.
 */
static const __u8 doomed[] = {
	0x31, 0xc0,		/* 0x00 xor %eax,%eax */
	0x48, 0x39, 0xd0,	/* 0x02 cmp %rdx,%rax */
	0x73, 0x0a,		/* 0x05 jae 0x11 */
	0x48, 0x83, 0xc0, 0x01, /* 0x07 add $0x1,%rax */
	0x48, 0x39, 0xf0,	/* 0x0b cmp %rsi,%rax */
	0x72, 0xf2,		/* 0x0e jb 0x2 */
	0xc3,			/* 0x10 ret */
	0x0f, 0x0b,		/* 0x11 ud2 */
};
static const struct want doomed_want = {
	0, 2, 0x0b, 0x0e, {REG(SI)}, 1, "%rsi", "%rax", "%rax + 1 < %rsi",
};

/*
 * Two exits with a bound each: on odd i, leaving at i == m, which comes
 * first but is not tested on every trip; and i < n, which is.
 */
static const __u8 dominating[] = {
	0x31, 0xc0,		/* 0x00 xor %eax,%eax */
	0xa8, 0x01,		/* 0x02 test $0x1,%al */
	0x74, 0x05,		/* 0x04 je 0xb */
	0x48, 0x39, 0xd0,	/* 0x06 cmp %rdx,%rax */
	0x74, 0x09,		/* 0x09 je 0x14 */
	0x48, 0x83, 0xc0, 0x01, /* 0x0b add $0x1,%rax */
	0x48, 0x39, 0xf0,	/* 0x0f cmp %rsi,%rax */
	0x72, 0xee,		/* 0x12 jb 0x2 */
	0xc3,			/* 0x14 ret */
};
static const struct want dominating_want = {
	0, 3, 0x0f, 0x12, {REG(SI)}, 1, "%rsi", "%rax", "%rax + 1 < %rsi",
};

/* a bound of 13 operations, one more than a kp_fetch holds: named, not read */
static const __u8 too_long[] = {
	0x31, 0xc0,		/* 0x00 xor %eax,%eax */
	0x48, 0x83, 0xc0, 0x01, /* 0x02 add $0x1,%rax */
	0x4c, 0x8d, 0x04, 0xbe, /* 0x06 lea (%rsi,%rdi,4),%r8 */
	0x4c, 0x8d, 0x0c, 0xca, /* 0x0a lea (%rdx,%rcx,8),%r9 */
	0x4d, 0x0f, 0xaf, 0xc1, /* 0x0e imul %r9,%r8 */
	0x49, 0x83, 0xc0, 0x05, /* 0x12 add $0x5,%r8 */
	0x4c, 0x39, 0xc0,	/* 0x16 cmp %r8,%rax */
	0x72, 0xe7,		/* 0x19 jb 0x2 */
	0xc3,			/* 0x1b ret */
};
static const struct want too_long_want = {
	0,
	1,
	0x16,
	0x19,
	{{0}},
	0,
	"(%rsi + %rdi * 4) * (%rdx + %rcx * 8) + 5",
	"%rax",
	"%rax + 1 < (%rsi + %rdi * 4) * (%rdx + %rcx * 8) + 5",
};

static const struct code_case code_cases[] = {
	{"up_mem", CODE(up_mem), &up_mem_want},
	{"signed_reg", CODE(signed_reg), &signed_reg_want},
	{"wrap32", CODE(wrap32), &wrap32_want},
	{"down_ptr", CODE(down_ptr), &down_ptr_want},
	{"sub_jle", CODE(sub_jle), &sub_jle_want},
	{"dec_jne", CODE(dec_jne), &dec_jne_want},
	{"both_move", CODE(both_move), NULL},
	{"opaque", CODE(opaque), NULL},
	{"doomed", CODE(doomed), &doomed_want},
	{"dominating", CODE(dominating), &dominating_want},
	{"too_long", CODE(too_long), &too_long_want},
};

static bool mem_read(const struct machine *m, __u64 addr, int bytes, __u64 *out)
{
	if (addr < MEM_AT || addr - MEM_AT > MEM_LEN - (__u64)bytes)
		return false;
	*out = 0;
	memcpy(out, m->mem + (addr - MEM_AT), bytes);
	return true;
}

static __u64 low(__u64 v, int bytes, bool sign)
{
	int bits = bytes * 8;
	__u64 cut = v & ((1ull << bits) - 1);

	return sign && (cut >> (bits - 1)) ? cut | ~((1ull << bits) - 1) : cut;
}

/*
 * The reference for the BPF side: runs f as blocks_layout.h defines it,
 * its stack never deeper than KP_FETCH_STACK; false when a load fails or
 * f is empty.
 */
static bool eval(const struct kp_fetch *f, const struct machine *m, __u64 *out)
{
	__u64 st[KP_FETCH_STACK], b;
	int sp = 0, i;

	/* nothing to read */
	if (!f->n)
		return false;
	for (i = 0; i < f->n && f->ops[i].op != KP_FOP_END; i++) {
		const struct kp_fetch_op *o = &f->ops[i];

		if (o->op == KP_FOP_REG || o->op == KP_FOP_CONST) {
			assert_true(sp < KP_FETCH_STACK);
			st[sp++] = o->op == KP_FOP_REG ? m->regs[o->arg] : (__u64)o->imm;
			continue;
		}
		assert_true(sp >= (o->op >= KP_FOP_ADD && o->op <= KP_FOP_MUL ? 2 : 1));
		switch (o->op) {
		case KP_FOP_LOAD:
			if (!mem_read(m, st[sp - 1], o->arg, &st[sp - 1]))
				return false;
			break;
		case KP_FOP_ADD:
		case KP_FOP_SUB:
		case KP_FOP_MUL:
			b = st[--sp];
			st[sp - 1] = o->op == KP_FOP_ADD   ? st[sp - 1] + b
				     : o->op == KP_FOP_SUB ? st[sp - 1] - b
							   : st[sp - 1] * b;
			break;
		case KP_FOP_AND:
			st[sp - 1] &= o->imm;
			break;
		case KP_FOP_SHR:
			st[sp - 1] >>= o->arg;
			break;
		case KP_FOP_SAR:
			st[sp - 1] = (__u64)((__s64)st[sp - 1] >> o->arg);
			break;
		case KP_FOP_SHL:
			st[sp - 1] <<= o->arg;
			break;
		case KP_FOP_ZEXT:
		case KP_FOP_SEXT:
			st[sp - 1] = low(st[sp - 1], o->arg, o->op == KP_FOP_SEXT);
			break;
		default:
			fail_msg("op %d", o->op);
		}
	}
	assert_int_equal(sp, 1);
	*out = st[0];
	return true;
}

/* lb as expected, whole: want's addresses are from the function's start at base. */
static void check_bound(const struct loopbound *lb, const struct want *w, __u64 base)
{
	struct kp_fetch fetch;

	memset(&fetch, 0, sizeof(fetch));
	memcpy(fetch.ops, w->ops, w->nops * sizeof(w->ops[0]));
	fetch.n = w->nops;
	assert_int_equal(lb->loop, w->loop);
	assert_int_equal(lb->block, w->block);
	assert_int_equal(lb->cmp, base + w->cmp);
	assert_int_equal(lb->jcc, base + w->jcc);
	assert_memory_equal(&lb->fetch, &fetch, sizeof(fetch));
	assert_string_equal(lb->bound, w->bound);
	assert_string_equal(lb->counter, w->counter);
	assert_string_equal(lb->cond, w->cond);
}

/* The bounds of code placed at AT, its jumps and ud2 as cfg_build() takes them by default. */
static size_t bounds_of(const __u8 *code, size_t len, struct loopbound **v)
{
	struct cfg_text t = {AT, code, len};
	char why[128];
	struct cfg *g;
	size_t n;

	assert_int_equal(cfg_build(&t, 1, NULL, &g, why, sizeof(why)), 0);
	assert_int_equal(loopbound_find(g, &t, 1, NULL, 0, v, &n), 0);
	cfg_free(g);
	return n;
}

/* Each hand-written loop's bound, or none, in full. */
static void test_code(void **state)
{
	const struct code_case *c;
	struct loopbound *v;
	size_t i;

	for (i = 0; i < sizeof(code_cases) / sizeof(code_cases[0]); i++) {
		c = &code_cases[i];
		print_message("%s\n", c->name);
		assert_int_equal(bounds_of(c->code, c->len, &v), c->want ? 1 : 0);
		if (c->want)
			check_bound(&v[0], c->want, AT);
		free(v);
	}
}

/* code's one bound, read on m: its value, or false when the program has none to give. */
static bool value(const __u8 *code, size_t len, const struct machine *m, __u64 *out)
{
	struct loopbound *v;
	bool ok;

	assert_int_equal(bounds_of(code, len, &v), 1);
	ok = eval(&v[0].fetch, m, out);
	free(v);
	return ok;
}

/* The fetch programs read what the compare sees: its width, signedness, and the memory. */
static void test_values(void **state)
{
	struct machine m = {.regs[KP_FREG_R15] = MEM_AT, .mem[0x2a] = 0x99, .mem[0x2b] = 0x80};
	__u64 got;

	/* the field's 15 bits, not its neighbour's top bit */
	assert_true(value(CODE(up_mem), &m, &got));
	assert_int_equal(got, 0x99);
	m.regs[KP_FREG_R15] = MEM_AT + MEM_LEN;
	assert_false(value(CODE(up_mem), &m, &got));
	/* a signed 32-bit bound: the register's upper half is no part of it */
	m.regs[KP_FREG_SI] = 0x1fffffffbull;
	assert_true(value(CODE(signed_reg), &m, &got));
	assert_int_equal((__s64)got, -5);
	m.regs[KP_FREG_SI] = 0xffffffffull;
	assert_true(value(CODE(wrap32), &m, &got));
	assert_int_equal(got, 0);
	m.regs[KP_FREG_SI] = 9;
	assert_true(value(CODE(wrap32), &m, &got));
	assert_int_equal(got, 10);
	m.regs[KP_FREG_SI] = 0x1234;
	assert_true(value(CODE(down_ptr), &m, &got));
	assert_int_equal(got, 0x1234);
	assert_true(value(CODE(sub_jle), &m, &got));
	assert_int_equal(got, 0);
	assert_true(value(CODE(dec_jne), &m, &got));
	assert_int_equal(got, 0);
	assert_true(value(CODE(dominating), &m, &got));
	assert_int_equal(got, 0x1234);
	assert_false(value(CODE(too_long), &m, &got));
}

/*
 * Loops as GCC compiles them, named from its DWARF: allocate_slab's two
 * over slab->objects, one to a global, one counting down.  Built without
 * IPA-RA, as the kernel's -pg builds are: calls then clobber what the ABI
 * says they may.  A return thunk, as the kernel has, gives
 * inlines_ctx_open() a thunk to sort (with none it passes qsort() a NULL
 * array, which UBSan reports).
 */
static const char c_src[] = "asm(\".globl __x86_return_thunk\\n__x86_return_thunk: ret\\n\");\n"
			    "struct kp_slab {\n"
			    "	unsigned long flags;\n"
			    "	void *freelist;\n"
			    "	union {\n"
			    "		unsigned long counters;\n"
			    "		struct {\n"
			    "			unsigned inuse : 16;\n"
			    "			unsigned objects : 15;\n"
			    "			unsigned frozen : 1;\n"
			    "		};\n"
			    "	};\n"
			    "	unsigned int limit;\n"
			    "};\n"
			    "int kp_count;\n"
			    "__attribute__((noinline)) void kp_use(void *p, unsigned long i)\n"
			    "{\n"
			    "	asm volatile(\"\" : : \"r\"(p), \"r\"(i) : \"memory\");\n"
			    "}\n"
			    "__attribute__((noinline)) void kp_walk(struct kp_slab *slab)\n"
			    "{\n"
			    "	unsigned long idx;\n"
			    "\n"
			    "	for (idx = 1; idx < slab->objects; idx++)\n"
			    "		kp_use(slab, idx);\n"
			    "}\n"
			    "__attribute__((noinline)) void kp_plain(struct kp_slab *slab)\n"
			    "{\n"
			    "	int idx;\n"
			    "\n"
			    "	for (idx = 0; idx < slab->objects - 1; idx++)\n"
			    "		kp_use(slab, idx);\n"
			    "}\n"
			    "__attribute__((noinline)) void kp_global(void)\n"
			    "{\n"
			    "	int i;\n"
			    "\n"
			    "	for (i = 0; i < kp_count; i++)\n"
			    "		kp_use(0, i);\n"
			    "}\n"
			    "__attribute__((noinline)) void kp_down(struct kp_slab *s)\n"
			    "{\n"
			    "	unsigned int n;\n"
			    "\n"
			    "	for (n = s->limit; n; n--)\n"
			    "		kp_use(s, n);\n"
			    "}\n"
			    "int main(void)\n"
			    "{\n"
			    "	static struct kp_slab s;\n"
			    "\n"
			    "	kp_walk(&s);\n"
			    "	kp_plain(&s);\n"
			    "	kp_global();\n"
			    "	kp_down(&s);\n"
			    "	return 0;\n"
			    "}\n";

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	char exe[PATH_MAX];
};

static int build(void *arg)
{
	struct fixture *f = arg;
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/loops.c", f->tu.dir);
	snprintf(f->exe, sizeof(f->exe), "%s/loops", f->tu.dir);
	return tu_write_file(src, c_src) || tu_cc("-O2 -g -fno-ipa-ra", src, f->exe) ? -1 : 0;
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-loopbound", "gcc", build);
}

struct named_case {
	const char *func, *bound, *counter, *cond;
	__u64 value; /* the bound read with every register at the fake struct kp_slab */
};

/*
 * GCC 12's DWARF names idx at kp_walk's compare; in the others the counter
 * is incremented before the call, after which GCC no longer says where
 * the variable is: it is named as the block's head has it.
 */
static const struct named_case named_cases[] = {
	{"kp_walk", "slab->objects", "idx", "idx < slab->objects", 0x19},
	{"kp_plain", "slab->objects - 1", "%ebx", "idx + 1 < slab->objects - 1", 0x18},
	{"kp_global", "kp_count", "%ebx", "i + 1 < kp_count", 0},
	{"kp_down", "0", "%rbx", "n - 1 != 0", 0},
};

static void test_named(void **state)
{
	struct fixture *f = tu_fixture(state);
	/* objects at bits 16..30 of the word at 0x10, frozen above it, inuse below */
	struct machine m = {.mem = {[0x10] = 0xff, [0x11] = 0xff, [0x12] = 0x19, [0x13] = 0x80}};
	const struct named_case *c;
	struct loopbound *v;
	struct cfg_text t;
	struct tu_kernel fl;
	char why[128];
	struct cfg *g;
	size_t i, n;
	__u64 got;
	int r;

	for (r = 0; r < KP_FREG_COUNT; r++)
		m.regs[r] = MEM_AT;
	tu_kernel_open(&fl, f->exe);
	for (i = 0; i < sizeof(named_cases) / sizeof(named_cases[0]); i++) {
		c = &named_cases[i];
		tu_kernel_text(&fl, c->func, &t);
		assert_int_equal(cfg_build(&t, 1, NULL, &g, why, sizeof(why)), 0);
		assert_int_equal(loopbound_find(g, &t, 1, fl.di, 0, &v, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(v[0].bound, c->bound);
		assert_string_equal(v[0].counter, c->counter);
		assert_string_equal(v[0].cond, c->cond);
		/* the global is no fake memory: its load fails */
		got = 0;
		assert_int_equal(eval(&v[0].fetch, &m, &got), strcmp(c->func, "kp_global") != 0);
		assert_int_equal(got, c->value);
		free(v);
		cfg_free(g);
	}
	tu_kernel_close(&fl);
}

/* Debian 6.1's allocate_slab, shuffle_freelist and next_freelist_entry inlined in it. */
static const struct want kernel_want[] = {
	/* shuffle_freelist's for (idx = 1; idx < slab->objects; idx++): objects:15 at 0x28 + 16
	   bits */
	{0,
	 17,
	 0xffffffff813297c6ull,
	 0xffffffff813297c9ull,
	 {REG(R15), IMM(CONST, 0x2a), OP(ADD, 0), OP(LOAD, 2), IMM(AND, 0x7fff)},
	 5,
	 "slab->objects",
	 "idx",
	 "idx < slab->objects"},
	/* allocate_slab's for (idx = 0, p = start; idx < slab->objects - 1; idx++), in int */
	{1,
	 31,
	 0xffffffff813298b0ull,
	 0xffffffff813298b2ull,
	 {REG(R15), IMM(CONST, 0x2a), OP(ADD, 0), OP(LOAD, 2), IMM(AND, 0x7fff), IMM(CONST, 1),
	  OP(SUB, 0), OP(SEXT, 4)},
	 8,
	 "slab->objects - 1",
	 "idx",
	 "idx < slab->objects - 1"},
	/* next_freelist_entry's do { ... } while (unlikely(idx >= page_limit)), twice */
	{2,
	 14,
	 0xffffffff81329767ull,
	 0xffffffff8132976aull,
	 {REG(R13)},
	 1,
	 "page_limit",
	 "idx",
	 "idx >= page_limit"},
	{3,
	 20,
	 0xffffffff813297f0ull,
	 0xffffffff813297f3ull,
	 {REG(R13)},
	 1,
	 "page_limit",
	 "idx",
	 "idx >= page_limit"},
};

/* The same without the DWARF: bound, counter and cond in the registers' terms. */
static const char *const kernel_regs[][3] = {
	{"*(u16 *)(%r15 + 0x2a) & 0x7fff", "%r14", "%r14 + 1 < (*(u16 *)(%r15 + 0x2a) & 0x7fff)"},
	{"(*(u16 *)(%r15 + 0x2a) & 0x7fff) - 1", "%ebp",
	 "%ebp + 1 < (*(u16 *)(%r15 + 0x2a) & 0x7fff) - 1"},
	{"%r13", "%rsi", "*(u32 *)(%rdx + %rbp * 4) >= %r13"},
	{"%r13", "%rsi", "*(u32 *)(%rax + %rbp * 4) >= %r13"},
};

/* The exit blocks' heads, where the probes reading the bounds go. */
static const __u64 kernel_heads[] = {
	0xffffffff8132979eull,
	0xffffffff81329889ull,
	0xffffffff81329755ull,
	0xffffffff813297d9ull,
};

/* The four bounds' values when slab->objects is 25 (inuse and frozen all ones) and page_limit 100.
 */
static void check_kernel_values(const struct loopbound *v)
{
	struct machine m = {.regs = {[KP_FREG_R15] = MEM_AT, [KP_FREG_R13] = 100},
			    .mem = {[0x28] = 0xff, [0x29] = 0xff, [0x2a] = 0x19, [0x2b] = 0x80}};
	static const __s64 want[] = {25, 24, 100, 100};
	__u64 got;
	size_t i;

	for (i = 0; i < 4; i++) {
		assert_true(eval(&v[i].fetch, &m, &got));
		assert_int_equal((__s64)got, want[i]);
	}
	/* a slab of no objects: the int compare's bound is -1 */
	m.mem[0x2a] = 0;
	m.mem[0x2b] = 0;
	assert_true(eval(&v[1].fetch, &m, &got));
	assert_int_equal((__s64)got, -1);
}

static void test_real_vmlinux(void **state)
{
	const char *path = getenv("KP_TEST_VMLINUX");
	struct loopbound *v;
	struct cfg_text t[2];
	struct tu_kernel k;
	struct cfg_env env;
	char why[256];
	struct cfg *g;
	size_t i, n;

	if (!path || access(path, R_OK)) {
		print_message("skipped: KP_TEST_VMLINUX names no readable vmlinux with DWARF "
			      "(e.g. /root/.cache/kprotperf/dbg/vmlinux-6.1.0-56-amd64)\n");
		skip();
	}
	tu_kernel_open(&k, path);
	tu_kernel_text(&k, "allocate_slab", &t[0]);
	tu_kernel_text(&k, "allocate_slab.cold", &t[1]);
	env = tu_kernel_env(&k);
	assert_int_equal(cfg_build(t, 2, &env, &g, why, sizeof(why)), 0);
	assert_int_equal(loopbound_find(g, t, 2, k.di, 0, &v, &n), 0);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		check_bound(&v[i], &kernel_want[i], 0);
		assert_int_equal(g->b[v[i].block].start, kernel_heads[i]);
	}
	check_kernel_values(v);
	free(v);
	assert_int_equal(loopbound_find(g, t, 2, NULL, 0, &v, &n), 0);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_string_equal(v[i].bound, kernel_regs[i][0]);
		assert_string_equal(v[i].counter, kernel_regs[i][1]);
		assert_string_equal(v[i].cond, kernel_regs[i][2]);
	}
	free(v);
	cfg_free(g);
	tu_kernel_close(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_real_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
