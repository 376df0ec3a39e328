/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A --blocks function (data/blocks_read.h) in source terms, for report
 * --blocks and diff --blocks: each block's instructions as the recorded
 * kernel's vmlinux has them (found by build-id, KASLR undone by the
 * recorded _stext: symbols/kernel_dwarf.h), each with its source line, and
 * the function's source lines with the blocks that have code on each; and
 * its loops' bounds, as text and JSON.
 */
#ifndef KP_BLOCKS_SRC_H
#define KP_BLOCKS_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct blocks_func;
struct json;
struct kernel_dwarf;
struct sym_result;

/* One instruction of a block, decoded from the vmlinux's text. */
struct blocks_src_insn {
	__u64 addr;	  /* running-kernel address */
	char text[192];	  /* AT&T syntax */
	const char *file; /* "??" when the line table has none */
	int line;
};

/* A block with code on a source line, and its instructions there. */
struct blocks_src_part {
	size_t block;
	long long insns;
};

struct blocks_src_line {
	const char *file;
	int line;
	struct blocks_src_part *parts; /* each block once, in block order */
	size_t nparts;
};

struct blocks_src {
	const struct blocks_func *f;
	struct kernel_dwarf *kd;       /* NULL: no text, no lines */
	__u64 slide;		       /* running address - link-time address */
	bool text_at_addr;	       /* the vmlinux has text at the function's address */
	bool text;		       /* every block decoded: the lines are whole */
	struct blocks_src_insn **insn; /* per block, NULL when not decoded */
	size_t *ninsn;
	struct blocks_src_line *lines; /* sorted by file, then line */
	size_t nlines;
};

/* f's blocks decoded and their lines, as far as kd (may be NULL) has them; -ENOMEM. */
int blocks_src_open(struct blocks_src *s, const struct blocks_func *f, struct kernel_dwarf *kd);
void blocks_src_close(struct blocks_src *s);

/* The innermost file:line of running address addr (file NULL when unknown), and its frames. */
const struct sym_result *blocks_src_at(const struct blocks_src *s, __u64 addr, const char **file,
				       int *line);

/*
 * Line l's executions (of its blocks, each once) and instructions executed
 * under count (executions per block; blocks below 0, unknown, left out):
 * false when every block of the line is unknown.
 */
bool blocks_src_line_counts(const struct blocks_src_line *l, const long long *count,
			    long long *execs, long long *insns);

/*
 * Where a reader finds loop in the source: the line of the compare that
 * bounds it, when it has a bound and its block was decoded (a rotated loop's
 * head may lie in code inlined into its body); else its head's first line;
 * file NULL when unknown.
 */
void blocks_src_loop_line(const struct blocks_src *s, int loop, const char **file, int *line);
/*
 * Loop's bound, when it has one, as lines of text, each starting with
 * indent: the bound, compared at which line (in which block), what keeps the
 * loop going; how the trips per call follow it; its values per slab cache
 * (the first top of them).  -ENOMEM.
 */
int blocks_src_bound_text(FILE *out, const struct blocks_src *s, int loop, const char *indent,
			  size_t top);
/* The same as the JSON object key (null without one): block, file, line, expr, counter, cond, ...
 */
int blocks_src_bound_json(struct json *j, const char *key, const struct blocks_src *s, int loop);

#endif
