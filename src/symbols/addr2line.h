/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel addresses printed the way eu-addr2line -f -i prints them (less the
 * columns), so that the two can be compared line by line.
 */
#ifndef KP_ADDR2LINE_H
#define KP_ADDR2LINE_H

#include <stdbool.h>
#include <linux/types.h>

struct addr2line;
struct debuginfo;

struct addr2line_opts {
	bool addresses; /* each address (as 0x%016x) before its lines */
	bool functions; /* a function line before each FILE:LINE line */
	bool inlines;	/* also the functions the code was inlined into */
	bool basenames; /* file names without their directories */
	__u64 slide;	/* subtracted from every address */
};

/* Hex with 0x optional, white space after it allowed: 0, or -EINVAL. */
int addr2line_hex(const char *s, __u64 *out);

/* A printer for the vmlinux at path, opened as di, which must stay open until addr2line_free(). */
int addr2line_new(struct addr2line **out, struct debuginfo *di, const char *path,
		  const struct addr2line_opts *o);
/*
 * Print the lines of one address, given as text; one that does not parse
 * prints as unknown, so that output stays in step with input.  0 or -errno.
 */
int addr2line_print(struct addr2line *a, const char *text);
void addr2line_free(struct addr2line *a);

#endif
