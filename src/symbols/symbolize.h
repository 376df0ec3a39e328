/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel code addresses to function, inline chain and source line, from the
 * vmlinux DWARF opened by debuginfo.c.  Answers are cached: a report asks
 * about the same few thousand addresses again and again.
 */
#ifndef KP_SYMBOLIZE_H
#define KP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct debuginfo;
struct symbolizer;

/*
 * Inline nesting kept per address; deeper chains keep their innermost
 * SYM_MAX_FRAMES - 1 frames and the out-of-line function.
 */
#define SYM_MAX_FRAMES 8

struct sym_frame {
	const char *func; /* NULL when the DWARF names no function here */
	const char *file; /* source position in this frame, NULL when unknown */
	int line;	  /* 0 when unknown */
	bool inlined;	  /* an inlined instance rather than the out-of-line function */
	__u64 die;	  /* DWARF offset of the instance (or function) DIE: its identity */
};

/*
 * frames[0] is innermost: the inlined function (or the function itself) whose
 * code is at the address, with the address's own file:line.  Each outer frame
 * is the function that instance was inlined into, with the call site's
 * file:line; frames[n - 1] is the out-of-line function (inlined == false),
 * even when frames between had to be left out (see SYM_MAX_FRAMES).
 * n == 0 when the address is in no function the DWARF describes; frames[0]
 * still has the address's file:line when the line table knows it, as for
 * assembly.
 */
struct sym_result {
	unsigned int n;
	struct sym_frame frames[SYM_MAX_FRAMES];
};

/* A symbolizer over di, which must stay open until symbolizer_free(). */
int symbolizer_new(struct symbolizer **out, struct debuginfo *di);
/*
 * addr is a link-time (DWARF) address: subtract the KASLR slide first.  The
 * result stays valid until symbolizer_free().  Returns 0, or -ENOMEM.
 */
int symbolize(struct symbolizer *s, __u64 addr, const struct sym_result **out);
void symbolizer_free(struct symbolizer *s);

#endif
