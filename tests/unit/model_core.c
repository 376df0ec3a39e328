// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timing model's core (plugin/kp_core.c) on streams whose time an
 * instruction window fixes, worked out by hand (the comments give the
 * sums): independent operations at the width, a dependent chain at its
 * latency, independent misses overlapped up to the miss buffers or the
 * window, whichever binds, a dependent chase never overlapped (nor one
 * through a hit on a line a miss is still bringing), misses whose values
 * operations wait for bound by the scheduler's entries, a
 * mispredicted branch's refill, a serializing instruction's drain, a
 * prefetched stream, lines a stream's crossing asked for early (and the
 * channel a crossing holds), a loop
 * within a fetch block and across two.  Each
 * stream's cycles, per instruction, and its stack are printed, and
 * checked: the cycles to within a rounding, the stack summing to them and
 * naming the cause.  Then bad sizes refused, naming the field.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kp_core.h"

static const char *const rows[KP_ST_N] = {"base", "branch", "icache", "dcache", "tlb", "serialize"};
static int failures;

struct run {
	double cycles, stack[KP_ST_N];
	unsigned long n;
};

static void step(struct kp_core *c, const struct kp_core_insn *in, struct run *r)
{
	struct kp_core_charge ch;

	kp_core_step(c, in, &ch);
	r->cycles += ch.cycles;
	r->stack[KP_ST_BASE] += ch.base;
	r->stack[ch.why] += ch.cycles - ch.base;
	r->n++;
}

/* Prints the stream's row; checks its cycles per instruction and its main cause. */
static void check(const char *name, const struct kp_core *c, const struct run *r, double want,
		  double tol, enum kp_stack cause)
{
	double per = r->cycles / r->n, sum = 0;
	int i, top = 0;

	printf("%-28s %8.3f cycles/insn (want %.3f)", name, per, want);
	for (i = 0; i < KP_ST_N; i++) {
		sum += r->stack[i];
		if (r->stack[i] > r->stack[top])
			top = i;
		if (r->stack[i] > 0)
			printf(" %s %.1f%%", rows[i], 100 * r->stack[i] / r->cycles);
	}
	printf("\n");
	if (fabs(per - want) > tol) {
		printf("FAIL %s: %.4f cycles an instruction, want %.4f +- %.4f\n", name, per, want,
		       tol);
		failures++;
	}
	if (fabs(sum - r->cycles) > 1e-6 * r->cycles ||
	    fabs(kp_core_cycles(c) - r->cycles) > 1e-6) {
		printf("FAIL %s: the stack sums to %.3f, the charges to %.3f, the core says %.3f\n",
		       name, sum, r->cycles, kp_core_cycles(c));
		failures++;
	}
	if ((int)cause != top) {
		printf("FAIL %s: most cycles in %s, want %s\n", name, rows[top], rows[cause]);
		failures++;
	}
}

static const struct kp_core_cfg cfg = {
	.width = 4, .window = 128, .mshrs = 10, .mispredict = 15, .ll = 40, .dram = 200};

static void fresh(struct kp_core *c, struct run *r, const struct kp_core_cfg *k)
{
	const char *bad;

	memset(r, 0, sizeof(*r));
	if (kp_core_init(c, k, &bad)) {
		printf("FAIL kp_core_init refused %s\n", bad);
		failures++;
	}
}

#define N 100000

/*
 * A stream of n instructions on cfg, with the sizes given (0: cfg's): in
 * repeated, each every-th one last instead (every 0: none).  Its cycles an
 * instruction want, to within tol, most of them charged to cause.
 */
struct stream {
	const char *name;
	unsigned int window, mshrs, lq, sq, prf, sched;
	unsigned int dram_line, walkers, width, l1_fill, l2_mshrs, alus, ll_queue;
	struct kp_core_insn in, last;
	int every, n;
	double want, tol;
	enum kp_stack cause;
};

/* the gathers' load: independent, missing L1 to memory */
#define GATHER_LOAD                                                                          \
	{                                                                                    \
		.src = 1 << 2, .addr = 1 << 2, .dst = 1 << 3, .load_lat = 200, .load_l1 = 5, \
		.load_miss = true, .loads = true                                             \
	}

/* the same, its lines beyond L2 too: each holds one of L2's buffers */
#define GATHER_BEYOND                                                                        \
	{                                                                                    \
		.src = 1 << 2, .addr = 1 << 2, .dst = 1 << 3, .load_lat = 200, .load_l1 = 5, \
		.load_miss = true, .load_beyond = true, .loads = true                        \
	}

/* the same from memory (a channel with no bound) */
#define GATHER_DRAM                                                                          \
	{                                                                                    \
		.src = 1 << 2, .addr = 1 << 2, .dst = 1 << 3, .load_lat = 200, .load_l1 = 5, \
		.load_miss = true, .load_beyond = true, .load_dram = true, .loads = true     \
	}

/* the same, each load's translation walking: 100 of its 300 cycles */
#define GATHER_WALK                                                                          \
	{                                                                                    \
		.src = 1 << 2, .addr = 1 << 2, .dst = 1 << 3, .load_lat = 300, .load_l1 = 5, \
		.load_tlb = 100, .load_walked = true, .load_miss = true, .loads = true       \
	}

/* a fast string's line copied between two L2-resident buffers */
#define L2_COPY                                                                          \
	{                                                                                \
		.src = 1 << 6, .addr = 1 << 6, .uops = 12, .load_lat = 14, .load_l1 = 4, \
		.load_miss = true, .store_lat = 14, .loads = true, .stores = true,       \
		.string_line = true                                                      \
	}

/* an add of the gathers' value (register 3), and one into a sum of them */
#define USE_3                                          \
	{                                              \
		.src = 1 << 3, .dst = 1 << 5, .lat = 1 \
	}
#define SUM_3                                                   \
	{                                                       \
		.src = 1 << 3 | 1 << 5, .dst = 1 << 5, .lat = 1 \
	}

/* gathers, each followed by op, on sched scheduler entries: the window's 64 pairs otherwise */
#define AWAITED(entries, op)                                                              \
	.mshrs = 64, .sched = entries, .in = GATHER_LOAD, .last = op, .every = 2, .n = N, \
	.tol = 0.01, .cause = KP_ST_DCACHE

/* an independent load that hits L2 */
#define L2_LOAD                                                                             \
	{                                                                                   \
		.src = 1 << 2, .addr = 1 << 2, .dst = 1 << 3, .load_lat = 14, .load_l1 = 4, \
		.load_miss = true, .loads = true                                            \
	}

/* an integer operation with no source: on an ALU pipe, nothing to wait for */
#define ALU_OP                                      \
	{                                           \
		.dst = 1 << 3, .lat = 1, .alu = true \
	}

static const struct stream streams[] = {
	/* width 8, four ALU pipes: four a cycle; no bound, the width's eight */
	{.name = "ALU ops, 4 pipes, width 8", .width = 8, .alus = 4, .in = ALU_OP, .n = N,
	 .want = 0.25, .tol = 0.001, .cause = KP_ST_BASE},
	{.name = "ALU ops, no pipe bound", .width = 8, .in = ALU_OP, .n = N, .want = 0.125,
	 .tol = 0.001, .cause = KP_ST_BASE},
	/* three ALU ops and a store (none: it takes no pipe): 3/4 cycle a group of 4 */
	{.name = "3 ALU ops a store, 4 pipes", .width = 8, .alus = 4, .in = ALU_OP,
	 .last = {.src = 1 << 5, .addr = 1 << 4, .stores = true}, .every = 4, .n = N,
	 .want = 0.1875, .tol = 0.001, .cause = KP_ST_BASE},
	/* no sources: one cycle of latency, then a quarter cycle each at width 4 */
	{.name = "independent adds",
	 .in = {.dst = 1 << 1, .lat = 1},
	 .n = N,
	 .want = (1 + (N - 1) * 0.25) / N,
	 .tol = 1e-9,
	 .cause = KP_ST_BASE},
	/* rax <- rax + 1: a cycle each; imul-like latency 3: three */
	{.name = "dependent chain, latency 1",
	 .in = {.src = 1, .dst = 1, .lat = 1},
	 .n = N,
	 .want = 1,
	 .tol = 1e-9,
	 .cause = KP_ST_BASE},
	{.name = "dependent chain, latency 3",
	 .in = {.src = 1, .dst = 1, .lat = 3},
	 .n = N,
	 .want = 3,
	 .tol = 1e-9,
	 .cause = KP_ST_BASE},
	/*
	 * Independent loads missing to memory (200 cycles) with nothing
	 * between: 10 miss buffers let 10 overlap, 20 cycles a load; a window
	 * of 16 with 64 buffers lets 16 (the 17th waits for the first to
	 * retire), 12.5; a load queue of 8 in a window of 128, 25.
	 */
	{.name = "gather, window 128, 10 MSHRs, LQ 0",
	 .window = 128,
	 .mshrs = 10,
	 .in = GATHER_LOAD,
	 .n = N,
	 .want = 20,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "gather, window 16, 64 MSHRs, LQ 0",
	 .window = 16,
	 .mshrs = 64,
	 .in = GATHER_LOAD,
	 .n = N,
	 .want = 12.5,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "gather, window 128, 64 MSHRs, LQ 8",
	 .window = 128,
	 .mshrs = 64,
	 .lq = 8,
	 .in = GATHER_LOAD,
	 .n = N,
	 .want = 25,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * The same loads, each writing a general register: 8 rename registers
	 * in a window of 128 let 8 overlap, 25 cycles a load; the same loads
	 * writing none (a compare's flags, say) are not held back by them.
	 */
	{.name = "gather, window 128, 64 MSHRs, 8 rename registers",
	 .window = 128,
	 .mshrs = 64,
	 .prf = 8,
	 .in = {.src = 1 << 2, .addr = 1 << 2, .dst = 1 << 3, .load_lat = 200, .load_l1 = 5,
		.load_miss = true, .loads = true, .renames = true},
	 .n = N,
	 .want = 25,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "gather, window 16, 64 MSHRs, 8 rename registers, none renamed",
	 .window = 16,
	 .mshrs = 64,
	 .prf = 8,
	 .in = GATHER_LOAD,
	 .n = N,
	 .want = 12.5,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * A load missing to memory (200 cycles), then 40 stores hitting, over
	 * and over, a store queue of 8: the 9th store waits for the 1st to
	 * retire, after the load (200 cycles from its issue, 0.25 more), and
	 * the next load, in order behind the other 32 (8 cycles at width 4),
	 * issues only then: the loads never overlap, ~208 cycles an iteration
	 * of 41 (dispatch in order: a queue's stall holds the younger too).
	 */
	{.name = "a load, 40 stores, SQ 8",
	 .sq = 8,
	 .in = {.src = 1 << 5, .addr = 1 << 4, .stores = true},
	 .last = GATHER_LOAD,
	 .every = 41,
	 .n = N,
	 .want = 208.25 / 41,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * Independent loads whose translations walk (100 of their 300
	 * cycles): 2 walkers let one through every 50 cycles, though the 10
	 * miss buffers, held only for the line's 200 once it is translated,
	 * would let one through every 20; with no bound on walks, 20.
	 */
	{.name = "gather walking, 2 walkers",
	 .walkers = 2,
	 .in = GATHER_WALK,
	 .n = N,
	 .want = 50,
	 .tol = 0.01,
	 .cause = KP_ST_TLB},
	{.name = "gather walking, walkers unbound",
	 .in = GATHER_WALK,
	 .n = N,
	 .want = 20,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/* rax <- (rax): each address the last load's value, 200 cycles each, always */
	{.name = "chase",
	 .in = {.src = 1,
		.addr = 1,
		.dst = 1,
		.load_lat = 200,
		.load_l1 = 5,
		.load_tlb = 30,
		.load_miss = true},
	 .n = N / 10,
	 .want = 200,
	 .tol = 1e-9,
	 .cause = KP_ST_DCACHE},
	/*
	 * Stores missing to memory (200 cycles), nothing between: each holds a
	 * miss buffer for its line's fetch, so 10 buffers let one through every
	 * 20 cycles, as loads
	 */
	{.name = "stores missing, 10 MSHRs",
	 .in = {.src = 1 << 2, .addr = 1 << 2, .store_lat = 200},
	 .n = N,
	 .want = 20,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * Independent loads from memory on a channel that sends a line every 50
	 * cycles: the channel binds (50 a load), not the 10 buffers (20).
	 */
	{.name = "loads on a 50-cycle channel",
	 .dram_line = 50,
	 .in = {.src = 1 << 2,
		.addr = 1 << 2,
		.dst = 1 << 3,
		.load_lat = 200,
		.load_l1 = 5,
		.load_miss = true,
		.load_dram = true},
	 .n = N,
	 .want = 50,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * 7 independent adds and a branch on the last, mispredicted: fetch
	 * resumes 15 cycles after the branch completes.  From a redirect at t
	 * the adds are fetched at t to t+1.5, the last ready at t+2.5; the
	 * branch, fetched at t+1.75, waits for it and completes at t+3.5; the
	 * next block is fetched at t+3.5+15: 18.5 cycles an iteration (the
	 * last one 3.5: no block follows it).
	 */
	{.name = "mispredicted branches",
	 .in = {.dst = 1 << 4, .lat = 1},
	 .last = {.src = 1 << 4, .lat = 1, .mispredicted = true},
	 .every = 8,
	 .n = N,
	 .want = ((N / 8 - 1) * 18.5 + 3.5) / N,
	 .tol = 1e-9,
	 .cause = KP_ST_BRANCH},
	/*
	 * 99 independent adds, then a serializing instruction costing 200: it
	 * waits for the adds to retire, takes 200 + 1, and nothing after it is
	 * fetched before it retires: 99/4 + 201 an iteration, less the overlap
	 * of the first add's latency (the adds start at the drain's end)
	 */
	{.name = "serializing every 100",
	 .in = {.dst = 1 << 4, .lat = 1},
	 .last = {.lat = 1, .serializing = true, .fixed = 200},
	 .every = 100,
	 .n = N,
	 .want = (1 + 98 * 0.25 + 201) / 100,
	 .tol = 0.01,
	 .cause = KP_ST_SERIALIZE},
	/*
	 * A copy through L2, a fast string's line at a time (12 uops at width
	 * 6: 2 cycles), its source's line and its destination's brought into
	 * L1: with no bound on L1's fill path, its uops' 2 cycles a line; a
	 * path of 2 or 3 cycles a line, 4 or 6.  Then independent loads that
	 * hit L2: a line each two cycles, where 24 buffers over 14 cycles
	 * would pass more.
	 */
	{.name = "copy through L2, no fill bound",
	 .mshrs = 24,
	 .width = 6,
	 .in = L2_COPY,
	 .n = N,
	 .want = 2,
	 .tol = 0.01,
	 .cause = KP_ST_BASE},
	{.name = "copy through L2, 2-cycle fills",
	 .mshrs = 24,
	 .width = 6,
	 .l1_fill = 2,
	 .in = L2_COPY,
	 .n = N,
	 .want = 4,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "copy through L2, 3-cycle fills",
	 .mshrs = 24,
	 .width = 6,
	 .l1_fill = 3,
	 .in = L2_COPY,
	 .n = N,
	 .want = 6,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "loads from L2, 2-cycle fills",
	 .mshrs = 24,
	 .width = 6,
	 .l1_fill = 2,
	 .in = L2_LOAD,
	 .n = N,
	 .want = 2,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * Independent loads missing L2 too (200 cycles): 4 of L2's buffers
	 * let one through every 50 cycles, though L1's 10 would every 20;
	 * loads L2 has hold none of them; stores beyond L2 wait for one.
	 */
	{.name = "gather beyond L2, 4 L2 buffers",
	 .l2_mshrs = 4,
	 .in = GATHER_BEYOND,
	 .n = N,
	 .want = 50,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "gather within L2, 4 L2 buffers",
	 .l2_mshrs = 4,
	 .in = GATHER_LOAD,
	 .n = N,
	 .want = 20,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * The same with the last level's latency growing 10 cycles for each
	 * other miss beyond L2 in flight: each load issues as a buffer frees,
	 * the other 3 busy, and takes 230 cycles: 4 in 230, 57.5 a load.  From
	 * memory, no growth: 50 again.
	 */
	{.name = "gather beyond L2, 4 L2 buffers, 10 a miss in flight",
	 .l2_mshrs = 4,
	 .ll_queue = 1000,
	 .in = GATHER_BEYOND,
	 .n = N,
	 .want = 57.5,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	{.name = "gather to memory, 4 L2 buffers, 10 a miss in flight",
	 .l2_mshrs = 4,
	 .ll_queue = 1000,
	 .in = GATHER_DRAM,
	 .n = N,
	 .want = 50,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * A miss from memory (200), then a load of its line that hits L1 but
	 * waits for the line, its value the next miss's address: a chase, 200
	 * cycles a pair.  Were the hit's value there at L1's latency, the
	 * misses would overlap (10 buffers: 20 a pair).
	 */
	{.name = "a hit on a line a miss brings",
	 .in = {.src = 1 << 4,
		.addr = 1 << 4,
		.dst = 1 << 3,
		.load_lat = 200,
		.load_l1 = 5,
		.load_miss = true,
		.loads = true,
		.load_line = 7},
	 .last = {.src = 1 << 2,
		  .addr = 1 << 2,
		  .dst = 1 << 4,
		  .load_lat = 5,
		  .load_l1 = 5,
		  .loads = true,
		  .load_line = 7},
	 .every = 2,
	 .n = N,
	 .want = 100,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
	/*
	 * Independent loads from memory (200), each value then read by an
	 * add: the adds wait in the scheduler until it comes.  Ten entries
	 * hold ten loads' adds: ten loads in flight, 20 cycles a pair, 10 an
	 * instruction (the window alone: 64 pairs, 200 / 64 a pair).  An
	 * accumulator's adds (each reads the last too) the same.
	 */
	{.name = "loads' values awaited, 10 scheduler entries", AWAITED(10, USE_3), .want = 10},
	{.name = "the same, no scheduler bound", AWAITED(0, USE_3), .want = 1.5625},
	{.name = "an accumulator of them, 10 entries", AWAITED(10, SUM_3), .want = 10},
	{.name = "stores beyond L2, 4 L2 buffers",
	 .l2_mshrs = 4,
	 .in = {.src = 1 << 5,
		.addr = 1 << 4,
		.stores = true,
		.store_lat = 200,
		.store_beyond = true},
	 .n = N,
	 .want = 50,
	 .tol = 0.01,
	 .cause = KP_ST_DCACHE},
};

static void run_stream(const struct stream *s)
{
	struct kp_core_cfg k = cfg;
	struct kp_core c;
	struct run r;
	int i;

	if (s->window)
		k.window = s->window;
	if (s->mshrs)
		k.mshrs = s->mshrs;
	if (s->width)
		k.width = s->width;
	k.l1_fill = s->l1_fill;
	k.l2_mshrs = s->l2_mshrs;
	k.sched = s->sched;
	k.lq = s->lq;
	k.sq = s->sq;
	k.prf = s->prf;
	k.walkers = s->walkers;
	k.dram_line = s->dram_line;
	k.alus = s->alus;
	k.ll_queue = s->ll_queue;
	fresh(&c, &r, &k);
	for (i = 1; i <= s->n; i++)
		step(&c, s->every && i % s->every == 0 ? &s->last : &s->in, &r);
	check(s->name, &c, &r, s->want, s->tol, s->cause);
	kp_core_free(&c);
}

/*
 * A stream of loads, each line prefetched from memory 8 lines ahead, a
 * channel of 20 cycles a line: the loads hit L1 (5 cycles) but wait for
 * their line, which the channel sends one every 20 cycles.
 */
static void prefetched(void)
{
	struct kp_core_cfg k = cfg;
	struct kp_core_insn in = {.src = 1 << 2,
				  .addr = 1 << 2,
				  .dst = 1 << 3,
				  .load_lat = 5,
				  .load_l1 = 5,
				  .npf = 1};
	struct kp_core c;
	struct run r;
	uint64_t line;
	int i;

	k.dram_line = 20;
	fresh(&c, &r, &k);
	for (i = 0; i < N; i++) {
		line = KP_CORE_PF_DRAM | (i + 9);
		in.load_line = i + 1;
		in.pf = &line;
		step(&c, &in, &r);
	}
	check("prefetched stream, 20-cycle channel", &c, &r, 20, 0.01, KP_ST_DCACHE);
	kp_core_free(&c);
}

/*
 * A stream's crossing into pages (kp_prefetch.h): each load's own line asked
 * for early, at time 0 (pf_from), from memory, through a channel of
 * dram_line cycles a line, page_cross more a crossing (each line one's).
 * No channel bound: the lines arrive at 200, so the first load waits (200
 * cycles) and the rest run at the width, 1/4 cycle each: the lines are
 * timed before the load that carries them looks for its own.  20 cycles a
 * line and 80 a crossing: line i is sent at 100 (i + 1), so the loads run
 * at 100 cycles each, waiting for their lines (dcache); without
 * page_cross, 20 (the channel's rate).
 */
static void crossed(unsigned int dram_line, unsigned int page_cross, double want, double tol,
		    enum kp_stack cause)
{
	struct kp_core_cfg k = cfg;
	struct kp_core_insn in = {.src = 1 << 2,
				  .addr = 1 << 2,
				  .dst = 1 << 3,
				  .load_lat = 5,
				  .load_l1 = 5,
				  .npf = 1,
				  .pf_from = 0,
				  .pf_early = true};
	struct kp_core c;
	struct run r;
	uint64_t line;
	char name[64];
	int i;

	k.dram_line = dram_line;
	k.page_cross = page_cross;
	fresh(&c, &r, &k);
	for (i = 0; i < N; i++) {
		line = KP_CORE_PF_DRAM | KP_CORE_PF_EARLY | (i + 1);
		in.load_line = i + 1;
		in.pf = &line;
		step(&c, &in, &r);
	}
	snprintf(name, sizeof(name), "crossings, channel %u+%u", dram_line, page_cross);
	check(name, &c, &r, want, tol, cause);
	kp_core_free(&c);
}

/*
 * A fast string's lines, 16 uops each at width 4 (4 cycles), each
 * dirtying a line whose writeback takes the channel 12 cycles (reads 20):
 * the string waits for the channel to take its lines, 12 cycles a line,
 * charged to dcache; the same lines not of a string (a store's eviction,
 * later) leave it at its width.
 */
static void string_lines(void)
{
	struct kp_core_cfg k = cfg;
	struct kp_core_insn in = {.uops = 16, .stores = true, .writebacks = 1, .string_line = true};
	struct kp_core c;
	struct run r;
	int i;

	k.dram_line = 20;
	k.dram_wline = 12;
	fresh(&c, &r, &k);
	for (i = 0; i < N; i++)
		step(&c, &in, &r);
	check("fast string, 12-cycle writebacks", &c, &r, 12, 0.01, KP_ST_DCACHE);
	kp_core_free(&c);
	in.string_line = false;
	fresh(&c, &r, &k);
	for (i = 0; i < N; i++)
		step(&c, &in, &r);
	check("stores, 12-cycle writebacks", &c, &r, 4, 0.01, KP_ST_BASE);
	kp_core_free(&c);
}

/*
 * A loop of 3 single-uop instructions at width 4, its last a taken
 * branch: one taken branch a cycle, so 1 cycle an iteration where the
 * width alone would give 0.75 (base: the width's share, the rest too).
 */
static void taken_loop(void)
{
	struct kp_core_insn in = {.uops = 1};
	struct kp_core c;
	struct run r;
	int i;

	fresh(&c, &r, &cfg);
	for (i = 0; i < 3 * N; i++) {
		in.taken = i % 3 == 2;
		step(&c, &in, &r);
	}
	check("3-instruction loop, a taken branch a cycle", &c, &r, 1.0 / 3, 0.01, KP_ST_BASE);
	kp_core_free(&c);
}

/*
 * The Zen 4 copy loop (load, store, add, cmp, jne: 5 single-uop
 * instructions, 18 bytes) at width 6 with 64-byte fetch blocks, at base:
 * within one block, a taken branch a cycle: 1 cycle an iteration; its
 * branch in the next block, two blocks a cycle each: 2 (measured there:
 * 1.04 and 2.00).  Straight code of 4-byte instructions, 16 a block, is
 * held by the width alone (1/6 a cycle each), not by the blocks.
 */
static void fetch_blocks(void)
{
	static const struct {
		const char *name;
		uint64_t base;
		int taken;
		double want;
	} loops[] = {
		{"loop within a fetch block", 0x1000 + 40, 1, 1.0 / 5},
		{"loop across two fetch blocks", 0x1000 + 48, 1, 2.0 / 5},
		{"straight code, 4-byte insns", 0x1000, 0, 1.0 / 6},
	};
	static const uint8_t len[5] = {4, 4, 4, 4, 2};
	struct kp_core_cfg k = cfg;
	struct kp_core_insn in = {.uops = 1};
	struct kp_core c;
	struct run r;
	size_t l;
	int i;

	k.width = 6;
	k.fetch_block = 64;
	for (l = 0; l < sizeof(loops) / sizeof(loops[0]); l++) {
		uint64_t va = loops[l].base;

		fresh(&c, &r, &k);
		for (i = 0; i < 5 * N; i++) {
			in.end = va + len[i % 5] - 1;
			in.taken = loops[l].taken && i % 5 == 4;
			va = in.taken ? loops[l].base : va + (loops[l].taken ? len[i % 5] : 4);
			step(&c, &in, &r);
		}
		check(loops[l].name, &c, &r, loops[l].want, 0.01, KP_ST_BASE);
		kp_core_free(&c);
	}
}

static void refused(void)
{
	static const struct {
		struct kp_core_cfg k;
		const char *field;
	} bad[] = {
		{{.width = 0, .window = 128, .mshrs = 10, .ll = 40, .dram = 200}, "width"},
		{{.width = 4, .window = 0, .mshrs = 10, .ll = 40, .dram = 200}, "window"},
		{{.width = 4, .window = 128, .mshrs = 0, .ll = 40, .dram = 200}, "mshrs"},
		{{.width = 4, .window = 128, .mshrs = 10, .l2_mshrs = 300}, "l2_mshrs"},
		{{.width = 4, .window = 128, .mshrs = 10, .walkers = 65}, "walkers"},
		{{.width = 4, .window = 128, .mshrs = 10, .mispredict = 5000}, "mispredict"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 300, .dram = 200}, "dram"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 40, .dram = 200, .prf = 5000}, "prf"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 40, .dram = 200, .sched = 5000}, "sched"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 40, .dram = 200, .fetch_block = 48},
		 "fetch_block"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 40, .dram = 200, .l1_fill = 5000},
		 "l1_fill"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 40, .dram = 200, .alus = 65}, "alus"},
		{{.width = 4, .window = 128, .mshrs = 10, .ll = 40, .dram = 200, .ll_queue = 100},
		 "ll_queue"},
	};
	struct kp_core c;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (kp_core_init(&c, &bad[i].k, &why) != -EINVAL || strcmp(why, bad[i].field)) {
			printf("FAIL a core with a bad %s was not refused naming it\n",
			       bad[i].field);
			failures++;
		}
	}
	printf("bad sizes refused: %zu\n", i);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		run_stream(&streams[i]);
	prefetched();
	crossed(0, 0, 0.25 + 200.0 / N, 0.001, KP_ST_BASE);
	crossed(20, 80, 100, 1, KP_ST_DCACHE);
	crossed(20, 0, 20, 0.2, KP_ST_DCACHE);
	string_lines();
	taken_loop();
	fetch_blocks();
	refused();
	return failures != 0;
}
