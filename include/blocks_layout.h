/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * record --blocks: map keys and values shared by bpf/blocks.bpf.c and
 * src/record/blocks.c.  A probe sits at each basic block head of a function;
 * its cookie says which function and block (KP_BLK_COOKIE).
 */
#ifndef KP_BLOCKS_LAYOUT_H
#define KP_BLOCKS_LAYOUT_H

#include "kprotperf.h"

/* --blocks functions in one recording */
#define KP_BLK_FUNCS 8
/* blocks of one function (--blocks-limit is at most this) */
#define KP_BLK_MAX 1024
/* loops of one function whose trips are counted per call; the rest get block counts only */
#define KP_BLK_LOOPS 16
/* calls of --blocks functions nested in one thread deeper than this are lost */
#define KP_BLK_DEPTH 4
/* binfo's loop for a block heading no counted loop */
#define KP_BLK_NO_LOOP 0xff

#define KP_BLK_COOKIE(func, block) ((__u64)(func) << 16 | (block))

/* What a block's probe does: binfo[func * KP_BLK_MAX + block]. */
struct kp_blk_info {
	__u32 insns; /* instructions the block executes */
	__u8 loop;   /* it heads counted loop loop, else KP_BLK_NO_LOOP */
	__u8 entry;  /* the function's entry block: a call begins */
	__u8 used;   /* set for the blocks of probed functions */
	__u8 pad;
};

/* One call of a --blocks function not yet returned. */
struct kp_blk_call {
	__u32 func;
	__u32 pad;
	__u64 insns;
	__u32 trips[KP_BLK_LOOPS]; /* executions of each counted loop's head */
	char ctx[KP_CTX_LEN];	   /* the slab cache's name, "" when none */
};

/* Per-thread task storage of record --blocks. */
struct kp_blk_thread {
	__u32 depth; /* open calls, innermost last; past KP_BLK_DEPTH: not recorded */
	__u32 pad;
	struct kp_blk_call call[KP_BLK_DEPTH];
};

/* Per function, per CPU. */
struct kp_blk_stats {
	__u64 calls;	  /* entered and recorded */
	__u64 complete;	  /* returned */
	__u64 lost_depth; /* entered too deep to record */
	__u64 lost_map;	  /* returned, but a per-call value found bvalues full */
	__u64 unmatched;  /* returned without their entry seen, or above a lost return */
};

enum kp_blk_what { KP_BLK_INSNS, KP_BLK_TRIPS };

/* A per-call value's key in bvalues: how many calls had it. */
struct kp_blk_value {
	__u16 func;
	__u8 what; /* enum kp_blk_what */
	__u8 loop; /* the counted loop for KP_BLK_TRIPS, else 0 */
	__u32 pad;
	__u64 value;
	char ctx[KP_CTX_LEN];
};

#endif
