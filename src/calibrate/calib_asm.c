// SPDX-License-Identifier: GPL-2.0-only
/*
 * The microbenchmarks' loops (calibrate/calibrate.h): each runs its body
 * n times, 4 copies an iteration, in inline assembly the compiler cannot
 * reorder or remove.  Loops that call or push move the stack pointer below
 * the red zone first (the compiler may keep data there).
 */
#include "calibrate/calibrate.h"
#include "retpoline_thunk.h"

/* A function that only returns, its return thunk (Linux's __x86_return_thunk:
 * "ret; int3"), one that returns through it, and a retpoline thunk built as
 * Linux's __x86_indirect_thunk_rax. */
asm(".text\n"
    ".p2align 6\n"
    "kp_calib_ret_fn: ret\n"
    ".p2align 6\n"
    "kp_calib_return_thunk: ret\n int3\n"
    ".p2align 6\n"
    "kp_calib_rt_fn: jmp kp_calib_return_thunk\n"
    ".p2align 6\n"
    "kp_calib_thunk_rax:\n" RETPOLINE_THUNK_RAX);

#define REP4(x) x x x x
/* A loop of n iterations of 4 bodies, the stack moved below the red zone around it. */
#define LOOP(body, ...)                                      \
	asm volatile("sub $128, %%rsp\n"                     \
		     "1:\n" REP4(body) "dec %[n]\n jnz 1b\n" \
				       "add $128, %%rsp\n"   \
		     : [n] "+r"(n)__VA_ARGS__)

/*
 * The clock: a chain of dependent IMUL r64, r64, 3 cycles each on every
 * Intel core since Nehalem and every AMD Zen (Agner Fog's tables,
 * uops.info); no core eliminates or folds a multiply.  The factor is odd,
 * so the chain never collapses to 0.
 */
void calib_imul_chain(void *ctx, long n)
{
	long x = 1, f = 3;

	/* 4 dependent multiplies a body: 16 an iteration */
	asm volatile("1:\n" REP4(REP4("imul %[f], %[x]\n")) "dec %[n]\n jnz 1b\n"
		     : [n] "+r"(n), [x] "+r"(x)
		     : [f] "r"(f)
		     : "cc");
}

/*
 * The cross-check: a chain of dependent ADD r64, r64, 1 cycle each.  A
 * register source, not an immediate: Golden Cove and later fold dependent
 * immediate adds at rename, faster than one a cycle, which an add of a
 * register's value (one the core cannot know) does not allow.
 */
void calib_add_chain(void *ctx, long n)
{
	long x = 0, y = (long)ctx | 1;

	/* 4 dependent adds a body: 16 an iteration */
	asm volatile("1:\n" REP4(REP4("add %[y], %[x]\n")) "dec %[n]\n jnz 1b\n"
		     : [n] "+r"(n), [x] "+r"(x)
		     : [y] "r"(y)
		     : "cc");
}

void calib_mix(void *ctx, long n)
{
	long *buf = ctx;

	/* 10 instructions a body: loads, a store, ALU work, a branch never taken */
	LOOP("mov (%[b]), %%r8\n add %%r8, %%r9\n mov %%r9, 8(%[b])\n xor %%r10, %%r11\n"
	     "lea 1(%%r9), %%r10\n shl $1, %%r11\n or %%r8, %%r10\n cmp %%r9, %%r10\n je 3f\n"
	     "nop\n 3:\n",
	     : [b] "r"(buf)
	     : "r8", "r9", "r10", "r11", "cc", "memory");
}

/* ctx: where the chase is, kept between calls so that one goes on where the last stopped */
void calib_chase(void *ctx, long n)
{
	void *p = *(void **)ctx;

	LOOP("mov (%[p]), %[p]\n", , [p] "+r"(p) : : "memory");
	*(void **)ctx = p;
}

/* A call of generated code: its chain of jumps n times (calibrate's JIT, calib_mem.c). */
void calib_jit(void *ctx, long n)
{
	asm volatile("sub $128, %%rsp\n call *%[f]\n add $128, %%rsp\n"
		     : "+c"(n)
		     : [f] "r"(ctx)
		     : "memory", "cc");
}

#define FENCE_BENCH(name, ins)                                                        \
	void calib_##name(void *ctx, long n)                                          \
	{                                                                             \
		LOOP("mov %%rdx, (%[b])\n " ins "\n add $1, %%rdx\n add $1, %%rsi\n", \
		     : [b] "r"(ctx)                                                   \
		     : "rdx", "rsi", "cc", "memory");                                 \
	}
FENCE_BENCH(nofence, "")
FENCE_BENCH(lfence, "lfence")
FENCE_BENCH(mfence, "mfence")
FENCE_BENCH(sfence, "sfence")

void calib_cpuid(void *ctx, long n)
{
	LOOP("xor %%eax, %%eax\n xor %%ecx, %%ecx\n cpuid\n",
	     :
	     : "rax", "rbx", "rcx", "rdx", "memory");
}

void calib_nocpuid(void *ctx, long n)
{
	LOOP("xor %%eax, %%eax\n xor %%ecx, %%ecx\n", : : "rax", "rbx", "rcx", "rdx", "memory");
}

void calib_verw(void *ctx, long n)
{
	LOOP("verw (%[s])\n", : [s] "r"(ctx) : "cc", "memory");
}

void calib_empty(void *ctx, long n)
{
	LOOP("nop\n", : : "memory");
}

/* IRETQ to the same ring: SS, RSP, RFLAGS, CS, RIP pushed, then iretq (or popped: the base). */
#define IRET_FRAME                                                                \
	"mov %%rsp, %%rax\n mov %%ss, %%ecx\n push %%rcx\n push %%rax\n pushfq\n" \
	"mov %%cs, %%ecx\n push %%rcx\n lea 2f(%%rip), %%rcx\n push %%rcx\n"
void calib_iret(void *ctx, long n)
{
	LOOP(IRET_FRAME "iretq\n 2:\n", : : "rax", "rcx", "cc", "memory");
}

void calib_noiret(void *ctx, long n)
{
	LOOP(IRET_FRAME "add $40, %%rsp\n jmp 2f\n 2:\n", : : "rax", "rcx", "cc", "memory");
}

void calib_call_direct(void *ctx, long n)
{
	LOOP("call kp_calib_ret_fn\n", : : "rax", "memory");
}

void calib_call_ind(void *ctx, long n)
{
	LOOP("lea kp_calib_ret_fn(%%rip), %%rax\n call *%%rax\n", : : "rax", "memory");
}

void calib_call_lea(void *ctx, long n)
{
	LOOP("lea kp_calib_ret_fn(%%rip), %%rax\n call kp_calib_ret_fn\n", : : "rax", "memory");
}

void calib_retpoline(void *ctx, long n)
{
	LOOP("lea kp_calib_ret_fn(%%rip), %%rax\n call kp_calib_thunk_rax\n", : : "rax", "memory");
}

void calib_return_thunk(void *ctx, long n)
{
	LOOP("call kp_calib_rt_fn\n", : : "rax", "memory");
}

void calib_jmp_ind(void *ctx, long n)
{
	LOOP("lea 2f(%%rip), %%rax\n jmp *%%rax\n 2:\n", : : "rax", "memory");
}

void calib_jmp_direct(void *ctx, long n)
{
	LOOP("lea 2f(%%rip), %%rax\n jmp 2f\n 2:\n", : : "rax", "memory");
}

/*
 * A conditional branch on each of 4 bytes an iteration (ctx a calib_rep:
 * src CALIB_BITS bytes, 0 or 1): taken on 0, else an add; its index moves
 * on by 4 round the ring and stays where it stopped, so that no call replays
 * the bytes the one before it (the warm-up) taught the predictor.  Random
 * bytes: half the branches mispredict; alternate ones: none.
 */
#define BIT_BRANCH(k) \
	"movzbl " #k "(%[b],%[i]), %%eax\n test %%eax, %%eax\n jz 2f\n add $1, %[x]\n 2:\n"
/* Its branchless twin: each byte added. */
#define BIT_ADD(k) "movzbl " #k "(%[b],%[i]), %%eax\n add %%rax, %[x]\n"
#define BITS_NEXT  "add $4, %[i]\n and %[m], %[i]\n dec %[n]\n jnz 1b\n"
#define BITS_LOOP(body)                                               \
	asm volatile("1:\n" body(0) body(1) body(2) body(3) BITS_NEXT \
		     : [n] "+r"(n), [i] "+r"(i), [x] "+r"(x)          \
		     : [b] "r"(r->src), [m] "r"(r->mask)              \
		     : "rax", "cc", "memory")

void calib_branch(void *ctx, long n)
{
	struct calib_rep *r = ctx;
	unsigned long i = r->off;
	long x = 0;

	BITS_LOOP(BIT_BRANCH);
	r->off = i;
}

void calib_branchless(void *ctx, long n)
{
	struct calib_rep *r = ctx;
	unsigned long i = r->off;
	long x = 0;

	BITS_LOOP(BIT_ADD);
	r->off = i;
}

/*
 * A loop of five instructions, 14 bytes (three independent adds, dec,
 * jnz: a taken branch an iteration), at the start of a 64-byte block or
 * across two (its jnz in the next): the fetch block's cost.  The padding
 * before it runs once a call.
 */
#define BLOCK_LOOP(pad)                                                                       \
	asm volatile(".p2align 6\n" pad                                                       \
		     "1: add $1, %%eax\n add $1, %%ecx\n add $1, %%edx\n dec %[n]\n jnz 1b\n" \
		     : [n] "+r"(n)                                                            \
		     :                                                                        \
		     : "eax", "ecx", "edx", "cc")

void calib_loop_within(void *ctx, long n)
{
	BLOCK_LOOP("");
}

void calib_loop_across(void *ctx, long n)
{
	BLOCK_LOOP(".skip 56, 0x90\n");
}

/* A sequential read: one load a 64-byte line (the line is what memory moves), ctx a calib_rep. */
void calib_stream(void *ctx, long n)
{
	struct calib_rep *r = ctx;
	unsigned long o = r->off;

	LOOP("mov (%[s],%[o]), %%r8\n add $64, %[o]\n and %[m], %[o]\n", , [o] "+r"(o)
	     : [s] "r"(r->src), [m] "r"(r->mask)
	     : "r8", "cc", "memory");
	r->off = o;
}

/*
 * A sum of each line's eight longs, two accumulators, as a compiler
 * writes a reduction (a line's adds wait on four adds before them, not
 * eight: the channel binds, not the chain); ctx a calib_rep
 */
void calib_stream_sum(void *ctx, long n)
{
	struct calib_rep *r = ctx;
	unsigned long o = r->off;
	long a = 0, b = 0;

	LOOP("add (%[s],%[o]), %[a]\n add 8(%[s],%[o]), %[b]\n add 16(%[s],%[o]), %[a]\n"
	     "add 24(%[s],%[o]), %[b]\n add 32(%[s],%[o]), %[a]\n add 40(%[s],%[o]), %[b]\n"
	     "add 48(%[s],%[o]), %[a]\n add 56(%[s],%[o]), %[b]\n add $64, %[o]\n and %[m], %[o]\n",
	     , [o] "+r"(o), [a] "+r"(a), [b] "+r"(b)
	     : [s] "r"(r->src), [m] "r"(r->mask)
	     : "cc", "memory");
	r->off = o;
}

/* Independent loads, one a body, at the offsets an index holds; ctx a calib_gather. */
void calib_gather(void *ctx, long n)
{
	struct calib_gather *g = ctx;
	unsigned long o = g->off;

	LOOP("mov (%[x],%[o],4), %%r9d\n mov (%[s],%%r9), %%r8\n add $1, %[o]\n and %[m], %[o]\n",
	     , [o] "+r"(o)
	     : [x] "r"(g->idx), [s] "r"(g->src), [m] "r"(g->mask)
	     : "r8", "r9", "cc", "memory");
	g->off = o;
}

/*
 * calib_gather's loads, each value then read by six operations (LEAs of
 * it), which wait for it: in a scheduler until it arrives.
 */
void calib_gather_use(void *ctx, long n)
{
	struct calib_gather *g = ctx;
	unsigned long o = g->off;

	LOOP("mov (%[x],%[o],4), %%r9d\n mov (%[s],%%r9), %%r8\n lea 1(%%r8), %%r10\n"
	     " lea 2(%%r8), %%r11\n lea 3(%%r8), %%rax\n lea 4(%%r8), %%rdx\n lea 5(%%r8), %%rcx\n"
	     " lea 6(%%r8), %%rsi\n add $1, %[o]\n and %[m], %[o]\n",
	     , [o] "+r"(o)
	     : [x] "r"(g->idx), [s] "r"(g->src), [m] "r"(g->mask)
	     : "r8", "r9", "r10", "r11", "rax", "rdx", "rcx", "rsi", "cc", "memory");
	g->off = o;
}

/* A 4 KiB fast string a body (ins: none for the twin), a page on each time; ctx a calib_rep. */
#define REP_BENCH(name, ins)                                                                    \
	void calib_##name(void *ctx, long n)                                                    \
	{                                                                                       \
		struct calib_rep *r = ctx;                                                      \
		unsigned long o = r->off;                                                       \
                                                                                                \
		LOOP("lea (%[d],%[o]), %%rdi\n lea (%[s],%[o]), %%rsi\n mov $4096, %%ecx\n" ins \
		     "\n add $4096, %[o]\n and %[m], %[o]\n",                                   \
		     , [o] "+r"(o)                                                              \
		     : [d] "r"(r->dst), [s] "r"(r->src), [m] "r"(r->mask), "a"(0)               \
		     : "rdi", "rsi", "rcx", "cc", "memory");                                    \
		r->off = o;                                                                     \
	}
REP_BENCH(rep_stosb, "rep stosb")
REP_BENCH(rep_movsb, "rep movsb")
REP_BENCH(rep_none, "")

/*
 * Two independent chases (ctx a calib_pair), N register adds after each
 * load, to 6 registers in turn: the second load overlaps the first's miss
 * while the adds and it find free rename registers (a chain of N / 3 adds
 * a register a body stays under a miss's latency).
 */
#define ADDS6 \
	"add $1, %%r8\n add $1, %%r9\n add $1, %%r10\n add $1, %%r11\n add $1, %%rax\n add $1, %%rdx\n"
#define RENAME_BENCH(nadds)                                                       \
	void calib_rename_##nadds(void *ctx, long n)                              \
	{                                                                         \
		struct calib_pair *c = ctx;                                       \
		void *p = c->p, *q = c->q;                                        \
                                                                                  \
		LOOP("mov (%[p]), %[p]\n .rept " #nadds " / 6\n" ADDS6 ".endr\n"  \
		     "mov (%[q]), %[q]\n .rept " #nadds " / 6\n" ADDS6 ".endr\n", \
		     , [p] "+r"(p), [q] "+r"(q)                                   \
		     :                                                            \
		     : "r8", "r9", "r10", "r11", "rax", "rdx", "cc", "memory");   \
		c->p = p;                                                         \
		c->q = q;                                                         \
	}
CALIB_RENAME_SIZES(RENAME_BENCH)
