/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every inlined instance of one function, from the vmlinux DWARF: where it
 * sits (parent function, call site, address ranges), where control enters it
 * and every address where control leaves it, found by disassembling its
 * ranges with capstone.  What record --func uses to time an inlined-only
 * function with kprobes at those addresses, and what report --inline and
 * annotate show.
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
	INLINE_EXIT_RETURN,	 /* a ret (or a jump to the return thunk) inside: probed at addr itself */
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
	__u64 die;	       /* DWARF offset of the DW_TAG_inlined_subroutine */
	__u64 entry;	       /* DW_AT_entry_pc, else the lowest address */
	struct inline_range *ranges;
	size_t nranges;
	__u64 bytes;	       /* sum of the ranges' sizes */
	struct inline_exit *exits; /* sorted by addr, no duplicates */
	size_t nexits;
};

/*
 * All instances of the function called name, ranges only (exits NULL).
 * Strings point into di.  -ENOENT when name is defined nowhere, 0 with
 * *n == 0 when it is never inlined.
 */
int inlines_find(struct debuginfo *di, const char *name, struct inline_instance **out, size_t *n);
/* Fill in->exits by disassembling in's ranges from the file's text. */
int inlines_exits(struct debuginfo *di, struct inline_instance *in);
void inlines_free(struct inline_instance *v, size_t n);

#endif
