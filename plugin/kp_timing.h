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
 * accesses of a block's instructions are noted on them (stamped with the
 * block's execution) and the block is handed to the core when the next one
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

#define KP_TPF_BLOCK	512	     /* prefetches timed in one block's execution */
#define KP_TDIRTY_BYTES (4ull << 30) /* RAM whose dirty lines are tracked (-m 2G, below the PCI hole) */

/* the cycles charged to one PC, and their split (kp_core.h's stack) */
struct kp_cyc {
	double cycles;
	double stack[KP_ST_N];
};

/* branch kinds the predictor is asked about (kp_x86_deps.h's kinds, reduced) */
enum kp_tbranch { KP_TB_NONE, KP_TB_COND, KP_TB_CALL, KP_TB_CALL_IND, KP_TB_JMP_IND, KP_TB_RET };

/* One translated instruction: what was decoded, and what this execution met. */
struct kp_tinsn {
	/*
	 * its cycles, added up here, beside what the core reads of it, and
	 * into its PC's (cyc) by kp_timing_fold: a PC's record is another
	 * host cache line an instruction would touch
	 */
	struct kp_cyc acc;
	struct kp_cyc *cyc; /* its PC's */
	void *site, *fetch_site; /* kp_model.h's: its memory and fetch sites, NULL: none */
	uint64_t vaddr;
	uint64_t next; /* the address after it */
	uint64_t src, dst, addr;
	uint32_t lat, fixed;
	uint8_t uops, branch, serializing, string, known, loads, stores;
	/* this execution: valid when stamp is its block's */
	uint32_t stamp;
	uint32_t load_lat, load_tlb, store_lat, fetch_stall, bytes;
	uint32_t pf_off, npf; /* its prefetches' lines in kp_timing's pf[] */
	uint64_t load_line, store_line;
	uint32_t writebacks;
	uint8_t load_miss, load_dram, store_dram;
};

/* A translated block, for the timing model. */
struct kp_tblock {
	uint32_t n;
	uint32_t stamp; /* its executions, to tell this one's accesses */
	struct kp_tinsn *ti;
};

/* latencies, cycles */
struct kp_tlat {
	uint32_t l1, l2, ll, dram; /* load-to-use of a hit at each level, DRAM's */
	uint32_t dram_line;	   /* cycles a line takes on the memory channel */
	uint32_t stlb, walk;	   /* a D-TLB miss the STLB hits; a walk */
	uint32_t string_uops;	   /* uops a fast string's 64-byte line takes */
	uint32_t ev[KP_EV_KINDS];  /* the events' fixed costs (CPUID, WRMSR...) */
};

/* the prefetchers' arguments (pf.*): L1's next-line and IP-stride, L2's streamer */
struct kp_tpf {
	uint32_t next_line, stride_entries, stride_distance;
	uint32_t streams, stream_distance, stream_degree;
};

struct kp_timing {
	struct kp_core_cfg core_cfg;
	struct kp_bpred_cfg bp_cfg;
	struct kp_tpf pf_arg;
	struct kp_tlat lat;
	const char *core_name;	/* the core description's (core=), for the table */
	const char *l2_spec, *stlb_spec;
	struct kp_core core;
	struct kp_bpred bp;
	struct kp_pf pf_l1, pf_l2;
	struct kp_geom *g; /* the caches' geometry: D1, I1, LL */
	struct kp_cache l2;
	uint64_t *dirty; /* a bit per line of the first KP_TDIRTY_BYTES of RAM: dirtied since memory sent it */
	struct kp_tlb stlb;
	struct kp_tblock *pending; /* the block executing, handed over when the next starts */
	const struct kp_tinsn *string_at; /* the fast string whose iterations run */
	uint32_t string_bytes;		  /* its bytes not yet handed over */
	uint64_t unknown, insns;	  /* instructions handed over the decoder did not know, of all */
	uint64_t prefetches;
	/* the lines prefetched in the block executing, in order, each or'ed with KP_CORE_PF_DRAM when from memory */
	uint64_t pf[KP_TPF_BLOCK];
	uint32_t npf; /* past KP_TPF_BLOCK a prefetch fills the caches, untimed */
};

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

/*
 * A data access of size bytes at va, pa (0: not known) by the instruction
 * ti of the block executing, and what the geometry said: a D1 miss, an LL
 * miss, a D-TLB miss.  The prefetchers' lines go into its caches.
 */
void kp_timing_access(struct kp_timing *t, struct kp_tinsn *ti, bool d1_miss, bool ll_miss,
		      bool tlb_miss, uint64_t pa, unsigned int size, bool store, uint64_t va);
/* an instruction fetch of ti that missed I1 (ll_miss: LL too) or the I-TLB */
void kp_timing_fetch(struct kp_timing *t, struct kp_tinsn *ti, bool i1_miss,
		     bool ll_miss, bool tlb_miss, uint64_t pa);
/* block b starts executing (NULL: the window closes): the one before it is handed over */
void kp_timing_block(struct kp_timing *t, struct kp_tblock *b);
/* the cycles the block's instructions were charged, into their PCs' */
void kp_timing_fold(struct kp_tblock *b);
/* the data TLBs were flushed */
void kp_timing_tlb_flush(struct kp_timing *t);
/* the table's header lines of the model, and a PC's columns (kp_table.c) */
void kp_timing_header(FILE *f, const struct kp_timing *t);
void kp_timing_row(FILE *f, const struct kp_cyc *c);

#endif
