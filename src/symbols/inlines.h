/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every inlined instance of one function, from the vmlinux DWARF: where it
 * sits (parent function, call site, address ranges), where control enters it
 * and every address where control leaves it, found by disassembling its
 * ranges with capstone.  What record --func uses to time an inlined-only
 * function with kprobes at those addresses, and what report --inline and
 * annotate show.  inlines.c finds the instances, analysis/inline_exits.c
 * their exits.
 */
#ifndef KP_INLINES_H
#define KP_INLINES_H

#include <stddef.h>
#include <linux/types.h>

struct debuginfo;

struct inline_range {
	__u64 lo, hi; /* [lo, hi), link-time addresses */
};

enum inline_exit_kind {
	INLINE_EXIT_FALLTHROUGH, /* execution runs past the end of a range */
	INLINE_EXIT_BRANCH,	 /* a jump from inside to addr, outside the ranges */
	INLINE_EXIT_RETURN,	 /* a ret (or jump to the return thunk) inside: probed at addr */
	INLINE_EXIT_TAIL_CALL,	 /* a jump to another function: probed at the jump itself */
};

struct inline_exit {
	__u64 addr; /* where the exit probe goes */
	enum inline_exit_kind kind;
};

struct inline_instance {
	const char *func;      /* the inlined function */
	const char *parent;    /* the out-of-line function it was expanded into */
	__u64 parent_lo;       /* parent's entry (its symbol's address) */
	const char *call_file; /* call site; NULL / 0 when unknown */
	int call_line;
	__u64 die;   /* DWARF offset of the DW_TAG_inlined_subroutine */
	__u64 entry; /* DW_AT_entry_pc, else the lowest address */
	struct inline_range *ranges;
	size_t nranges;
	__u64 bytes;		   /* sum of the ranges' sizes */
	struct inline_exit *exits; /* sorted by addr, no duplicates */
	size_t nexits;
	/* the parent's ranges, its .cold part included: a jump into them is a BRANCH exit */
	struct inline_range *parent_ranges;
	size_t nparent_ranges;
	/* indirect jumps and undecodable bytes in the ranges: ways out no exit covers */
	unsigned int unresolved;
	/* exits at conditional jumps to other functions: they fire early when not taken */
	unsigned int cond_exits;
};

/*
 * All instances of the function called name, ranges only (exits NULL).
 * Strings point into di.  -ENOENT when name is defined nowhere, 0 with
 * *n == 0 when it is never inlined.
 */
int inlines_find(struct debuginfo *di, const char *name, struct inline_instance **out, size_t *n);
/*
 * The one instance at DWARF offset die, as inlines_find() gives it: -ENOENT
 * when die is no inlined instance, -ENODATA when it has no code.  func_die
 * is the DWARF offset of the out-of-line function holding it, as
 * symbolize() gives it (frames[n - 1].die); 0 when unknown, which has it
 * looked for, walking die's whole unit.
 */
int inlines_at(struct debuginfo *di, __u64 die, __u64 func_die, struct inline_instance *out);
/* Free what one instance holds, not the instance itself. */
void inlines_free_one(struct inline_instance *in);
void inlines_free(struct inline_instance *v, size_t n);

#endif
