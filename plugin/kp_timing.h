/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mode=timing: the machine model's cycles (docs/model.md, "The timing
 * model").  kp_run.c counts and simulates the caches and TLBs as in
 * mode=cache; this file turns what each execution met into a latency, adds
 * what mode=cache lacks (an L2 between D1/I1 and LL, a second-level TLB, a
 * branch predictor, prefetchers, fast strings) and feeds the instructions,
 * in program order, to the core (kp_core.h), which charges each its cycles.
 *
 * The work is done a block late: QEMU calls kp_run.c back when a block
 * starts executing and on each memory access, never when one ends, so the
 * accesses of a block's instructions are noted beside it (kp_tnote, one
 * block's worth) and the block is handed to the core when the next one
 * starts, whose address says where each branch went.  An instruction whose
 * block was left before it (a fault) is still handed over, without its
 * access: a fault is rare against the instructions around it (see
 * docs/model.md).
 */
#ifndef KP_TIMING_H
#define KP_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kp_bpred.h"
#include "kp_cache.h"
#include "kp_core.h"
#include "kp_prefetch.h"
#include "kp_x86.h"

#define KP_TPF_BLOCK 512 /* prefetches timed in one block's execution */
#define KP_TDIRTY_BYTES \
	(4ull << 30) /* RAM whose dirty lines are tracked (-m 2G, below the PCI hole) */

/* the cycles charged to one PC, their split (kp_core.h's stack), the executions charged */
struct kp_cyc {
	double cycles;
	double stack[KP_ST_N];
	uint64_t measured;
};

/* branch kinds the predictor is asked about (kp_x86_deps.h's kinds, reduced) */
enum kp_tbranch { KP_TB_NONE, KP_TB_COND, KP_TB_CALL, KP_TB_CALL_IND, KP_TB_JMP_IND, KP_TB_RET };

/* a translated instruction's flags: its branch kind (enum kp_tbranch) in the low bits */
#define KP_TI_BRANCH	  0x07
#define KP_TI_SERIALIZING 0x08
#define KP_TI_STRING	  0x10
#define KP_TI_KNOWN	  0x20 /* the decoder knew it */
#define KP_TI_LOADS	  0x40
#define KP_TI_STORES	  0x80

/*
 * cycles an instruction's row adds up before they go into its PC's: below
 * it a float keeps 1/8192 of a cycle
 */
#define KP_TACC_MAX 1024.0f

/*
 * One translated instruction as the core sees it: one host cache line,
 * all a block's hand-over reads of it, so that the core's share of the
 * host's caches is a line per instruction of the guest's hot code.  What
 * an execution met is noted apart (struct kp_tnote), what only the
 * callbacks and the fold use too (struct kp_tsite).
 */
struct kp_tinsn {
	uint64_t src, addr, dst;
	uint64_t vaddr;
	float acc[KP_ST_N]; /* its cycles by the stack's rows, not yet in its PC's */
	uint32_t fixed;
	uint8_t lat, uops;
	uint8_t len;   /* 0: a marker, never handed over */
	uint8_t flags; /* KP_TI_* */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct kp_tinsn) == 64,
	       "an instruction of the timing model is one host line");

/*
 * what the callbacks of a translated instruction use, and where its cycles
 * go: their sites (kp_model.h's) point here, so that between samples they
 * touch what mode=cache's do and no more
 */
struct kp_tsite {
	struct kp_tinsn *ti;
	struct kp_cyc *cyc; /* its PC's */
};

/*
 * A translated block, for the timing model, its instructions' callback data
 * right after it (so that its first's finds it: kp_tblock_tag_of) and the
 * instructions after them, each on a line of its own (kp_tblock_size,
 * kp_tblock_init).
 */
struct kp_tblock {
	uint32_t n;
	struct kp_tinsn *ti;
	struct kp_tsite *ts;
	uint64_t measured; /* executions charged, not yet in its PCs' (kp_timing_fold) */
	/* its first instruction's address (0: a marker); its last's, whose branch ends it */
	uint64_t start, last_va;
	uint8_t last_len, last_flags;
} __attribute__((aligned(64)));

#define KP_TNOTES 512 /* instructions of a block whose executions are noted (TCG's most) */

/* What one execution of an instruction met, while its block executes. */
struct kp_tnote {
	uint32_t load_lat, load_tlb, store_lat, fetch_stall, bytes;
	uint32_t pf_off, npf; /* its prefetches' lines in kp_timing's pf[] */
	uint32_t writebacks;
	uint64_t load_line, store_line;
	double pf_from; /* a stream's crossing into its page: when its lines were asked for */
	uint8_t load_miss, load_dram, store_dram, pf_early;
	uint8_t load_beyond, store_beyond; /* the line came from beyond L2 */
};

/*
 * A shared last level loses lines to the host's other tenants: of a
 * million hits, ppm come from DRAM (docs/model.md, "The last level under
 * load").  Whether hit n, on line, is one: a hash of the two, spread
 * evenly over the hits.
 */
static inline bool kp_ll_lost(uint64_t line, uint64_t n, uint32_t ppm)
{
	uint64_t x = line ^ n * 0x9e3779b97f4a7c15ULL;

	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
	return (x ^ x >> 31) % 1000000 < ppm;
}

/* latencies, cycles */
struct kp_tlat {
	uint32_t l1, l2, ll, dram; /* load-to-use of a hit at each level, DRAM's */
	uint32_t dram_line;	   /* cycles a line takes on the memory channel */
	uint32_t dram_wline;	   /* cycles a line written back takes on it (0: dram_line) */
	uint32_t page_cross;	   /* cycles a stream's crossing into its next page costs the channel */
	uint32_t stlb, walk;	   /* a D-TLB miss the STLB hits; a walk */
	uint32_t string_uops;	   /* uops a fast string's 64-byte line takes */
	uint32_t ll_lost;	   /* of a million LL hits, those served at DRAM's latency */
	uint32_t ev[KP_EV_KINDS];  /* the events' fixed costs (CPUID, WRMSR...) */
};

/*
 * Sampling (sample.*): of each period intervals of len instructions, the
 * first goes to the core, its first warm instructions stepped but not
 * charged; the others run the caches and TLBs only (mode=cache's work),
 * and each PC's cycles are its measured ones scaled to all its
 * executions (kp_timing_row).  period 0 or 1: every instruction charged.
 */
struct kp_tsample {
	uint32_t period, len, warm;
};

/* the prefetchers' arguments (pf.*): L1's next-line (KP_PF_NEXT_*), IP-stride; L2's streamer */
struct kp_tpf {
	uint32_t next_line, stride_entries, stride_distance;
	uint32_t streams, stream_distance, stream_degree, next_page;
};

struct kp_timing {
	struct kp_core_cfg core_cfg;
	struct kp_bpred_cfg bp_cfg;
	struct kp_tpf pf_arg;
	struct kp_tsample sample;
	struct kp_tlat lat;
	const char *core_name; /* the core description's (core=), for the table */
	const char *l2_spec, *stlb_spec;
	struct kp_core core;
	struct kp_bpred bp;
	struct kp_pf pf_l1, pf_l2;
	struct kp_geom *g; /* the caches' geometry: D1, I1, LL */
	struct kp_cache l2;
	uint64_t *dirty; /* a bit per line of the first KP_TDIRTY_BYTES of RAM: dirtied since memory
			    sent it */
	struct kp_tlb stlb;
	struct kp_pwc pwc; /* the walker's upper levels: a walk within them costs no lat.walk */
	bool large;		   /* the kernel's 2 MiB pages inferred (kp_tlb_large) */
	struct kp_tblock *pending; /* the block executing, handed over when the next starts */
	bool charging;		   /* its execution is charged (not a sample's warm-up) */
	struct kp_tblock *skipped; /* between samples: the block executing, for the predictor */
	uint64_t clock;		   /* instructions of the blocks started, sampled or not */
	uint64_t ll_hits;	   /* LL hits timed, numbering kp_ll_lost's draws */
	uint64_t until, intervals; /* the clock at the interval's end; intervals begun */
	bool in_sample;		   /* the interval is a sample */
	bool before_sample; /* the interval is the one before a sample: the predictor learns */
	/* charged: instructions and their cycles by the stack's rows, for PCs never measured */
	uint64_t measured;
	double measured_cyc[KP_ST_N];
	/* its instructions' notes, and which of them this execution wrote */
	uint64_t noted[KP_TNOTES / 64];
	struct kp_tnote notes[KP_TNOTES];
	const struct kp_tinsn *string_at; /* the fast string whose iterations run */
	uint32_t string_bytes;		  /* its bytes not yet handed over */
	uint64_t unknown, insns; /* instructions handed over the decoder did not know, of all */
	uint64_t prefetches;
	/* the lines prefetched in the block executing, in order, each or'ed with KP_CORE_PF_DRAM
	 * when from memory, KP_CORE_PF_L2 when from L2 */
	uint64_t pf[KP_TPF_BLOCK];
	uint32_t npf; /* past KP_TPF_BLOCK a prefetch fills the caches, untimed */
	/* D1 sets, modulo 64, whose most recent line an L1 prefetch made: the plugin's
	 * shortcuts, which trust the line they saw last there, forget them (kp_run.c) */
	uint64_t d1_moved;
};

/* what the arguments may change: sampling's interval and warm-up (unused unless it samples) */
void kp_timing_defaults(struct kp_timing *t);
/* a key=value of the plugin's arguments the timing model takes: 1 taken, 0 not its, -1 bad */
int kp_timing_arg(struct kp_timing *t, const char *key, size_t klen, const char *v);
/*
 * after the arguments, with the caches' geometry g (its D1, LL and
 * TLBs are the timing model's): false (said on stderr) when a size is bad
 */
bool kp_timing_init(struct kp_timing *t, struct kp_geom *g);
/* ti from the instruction's bytes at va (its kind ev, already decoded) */
void kp_timing_decode(struct kp_timing *t, struct kp_tinsn *ti, const uint8_t *b, size_t len,
		      uint64_t va, uint8_t ev);
/* the bytes a block of n instructions takes, 64 more to align it */
size_t kp_tblock_size(uint32_t n);
/* a block of n instructions in mem (kp_tblock_size bytes, zeroed) */
struct kp_tblock *kp_tblock_init(void *mem, uint32_t n);
/*
 * once its instructions are decoded: where it starts and how it ends, in
 * the block's own line, which a block started between samples reads alone
 */
void kp_tblock_seal(struct kp_tblock *b);

/*
 * A data access of size bytes at va, pa (0: not known) by the instruction
 * ts of the block executing, and what the geometry said: a D1 miss, an LL
 * miss, a D-TLB miss.  The prefetchers' lines go into its caches.
 */
void kp_timing_access(struct kp_timing *t, const struct kp_tsite *ts, bool d1_miss, bool ll_miss,
		      bool tlb_miss, uint64_t pa, unsigned int size, bool store, uint64_t va);
/*
 * Between samples (no block noted), an access or fetch that missed L1 or
 * the first-level TLB: the state a sample would find stale, L2 and the
 * second-level TLB, sees it (the predictor each block's branch:
 * kp_timing_block)
 */
void kp_timing_warm(struct kp_timing *t, bool l1_miss, bool tlb_miss, uint64_t va, uint64_t pa,
		    unsigned int size);
/*
 * the block executing is noted for the core: its accesses go to
 * kp_timing_access; else only their misses, to kp_timing_warm
 */
static inline bool kp_timing_noting(const struct kp_timing *t)
{
	return t->pending;
}
/* an instruction fetch of ts that missed I1 (ll_miss: LL too) or the I-TLB */
void kp_timing_fetch(struct kp_timing *t, const struct kp_tsite *ts, bool i1_miss, bool ll_miss,
		     bool tlb_miss, uint64_t pa);
/*
 * what kp_timing_block takes for b: b, its instructions in its alignment's
 * low bits (KP_TBLOCK_TAG: that many or more, its own line says), so that
 * a block started between samples need not touch its line
 */
#define KP_TBLOCK_TAG 63
/* a block's execution starting at the clock is charged: past the sample's warm-up */
static inline bool kp_tsample_charged(const struct kp_timing *t)
{
	return t->clock + t->sample.len - t->until >= t->sample.warm;
}
/* kp_timing_block's every case */
void kp_timing_block_full(struct kp_timing *t, void *tag);
/*
 * A block starts executing, tagged (NULL: the window closes): the one
 * before it is handed over.  Between samples, away from an interval's end
 * and from the interval before a sample, it only moves the clock: that
 * case is inline, so that most blocks pay no call to the core's stepping
 * and its prologue (what kp_timing_block_full's kp_tsampled would do).
 */
static inline void kp_timing_block(struct kp_timing *t, void *tag)
{
	uint32_t n = (uintptr_t)tag & KP_TBLOCK_TAG;

	if (kp_likely(tag && !t->pending && !t->in_sample && !t->before_sample &&
		      n != KP_TBLOCK_TAG && t->sample.period > 1 && t->clock < t->until)) {
		t->skipped = (struct kp_tblock *)((uintptr_t)tag & ~(uintptr_t)KP_TBLOCK_TAG);
		t->charging = kp_tsample_charged(t);
		t->clock += n;
		t->npf = 0;
		return;
	}
	kp_timing_block_full(t, tag);
}
void *kp_tblock_tag(struct kp_tblock *b);
/*
 * the same from its first instruction's struct kp_tsite and its instruction
 * count, for a block laid out by kp_tblock_init
 */
static inline void *kp_tblock_tag_of(struct kp_tsite *first, uint32_t n)
{
	return (void *)((uintptr_t)((struct kp_tblock *)first - 1) |
			(n < KP_TBLOCK_TAG ? n : KP_TBLOCK_TAG));
}
/* the cycles the block's instructions were charged, into their PCs' */
void kp_timing_fold(struct kp_tblock *b);
/* the data TLBs were flushed */
void kp_timing_tlb_flush(struct kp_timing *t);
/*
 * the table's header lines of the model, and a PC's columns (kp_table.c),
 * runs: its executions, all of them
 */
void kp_timing_header(FILE *f, const struct kp_timing *t);
void kp_timing_row(FILE *f, const struct kp_timing *t, const struct kp_cyc *c, uint64_t runs);

#endif
