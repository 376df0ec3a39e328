/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What bounds a loop of a function's control-flow graph (symbols/cfg.h):
 * the compare whose outcome decides at a loop exit whether the loop goes
 * on, its two sides as expressions of the registers at the head of the
 * compare's block and of kernel memory, which side stays the same through
 * the loop (the bound) and which moves (the counter), and, with the
 * kernel's DWARF, both named in C ("slab->objects - 1", "idx").
 *
 * record --blocks puts the bound, as a fetch program (kp_fetch), into the
 * probe at that block's head, and so reads its value once per call; report
 * and diff --blocks set the loop's trips per call against it.
 */
#ifndef KP_LOOPBOUND_H
#define KP_LOOPBOUND_H

#include <stddef.h>
#include <linux/types.h>

#include "blocks_layout.h"

struct cfg;
struct cfg_text;
struct debuginfo;

struct loopbound {
	int loop;	       /* index into cfg.loops */
	int block;	       /* the block ending in the exit branch: its head's probe reads fetch */
	__u64 cmp;	       /* the instruction setting the flags the branch tests */
	__u64 jcc;	       /* the exit branch */
	struct kp_fetch fetch; /* the bound's value, from the registers at block's head */
	char bound[128];   /* in C from DWARF, "slab->objects"; else "*(u16 *)(%r15 + 0x2a) & 0x7fff" */
	char counter[64];  /* the side that moves: "idx"; else "%r14"; "" when not one register */
	char cond[256];	   /* what keeps the loop going, in C: "idx < slab->objects" */
};

/*
 * The bound of each loop of g whose exit compares a counter against
 * something the loop does not change, into *out (sorted by loop; loops
 * without one are left out; free() it).  text (ntext parts) is what g was
 * built from, at running-kernel addresses; di (NULL: registers only) names
 * the sides from the DWARF at those addresses less slide (the KASLR
 * slide: running minus link-time).  0 or -ENOMEM; a loop the analysis
 * cannot follow is no error.
 */
int loopbound_find(const struct cfg *g, const struct cfg_text *text, size_t ntext,
		   struct debuginfo *di, __s64 slide, struct loopbound **out, size_t *n);

#endif
