/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timing model's core, apart from QEMU so that it can be tested on its
 * own (tests/unit/model_core.c): an out-of-order core reduced to what sets
 * its time, in the manner of an instruction-window model (Sniper's "rob"
 * core, ZSim's OOO core) rather than a cycle-by-cycle pipeline.  The plugin
 * hands it each executed instruction in program order with what was decoded
 * at translation (the registers it reads and writes, its execution latency
 * and uops) and what this execution met (its load's latency from the caches
 * and TLBs, an instruction fetch's stall, a mispredicted branch); the core
 * computes when the instruction is fetched, dispatched into the window,
 * issued, completed and retired:
 *
 *   fetch     in order, width uops a cycle, after the last redirect (a
 *             mispredicted branch's resolution + the refill) and its own
 *             I-side stall (I1 or I-TLB miss); a taken branch ends its
 *             cycle's fetch (what follows it comes from elsewhere: one
 *             taken branch a cycle);
 *   dispatch  after its fetch, once the window has room (the oldest
 *             instructions retire to make it), a load or store once the
 *             load or store queue has, and one writing a general register
 *             once a rename register is free (their entries free at
 *             retirement: a loop of loads and stores, or of register
 *             writes, behind a miss fills them before the window); in
 *             order, so that what holds one holds every younger one; a
 *             serializing instruction also waits for everything older to
 *             retire; and once the scheduler has room (sched: its entries
 *             free when their instructions issue, out of order, so that
 *             operations waiting for misses' values, a copy's stores say,
 *             fill it before the window);
 *   issue     when its sources are ready: a load when its address
 *             registers are, the operation when its other sources and its
 *             load are; a load whose translation walks the page tables
 *             first waits for a page walker, which the walk holds, and a
 *             load that missed L1 then (its line is asked for once it is
 *             translated) for a miss buffer (MSHR), and one that missed
 *             L2 too for one of L2's (l2_mshrs), so that independent
 *             misses overlap as far as the window, the walkers and the
 *             buffers let them and dependent ones (a chase: an address
 *             read from the last miss) never do; an integer operation
 *             also waits for an ALU pipe (alus a cycle, the older
 *             served first), so that a loop of independent operations
 *             runs at the pipes' rate, not the width's;
 *   complete  after its latency; its destination registers ready then;
 *   retire    in order, width uops a cycle, not before it completes.
 *
 * Memory has a channel: each line it sends (a demand miss, a store's
 * read for ownership, a prefetch) occupies it dram_line cycles, so that a
 * stream is bound by bandwidth, not only by the miss buffers; a line is
 * counted on it from when it was asked for (a read's ready time less
 * memory's latency), so that a read handed over before writes asked for
 * earlier does not leave the channel idle until it arrives.  A line a
 * prefetcher fetched is in the caches at once for the caches' sake, but a
 * load of it waits until it arrives (its fetch started when the access
 * that triggered it issued, and takes the latency of the level it came
 * from: L2 for an L1 prefetch of a line L2 has, LL, or memory through the
 * channel): prefetching hides latency, not bandwidth.  A stream's
 * crossing into the next page (kp_prefetch.h) asks for its lines earlier
 * than the access that met them: from pf_from, the time it reached the
 * edge; the first of them from memory holds the channel page_cross
 * cycles more (a stream through 4 KiB pages runs slower than through
 * 2 MiB ones, from memory only: docs/model.md, "A stream across pages").
 * L1 has a fill path: each line brought into it (a load's or a store's
 * miss, an L1 prefetch of a line L2 has) occupies it l1_fill cycles, in
 * the first free slot from when the line is asked for, so that a copy
 * through L2 is bound by the lines it brings into L1 (two a line copied:
 * its source's and its destination's), not by its uops alone.  Lines
 * written back to L2 are not counted on it (docs/model.md, "L1's fill
 * path").
 * A line a store makes dirty goes back to memory once (it is charged
 * to the channel when dirtied, as if evicted at once, dram_wline cycles:
 * writes are slower than reads on current cores).  A fast string writes
 * whole lines: no read for ownership, but each line it dirties waits for
 * the channel to take it (the write-combining buffers fill).
 * A store retires without waiting for its line, but one that missed L1
 * must first have a miss buffer, which its line's fetch then holds (the
 * read for ownership): a stream of stores is bound by the buffers as a
 * stream of loads is, and when none is free the store waits, as a full
 * store buffer would stall the core.  The time an instruction adds to the last
 * retirement is its cycles, charged to its PC, and split by cause, as
 * Sniper's CPI stacks are: what held its completion back (its load's
 * cache or TLB latency, the cause of the source it waited for when that
 * source's own load or fixed cost held it, a fetch redirect, an I-side
 * stall, a drain) or, when only the width held it, base.
 */
#ifndef KP_CORE_H
#define KP_CORE_H

#include <stdbool.h>
#include <stdint.h>

/* register bits as plugin/kp_x86_deps.h numbers them: at most 64 */
#define KP_CORE_REGS 64

/* Where an instruction's cycles went: the stack's rows. */
enum kp_stack {
	KP_ST_BASE,	 /* the width: the core busy at its rate */
	KP_ST_BRANCH,	 /* refilling after a mispredicted branch */
	KP_ST_ICACHE,	 /* instruction fetch: I1 and I-TLB misses */
	KP_ST_DCACHE,	 /* data: loads beyond an L1 hit */
	KP_ST_TLB,	 /* data translation: D-TLB misses and walks */
	KP_ST_SERIALIZE, /* drains and fixed costs (serializing instructions, fences, CR writes) */
	KP_ST_N
};

#define KP_CORE_UOP_CYCLES 128 /* uops of an instruction (kp_x86_deps's most: 100) */

/* The core's sizes (a core description's "core" object). */
struct kp_core_cfg {
	unsigned int width;	 /* uops fetched, dispatched and retired a cycle */
	unsigned int window;	 /* uops in flight between dispatch and retirement (the ROB) */
	unsigned int mshrs;	 /* L1 data misses outstanding at once */
	unsigned int l2_mshrs;	 /* of them, missing L2 too, at once (0: no bound; not prefetches) */
	unsigned int ll_queue;	 /* hundredths of a cycle an LL hit's latency grows for each other
				    miss beyond L2 in flight at its issue (0: none; needs l2_mshrs) */
	unsigned int walkers;	 /* page walks in flight at once (0: no bound) */
	unsigned int lq, sq;	 /* loads, stores in flight (0: only the window binds) */
	unsigned int prf;	 /* general-register results in flight (0: only the window binds) */
	unsigned int sched;	 /* instructions waiting to issue at once (0: only the window binds) */
	unsigned int mispredict; /* cycles from a mispredicted branch's resolution to the next fetch */
	unsigned int fetch_block; /* aligned code bytes fetched a cycle (2^n); 0: no bound */
	unsigned int l2, ll, dram; /* a prefetched line's latency from L2, LL, memory */
	unsigned int dram_line;	 /* cycles a line takes on the memory channel; 0: no bound */
	unsigned int dram_wline; /* cycles a line written back takes on it (0: dram_line) */
	unsigned int page_cross; /* cycles a stream's crossing into its next page costs the channel */
	unsigned int l1_fill;	 /* cycles a line takes on L1's fill path from L2; 0: no bound */
	unsigned int alus;	 /* integer operations issued a cycle (the ALU pipes); 0: no bound */
};

/* a line a prefetcher fetches: its address (physical >> 6) and where from */
#define KP_CORE_PF_DRAM (1ull << 63) /* or'ed in: from memory */
#define KP_CORE_PF_L2	(1ull << 62) /* or'ed in: from L2 (an L1 prefetch); neither: from LL */
#define KP_CORE_PF_EARLY (1ull << 61) /* or'ed in: asked for at the insn's pf_from, not its issue */

/* One executed instruction, as the plugin hands it over. */
struct kp_core_insn {
	uint64_t src;	      /* registers read by the operation (the address's too) */
	uint64_t addr;	      /* registers its load's address reads (a subset of src) */
	uint64_t dst;	      /* registers written */
	uint64_t end;	      /* its last byte's address: the fetch block it needs */
	uint32_t lat;	      /* cycles from its sources and its load (if any) to its result */
	uint32_t uops;	      /* 0 counts as 1 */
	uint32_t load_lat;    /* its load's load-to-use latency; 0: no load */
	uint32_t load_l1;     /* the part of it an L1 hit takes (the rest is charged to dcache or tlb) */
	uint32_t load_tlb;    /* the part of it the translation took */
	uint32_t store_lat;   /* its store's line fetch when it missed L1; 0: none */
	uint32_t fetch_stall; /* cycles before its bytes could be fetched (I1, I-TLB misses) */
	uint32_t fixed;	      /* a fixed event cost (CPUID, WRMSR...), charged as serialize */
	uint64_t load_line;   /* its load's line (physical >> 6): awaited while in flight; 0: none */
	uint64_t store_line;  /* its store's: it retires once a prefetch of it arrived; 0: none */
	uint32_t writebacks;  /* lines its stores made dirty: each goes back to memory once, on the channel */
	const uint64_t *pf;   /* the lines its accesses made the prefetchers fetch */
	uint32_t npf;
	double pf_from;	      /* when its KP_CORE_PF_EARLY lines were asked for (a stream's crossing) */
	bool pf_early;	      /* it has such lines: timed before its load waits for one */
	bool loads, stores;   /* it reads, writes memory (decoded: whether or not this execution did) */
	bool renames;	      /* it writes a general register: a rename register until it retires */
	bool load_dram;	      /* its load's line came from memory: the channel */
	bool store_dram;      /* its store's line did */
	bool string_line;     /* a fast string's line: it waits for its writebacks */
	bool load_miss;	      /* its load missed L1: it holds a miss buffer */
	bool load_beyond;     /* and L2: one of L2's too (cfg.l2_mshrs) */
	bool store_beyond;    /* its store's line came from beyond L2: one of L2's buffers */
	bool load_walked;     /* its translation walked the page tables: a walker, for load_tlb cycles */
	bool mispredicted;    /* a branch whose prediction was wrong */
	bool taken;	      /* control went elsewhere after it (a taken branch, a jump) */
	bool serializing;     /* waits for all older to retire; nothing younger is fetched before it retires */
	bool alu;	      /* its operation runs on an integer ALU pipe (cfg.alus) */
};

/*
 * What one instruction was charged: its cycles, base of them its width's
 * share (uops / width) and the rest to why (KP_ST_BASE too when nothing
 * held it): two rows of the stack, so that a charge is cheap to add up.
 */
struct kp_core_charge {
	double cycles, base;
	uint8_t why;
};

/* a load or store queue: when its entries' instructions retire, oldest first */
struct kp_core_queue {
	double *retire;
	uint8_t *why;
	unsigned int size, head, n;
};

/* the scheduler's waiting instructions: when each issues, the soonest first (a heap) */
struct kp_core_sched {
	double *issue;
	uint8_t *why;
	unsigned int n;
};

/*
 * A resource whose time is cut into slots of period cycles, one user
 * each: a user asked for at t takes the first free slot from t's on.
 * Slots, not a time the resource is next free: users are handed over in
 * program order but ask out of it (an operation behind a miss after an
 * independent one), and one asking late must not hold back one asking
 * earlier.  taken: the slots taken, + 1 (0: none), by slot number.
 */
struct kp_core_slots {
	uint64_t *taken;
	double period; /* 0: no bound */
	double per;    /* 1 / period when exact, else 0 (divided) */
};

/* a prefetched line and when it arrives */
struct kp_core_line {
	uint64_t line;
	double ready;
};

/* an instruction in the window: when it retires, its uops */
struct kp_core_slot {
	double retire;
	uint32_t uops;
	uint8_t cause;
};

struct kp_core {
	struct kp_core_cfg cfg;
	double fetch;	      /* when the next uop can be fetched */
	uint64_t fblock;      /* the fetch block fetched last (cfg.fetch_block's), + 1: 0 none */
	double fcycle;	      /* the cycle it was fetched in */
	unsigned int fbits;   /* log2 of cfg.fetch_block */
	double redirect;      /* no fetch before this: a mispredict's or a drain's end */
	uint8_t redirect_why; /* its cause (enum kp_stack) */
	double retired;	      /* the last retirement */
	double dispatched;    /* the last dispatch: in order, so a stall holds the younger too */
	uint8_t dispatch_why; /* what held it */
	double ready[KP_CORE_REGS];
	uint8_t why[KP_CORE_REGS]; /* what held each register's value back */
	double *mshr;		   /* cfg.mshrs: when each miss buffer frees */
	double *l2mshr;		   /* cfg.l2_mshrs: when each of L2's miss buffers frees */
	double *walker;		   /* cfg.walkers: when each page walker frees */
	double dram_free;	   /* when the memory channel can send the next line */
	struct kp_core_slots fill; /* L1's fill path: a line each slot */
	struct kp_core_slots alu;  /* the ALU pipes: an operation each slot of 1 / cfg.alus */
	struct kp_core_line *inflight; /* lines prefetched or missed: when they arrive */
	struct kp_core_slot *ring; /* the window, oldest at head */
	struct kp_core_queue lq, sq, prf;
	struct kp_core_sched sched; /* cfg.sched: those dispatched that have not issued */
	/* u / cfg.width for u uops: a division an instruction twice, taken from here */
	double uop_cycles[KP_CORE_UOP_CYCLES];
	unsigned int head, n, uops, ring_mask;
	uint64_t insns;
};

/* 0, or -EINVAL with the field's name in *bad when a size is 0 or absurd. */
int kp_core_init(struct kp_core *c, const struct kp_core_cfg *cfg, const char **bad);
void kp_core_free(struct kp_core *c);
/* the next instruction in program order: its charge into *out */
void kp_core_step(struct kp_core *c, const struct kp_core_insn *in, struct kp_core_charge *out);
/*
 * what an instruction folded into another (a fast string's iteration) did
 * to memory: its prefetches and writebacks, timed from the fetch frontier
 */
void kp_core_side(struct kp_core *c, const struct kp_core_insn *in);
/* when the last instruction retired: the cycles so far */
static inline double kp_core_cycles(const struct kp_core *c)
{
	return c->retired;
}
/* the fetch frontier: about when the instructions handed over next start */
static inline double kp_core_now(const struct kp_core *c)
{
	return c->fetch;
}

#endif
